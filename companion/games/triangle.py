"""Triangle (``triangle.md``): three players each see the other two cards, never their own.

A round deals one card to each player and one face down in the centre, the Right to Speak
(RtS). The first player to take the RtS states one fact about their own card and scores its
points if it is true; if it is false, each other player scores 3. Two players reaching for the
RtS together make the round a draw: nobody scores and the cards are discarded unseen. A round
nobody claims can be voided (the table's ``round_timeout_s``).

The deck is 24 cards, four each of 1 to 6. A round uses four, so a turn of six rounds uses the
whole deck, which is then reshuffled. The end is checked only at the end of a turn, because
strategies that pay off late in a turn would be cut short: by default the game ends once a player
has reached ``target``; with ``turns`` set it ends after that many turns. All top scores win.

Each deal is a chance event ``{"event": "deal", "cards": [c0, c1, c2], "rts": r}``; a deal that
needs a card this turn has already used up is refused, so a journal cannot deal a fifth 4.

The options also carry the table's timing (tie window, countdown pace, false-start lockout,
round timeout) so that a journal header records how the game was refereed. Only a game with
``round_timeout_s`` has void rounds: without it a round nobody claims waits, and a ``void``
line is refused.

The scoring is :mod:`.triangle_scoring`, the options :mod:`.triangle_options`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import register
from .base import Action, IllegalAction, Outcome, Rules, each_player, need, player_field
from .triangle_options import TriangleOptions
from .triangle_scoring import FACTS, PLAYERS, POINTS, WRONG_POINTS, fact_true, peers, round_points, said, settlement

VALUES = tuple(range(1, 7))
COPIES = 4
ROUNDS_PER_TURN = len(VALUES) * COPIES // (PLAYERS + 1)


@dataclass(frozen=True, slots=True)
class Round:
    """One dealt round and how it ended. While it is being played only ``cards``, ``rts`` and
    perhaps ``claimer`` are set."""

    cards: tuple[int, int, int]
    rts: int
    claimer: int | None = None
    draw: tuple[int, ...] = ()
    void: bool = False
    fact: str | None = None
    value: int | None = None
    """The stated value, for ``exact`` only."""
    points: tuple[int, int, int] = (0, 0, 0)

    @property
    def finished(self) -> bool:
        return bool(self.draw) or self.void or self.fact is not None

    @property
    def correct(self) -> bool | None:
        """Whether the stated fact was true; None when nothing was stated."""
        if self.fact is None:
            return None
        return fact_true(self.cards, self.claimer, self.fact, self.value)

    def seen_by(self, player: int) -> tuple[int, ...]:
        """The cards ``player`` has seen in this round, once the countdown reached 0: the peers'
        cards; their own card once a fact was stated; the RtS card if they claimed it."""
        seen = [c for p, c in enumerate(self.cards) if p != player]
        if self.fact is not None:
            seen.append(self.cards[player])
        if self.claimer == player:
            seen.append(self.rts)
        return tuple(seen)


class History(Sequence):
    """The finished rounds, oldest first, as a persistent list: a state with one more round
    shares every earlier round instead of copying them. A tuple copied per round made a long
    game's replay quadratic (a 43 MB journal took 770 s to resume); with this it is linear.
    It compares and hashes like the tuple of its rounds."""

    __slots__ = ("_last", "_before", "_length")

    def __init__(self, rounds: Iterable[Round] = ()) -> None:
        self._last: Round | None = None
        self._before: History | None = None
        self._length = 0
        for r in rounds:
            before = History()
            before._last, before._before, before._length = self._last, self._before, self._length
            self._last, self._before, self._length = r, (before if before._length else None), self._length + 1

    def add(self, r: Round) -> History:
        """This history with ``r`` finished after it; this one is unchanged."""
        new = History()
        new._last, new._before, new._length = r, (self if self._length else None), self._length + 1
        return new

    def recent(self, n: int) -> tuple[Round, ...]:
        """The last ``n`` rounds (fewer if there are not as many), oldest first, in O(n)."""
        out, node = [], self
        while node is not None and node._length and len(out) < n:
            out.append(node._last)
            node = node._before
        return tuple(reversed(out))

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[Round]:
        return iter(self.recent(self._length))

    def __getitem__(self, index):
        if isinstance(index, int) and -ROUNDS_PER_TURN <= index < 0 and -index <= self._length:
            return self.recent(-index)[0]
        return self.recent(self._length)[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (History, tuple)):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"History({list(self)!r})"


@dataclass(frozen=True)
class TriangleState:
    """The finished rounds of the whole game, the round being played, and the scores.

    Turn and round numbers and the cards left in the deck all follow from ``history``.
    """

    options: TriangleOptions
    scores: tuple[int, int, int] = (0, 0, 0)
    history: History = History()
    current: Round | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.history, History):  # rounds given as a tuple or list
            object.__setattr__(self, "history", History(self.history))

    @property
    def turns_done(self) -> int:
        return len(self.history) // ROUNDS_PER_TURN

    @property
    def over(self) -> bool:
        if self.current is not None or not self.history or len(self.history) % ROUNDS_PER_TURN:
            return False
        if self.options.turns is not None:
            return self.turns_done >= self.options.turns
        return max(self.scores) >= self.options.target

    @property
    def turn(self) -> int:
        """The turn of the round being played (or about to be dealt; the last one once over)."""
        return self.turns_done if self.over else self.turns_done + 1

    @property
    def round(self) -> int:
        """The round number within the turn, 1 to 6, of the round being played or next dealt."""
        return ROUNDS_PER_TURN if self.over else len(self.history) % ROUNDS_PER_TURN + 1

    @property
    def dealt(self) -> tuple[Round, ...]:
        """Every round dealt so far, the one being played included."""
        return tuple(self.history) + ((self.current,) if self.current else ())

    @property
    def latest_turn(self) -> int:
        """The turn of the latest round dealt (1 before the first deal)."""
        return max(len(self.history) + (self.current is not None) - 1, 0) // ROUNDS_PER_TURN + 1

    def turn_rounds(self) -> tuple[Round, ...]:
        """The rounds dealt so far in the latest turn, the one being played included."""
        dealt = len(self.history) + (self.current is not None)
        if not dealt:
            return ()
        in_turn = (dealt - 1) % ROUNDS_PER_TURN + 1
        if self.current is None:
            return self.history.recent(in_turn)
        return self.history.recent(in_turn - 1) + (self.current,)

    def deck(self) -> Counter:
        """How many of each value are still undealt in this turn."""
        if self.current is None and len(self.history) % ROUNDS_PER_TURN == 0:
            return Counter({v: COPIES for v in VALUES})
        used = Counter(c for r in self.turn_rounds() for c in (*r.cards, r.rts))
        return Counter({v: COPIES - used[v] for v in VALUES})


def _card(value: Any, where: str) -> int:
    need(not isinstance(value, bool) and isinstance(value, int) and value in VALUES,
         f"deal: {where} must be a card value from 1 to 6, not {value!r}")
    return value


class Triangle(Rules):
    name = "triangle"
    title = "Triangle"
    bots_play = True
    min_players = PLAYERS
    max_players = PLAYERS
    Options = TriangleOptions
    actions = ("claim", "draw", "state", "void")
    dealt_since = "the cards are dealt"

    def takeback_refusal(self, before: Any, action: Action, after: Any) -> str | None:
        """Nothing: a claim or a draw is a race, a statement reveals the cards."""
        if action.get("action") == "state":
            return "the cards are revealed"
        return "a race cannot be taken back"
    chance_events = ("deal",)

    def new(self, players: int, options: Any) -> TriangleState:
        """A game before its first deal; ``options`` may also be a mapping to parse."""
        options = self.checked_options(players, options)
        return TriangleState(options)

    # --- chance ---------------------------------------------------------------------------

    def chance_needed(self, state: TriangleState) -> bool:
        return state.current is None and not state.over

    def draw_chance(self, state: TriangleState, rng) -> dict[str, Any]:
        pool = sorted(state.deck().elements())
        cards = rng.sample(pool, PLAYERS + 1)
        return {"event": "deal", "cards": cards[:PLAYERS], "rts": cards[PLAYERS]}

    def apply_chance(self, state: TriangleState, event: Action) -> TriangleState:
        self.event_kind(event)
        need(self.chance_needed(state), "no deal is due: a round is being played or the game is over")
        unknown = sorted(set(event) - {"event", "cards", "rts"})
        if unknown:
            raise IllegalAction(f"deal: unknown field {unknown[0]!r}; a deal has cards and rts")
        cards = event.get("cards")
        need(isinstance(cards, (list, tuple)) and len(cards) == PLAYERS,
             f"deal: 'cards' must list one card per player (3), not {cards!r}")
        cards = tuple(_card(c, f"card {i}") for i, c in enumerate(cards))
        rts = _card(event.get("rts"), "'rts'")
        deck = state.deck()
        wanted = Counter(cards + (rts,))
        for value in sorted(wanted):
            left = deck[value]
            need(wanted[value] <= left,
                 f"deal: this deal needs {wanted[value]} card(s) of value {value}, but only {left} "
                 f"of the four are left in turn {state.turn}'s deck")
        return replace(state, current=Round(cards, rts))

    # --- actions --------------------------------------------------------------------------

    def to_move(self, state: TriangleState) -> tuple[int, ...]:
        current = state.current
        if current is None:
            return ()
        if current.claimer is None:
            return tuple(range(PLAYERS))
        return (current.claimer,)

    def legal_actions(self, state: TriangleState) -> list[dict[str, Any]]:
        current = state.current
        if current is None:
            return []
        if current.claimer is not None:
            p = current.claimer
            actions = [{"action": "state", "player": p, "fact": f} for f in FACTS if f != "exact"]
            return actions + [{"action": "state", "player": p, "fact": "exact", "value": v} for v in VALUES]
        actions = [{"action": "claim", "player": p} for p in range(PLAYERS)]
        actions += [{"action": "draw", "players": list(group)}
                    for n in (2, 3) for group in itertools.combinations(range(PLAYERS), n)]
        if state.options.round_timeout_s is not None:
            actions.append({"action": "void"})
        return actions

    def apply(self, state: TriangleState, action: Action) -> TriangleState:
        kind = self.action_kind(action)
        need(not state.over, "the game is over")
        current = state.current
        need(current is not None, "no round is dealt yet: the cards come first")
        if kind == "state":
            return self._state_fact(state, action)
        if current.claimer is not None:
            raise IllegalAction(f"player {current.claimer} already has the Right to Speak and must "
                                "state a fact")
        if kind == "claim":
            return replace(state, current=replace(current, claimer=player_field(action, PLAYERS)))
        if kind == "void":
            need(state.options.round_timeout_s is not None,
                 "a round is void only when the round timeout expires, and this game has no "
                 "round_timeout_s: a round nobody claims waits")
            return self._finish(state, replace(current, void=True))
        players = action.get("players")
        need(isinstance(players, (list, tuple)) and 2 <= len(players) <= PLAYERS,
             f"a draw names the 2 or 3 players who slapped together, not {players!r}")
        group = sorted(player_field({"players": p}, PLAYERS, "players") for p in players)
        need(len(set(group)) == len(group), f"a draw names each player once, not {players!r}")
        return self._finish(state, replace(current, draw=tuple(group)))

    def _state_fact(self, state: TriangleState, action: Action) -> TriangleState:
        current = state.current
        need(current.claimer is not None, "nobody has the Right to Speak yet: take it first")
        p = player_field(action, PLAYERS)
        need(p == current.claimer,
             f"only player {current.claimer}, who has the Right to Speak, may state a fact")
        fact = action.get("fact")
        need(fact in FACTS, f"'fact' must be one of {', '.join(FACTS)}, not {fact!r}"
             " (\"my peers are odd\" and \"I am less\" are not facts of the game)")
        value = action.get("value")
        if fact == "exact":
            need(not isinstance(value, bool) and isinstance(value, int) and value in VALUES,
                 f"'exact' needs a 'value' from 1 to 6, not {value!r}")
        else:
            need("value" not in action, f"only 'exact' takes a 'value'; {fact!r} does not")
            value = None
        points = round_points(current.cards, p, fact, value)
        return self._finish(state, replace(current, fact=fact, value=value, points=points))

    @staticmethod
    def _finish(state: TriangleState, done: Round) -> TriangleState:
        scores = tuple(s + d for s, d in zip(state.scores, done.points))
        return replace(state, scores=scores, history=state.history.add(done), current=None)

    # --- results --------------------------------------------------------------------------

    def outcome(self, state: TriangleState) -> Outcome | None:
        if not state.over:
            return None
        top = max(state.scores)
        winners = tuple(p for p, s in enumerate(state.scores) if s == top)
        return Outcome(winners, state.scores, self.detail(state))

    def scores(self, state: TriangleState) -> tuple[int, int, int]:
        return state.scores

    def detail(self, state: TriangleState) -> dict[str, Any]:
        detail: dict[str, Any] = {
            "turn": state.turn,
            "round": state.round,
            "rounds": [_round_detail(r) for r in state.history],
            "deck": [state.deck()[v] for v in VALUES],
        }
        if state.options.settlement:
            detail["settlement"] = [list(s) for s in settlement(state.scores)]
        return detail

    def describe(self, state: TriangleState) -> list[str]:
        lines = [f"Turn {state.turn}, round {state.round} of {ROUNDS_PER_TURN}"]
        for r in state.history.recent(ROUNDS_PER_TURN if state.over else state.round - 1):  # this turn's
            lines.append(f"  cards {each_player(r.cards)}; Right to Speak card {r.rts}: {_ending(r)}")
        if state.current is not None:
            lines.append(f"  dealt {each_player(state.current.cards)}; Right to Speak card {state.current.rts}")
        return lines

    def check_invariants(self, state: TriangleState) -> None:
        assert len(state.scores) == PLAYERS and min(state.scores) >= 0, "three scores, never negative"
        totals = tuple(sum(r.points[p] for r in state.history) for p in range(PLAYERS))
        assert state.scores == totals, "scores are the sum of the rounds' points"
        for r in state.history:
            assert r.finished and sum((bool(r.draw), r.void, r.fact is not None)) == 1, \
                "a finished round ended one way"
            assert not r.draw or r.claimer is None, "a draw has no claimer"
            if r.fact is not None:
                assert r.claimer is not None and r.points == round_points(r.cards, r.claimer, r.fact, r.value)
            else:
                assert r.points == (0, 0, 0), "a draw or a void round scores nothing"
        assert state.current is None or not state.current.finished, "the current round is unfinished"
        dealt = state.dealt
        for start in range(0, len(dealt), ROUNDS_PER_TURN):
            used = Counter(c for r in dealt[start:start + ROUNDS_PER_TURN] for c in (*r.cards, r.rts))
            assert all(used[v] <= COPIES for v in VALUES), "a turn deals at most four of a value"
        assert sum(state.deck().values()) % (PLAYERS + 1) == 0, "a round takes four cards"
        if state.over:
            assert state.current is None and len(state.history) % ROUNDS_PER_TURN == 0, \
                "the game ends only at the end of a turn"


def _round_detail(r: Round) -> dict[str, Any]:
    out: dict[str, Any] = {"cards": list(r.cards), "rts": r.rts, "points": list(r.points)}
    if r.draw:
        out["draw"] = list(r.draw)
    elif r.void:
        out["void"] = True
    else:
        out.update(claimer=r.claimer, fact=r.fact, correct=r.correct)
        if r.value is not None:
            out["value"] = r.value
    return out


def _ending(r: Round) -> str:
    if r.draw:
        return f"draw between players {', '.join(map(str, r.draw))}"
    if r.void:
        return "void"
    return (f"player {r.claimer} stated \"{said(r.fact, r.value)}\": {'true' if r.correct else 'false'}, "
            f"points {each_player(r.points)}")


register(Triangle())
