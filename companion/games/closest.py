"""The closest-number game (``closest-number.txt``): cards on a number line, nearest card scores.

Three players take turns putting one of their cards on a free number of the line 1..10. When a
round ends, every number goes to the player whose counting card is strictly nearest to it (a
card on the number itself is nearest); two nearest cards of *different* players score for
nobody, two of the same player score for that player.

- Round 1: one card each. Round 2: two cards each, placed alternately; exactly one of each
  player's two is a decoy, chosen secretly when it is placed, which neither counts nor blocks at
  scoring (it still covers its number). The most points after round 2 wins.
- A shared lead after round 2 plays round 3: two cards each, one still marked as the decoy, but
  both count. Still shared: further rounds under round-2 rules, each with the highest number of
  the previous round removed (1..9, then 1..8, ...). Totals add up over every round, and all
  three players play every round.
- Round 1 is started by the winner of the start race (the action ``start``); each later round
  is started by the next player clockwise (the next seat), who is followed clockwise.
- A round in which the next card has no free number ends at once and is scored as it stands.

Readings where the seed and RULES-NOTES.md are silent:

- A shared lead with no number left for another round (every number removed) ends the game
  as a shared win of the leaders.
- ``decoy`` may be left out of a ``place`` action when it is false.

Options: ``line_length`` (the seed's 10 by default), ``start`` (how round 1's starting player
is found: the seed's 17 x 34 race, a race on other products, seat 1, or a random seat) and
``tie_window_ms`` (answers this close together in the start race are simultaneous). ``start``
and ``tie_window_ms`` concern the table; the rules only make seat 1 start by themselves
(:meth:`Closest.auto_action`) when ``start`` is ``"seat1"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from . import register
from .base import Action, IllegalAction, Outcome, Rules, each_player, need, player_field
from .options import SCREEN_TIE_WINDOW_MS

PLAYERS = 3
TIE = "tie"
"""The verdict on a number whose nearest counting cards belong to different players."""
START_MODES = ("17x34", "products", "seat1", "random")
SEATS = ("A", "B", "C")
"""The seats' letters on the replay's pictures of the number line."""


@dataclass(frozen=True)
class ClosestOptions:
    """The lobby's choices (see the module docstring)."""

    line_length: int = field(default=10, metadata={
        "min": 3, "max": 10, "choices": (6, 7, 8, 9, 10),
        "help": "the number line is 1..line_length",
        "label": "line", "brief": "numbers 1 to this",
    })
    start: str = field(default="17x34", metadata={
        "choices": START_MODES, "strict": True,
        "help": "who starts: 17x34 race, race on other products, seat 1, or a random seat",
        "label": "start", "brief": "who starts round 1",
    })
    tie_window_ms: int = field(default=SCREEN_TIE_WINDOW_MS, metadata={
        "min": 1, "max": 1000, "choices": (5, SCREEN_TIE_WINDOW_MS, 20, 50),
        "help": "start race: answers this close together are a tie",
        "label": "tie window", "brief": "close answers: a tie",
    })


@dataclass(frozen=True)
class Card:
    player: int
    number: int
    decoy: bool = False


@dataclass(frozen=True)
class ScoredRound:
    """A finished round: its cards, which player won each number 1..line, and the points.

    ``verdicts[n - 1]`` is the winner of number ``n``, :data:`TIE`, or None when no card counts.
    """

    round: int
    line: int
    cards: tuple[Card, ...]
    decoys_count: bool
    verdicts: tuple[int | str | None, ...]
    points: tuple[int, ...]


@dataclass(frozen=True)
class ClosestState:
    """One moment of a game. ``starter`` is who started round 1 (None until ``start``);
    ``cards`` are the current round's cards in the order placed."""

    options: ClosestOptions
    starter: int | None = None
    round: int = 1
    cards: tuple[Card, ...] = ()
    scored: tuple[ScoredRound, ...] = ()
    over: bool = False

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r.points[p] for r in self.scored) for p in range(PLAYERS))

    @property
    def line(self) -> int:
        """This round's numbers are 1..line: one fewer each round after round 3."""
        return line_in(self.options, self.round)

    @property
    def taken(self) -> frozenset[int]:
        return frozenset(c.number for c in self.cards)

    def free(self) -> list[int]:
        taken = self.taken
        return [n for n in range(1, self.line + 1) if n not in taken]

    def cards_of(self, player: int) -> list[Card]:
        return [c for c in self.cards if c.player == player]

    def mover(self) -> int | None:
        """Who places the next card this round, or None before the start and after the end."""
        if self.starter is None or self.over:
            return None
        return turn_order(self.starter, self.round)[len(self.cards)]

    def decoy_rule(self, player: int) -> bool | None:
        """The decoy flag ``player``'s next card must have, or None when theirs to choose."""
        if self.round == 1:
            return False
        mine = self.cards_of(player)
        return not mine[0].decoy if mine else None


def line_in(options: ClosestOptions, round_: int) -> int:
    return options.line_length - max(0, round_ - 3)


def cards_each(round_: int) -> int:
    return 1 if round_ == 1 else 2


def turn_order(starter: int, round_: int) -> tuple[int, ...]:
    """Every card's player in a round: from the round's first player clockwise, alternating."""
    first = (starter + round_ - 1) % PLAYERS
    return tuple((first + i) % PLAYERS for i in range(PLAYERS)) * cards_each(round_)


def score(line: int, cards: tuple[Card, ...], decoys_count: bool) -> tuple[tuple[int | str | None, ...], tuple[int, ...]]:
    """Each number's verdict and each player's points: the strictly nearest counting card wins."""
    counting = [c for c in cards if decoys_count or not c.decoy]
    verdicts: list[int | str | None] = []
    for n in range(1, line + 1):
        if not counting:
            verdicts.append(None)
            continue
        nearest = min(abs(c.number - n) for c in counting)
        owners = {c.player for c in counting if abs(c.number - n) == nearest}
        verdicts.append(owners.pop() if len(owners) == 1 else TIE)
    points = tuple(verdicts.count(p) for p in range(PLAYERS))
    return tuple(verdicts), points


def leaders(totals: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(p for p, t in enumerate(totals) if t == max(totals))


class Closest(Rules):
    name = "closest"
    title = "Closest number"
    bots_play = True
    min_players = PLAYERS
    max_players = PLAYERS
    Options = ClosestOptions
    actions = ("start", "place")

    def takeback_refusal(self, before: ClosestState, action: Action, after: ClosestState) -> str | None:
        """A card (with its decoy choice) may be taken back until the next card is placed; not
        the round's last card, whose scoring turned every decoy over, nor the start (a race)."""
        if action.get("action") == "start":
            return "the start was a race"
        if after.round != before.round or after.over:
            return "the cards are revealed"
        return None

    def new(self, players: int, options: Any) -> ClosestState:
        """Before the start race; ``options`` may also be a mapping to parse."""
        options = self.checked_options(players, options)
        return ClosestState(options)

    def to_move(self, state: ClosestState) -> tuple[int, ...]:
        """Before the start anyone may be the one who starts; then the player placing a card."""
        if state.over:
            return ()
        if state.starter is None:
            return (0,) if state.options.start == "seat1" else tuple(range(PLAYERS))
        return (state.mover(),)

    def legal_actions(self, state: ClosestState) -> list[dict[str, Any]]:
        if state.over:
            return []
        if state.starter is None:
            return [{"action": "start", "player": p} for p in self.to_move(state)]
        p = state.mover()
        rule = state.decoy_rule(p)
        decoys = (False, True) if rule is None else (rule,)
        return [{"action": "place", "player": p, "number": n, "decoy": d}
                for n in state.free() for d in decoys]

    def auto_action(self, state: ClosestState) -> dict[str, Any] | None:
        """With ``start = "seat1"`` the box starts round 1 with seat 1 by itself."""
        if state.starter is None and state.options.start == "seat1":
            return {"action": "start", "player": 0}
        return None

    def apply(self, state: ClosestState, action: Action) -> ClosestState:
        kind = self.action_kind(action)
        need(not state.over, "the game is over")
        p = player_field(action, PLAYERS)
        if kind == "start":
            need(state.starter is None, "the starting player is already chosen")
            need(p in self.to_move(state),
                 "with the start option seat1, seat 1 (player 0) starts")
            return replace(state, starter=p)
        need(state.starter is not None, "the starting player must be chosen (start) before any card")
        mover = state.mover()
        need(p == mover, f"it is player {mover}'s turn to place, not player {p}'s")
        number = action.get("number")
        line = state.line
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= line:
            removed = (f" ({line + 1} and up are removed in round {state.round})"
                       if line < state.options.line_length else "")
            raise IllegalAction(
                f"'number' must be a number of this round's line 1..{line}, not {number!r}{removed}")
        need(number not in state.taken, f"number {number} already has a card on it")
        decoy = action.get("decoy", False)
        need(isinstance(decoy, bool), f"'decoy' must be true or false, not {decoy!r}")
        rule = state.decoy_rule(p)
        if state.round == 1:
            need(not decoy, "round 1 has no decoys")
        elif rule is True:
            need(decoy, "this is your second card and your first one counts: it must be your decoy")
        elif rule is False:
            need(not decoy, "you have already played your decoy: this card counts")
        placed = replace(state, cards=state.cards + (Card(p, number, decoy),))
        if len(placed.cards) == len(turn_order(0, placed.round)) or not placed.free():
            return self._end_round(placed)
        return placed

    def _end_round(self, state: ClosestState) -> ClosestState:
        """Score the round, then start the next one or end the game."""
        decoys_count = state.round == 3
        verdicts, points = score(state.line, state.cards, decoys_count)
        result = ScoredRound(state.round, state.line, state.cards, decoys_count, verdicts, points)
        state = replace(state, cards=(), scored=state.scored + (result,))
        shared = len(leaders(state.totals)) > 1
        if state.round >= 2 and (not shared or line_in(state.options, state.round + 1) < 1):
            return replace(state, over=True)
        return replace(state, round=state.round + 1)

    def outcome(self, state: ClosestState) -> Outcome | None:
        if not state.over:
            return None
        return Outcome(leaders(state.totals), self.scores(state), self.detail(state))

    def scores(self, state: ClosestState) -> tuple[int, ...]:
        return state.totals

    def detail(self, state: ClosestState) -> dict[str, Any]:
        return {
            "round": state.round,
            "line": state.line,
            "starter": state.starter,
            "to_move": state.mover(),
            "cards": [_card_json(c) for c in state.cards],
            "rounds": [{
                "round": r.round, "line": r.line, "decoys_count": r.decoys_count,
                "cards": [_card_json(c) for c in r.cards],
                "verdicts": list(r.verdicts), "points": list(r.points),
            } for r in state.scored],
            "totals": list(state.totals),
        }

    def describe(self, state: ClosestState) -> list[str]:
        lines = [f"Round {r.round} on 1..{r.line}: {_picture(r.line, r.cards)}  points: {each_player(r.points)}"
                 for r in state.scored]
        if not state.over and state.starter is not None:
            lines.append(f"Round {state.round} on 1..{state.line}: {_picture(state.line, state.cards)}")
        if lines:  # the pictures' letters, which the replay names
            lines.insert(0, f"On the lines: {', '.join(f'{seat} is player {p}' for p, seat in enumerate(SEATS))}; "
                            "* marks a decoy, - a free number")
        return lines

    def check_invariants(self, state: ClosestState) -> None:
        assert state.round == len(state.scored) + (0 if state.over else 1), "rounds are scored in turn"
        assert state.starter is not None or (state.round == 1 and not state.cards), \
            "no card before the start"
        for r in state.scored:
            numbers = [c.number for c in r.cards]
            assert len(set(numbers)) == len(numbers), "one card per number"
            assert all(1 <= n <= r.line for n in numbers), "cards lie on the round's line"
            assert r.line == line_in(state.options, r.round), "the highest number goes after round 3"
            order = turn_order(state.starter, r.round)
            assert tuple(c.player for c in r.cards) == order[:len(r.cards)], "turn order"
            assert len(r.cards) == len(order) or len(r.cards) == r.line, \
                "a round ends early only when no number is free"
            _check_decoys(r.round, r.cards)
            assert (r.verdicts, r.points) == score(r.line, r.cards, r.decoys_count), "scoring"
            assert sum(r.points) <= r.line, "each number scores at most once"
            assert r.decoys_count == (r.round == 3), "decoys count in round 3 only"
        if not state.over and state.starter is not None:
            order = turn_order(state.starter, state.round)
            assert tuple(c.player for c in state.cards) == order[:len(state.cards)], "turn order"
            assert len(state.cards) < len(order) and state.free(), "a live round has a move"
            _check_decoys(state.round, state.cards)
        for r in state.scored[:-1]:
            assert r.round < 2 or len(leaders(_totals_to(state, r.round))) > 1, \
                "a round after round 2 follows a shared lead"
        if state.over:
            assert state.round >= 2, "the game lasts at least two rounds"
            assert len(leaders(state.totals)) == 1 or line_in(state.options, state.round + 1) < 1, \
                "a shared lead plays on while numbers remain"


def _totals_to(state: ClosestState, round_: int) -> tuple[int, ...]:
    return tuple(sum(r.points[p] for r in state.scored[:round_]) for p in range(PLAYERS))


def _check_decoys(round_: int, cards: tuple[Card, ...]) -> None:
    for p in range(PLAYERS):
        decoys = [c.decoy for c in cards if c.player == p]
        if round_ == 1:
            assert not any(decoys), "round 1 has no decoys"
        else:
            assert decoys.count(True) <= 1 and (len(decoys) < 2 or decoys.count(True) == 1), \
                "exactly one decoy among a player's two cards"


def _card_json(card: Card) -> dict[str, Any]:
    return {"player": card.player, "number": card.number, "decoy": card.decoy}


def _picture(line: int, cards: tuple[Card, ...]) -> str:
    """``1:- 2:B* ...``: each number with the seat (A, B, C) on it, ``*`` for a decoy."""
    on = {c.number: SEATS[c.player] + ("*" if c.decoy else "") for c in cards}
    return " ".join(f"{n}:{on.get(n, '-')}" for n in range(1, line + 1))


register(Closest())
