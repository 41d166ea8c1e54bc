"""Game options: frozen dataclasses checked on the way in, with errors that name the field.

A game declares its options as a frozen dataclass. Each field may carry metadata:

- ``choices``: the values the lobby cycles through (and, if ``strict`` is true, the only legal
  values);
- ``min`` / ``max``: inclusive numeric bounds;
- ``help``: one line for the lobby and for error messages;
- ``brief`` (or ``briefs``, a brief per value): the lobby's short line under the option;
- ``check``: a function of the value returning what is wrong with it (text) or None, for rules a
  type and bounds cannot say (a known deck name, a list of token values);
- ``typed_check``: the same, run only on a value typed on a command line, for what only the box
  that starts the game needs (a word file that can be read; a journal replays without it);
- ``show`` and ``brief_of``: functions of the value giving what the lobby shows for it and its
  brief, for values that are not words of their own (a question pack's file: its name, and how
  many questions it has).

Options come from journals, profiles and the lobby, so every value is checked here, once.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Mapping


SCREEN_TIE_WINDOW_MS = 11
"""The default tie window of a race its screens open (Triangle's 0, the closest game's question).

Each panel shows a change at its own row scan, a free-running oscillator per panel: the light
onsets of two stations can differ by up to a frame after the box has timed each from its own
command (:mod:`companion.adapters.panelscan`). At the box's panel clock a frame is at most 10.4 ms by the
SSD1306 datasheet's own figures, so two presses closer than 11 ms cannot be told apart by the
screens, and the race calls them a tie ("Too close for screens"). A box with a light sensor on
every station times each from its light and can use a smaller window: ``companion selftest``
says which."""


class OptionError(ValueError):
    """A bad option: names the field and what it allows."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"option {field!r}: {message}")
        self.field = field


def _allowed(field: dataclasses.Field) -> str:
    meta = field.metadata
    if meta.get("strict") and "choices" in meta:
        return "one of " + ", ".join(repr(c) for c in meta["choices"])
    parts = []
    if "min" in meta:
        parts.append(f">= {meta['min']}")
    if "max" in meta:
        parts.append(f"<= {meta['max']}")
    return " and ".join(parts)


def _kind(cls: type, field: dataclasses.Field) -> tuple[type, bool]:
    """The field's value type, and whether it may be None."""
    hint = typing.get_type_hints(cls)[field.name]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0], len(args) < len(typing.get_args(hint))
    return hint, False


def _check_value(cls: type, field: dataclasses.Field, value: Any) -> Any:
    kind, optional = _kind(cls, field)
    if value is None:
        if optional:
            return None
        raise OptionError(field.name, "must be set (null is not allowed)")
    if kind is bool:
        if not isinstance(value, bool):
            raise OptionError(field.name, f"must be true or false, not {value!r}")
    elif kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise OptionError(field.name, f"must be a whole number, not {value!r}")
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise OptionError(field.name, f"must be a number, not {value!r}")
        value = float(value)
    elif kind is str:
        if not isinstance(value, str):
            raise OptionError(field.name, f"must be text, not {value!r}")
    meta = field.metadata
    if meta.get("strict") and "choices" in meta and value not in meta["choices"]:
        raise OptionError(field.name, f"must be {_allowed(field)}, not {value!r}")
    if "min" in meta and value < meta["min"]:
        raise OptionError(field.name, f"must be {_allowed(field)}, not {value!r}")
    if "max" in meta and value > meta["max"]:
        raise OptionError(field.name, f"must be {_allowed(field)}, not {value!r}")
    if "check" in meta and (problem := meta["check"](value)):
        raise OptionError(field.name, problem)
    return value


def parse_options(cls: type, given: Mapping[str, Any] | None) -> Any:
    """Build the options dataclass ``cls`` from a mapping, checking every field.

    Unknown keys are an error that lists the known ones; missing keys take their defaults.
    """
    given = dict(given or {})
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise OptionError(unknown[0], "unknown option; known options are " + ", ".join(fields))
    values = {name: _check_value(cls, fields[name], value) for name, value in given.items()}
    return cls(**values)


TRUE, FALSE, NONE = ("true", "on", "yes"), ("false", "off", "no"), ("none", "null")


def option_from_text(cls: type, name: str, text: str) -> Any:
    """An option's value typed on a command line (``on``, ``12``, ``words.txt``), by the field's
    type; :func:`parse_options` then checks it like any other value."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    if name not in fields:
        raise OptionError(name, "unknown option; known options are " + ", ".join(fields))
    kind, optional = _kind(cls, fields[name])
    word = text.strip().lower()
    if optional and word in NONE:
        return None
    if kind is bool and word in TRUE + FALSE:
        return word in TRUE
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass  # parse_options names the field and what it allows
    if "typed_check" in fields[name].metadata and (problem := fields[name].metadata["typed_check"](text)):
        raise OptionError(name, problem)
    return text


def options_dict(options: Any) -> dict[str, Any]:
    """The options as a plain mapping, as a journal header stores them."""
    return dataclasses.asdict(options)


def lobby_choices(options_cls: type) -> list[tuple[str, tuple[Any, ...], str]]:
    """(field, values the lobby offers, help) for every option that has lobby choices."""
    out = []
    for f in dataclasses.fields(options_cls):
        if "choices" in f.metadata:
            out.append((f.name, tuple(f.metadata["choices"]), f.metadata.get("help", "")))
    return out


def option_label(options_cls: type, name: str, value: Any = None) -> tuple[str, str]:
    """(label, brief) of an option for the lobby: a short name for its row and what it does in
    one line, from the field's ``label`` and ``brief`` (the name itself and the ``help`` if not
    given). A field whose values do different things has ``briefs``, one per value: what
    ``value`` does (under ``<off>`` what off means, not what on would do)."""
    meta = {f.name: f.metadata for f in dataclasses.fields(options_cls)}[name]
    brief = meta.get("briefs", {}).get(value, meta.get("brief", meta.get("help", "")))
    if "brief_of" in meta:
        brief = meta["brief_of"](value)
    return meta.get("label", name.replace("_", " ")), brief


def show_value(options_cls: type, name: str, value: Any) -> str:
    """An option's value as the lobby shows it: ``off``/``on`` (also for the field's ``off``
    value, a lockout of 0), a number with its unit (the field's ``unit``, else ``ms`` or ``s``
    from a name ending in ``_ms`` or ``_s``)."""
    meta = {f.name: f.metadata for f in dataclasses.fields(options_cls)}[name]
    if "show" in meta and value is not None:
        return meta["show"](value)
    if value is None or ("off" in meta and value == meta["off"] and not isinstance(value, bool)):
        return "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    unit = meta.get("unit", "ms" if name.endswith("_ms") else "s" if name.endswith("_s") else "")
    return f"{value}{unit}" if isinstance(value, (int, float)) else str(value)
