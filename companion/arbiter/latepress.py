"""A late press on the record: the journal line that keeps it, and how it is told.

A race decided without a press that would have changed its verdict (:class:`~companion.arbiter.race.
LatePress`: its source delivered it after the race had waited long enough) keeps its verdict:
the game has acted on it. But a verdict that may be wrong must not live only in the log. The
table writes a ``"type": "late"`` line to the game's journal when the press arrives (the race's
own line is already written), so ``companion replay``, ``companion games`` and ``companion
history`` can tell the players and the box's maker afterwards; replay reads past it, and a
journal without any replays as ever (``docs/JOURNAL.md``, "Late presses").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from .race import LATE_KINDS, LatePress

LATE = "late"
"""The ``type`` of a late press's journal line."""
FIELDS = ("player", "press", "behind_ms", "verdict", "would_be", "delay_ms")
"""A late line's own fields, besides ``type``, ``t`` and ``crc``."""
MS = 1_000_000


@dataclass(frozen=True)
class LateNote:
    """A late press as the journal keeps it: players by index, times in ms."""

    player: int
    press: str
    """One of :data:`~companion.arbiter.race.LATE_KINDS`: a press, a false start, a wrong answer."""
    behind_ms: float
    """The press's reaction time minus the winners' fastest (below 0: before the winning press)."""
    verdict: tuple[int, ...]
    """Who the race named: the winner, or the players of a tie."""
    would_be: tuple[int, ...]
    """Who it would have named with the press (none: nobody would have won yet)."""
    delay_ms: float | None
    """How long after its edge the press reached the box (GPIO); None from another source."""
    t: float = 0.0
    """Journal time: when the box found it (seconds since the game started)."""

    @classmethod
    def of(cls, press: LatePress, delay_ns: int | None) -> LateNote:
        return cls(press.station, press.kind, round(press.behind_ns / MS, 3), tuple(sorted(press.winners)),
                   tuple(sorted(press.would_be)), None if delay_ns is None else round(delay_ns / MS, 3))

    def as_json(self) -> dict[str, Any]:
        return {"type": LATE, "player": self.player, "press": self.press, "behind_ms": self.behind_ms,
                "verdict": list(self.verdict), "would_be": list(self.would_be), "delay_ms": self.delay_ms}

    def record(self, name: Callable[[int], Any]) -> dict[str, Any]:
        """For the commands' JSON: the line's fields and its ``t``, each player as ``name`` gives
        it (``companion history --json`` by name, ``companion replay --json`` by index)."""
        return {"t": self.t, "player": name(self.player), "press": self.press, "behind_ms": self.behind_ms,
                "delay_ms": self.delay_ms, "verdict": [name(p) for p in self.verdict],
                "would_be": [name(p) for p in self.would_be]}

    def told(self, name: Callable[[int], str]) -> str:
        """In words, players named by ``name``: ``Ben's press 5.0 ms before the winning one
        reached the box 55.0 ms after it was made, once the race was decided: with it the
        verdict would have been a tie of Ana and Ben, not Ana``."""
        when = f"{abs(self.behind_ms):.1f} ms {'before' if self.behind_ms < 0 else 'after'} the winning one"
        what = {"press": "press", "false_start": "false start", "wrong": "wrong answer"}[self.press]
        came = ("reached the box once the race was decided (not from GPIO: its source reported past it "
                "first)" if self.delay_ms is None else
                f"reached the box {self.delay_ms:.1f} ms after it was made, once the race was decided")
        return (f"{name(self.player)}'s {what} {when} {came}: with it the verdict would have been "
                f"{verdict_words(self.would_be, name)}, not {verdict_words(self.verdict, name)}")


def verdict_words(players: tuple[int, ...], name: Callable[[int], str]) -> str:
    """``Ana``, ``a tie of Ana and Ben``, or ``no winner yet``."""
    if not players:
        return "no winner yet"
    named = " and ".join(name(p) for p in players)
    return named if len(players) == 1 else f"a tie of {named}"


def parse_late(obj: dict[str, Any], players: int) -> LateNote:
    """A late line's fields, checked; ValueError names the field and what it must be."""
    unknown = sorted(set(obj) - {"type", "t", "crc", *FIELDS})
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} in a late line (it has {', '.join(FIELDS)})")

    def player(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players

    def ms(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    if not player(obj.get("player")):
        raise ValueError(f"player must be a player index (0 to {players - 1}) in a late line")
    if obj.get("press") not in LATE_KINDS:
        raise ValueError(f"press must be one of {', '.join(LATE_KINDS)} in a late line")
    if not ms(obj.get("behind_ms")):
        raise ValueError("behind_ms must be a number of milliseconds in a late line")
    for key in ("verdict", "would_be"):
        value = obj.get(key)
        if not isinstance(value, list) or not all(player(p) for p in value) or len(set(value)) != len(value):
            raise ValueError(f"{key} must list different player indices in a late line")
    delay = obj.get("delay_ms")
    if delay is not None and not (ms(delay) and delay >= 0):
        raise ValueError("delay_ms must be a number of milliseconds (0 or more) or null in a late line")
    return LateNote(obj["player"], obj["press"], obj["behind_ms"], tuple(obj["verdict"]), tuple(obj["would_be"]),
                    delay, obj.get("t", 0))


def late_notes(lines: Iterable[str | bytes], players: int) -> list[LateNote]:
    """The late presses of a journal that replays (:func:`companion.record.journal.replay` has checked
    every line), in journal order."""
    out = []
    for text in lines:
        try:
            obj = json.loads(text)
        except ValueError:  # a blank line, or one replay has named already
            continue
        if isinstance(obj, dict) and obj.get("type") == LATE:
            out.append(parse_late(obj, players))
    return out


def late_summary(notes: list[LateNote]) -> str:
    """``1 late press (55.0 ms late)``, ``2 late presses (up to 61.2 ms late)``; "" for none."""
    if not notes:
        return ""
    delays = [n.delay_ms for n in notes if n.delay_ms is not None]
    count = f"{len(notes)} late press{'es' if len(notes) > 1 else ''}"
    if not delays:
        return count
    return f"{count} ({'up to ' if len(delays) > 1 else ''}{max(delays):.1f} ms late)"
