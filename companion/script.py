"""Scripts of timed presses, for headless runs, demos and end-to-end tests.

One press per line: ``SECONDS STATION KEY [HOLD]`` — when to press (seconds after start),
the station as numbered on the box (from 1), the key (slap, left, ok, right) and how long to hold
it (default 0.05 s). ``#`` starts a comment. Example::

    # Ana takes the centre
    0.5  1 ok
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Sequence

from .arbiter.inputs import KEYS
from .untrusted import SCRIPT_BYTES, Unreadable, finite_number, read_text

LONGEST_S = 24 * 3600
"""A script's times are at most a day: anything longer is a typo, and would never end."""


class ScriptError(ValueError):
    pass


@dataclass(frozen=True)
class ScriptPress:
    at_s: float
    station: int
    """0-based index (the script says 1-based)."""
    key: str
    hold_s: float = 0.05


def parse_script(text: str, stations: int | Sequence[Collection[str]], source: str = "script") -> list[ScriptPress]:
    """``stations``: how many, each with every key; or each station's keys (a profile's
    :meth:`~companion.profile.Profile.station_keys`), so a press of a key a station does not
    have (a buzzer-only seat's ``ok``) is refused here, not lost on a pin that is not wired."""
    keys = [frozenset(KEYS)] * stations if isinstance(stations, int) else list(stations)
    presses = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{source} line {number}"
        if len(words) not in (3, 4):
            raise ScriptError(f"{where}: expected SECONDS STATION KEY [HOLD], got {line.strip()!r}")
        try:
            at_s = finite_number(words[0], "SECONDS")
            hold_s = finite_number(words[3], "HOLD") if len(words) == 4 else 0.05
            station = int(words[1]) if words[1].isdecimal() and len(words[1]) < 3 else 0
        except ValueError as e:
            raise ScriptError(f"{where}: {e}") from None
        if not 0 <= at_s <= LONGEST_S or not 0 < hold_s <= LONGEST_S:
            raise ScriptError(f"{where}: SECONDS must be from 0 and HOLD above 0, both at most {LONGEST_S:g}")
        if not 1 <= station <= len(keys):
            raise ScriptError(f"{where}: station must be from 1 to {len(keys)}, not {words[1]!r}")
        if words[2] not in KEYS:
            raise ScriptError(f"{where}: key must be one of {', '.join(KEYS)}, not {words[2]!r}")
        if words[2] not in keys[station - 1]:
            raise ScriptError(f"{where}: station {station} has no {words[2]} key, only "
                              f"{', '.join(k for k in KEYS if k in keys[station - 1])}")
        presses.append(ScriptPress(at_s, station - 1, words[2], hold_s))
    return sorted(presses, key=lambda p: p.at_s)


def load_script(path: Path | str, stations: int | Sequence[Collection[str]]) -> list[ScriptPress]:
    """Read and check a script file; :class:`ScriptError` naming the file, line and reason."""
    try:
        text = read_text(path, SCRIPT_BYTES)
    except Unreadable as e:
        raise ScriptError(str(e)) from None
    return parse_script(text, stations, str(path))


def edges(presses: list[ScriptPress]) -> list[tuple[float, int, str, bool]]:
    """(seconds, station, key, pressed) for every press and release, in time order."""
    out = []
    for p in presses:
        out.append((p.at_s, p.station, p.key, True))
        out.append((p.at_s + p.hold_s, p.station, p.key, False))
    return sorted(out, key=lambda e: e[0])
