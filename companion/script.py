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

from .inputs import KEYS


class ScriptError(ValueError):
    pass


@dataclass(frozen=True)
class ScriptPress:
    at_s: float
    station: int
    """0-based index (the script says 1-based)."""
    key: str
    hold_s: float = 0.05


def parse_script(text: str, stations: int, source: str = "script") -> list[ScriptPress]:
    presses = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{source} line {number}"
        if len(words) not in (3, 4):
            raise ScriptError(f"{where}: expected SECONDS STATION KEY [HOLD], got {line.strip()!r}")
        try:
            at_s, hold_s = float(words[0]), float(words[3]) if len(words) == 4 else 0.05
            station = int(words[1])
        except ValueError:
            raise ScriptError(f"{where}: SECONDS and HOLD must be numbers, STATION a whole number") from None
        if not 1 <= station <= stations:
            raise ScriptError(f"{where}: station must be from 1 to {stations}, not {station}")
        if words[2] not in KEYS:
            raise ScriptError(f"{where}: key must be one of {', '.join(KEYS)}, not {words[2]!r}")
        if at_s < 0 or hold_s <= 0:
            raise ScriptError(f"{where}: times must be positive")
        presses.append(ScriptPress(at_s, station - 1, words[2], hold_s))
    return sorted(presses, key=lambda p: p.at_s)


def load_script(path: Path | str, stations: int) -> list[ScriptPress]:
    path = Path(path)
    return parse_script(path.read_text(encoding="utf-8"), stations, str(path))


def edges(presses: list[ScriptPress]) -> list[tuple[float, int, str, bool]]:
    """(seconds, station, key, pressed) for every press and release, in time order."""
    out = []
    for p in presses:
        out.append((p.at_s, p.station, p.key, True))
        out.append((p.at_s + p.hold_s, p.station, p.key, False))
    return sorted(out, key=lambda e: e[0])
