"""The story of a quiz night, told at its end: the standings, each player's right and wrong
answers and fastest buzz, and the closest races with their margins.

The panels, the table screen and ``companion replay`` tell the same story from the same facts:
the match's questions asked (who was right, who wrong) and the races' journal lines (each
``buzz`` line's reaction times, every counted press timed from the player's own screen). The
live table keeps those lines as it writes them and a resumed one reads them again from its
journal (:func:`night_races`), so a crash mid-night tells the whole night at its end.

A race's margin is the time between its first two counted presses (their reaction times, as the
race compared them): a declared tie's is inside the tie window, and the closest races are the
ones a hobby buzzer, deciding by arrival, would most likely have got wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from .races import reaction_times

CLOSEST = 3
"""How many of the closest races the story names."""


@dataclass(frozen=True)
class Race:
    """A decided race of the night: its question, who pressed first (the tied, for a tie), the
    second counted press and its margin in ms after the first (for a tie, inside the tie window)."""

    question: int
    first: tuple[int, ...]
    next: int
    margin_ms: float
    tie: bool


@dataclass(frozen=True)
class PlayerNight:
    seat: int
    points: int
    right: int
    wrong: int
    fastest_ms: float | None
    """The player's quickest counted press of the night, from their own screen; None: never pressed."""


@dataclass(frozen=True)
class NightStory:
    standings: tuple[tuple[int, tuple[int, ...], int], ...]
    """(rank, players or teams, points), as the rules rank them."""
    players: tuple[PlayerNight, ...]
    """Every player, in seat order."""
    closest: tuple[Race, ...]
    """The races with two presses or more, closest first (at most :data:`CLOSEST`)."""


def night_races(lines: Iterable[str | bytes]) -> list[tuple[int, dict[str, Any]]]:
    """(question, line) of each race a quiz journal decided, replayed to know each one's question."""
    from .journal import replay

    out: list[tuple[int, dict[str, Any]]] = []

    def follow(number: int, match, events: list[dict[str, Any]], line: Any) -> None:
        if isinstance(line, dict) and line.get("action") == "buzz" and isinstance(line.get("reaction_ms"), list):
            out.append((match.state.question, line))

    replay(lines, follow)
    return out


def night_story(state, races: Iterable[tuple[int, dict[str, Any]]]) -> NightStory:
    """The story of the night in ``state`` (a :class:`~companion.games.quiz.QuizState`), from its
    races' lines."""
    n = state.players
    fastest: dict[int, float] = {}
    decided = []
    for question, line in races:
        times = reaction_times(line, n) or []
        for ms, p in times:
            fastest[p] = min(ms, fastest.get(p, ms))
        if len(times) < 2:
            continue
        tied = line.get("players")
        tie = isinstance(tied, list) and len(tied) > 1
        first = tuple(p for _, p in times if p in tied) if tie else (times[0][1],)
        decided.append(Race(question, first, times[1][1], times[1][0] - times[0][0], tie))
    players = tuple(PlayerNight(p, state.scores[p], sum(a.right == p for a in state.asked),
                                sum(a.wrong.count(p) for a in state.asked), fastest.get(p))
                    for p in state.contestants)
    closest = sorted(decided, key=lambda r: (r.margin_ms, r.question))[:CLOSEST]
    return NightStory(tuple((r, tuple(who), pts) for r, who, pts in state.standings()), players, tuple(closest))


def margin(ms: float) -> str:
    """``4 us``, ``12 ms``, ``1.2 s``: a margin as a player reads it."""
    if ms < 1:
        return f"{round(ms * 1000)} us"
    return f"{ms / 1000:.1f} s" if ms >= 1000 else f"{round(ms)} ms"


def player_line(night: PlayerNight, name: str) -> str:
    """``Ana 5 points: 5 right, 1 wrong, fastest buzz 231 ms``."""
    fastest = f", fastest buzz {margin(night.fastest_ms)}" if night.fastest_ms is not None else ", never buzzed"
    points = f"{night.points} point" + ("" if abs(night.points) == 1 else "s")
    return f"{name} {points}: {night.right} right, {night.wrong} wrong{fastest}"


def race_line(race: Race, names: tuple[str, ...]) -> str:
    """``Q3: Ben and Cy tied, 4 us apart`` or ``Q5: Ana first, Dee 12 ms later``."""
    if race.tie:
        return f"Q{race.question}: {' and '.join(names[p] for p in race.first)} tied, {margin(race.margin_ms)} apart"
    return f"Q{race.question}: {names[race.first[0]]} first, {names[race.next]} {margin(race.margin_ms)} later"


def story_lines(story: NightStory, names: tuple[str, ...], teams: bool = False) -> list[str]:
    """The night's story in sentences, for ``companion replay`` and the table screen: each player
    by rank (in a team quiz the teams' ranks first, then each player), then the closest races."""
    nights = {p.seat: p for p in story.players}
    lines = []
    for rank, who, points in story.standings:
        if teams:
            lines.append(f"{rank}. {' and '.join(f'Team {t + 1}' for t in who)} {points}")
        else:
            lines += [f"{rank}. {player_line(nights[p], names[p])}" for p in who]
    if teams:
        lines += [player_line(p, names[p.seat]) for p in story.players]
    lines += [f"Closest: {race_line(r, names)}" for r in story.closest]  # a line each: the TV's lines are short
    return lines
