"""The seats a bot took over during a game, from the journal's ``seat`` lines, and how a result
flags them: ``Ana (bot from turn 3 round 2)``, ``... to turn 4 round 1`` when the player came
back, in the game's own units (each line's ``when``, as the box wrote it).

One place for the panels' results, the table screen, ``companion replay``, ``replay --explain``
and ``companion games``, so a seat is flagged the same wherever a result is read.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from .header import SEAT, Header
from .journal import replay
from .match import Match

Spans = dict[int, tuple[str, str | None]]
"""Player -> (from when a bot played the seat, until when: None while it still does)."""


def seat_changed(spans: Spans, player: int, level: str | None, when: str) -> None:
    """Note a seat line: a bot plays ``player``'s seat from ``when`` (``level``), or a person
    again (None), which ends the bot's span there."""
    if level is not None:
        spans[player] = (when, None)
    elif player in spans:
        spans[player] = (spans[player][0], when)


def bot_spans(events: Iterable[object]) -> Spans:
    """The spans of a journal's objects (its lines parsed; replay has checked them)."""
    spans: Spans = {}
    for obj in events:
        if isinstance(obj, dict) and obj.get("type") == SEAT:
            seat_changed(spans, obj["player"], obj.get("bot"), obj.get("when", ""))
    return spans


def replayed(lines: Iterable[str | bytes]) -> tuple[Header, Match, Spans]:
    """:func:`~.journal.replay`, and the seats a bot took over on the way (JournalError as it)."""
    objects: list[object] = []
    header, match = replay(lines, lambda number, match, events, obj: objects.append(obj))
    return header, match, bot_spans(objects)


def flag(since: str, until: str | None) -> str:
    """``bot from turn 3 round 2``; ``bot from round 2 to round 4``; ``bot during round 2``
    when the player came back in the same round."""
    if until == since:
        return f"bot during {since}"
    return f"bot from {since}" + (f" to {until}" if until else "")


def short_flag(since: str, until: str | None) -> str:
    """:func:`flag` for a panel's line: ``bot from T3 R2``, ``bot T1 R2-T3 R6``, ``bot round 2-4``,
    ``bot in round 2`` (Triangle's turn and round as its title bar counts them, shortened)."""
    since, until = _compact(since), until and _compact(until)
    if until == since:
        return f"bot in {since}"
    if not until:
        return f"bot from {since}"
    unit = since.rpartition(" ")[0]  # "round 2-4", "T1 R2-R5": the unit once
    if unit and until.startswith(unit + " "):
        until = until[len(unit) + 1:]
    return f"bot {since}-{until}"


def _compact(when: str) -> str:
    return when.replace("turn ", "T").replace(" round ", " R") if when.startswith("turn ") else when


def flagged(name: str, player: int, spans: Mapping[int, tuple[str, str | None]]) -> str:
    """``name``, with ``(bot from ...)`` if a bot took the seat over."""
    return f"{name} ({flag(*spans[player])})" if player in spans else name
