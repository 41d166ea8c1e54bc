"""Quiz night: a host reads questions, players buzz, the first by edge time answers.

Seat 0 is the **host**: it never buzzes and never scores. It arms the buzzers (``arm``), judges
the answer (``right``, ``wrong``), skips a question (``skip``), picks among tied buzzers
(``pick``, with the option ``tie = "host"``) and corrects any score (``correct``). Seats 1 and up
are the players, 2 to 32 of them.

A question (in a night with a question pack, :mod:`.quiz_packs`, the ``arm`` of each new
question carries it as ``ask``: its text, answer and notes, category, and its own points and time
to judge, which stand for the options ``points`` and ``answer_s`` while it is asked; a replay and
a resume read the questions asked from the journal, never from the pack's file):

- ``arm`` opens the buzzers (the table sounds the cue every player hears at once). The table
  referees the race and journals its verdict as ``buzz``: the players who pressed, one per team,
  in the order of their presses (``order``), and who answers (``player``) or, for presses inside
  the tie window, who is tied (``players``). A tie is settled by the host (``pick``) or by a draw
  from the journaled seed (the chance event ``tiebreak``), per the option ``tie``.
- ``right``: the answering player scores ``points``; the question is over.
- ``wrong`` (or ``timeout``: the answer timer ran out, the table says so): the answering player
  loses ``penalty`` and their team is out for the question. Then, with ``after_wrong = "next"``,
  the next in press order whose team is not out answers; when nobody is left in the order (and
  always with ``after_wrong = "reopen"``) the host may ``arm`` again for every team not out, or
  ``skip``. Once nobody may answer (every team out, the rest prelocked) the question is over.
- ``early`` (option ``early = "prelock"``): a player pressed before the buzzers were armed
  (while the host reads the question, or before a re-open) or before their own panel showed the
  cue. The table journals it when it happens, so it outlives a crash: that player is out of the
  question, re-opens included, until it closes (their team mates are not). Every other player
  prelocked too: nobody may answer, and the host skips. With ``early = "lockout"`` an early press
  only locks its player out of the race for a moment (``lockout_ms``), the table's own business,
  not journaled.
- The game ends after ``questions`` questions, or at the end of the first question after which a
  player (a team, with teams) has ``target`` points or more (no ``target``: all the questions).

**Teams.** With ``teams`` 2 to 4 the players sit in that many teams, in seat order (seats 1-2 one
team, 3-4 the next, with four players in two teams); with fewer players than teams each is a team
of their own. One press per team counts in a race; a team's score is its players' points added
up, and the best team's players win together.

Readings where a quiz host would expect them:

- A correction (``correct``) sets one player's score to a value; it is legal at any time until
  the last question is closed. It never ends the game by itself: a target is checked when a
  question ends.
- Standings keep ties as ties: every leader wins.

The options are :mod:`.quiz_options`.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import register
from .base import Action, IllegalAction, Outcome, Rules, need, player_field
from .quiz_options import QuizOptions
from .quiz_packs import SHELF, PackQuestion, question_from
from .quiz_state import (HIGHEST_SCORE, HOST, LOWEST_SCORE, MAX_PLAYERS, MIN_PLAYERS, PHASES, Asked,  # noqa: F401
                         QuizState, prelocking, team_of)


class Quiz(Rules):
    name = "quiz"
    title = "Quiz"
    min_players = MIN_PLAYERS + 1
    max_players = MAX_PLAYERS + 1
    Options = QuizOptions
    actions = ("arm", "buzz", "early", "pick", "right", "wrong", "timeout", "skip", "correct")
    chance_events = ("tiebreak",)
    host_seat = True

    def new(self, players: int, options: Any) -> QuizState:
        options = self.checked_options(players, options)
        return QuizState(options, (0,) * players)

    # --- who may act -------------------------------------------------------------------------

    def to_move(self, state: QuizState) -> tuple[int, ...]:
        if state.phase == "over":
            return ()
        if state.phase == "open":  # the host skips when every player pressed too early
            return tuple(state.eligible()) or (HOST,)
        return (HOST,) + (tuple(state.eligible()) if prelocking(state) else ())

    def chance_needed(self, state: QuizState) -> bool:
        return state.phase == "tie" and state.options.tie == "draw"

    def draw_chance(self, state: QuizState, rng: random.Random) -> dict[str, Any]:
        need(self.chance_needed(state), "no tie waits for a draw")
        return {"event": "tiebreak", "player": rng.choice(state.tied)}

    def apply_chance(self, state: QuizState, event: Action) -> QuizState:
        self.event_kind(event)
        need(self.chance_needed(state), "a tiebreak comes only after a tie, with the option tie = draw")
        return self._settle_tie(state, event.get("player"))

    def legal_actions(self, state: QuizState) -> list[dict[str, Any]]:
        phase = state.phase
        corrections = [{"action": "correct", "target": p, "score": state.scores[p] + d}
                       for p in _corrected(state) for d in (-1, 1)
                       if LOWEST_SCORE <= state.scores[p] + d <= HIGHEST_SCORE]
        if phase == "over":
            return []
        early = [{"action": "early", "player": p} for p in state.eligible()] if prelocking(state) else []
        if phase == "open":
            buzzes = [{"action": "buzz", **winners, "order": order} for winners, order in _sample_orders(state)]
            return buzzes + early if state.eligible() else [{"action": "skip"}]
        out = list(corrections) + early
        if phase in ("ready", "reopen"):
            out.append({"action": "arm"})
        if phase == "tie" and state.options.tie == "host":
            out += [{"action": "pick", "target": p} for p in state.tied]
        if phase == "answering":
            out += [{"action": "right"}, {"action": "wrong"}]
            if state.answer_s:
                out.append({"action": "timeout"})
        if phase != "ready":
            out.append({"action": "skip"})
        return out

    # --- actions -----------------------------------------------------------------------------

    def apply(self, state: QuizState, action: Action) -> QuizState:
        kind = self.action_kind(action)
        need(state.phase != "over", "the quiz is over")
        if kind == "correct":
            return self._correct(state, action)
        if kind == "arm":
            need(state.phase in ("ready", "reopen"),
                 "the buzzers are armed already" if state.phase == "open"
                 else "the host arms only between questions, or to re-open after a wrong answer")
            if state.phase == "ready":
                return replace(state, question=state.question + 1, phase="open", order=(), tied=(),
                               answering=None, out=(), wrong=(), timed_out=False, asking=_asked(action))
            need("ask" not in action, "a re-open asks the same question: only the next question's arm says it")
            return replace(state, phase="open", order=(), tied=(), answering=None)
        if kind == "buzz":
            need(state.phase == "open", "a buzz needs armed buzzers")
            return self._buzz(state, action)
        if kind == "early":
            return self._early(state, action)
        if kind == "pick":
            need(state.phase == "tie" and state.options.tie == "host",
                 "the host picks only among tied buzzers, with the option tie = host")
            return self._settle_tie(state, action.get("target"))
        if kind == "skip":
            need(state.phase != "ready", "no question is being asked: arm the next one")
            return self._close(state, None)
        need(state.phase == "answering", f"nobody is answering: {kind} judges an answer")
        if kind == "timeout":
            need(state.answer_s is not None,
                 "a timeout needs the answer timer (option answer_s, or the pack question's time)")
        state = replace(state, timed_out=kind == "timeout")
        if kind == "right":
            p = state.answering
            scores = _with(state.scores, p, state.scores[p] + state.points)
            return self._close(replace(state, scores=scores), p)
        return self._wrong(self._later(state, action))

    def _correct(self, state: QuizState, action: Action) -> QuizState:
        p = action.get("target")
        need(isinstance(p, int) and not isinstance(p, bool) and p in state.contestants,
             f"'target' must be a player's seat from 1 to {state.players - 1} (the host has no score), not {p!r}")
        score = action.get("score")
        need(isinstance(score, int) and not isinstance(score, bool) and LOWEST_SCORE <= score <= HIGHEST_SCORE,
             f"'score' must be a whole number from {LOWEST_SCORE} to {HIGHEST_SCORE}, not {score!r}")
        return replace(state, scores=_with(state.scores, p, score))

    def _buzz(self, state: QuizState, action: Action) -> QuizState:
        order = action.get("order")
        need(isinstance(order, list) and order, "'order' must be a list of the players who pressed")
        eligible = set(state.eligible())
        teams: set[int] = set()
        for p in order:
            need(isinstance(p, int) and not isinstance(p, bool) and p in eligible,
                 f"'order' may name only players whose team is not out, not {p!r}")
            need(state.team(p) not in teams, f"one press per team: player {p}'s team pressed already")
            teams.add(state.team(p))
        if "players" in action:
            need("player" not in action, "a buzz names 'player' (who answers) or 'players' (a tie), not both")
            tied = action["players"]
            need(isinstance(tied, list) and len(tied) >= 2 and tied == order[:len(tied)],
                 "'players' (a tie) must be the first two or more of 'order'")
            return replace(state, phase="tie", order=tuple(order), tied=tuple(tied))
        need(player_field(action, state.players) == order[0], "'player' (who answers) must be the first in 'order'")
        return replace(state, phase="answering", order=tuple(order), answering=order[0])

    def _early(self, state: QuizState, action: Action) -> QuizState:
        need(state.options.early == "prelock",
             "an early press puts its player out of the question only with the option early = prelock")
        need(prelocking(state), "an early press comes while a question is read or its buzzers are armed")
        p = player_field(action, state.players)
        need(p != HOST, "the host does not buzz")
        need(p not in state.prelocked, f"player {p} pressed too early already: out for this question")
        need(p in state.eligible(), f"player {p}'s team is out for this question")
        return replace(state, prelocked=state.prelocked + (p,))

    def _later(self, state: QuizState, action: Action) -> QuizState:
        """``later`` of a ``wrong`` or ``timeout``: presses that came after the race's verdict,
        in press order, one per team not in ``order`` yet: who's next after those in it."""
        later = action.get("later", [])
        need(isinstance(later, list), f"'later' must be a list of players, not {later!r}")
        teams = {state.team(p) for p in state.order}
        for p in later:
            need(isinstance(p, int) and not isinstance(p, bool) and p in state.eligible(),
                 f"'later' may name only players whose team is not out, not {p!r}")
            need(state.team(p) not in teams, f"one press per team: player {p}'s team pressed already")
            teams.add(state.team(p))
        return replace(state, order=state.order + tuple(later))

    def _settle_tie(self, state: QuizState, p: Any) -> QuizState:
        need(p in state.tied and not isinstance(p, bool), f"must be one of the tied players {list(state.tied)}, not {p!r}")
        order = (p,) + tuple(q for q in state.order if q != p)
        return replace(state, phase="answering", order=order, tied=(), answering=p)

    def _wrong(self, state: QuizState) -> QuizState:
        p = state.answering
        state = replace(state, scores=_with(state.scores, p, state.scores[p] - state.options.penalty),
                        out=state.out + (state.team(p),), wrong=state.wrong + (p,))
        queue = state.queue()
        if not state.eligible():
            return self._close(state, None)
        if state.options.after_wrong == "next" and queue:
            return replace(state, answering=queue[0])
        return replace(state, phase="reopen", answering=None)

    def _close(self, state: QuizState, right: int | None) -> QuizState:
        """The question is over: the next one, or the end."""
        state = replace(state, phase="ready", answering=None, tied=(), prelocked=(),
                        asked=state.asked + (Asked(state.question, right, state.wrong),))
        target = state.options.target
        if state.question >= state.options.questions or (target and state.standings()[0][2] >= target):
            return replace(state, phase="over")
        return state

    # --- results -----------------------------------------------------------------------------

    def takeback_refusal(self, before: Any, action: Action, after: Any) -> str | None:
        """Nothing: a buzz is a race, and the host puts a misjudged answer right with a score
        correction (``correct``), which every station sees."""
        if action.get("action") == "buzz":
            return "a race cannot be taken back"
        if action.get("action") == "early":
            return "a press cannot be taken back"
        return "the host corrects scores instead"

    def outcome(self, state: QuizState) -> Outcome | None:
        if state.phase != "over":
            return None
        _, best, _ = state.standings()[0]
        winners = [p for t in best for p in state.members(t)] if state.options.teams else best
        return Outcome(tuple(sorted(winners)), self.scores(state), self.detail(state))

    def scores(self, state: QuizState) -> tuple[int, ...]:
        return state.scores

    def lobby_options(self, players: int) -> list[tuple[str, tuple[Any, ...], str]]:
        """Teams fewer than the players only: as many teams as players or more puts each player in
        a team of their own, so the last quiz's four teams are not carried over to three players."""
        contestants = players - 1
        rows = [(name, tuple(t for t in values if t is None or t < contestants) if name == "teams" else values, about)
                for name, values, about in super().lobby_options(players)]
        packs = tuple(SHELF.offered())
        if packs:  # the pack first: it says how many questions the night can have
            rows[:0] = [("pack", (None, *packs), "the question pack the host reads from"),
                        ("tv_question", (False, True), QuizOptions.__dataclass_fields__["tv_question"].metadata["help"])]
        return rows

    def lobby_start(self, values: dict[str, Any]) -> dict[str, Any]:
        """A night with a pack asks at most the pack's questions: a pack of 8 makes the lobby's 10
        questions 8, so the night never ends with the host out of questions."""
        if values.get("pack"):  # resolved, so a resume from another folder finds it
            values = {**values, "pack": str(Path(values["pack"]).expanduser().resolve())}
        pack = SHELF.offered().get(values["pack"]) if values.get("pack") else None
        if pack is not None and values.get("questions", QuizOptions.questions) > len(pack.questions):
            return {**values, "questions": len(pack.questions)}
        return values

    def teams(self, state: QuizState) -> list[list[int]]:
        return [state.members(t) for t in state.teams()] if state.options.teams else []

    def detail(self, state: QuizState) -> dict[str, Any]:
        out = {
            "host": HOST, "question": state.question, "phase": state.phase,
            "answering": state.answering, "order": list(state.order), "tied": list(state.tied),
            "out": list(state.out), "prelocked": list(state.prelocked),
            "standings": [{"rank": r, "who": who, "points": pts} for r, who, pts in state.standings()],
            "asked": [{"question": a.question, "right": a.right, "wrong": list(a.wrong)} for a in state.asked],
        }
        if state.options.teams:
            out["teams"] = {str(t): state.members(t) for t in state.teams()}
        return out

    def describe(self, state: QuizState) -> list[str]:
        lines = [f"Question {state.question} of {state.options.questions}: {state.phase}"]
        for rank, who, pts in state.standings():
            label = ", ".join((f"team {w + 1}" if state.options.teams else f"player {w}") for w in who)
            lines.append(f"{rank}. {label}: {pts}")
        if state.prelocked:
            who = ", ".join(f"player {p}" for p in state.prelocked)
            lines.append(f"Pressed too early, out of question {state.question + (state.phase == 'ready')}: {who}")
        return lines

    def check_invariants(self, state: QuizState) -> None:
        assert state.scores[HOST] == 0, "the host never scores"
        assert state.phase in PHASES
        assert 0 <= state.question <= state.options.questions
        assert len(state.asked) == state.question - (state.phase not in ("ready", "over")), \
            "every question but the one being asked is finished"
        assert (state.answering is not None) == (state.phase == "answering")
        assert (len(state.tied) >= 2) == (state.phase == "tie")
        teams = [state.team(p) for p in state.order]
        assert len(set(teams)) == len(teams), "one press per team"
        assert HOST not in state.order and state.team(HOST) not in state.out
        if state.phase in ("tie", "answering"):
            assert state.eligible(), "a question in play has someone who may answer"
        if state.phase in ("open", "reopen"):
            assert state.eligible() or state.prelocked, \
                "a question in play has someone who may answer, unless the rest pressed too early"
        assert len(set(state.prelocked)) == len(state.prelocked) and HOST not in state.prelocked
        if state.phase in ("open", "tie", "answering"):  # the race's order, not the last one's
            assert not set(state.prelocked) & set(state.order), "a player who pressed too early is in no race"
        if state.prelocked:
            assert state.options.early == "prelock" and state.phase != "over"
        if state.answering is not None:
            assert state.team(state.answering) not in state.out


def _asked(action: Action) -> PackQuestion | None:
    """The pack question an ``arm`` line asks (``ask``), checked as a pack's row is."""
    ask = action.get("ask")
    if ask is None:
        return None
    need(isinstance(ask, dict), f"'ask' must be a pack's question (an object), not {ask!r}")
    try:
        return question_from(ask)
    except ValueError as e:
        raise IllegalAction(f"'ask': {e}") from None


def _with(values: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    return values[:i] + (value,) + values[i + 1:]


def _corrected(state: QuizState) -> list[int]:
    """Whose score the listed corrections change (any score to any value is legal, far too many
    to list): the player who answered last, else the first player."""
    last = next((a.right for a in reversed(state.asked) if a.right is not None), None)
    return [last if last is not None else 1]


def _sample_orders(state: QuizState) -> list[tuple[dict[str, Any], list[int]]]:
    """Buzz verdicts for menus and random playouts (every press order is far too many): each
    eligible team's first player alone, everyone in seat order and reversed, and a tie of the
    first two teams."""
    firsts = [state.members(t)[0] for t in state.teams() if t not in state.out
              and state.members(t)[0] in state.eligible()]
    out = [({"player": p}, [p]) for p in firsts]
    if len(firsts) >= 2:
        out.append(({"player": firsts[0]}, firsts))
        out.append(({"player": firsts[-1]}, firsts[::-1]))
        out.append(({"players": firsts[:2]}, firsts))
    return out


register(Quiz())
