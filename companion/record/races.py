"""Reading a journal's race fields: when each station's screen showed a race, and each
player's reaction time, on the action line that ended it.

Separate from replay because these fields are informational: replay reads past them, and
everything here reads them back leniently (a damaged entry is left out, never an error), for
``companion replay``, its ``--json``, history and the table screen's reaction times.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

NOTES = ("onset_ms", "light_ms", "reaction_ms", "error_ms", "question")
"""Informational fields the box adds to the action line that ends a race (claim, draw, start, buzz):
per player, ``onset_ms`` is when their screen showed the race, in ms after the race opened, and
``reaction_ms`` their counted press's time after that onset; null for a player not in the race
or without a counted press. With a light sensor on every station the line also has
``light_ms``, when each player's panel lit up, and ``reaction_ms`` counts from that instead. A
race a phone played in also has ``error_ms``: per player, how far their reaction time may be
from the truth (a phone's clock sync, its press's and its screen's; 0 for a wired station, null
where ``reaction_ms`` is). The closest game's ``start`` also names the ``question`` its race
answered (``[a, b]`` for a x b). They are not part of the action: replay reads past them."""
LONGEST_REACTION_MS = 3_600_000
"""A reaction time beyond an hour is no reaction time (a hand-edited or damaged line)."""


def _time_ms(value: Any) -> float | None:
    """A race field's entry as a time in ms, or None for one that is not (null, a hand-edited
    or damaged entry: the fields are informational, and replay does not check them)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= LONGEST_REACTION_MS:
        return float(value)
    return None


def _per_player(obj: dict, key: str, players: int) -> list[float | None] | None:
    """A race field (:data:`NOTES`) as one time or None per player; None for a line without it."""
    values = obj.get(key)
    if not isinstance(values, list):
        return None
    return [_time_ms(values[p]) if p < len(values) else None for p in range(players)]


def reaction_times(obj: Any, players: int) -> list[tuple[float, int]] | None:
    """A race line's counted presses as ``(reaction ms, player)``, fastest first; None for a line
    without race fields. Entries that are not a time are left out."""
    reactions = _per_player(obj, "reaction_ms", players) if isinstance(obj, dict) else None
    if reactions is None:
        return None
    return sorted((ms, p) for p, ms in enumerate(reactions) if ms is not None)


def race_winners(obj: dict, players: int) -> list[int]:
    """Who a race's line names: the claimer or starter (``player``), or a draw's ``players``;
    what is not a player index is left out."""
    named = obj.get("players")
    named = named if isinstance(named, list) else [obj.get("player")]
    return [p for p in named if isinstance(p, int) and not isinstance(p, bool) and 0 <= p < players]


def race_lines(lines: Iterable[str | bytes]) -> Iterator[dict[str, Any]]:
    """The lines of a journal that replays which end a race (they carry :data:`NOTES`)."""
    for text in lines:
        try:
            obj = json.loads(text)
        except ValueError:  # not JSON, not UTF-8, or a number too long: replay has said so
            continue
        if isinstance(obj, dict) and isinstance(obj.get("reaction_ms"), list):
            yield obj


def race_json(obj: dict[str, Any], players: int) -> dict[str, Any]:
    """A race's line for ``companion replay --json``: when it was decided, the action it led to,
    who it named, and per player index the onset and the reaction time (null: not a time)."""
    out = {"t": obj.get("t", 0), "action": obj.get("action"), "winners": race_winners(obj, players),
           "onset_ms": _per_player(obj, "onset_ms", players) or [None] * players,
           "reaction_ms": _per_player(obj, "reaction_ms", players)}
    if isinstance(obj.get("light_ms"), list):
        out["light_ms"] = _per_player(obj, "light_ms", players)
    if isinstance(obj.get("error_ms"), list):
        out["error_ms"] = _per_player(obj, "error_ms", players)
    question = race_question(obj)
    if question is not None:
        out["question"] = list(question)
    return out


def race_question(obj: dict[str, Any]) -> tuple[int, int] | None:
    """The closest game's ``question`` a race line names (``[a, b]`` for a x b, each 1-99);
    None for a line without one (an older or hand-written journal) or one that is not."""
    question = obj.get("question")
    if isinstance(question, list) and len(question) == 2 \
            and all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 99 for n in question):
        return question[0], question[1]
    return None


def reaction_lines(lines: Iterable[str | bytes], players: tuple[str, ...]) -> list[str]:
    """One line per race a journal records with its reaction times (see :data:`NOTES`), for
    ``companion replay``: ``4.460 s claim: Ben 285 ms, Ana 300 ms``, fastest first."""
    out = []
    for obj in race_lines(lines):
        timed = reaction_times(obj, len(players)) or []
        who = ", ".join(f"{players[p]} {ms:.0f} ms" for ms, p in timed) or "nobody counted"
        out.append(f"{obj.get('t', 0):.3f} s {obj.get('action')}: {who}")
    return out
