"""The games' story across journals: per player, games played and won, points, reaction times.

Each journal is replayed line by line (the same checks as ``companion replay``), noting every
player's score after each line, so a game's score over time comes from the journal alone.

Reaction times come from the races' action lines (Triangle's ``claim`` and ``draw``, the
closest-number game's ``start``):

- **measured**: a line's ``reaction_ms`` list, one entry per player in player order, each the
  time from that player's screen showing the race to their counted press (null: no counted
  press). This is what the box journals when it knows each station's onset.
- **estimated**: older journals have no ``reaction_ms``. For Triangle's ``claim`` only, the
  winner's time is estimated from journal times: the claim's ``t`` minus when the race opened
  (the deal's ``t`` plus three ``countdown_ms`` counts) minus the tie window. The claim is
  journaled when the race was decided, at least a tie window and the input latency after the
  press, so this is an upper bound, and it is reported apart from the measured ones.

A race decided before a press that would have changed it arrived (a *late press*,
:mod:`companion.arbiter.latepress`) keeps its verdict, but its journal's ``late`` line is listed with the
game, so a table looking back sees which verdicts may have been wrong.

Journals are read as ``companion replay`` reads them (:mod:`companion.untrusted`: regular files
only, size and nesting capped). A journal that cannot be read is counted, named with its reason,
and skipped; abandoned and
unfinished games are listed, not counted as played.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import games
from .journal import JournalError, reaction_times, read_journal, replay
from ..arbiter.latepress import LATE, LateNote, late_summary, parse_late, verdict_words
from .match import Match
from .recovery import ABANDONED, journals
from ..untrusted import Unreadable

RACE_ACTIONS = ("claim", "draw", "start", "buzz")


@dataclass(frozen=True)
class Reaction:
    player: str
    game: str
    ms: float
    estimated: bool = False


@dataclass
class GameRecord:
    """One journal, replayed."""

    path: Path
    game: str
    title: str
    players: tuple[str, ...]
    over: bool
    abandoned: bool
    winners: tuple[int, ...]
    scores: tuple[Any, ...]
    trail: list[tuple[float, tuple[Any, ...]]]
    """(journal time, every player's score) at the start and after each change."""
    reactions: list[Reaction]
    late: list[LateNote] = field(default_factory=list)
    """The game's late presses: verdicts that stood, though a press came too late for them."""
    ended: float = 0.0
    """The journal time of its last line: how long the game was played, score changing or not."""
    teams: tuple[tuple[int, ...], ...] = ()
    """The seats that score together in a game played in teams (:meth:`~companion.games.base.Rules.teams`)."""
    by_question: list[tuple[int, tuple[Any, ...]]] = field(default_factory=list)
    """A quiz's scores question by question: (questions closed, every player's score) at the start
    and as each question closes (a correction between questions shows at the next)."""

    @property
    def scoring(self) -> range:
        """The seats that play for points: all but a host's (the quiz's host referees)."""
        return range(1 if games.get(self.game).host_seat else 0, len(self.players))

    def sides(self) -> list[tuple[str, tuple[int, ...]]]:
        """What a chart draws a line for, with the seats whose scores it adds up: each team
        (``Team 1: Ana, Ben``) in a game played in teams, else each player who scores."""
        if self.teams:
            return [(f"Team {i}: " + ", ".join(self.players[p] for p in seats), seats)
                    for i, seats in enumerate(self.teams, start=1)]
        return [(self.players[p], (p,)) for p in self.scoring]


def read_game(path: Path) -> GameRecord:
    """Replay one journal; :class:`~companion.record.journal.JournalError` at its first bad line,
    :class:`~companion.untrusted.Unreadable` for a file that is no journal to read."""
    trail: list[tuple[float, tuple[Any, ...]]] = []
    by_question: list[tuple[int, tuple[Any, ...]]] = []
    reactions: list[Reaction] = []
    late: list[LateNote] = []
    opens_at: float | None = None

    ended = 0.0

    def follow(number: int, match: Match, events: list[dict[str, Any]], line: Any) -> None:
        nonlocal opens_at, ended
        scores = tuple(match.rules.scores(match.state))
        if not trail:  # the header
            trail.append((0.0, scores))
            by_question.append((0, scores))
            return
        t = line.get("t", 0)
        ended = max(ended, t)
        if scores != trail[-1][1]:
            trail.append((t, scores))
        closed = len(getattr(match.state, "asked", ()))
        if match.rules.name == "quiz" and closed > by_question[-1][0]:
            by_question.append((closed, scores))
        if line.get("type") == LATE:
            late.append(parse_late(line, len(match.players)))
        if match.rules.name == "triangle" and line.get("type") == "chance":
            opens_at = t + 3 * match.options.countdown_ms / 1000
        reactions.extend(_reactions(line, match.players, match.rules.name, match, opens_at))

    header, match = replay(read_journal(path), follow)
    outcome = match.outcome
    return GameRecord(path, header.game, match.rules.title, header.players, outcome is not None,
                      path.name.endswith(ABANDONED), tuple(outcome.winners) if outcome else (),
                      tuple(match.rules.scores(match.state)), trail, reactions, late, ended,
                      tuple(tuple(seats) for seats in match.rules.teams(match.state)),
                      by_question if header.game == "quiz" else [])


def _reactions(obj: dict, players: tuple[str, ...], game: str, match, opens_at: float | None) -> list[Reaction]:
    if obj.get("type") != "action" or obj.get("action") not in RACE_ACTIONS:
        return []
    measured = reaction_times(obj, len(players))
    if measured is not None:
        return [Reaction(players[p], game, ms) for ms, p in sorted(measured, key=lambda m: m[1])]
    if game == "triangle" and obj["action"] == "claim" and opens_at is not None:
        ms = (obj.get("t", 0) - opens_at) * 1000 - match.options.tie_window_ms
        if ms >= 0:
            return [Reaction(players[obj["player"]], game, round(ms, 1), estimated=True)]
    return []


@dataclass
class GameStats:
    played: int = 0
    won: int = 0
    points: list[Any] = field(default_factory=list)


@dataclass
class PlayerStats:
    games: dict[str, GameStats] = field(default_factory=dict)
    """By game title."""
    reactions: list[Reaction] = field(default_factory=list)


@dataclass
class History:
    games: list[GameRecord]
    unreadable: list[tuple[Path, str]]

    @property
    def counted(self) -> list[GameRecord]:
        """Games played to their end (abandoned and unfinished ones are not counted)."""
        return [g for g in self.games if g.over and not g.abandoned]

    def players(self) -> dict[str, PlayerStats]:
        """Per player name: each game played and won, its points, and every reaction time."""
        out: dict[str, PlayerStats] = {}
        for g in self.counted:
            for p in g.scoring:
                name = g.players[p]
                stats = out.setdefault(name, PlayerStats()).games.setdefault(g.title, GameStats())
                stats.played += 1
                stats.won += p in g.winners
                stats.points.append(g.scores[p])
        for g in self.games:
            for r in g.reactions:
                out.setdefault(r.player, PlayerStats()).reactions.append(r)
        return out


def read_history(directory: Path) -> History:
    games, unreadable = [], []
    for path in journals(directory):
        try:
            games.append(read_game(path))
        except Unreadable as e:
            unreadable.append((path, e.detail))
        except (JournalError, OSError) as e:
            unreadable.append((path, str(e)))
    return History(games, unreadable)


def reaction_summary(reactions: list[Reaction]) -> dict[str, Any] | None:
    if not reactions:
        return None
    times = sorted(r.ms for r in reactions)
    return {"races": len(times), "median_ms": round(statistics.median(times), 1),
            "mean_ms": round(statistics.fmean(times), 1), "best_ms": times[0],
            "estimated": sum(r.estimated for r in reactions)}


def as_json(history: History) -> dict[str, Any]:
    return {
        "players": {
            name: {"games": {title: {"played": s.played, "won": s.won, "points": s.points}
                             for title, s in stats.games.items()},
                   "reactions": reaction_summary(stats.reactions)}
            for name, stats in sorted(history.players().items())
        },
        "games": len(history.counted),
        "not_counted": [g.path.name for g in history.games if g not in history.counted],
        "late_presses": {g.path.name: [note.record(g.players.__getitem__) for note in g.late]
                         for g in history.games if g.late},
        "unreadable": {p.name: reason for p, reason in history.unreadable},
    }


def report(history: History) -> list[str]:
    """The history as lines of text: a block per player."""
    lines = []
    players = history.players()
    width = max((len(title) for stats in players.values() for title in stats.games), default=0)
    for name, stats in sorted(players.items()):
        lines.append(name)
        for title, s in sorted(stats.games.items()):
            total = sum(s.points)
            lines.append(f"  {title:<{width}}  played {s.played:>3}  won {s.won:>3}  points {total:>5} "
                         f"(mean {total / s.played:.1f})")
        summary = reaction_summary(stats.reactions)
        if summary:
            measured = summary["races"] - summary["estimated"]
            lines.append(f"  reactions: {summary['races']} races, median {summary['median_ms']:.0f} ms, "
                         f"mean {summary['mean_ms']:.0f} ms, best {summary['best_ms']:.0f} ms "
                         f"({measured} measured, {summary['estimated']} estimated from journal times)")
    late = [g for g in history.games if g.late]
    if late:
        lines.append("Late presses (the box decided before they arrived; the verdict stood):")
    for g in late:
        lines.append(f"  {g.path.name}  {g.title}: {late_summary(g.late)}")
        lines += [f"    {n.t:.3f} s {g.players[n.player]}: {verdict_words(n.would_be, g.players.__getitem__)} "
                  f"instead of {verdict_words(n.verdict, g.players.__getitem__)}" for n in g.late]
    skipped = [g for g in history.games if g not in history.counted]
    lines.append(f"{len(history.counted)} games counted"
                 + (f"; {len(skipped)} not counted (abandoned or unfinished)" if skipped else ""))
    lines += [f"skipped {path.name}: {reason}" for path, reason in history.unreadable]
    return lines


def _scores_figure(pyplot, records: list[GameRecord], left_out: int):
    """One panel per play, three to a row. Each panel has its own legend (the players differ from
    play to play), naming every line with the player's (or team's) last score, so a line hidden
    under another (the same scores) is still named; a player keeps one colour in every panel.
    Lines run to the play's last journal line, so a play whose scores never moved still shows
    how long it went on; ``left_out`` plays had no line after their header and are only counted."""
    names = sorted({label for g in records for label, _ in g.sides()})
    tint = {name: f"C{i % 10}" for i, name in enumerate(names)}
    columns = min(3, len(records))
    rows = -(-len(records) // columns)
    figure, axes = pyplot.subplots(rows, columns, figsize=(5.2 * columns, 3.2 * rows), squeeze=False,
                                   layout="constrained")
    for ax in axes.flat[len(records):]:
        ax.set_visible(False)
    for ax, g in zip(axes.flat, records):
        for label, seats in g.sides():
            if g.by_question:  # a quiz night: each score as each question closes
                points = [sum(s[p] for p in seats) for _, s in g.by_question]
                ax.plot([q for q, _ in g.by_question], points, marker="o", markersize=3, color=tint[label],
                        label=f"{label} {points[-1]}")
                continue
            times = [t for t, _ in g.trail] + [max(g.ended, g.trail[-1][0])]
            points = [sum(s[p] for p in seats) for _, s in g.trail]
            ax.step(times, points + points[-1:], where="post", color=tint[label], label=f"{label} {points[-1]}")
        ax.set_title(g.path.name.split(".")[0] + ("" if g.over else " (not finished)"), fontsize=8)
        if g.by_question:
            ax.xaxis.get_major_locator().set_params(integer=True)
            ax.yaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel("question" if g.by_question else "seconds")
        ax.set_ylabel("score")
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5), title="final" if g.over else "so far",
                  title_fontsize=8)
    unplayed = f" ({left_out} more not begun, left out)" if left_out else ""
    over = "question by question" if records[0].by_question else "score over time"
    figure.suptitle(f"{records[0].title}: {over}{unplayed}")
    return figure


def plot(history: History, directory: Path) -> list[Path]:
    """PNG charts: score over time for each game (its latest six plays), and each player's
    reaction times. Needs matplotlib (``pip install ".[plot]"``)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    by_game: dict[str, list[GameRecord]] = {}
    for g in history.games:
        if not g.abandoned:
            by_game.setdefault(g.game, []).append(g)
    for game, records in sorted(by_game.items()):
        begun = [g for g in records if g.ended > 0 or len(g.trail) > 1]
        if not begun:
            continue  # nothing but headers: no score to draw, and the report lists them as not counted
        figure = _scores_figure(pyplot, begun[-6:], len(records) - len(begun))
        path = directory / f"scores-{game}.png"
        figure.savefig(path, dpi=100)
        pyplot.close(figure)
        written.append(path)
    players = {name: s.reactions for name, s in sorted(history.players().items()) if s.reactions}
    if players:
        figure, ax = pyplot.subplots(figsize=(1.6 * len(players) + 3, 4))
        names = list(players)
        ax.boxplot([[r.ms for r in players[n]] for n in names], showfliers=False)
        labelled = set()
        for i, name in enumerate(names, start=1):
            for estimated, marker, tint in ((False, "o", "tab:blue"), (True, "x", "tab:orange")):
                ms = [r.ms for r in players[name] if r.estimated == estimated]
                kind = "estimated (upper bound)" if estimated else "measured"
                ax.scatter([i] * len(ms), ms, marker=marker, color=tint, alpha=0.6,
                           label=kind if ms and kind not in labelled else None)
                labelled.update([kind] if ms else [])
        ax.set_xticks(range(1, len(names) + 1), [f"{n}\n({len(players[n])})" for n in names])
        ax.set_ylabel("reaction time (ms)")
        ax.set_title("Reaction times in races")
        ax.legend(fontsize=8)
        figure.tight_layout()
        path = directory / "reactions.png"
        figure.savefig(path, dpi=100)
        pyplot.close(figure)
        written.append(path)
    return written
