"""Buzzer cues as data: each is a short melody of (note, seconds), ``None`` for a rest.

The hardware buzzer (gpiozero ``TonalBuzzer``) and the simulator's mixer play the same data, and
every cue has a visual twin on the displays, so a player who cannot hear the buzzer misses
nothing. Notes stay within A3..A7, the range the buzzer adapter is built for.
"""

from __future__ import annotations

Melody = tuple[tuple[str | None, float], ...]

CUES: dict[str, Melody] = {
    "tick": (("A5", 0.08),),
    "go": (("A6", 0.30),),
    "decided": (("E6", 0.08), ("A6", 0.12)),
    "tie": (("A5", 0.10), (None, 0.05), ("A5", 0.10)),
    "correct": (("C6", 0.08), ("E6", 0.08), ("A6", 0.16)),
    "wrong": (("A4", 0.25),),
    "last_seconds": (("E6", 0.05),),
    "time_up": (("A6", 0.15), ("A5", 0.15), ("A6", 0.15), ("A5", 0.30)),
    "move": (("E5", 0.05),),
    "pass": (("C5", 0.08),),
    "auto_pass": (("C5", 0.08), (None, 0.04), ("A4", 0.12)),
    "illegal": (("A3", 0.20),),
    "take_back": (("A5", 0.06), ("E5", 0.06), ("C5", 0.10)),
    "win": (("C6", 0.10), ("E6", 0.10), ("G6", 0.10), ("C7", 0.30)),
    "draw": (("E5", 0.15), ("E5", 0.15)),
    "unplugged": (("E5", 0.15), ("A4", 0.15), ("E4", 0.30)),
}


def steps(cue: str) -> list[tuple[float, str | None]]:
    """When each note of ``cue`` starts, in seconds from the cue's start; ends with a silence."""
    out, at = [], 0.0
    for note, seconds in CUES[cue]:
        out.append((at, note))
        at += seconds
    out.append((at, None))
    return out
