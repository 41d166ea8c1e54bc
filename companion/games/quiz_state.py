"""Quiz night's state: the players' scores, the question being asked and its race, who is out
of it, and the questions asked so far (the rules that change it are :mod:`.quiz`).

Apart from the rules so that each stays a module one can read in a sitting; the table and its
views read the state without the rules' actions.
"""

from __future__ import annotations

from dataclasses import dataclass

from .quiz_options import QuizOptions
from .quiz_packs import PackQuestion

HOST = 0
"""The host's seat."""
MIN_PLAYERS, MAX_PLAYERS = 2, 32
"""Players besides the host: up to 16 on wired buzzers and the button board, 32 with phones."""
PHASES = ("ready", "open", "tie", "answering", "reopen", "over")
"""``ready``: the host arms the next question; ``open``: the buzzers are armed; ``tie``: a tie
waits for the host's pick or the draw; ``answering``: a player answers and the host judges;
``reopen``: after a wrong answer the host may arm again for the rest, or skip."""
LOWEST_SCORE, HIGHEST_SCORE = -999, 9999


@dataclass(frozen=True)
class Asked:
    """A finished question: who answered it right (None: nobody), and who answered wrong."""

    question: int
    right: int | None
    wrong: tuple[int, ...]


@dataclass(frozen=True)
class QuizState:
    options: QuizOptions
    scores: tuple[int, ...]
    """Per seat; the host's stays 0."""
    question: int = 0
    """The question being asked (1-based), or the last one asked."""
    phase: str = "ready"
    order: tuple[int, ...] = ()
    """The race's counted presses, one per team, in press order (the tied first)."""
    tied: tuple[int, ...] = ()
    answering: int | None = None
    out: tuple[int, ...] = ()
    """Teams out for this question (a wrong answer), in the order they went out."""
    wrong: tuple[int, ...] = ()
    """Players who answered this question wrong, in order."""
    prelocked: tuple[int, ...] = ()
    """Players who pressed too early for this question (``early``), in order: out of it until it
    closes. Between questions, those who pressed while the next one is read."""
    asked: tuple[Asked, ...] = ()
    asking: PackQuestion | None = None
    """The pack's question being asked (the ``arm`` line's ``ask``), or the last one asked until
    the next is armed; None in a night without a pack."""
    timed_out: bool = False
    """The last answer judged ran out of time (``timeout``) rather than being judged wrong: the
    screens say "Time up!", not "Wrong!"."""

    @property
    def points(self) -> int:
        """What a right answer scores now: the pack question's own points, else the option's."""
        return self.asking.points if self.asking is not None and self.asking.points else self.options.points

    @property
    def answer_s(self) -> int | None:
        """The answer timer now: the pack question's own time, else the option's (None: no timer)."""
        return self.asking.time_s if self.asking is not None and self.asking.time_s else self.options.answer_s

    @property
    def players(self) -> int:
        return len(self.scores)

    @property
    def contestants(self) -> range:
        return range(1, self.players)

    def team(self, player: int) -> int:
        """The player's team: its number among the teams, or with no teams the player's seat."""
        return team_of(player, self.players, self.options.teams)

    def teams(self) -> list[int]:
        return sorted({self.team(p) for p in self.contestants})

    def members(self, team: int) -> list[int]:
        return [p for p in self.contestants if self.team(p) == team]

    def team_score(self, team: int) -> int:
        return sum(self.scores[p] for p in self.members(team))

    def eligible(self) -> list[int]:
        """Players who may buzz: their team is not out for this question, and they did not
        press too early for it. Between questions (``ready``) the teams out were out of the
        question just closed, not of the one being read: only its prelocks count."""
        out = () if self.phase == "ready" else self.out
        return [p for p in self.contestants if self.team(p) not in out and p not in self.prelocked]

    def queue(self) -> list[int]:
        """The rest of the press order who may still answer: who answers next."""
        eligible = self.eligible()
        return [p for p in self.order if p in eligible and p != self.answering]

    def standings(self) -> list[tuple[int, list[int], int]]:
        """(rank, the players or teams of that rank, points), best first; equal points share
        a rank (1, 1, 3). With teams, the entries are team numbers."""
        if self.options.teams:
            points = {t: self.team_score(t) for t in self.teams()}
        else:
            points = {p: self.scores[p] for p in self.contestants}
        out: list[tuple[int, list[int], int]] = []
        rank = 1
        for value in sorted(set(points.values()), reverse=True):
            who = [k for k, v in points.items() if v == value]
            out.append((rank, who, value))
            rank += len(who)
        return out


def team_of(player: int, players: int, teams: int) -> int:
    """Teams in seat order: players 1..n split into ``teams`` blocks as even as they go
    (more teams than players: each player a team). Without teams, the player's own seat. The
    host is in no team (-1)."""
    n = players - 1
    if player == HOST:
        return -1
    if not teams:
        return player
    count = min(teams, n)
    return (player - 1) * count // n


def prelocking(state: QuizState) -> bool:
    """True when a press would be too early and put its player out (``early``): the option
    ``early = "prelock"``, while a question is read (``ready``), its buzzers are armed (a press
    before the player's panel showed the cue) or a re-open is awaited."""
    return state.options.early == "prelock" and state.phase in ("ready", "open", "reopen")
