"""The public view as data: what the table screen shows (:class:`PublicView`), and a race's
presses with their times, from a decided race or from its journal line.

Separate from making the view out of each game's table (:mod:`.public`) because the renderer,
the score chart and the display read only this: what may be shown, never a table.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..arbiter.latepress import LateNote
from ..arbiter.race import RaceResult
from ..record.journal import race_winners, reaction_times

MS = 1_000_000


@dataclass(frozen=True)
class RacePress:
    """One press in a race: ``delta_ms`` after the first counted press (negative: a false start
    before the race opened, counted from the opening), to the ns as the journal keeps it."""

    name: str
    player: int
    delta_ms: float
    note: str = ""
    """``first``, ``tie``, ``false start``, ``late``, ``judging``..."""
    error_ms: float = 0.0
    """How far ``delta_ms`` may be from the truth: a phone's clock sync (0 for a wired station)."""


@dataclass(frozen=True)
class WordCard:
    """A Pictomania word card as the table reads it: its letter and its seven words."""

    letter: str
    words: tuple[str, ...]


@dataclass(frozen=True)
class PublicView:
    """Everything the table screen may draw, as plain values (no game objects)."""

    game: str
    """The game's title, or ``Tabletop Companion`` in the lobby."""
    heading: str
    names: tuple[str, ...] = ()
    scores: tuple[int, ...] = ()
    turn: str = ""
    """Turn and round, or whose move it is."""
    mark: int | None = None
    """The player the heading is about (the mover, the artist, the claimer): marked on the board."""
    count: int | None = None
    """The countdown's number, shown huge."""
    clock: str = ""
    """Pictionary's timer."""
    hurry: bool = False
    race: tuple[RacePress, ...] = ()
    lines: tuple[str, ...] = ()
    """The body: a verdict, a scoring walk-through, the lobby's options."""
    cards: tuple[WordCard, ...] = ()
    board: str = ""
    """Pay-to-Play's nine cells, ``X``, ``O`` or ``.``."""
    trail: tuple[tuple[int, ...], ...] = ()
    """The scores after every change, from the start: the end's chart."""
    winners: tuple[int, ...] = ()
    over: bool = False
    late: str = ""
    """A late press's note (``Late press: Ben first``) while the verdict it would have changed is
    on the screen: in red under the heading, as the panels say it on their status line."""
    footer: str = ""
    notice: str = ""
    """Shown instead of the footer while set, as the panels show it on their bottom line: the
    game was just RESUMED, the button board is unplugged, a display is dead."""
    room: str = ""
    """The room code phones join with, when the box serves phones (in the header)."""
    join: str = ""
    """The address phones join at, room code and all: its QR code is drawn in the lobby."""


def race_presses(result: RaceResult | None, names: tuple[str, ...],
                 late: LateNote | None = None) -> tuple[RacePress, ...]:
    """A decided race, every press by time: the winner (or the tied) first, then the later ones,
    then the false starts. The press of ``late`` (the last decided race's late press: it came
    after the verdict, which stands) is marked ``late``, wherever its edge puts it."""
    if result is None:
        return ()
    first = "tie" if result.tie else "first"
    late_player = late.player if late is not None and late.press == "press" else None
    out = [RacePress(names[p.station], p.station, round(p.delta_ns / MS, 6),
                     first if p.station in result.winners else "late" if p.station == late_player else "",
                     round(p.error_ns / MS, 6))
           for p in result.order if p.station < len(names)]
    out += [RacePress(names[p.station], p.station, round(p.delta_ns / MS, 6), "false start")
            for p in result.false_starts if p.station < len(names)]
    return tuple(out)


def journaled_presses(line: dict | None, names: tuple[str, ...]) -> tuple[RacePress, ...]:
    """A race as its journal line tells it (a resumed game keeps no race result): the winners
    (the line's ``player``, or the drawers' ``players``) and every press counted when it was
    decided, by reaction time. False starts and later presses are not journaled."""
    timed = reaction_times(line, len(names))
    if not timed:
        return ()
    winners = race_winners(line, len(names))
    first = "tie" if len(winners) > 1 else "first"
    fastest = timed[0][0]
    errors = _errors(line, len(names))
    return tuple(RacePress(names[p], p, round(ms - fastest, 6), first if p in winners else "", errors[p])
                 for ms, p in timed)


def _errors(line: dict, players: int) -> list[float]:
    """Each player's ``error_ms`` on a race line (0 where it has none: a wired station, an older journal)."""
    values = line.get("error_ms") if isinstance(line, dict) else None
    values = values if isinstance(values, list) else []
    return [float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 3_600_000 else 0.0
            for v in values[:players]] + [0.0] * max(0, players - len(values))
