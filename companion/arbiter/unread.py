"""Buttons that could not be read for a while, on the record.

When the GPIO reader process dies (killed, crashed) the station buttons it read are read by
nobody until it is started again, a second or three later: a press made then is lost for good
(the kernel keeps no events for lines nobody holds). Races wait for the reader's return, and every
screen says "Buttons not responding" meanwhile; but a press in that gap is simply not in the game,
and the game's verdicts cannot show it. So the gap itself goes on the record: the game's journal
gets an ``"type": "unread"`` line once the reader is back, naming the source and how long it
could not be read, and ``companion replay`` (``--json``, ``--explain``) tells it. It changes
nothing in the game; a journal without one replays as ever (``docs/JOURNAL.md``, "Unread buttons").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

UNREAD = "unread"
"""The ``type`` of the journal line."""
SOURCES = ("gpio",)
"""The input sources whose presses can be lost while nobody reads them (a button board keeps its
own presses and sends them, or says which are held, when it is back)."""


@dataclass(frozen=True)
class UnreadNote:
    """``source``'s buttons were not read for ``for_s`` seconds, up to journal time ``t``."""

    source: str
    for_s: float
    t: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {"type": UNREAD, "source": self.source, "for_s": self.for_s}

    def record(self) -> dict[str, Any]:
        """For ``companion replay --json``."""
        return {"t": self.t, "source": self.source, "for_s": self.for_s}

    def told(self) -> str:
        """``the GPIO buttons were not read for 2.8 s (their reader had stopped): a press made
        then is missing from the game``."""
        return (f"the {self.source.upper()} buttons were not read for {self.for_s:.1f} s (their reader had "
                f"stopped): a press made then is missing from the game")


def parse_unread(obj: dict[str, Any]) -> UnreadNote:
    """An unread line's fields, checked; ValueError names the field and what it must be."""
    unknown = sorted(set(obj) - {"type", "t", "crc", "source", "for_s"})
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} in an unread line (it has source, for_s)")
    if obj.get("source") not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)} in an unread line")
    for_s = obj.get("for_s")
    if isinstance(for_s, bool) or not isinstance(for_s, (int, float)) or for_s < 0:
        raise ValueError("for_s must be a number of seconds (0 or more) in an unread line")
    return UnreadNote(obj["source"], for_s, obj.get("t", 0))


def unread_notes(lines: Iterable[str | bytes]) -> list[UnreadNote]:
    """The unread lines of a journal that replays, in journal order."""
    out = []
    for text in lines:
        try:
            obj = json.loads(text)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("type") == UNREAD:
            out.append(parse_unread(obj))
    return out
