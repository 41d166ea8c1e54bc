"""The closest-number game: round 1 solved for three players, and the bots' moves.

**Round 1 solved.** Three players place one card each in turn on the line 1..N. Backward
induction: the last player takes the number that scores them most; the second, knowing that, takes
the number that scores them most once the third has answered; the first likewise. Each player
maximizes their own round-1 points. **Tie-break rule:** a player with several equally good numbers
takes the lowest. Under that rule play is unique (subgame-perfect), so :func:`round1_solution`
gives one line of play and everyone's points.

**Later rounds, the hard bot's heuristic** (no solution claimed: hidden decoys make it a game of
imperfect information). Every opponent card whose decoy status is hidden is a decoy with even odds
(each player has exactly one decoy per round), and the bot scores a number by its expected
points over those cases, cards still to come ignored. Its counting card goes to the best such
number. Its decoy is a bluff: played *first* when the bot opens the round (on the best number, so
the others steer clear of a card that does not count), otherwise *second* on the number that takes
the most expected points from the current leader (a decoy still covers its number). In round 3
both cards count, so both go to the best numbers.

**The easy bot** places on a random free number and picks its decoy at random.
"""

from __future__ import annotations

import functools
import itertools
import random
from typing import Any

from ..games.closest import PLAYERS, Card, ClosestState, score


@functools.lru_cache(maxsize=None)
def _round1(line: int, placed: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the rest of the line of play, final points) once ``placed`` numbers are down, in turn
    order: mover i is the i-th to place."""
    mover = len(placed)
    if mover == PLAYERS:
        cards = tuple(Card(i, n) for i, n in enumerate(placed))
        return (), score(line, cards, decoys_count=True)[1]
    best = None
    for n in range(1, line + 1):
        if n in placed:
            continue
        rest, points = _round1(line, placed + (n,))
        if best is None or points[mover] > best[1][mover]:
            best = ((n,) + rest, points)
    return best


def round1_solution(line: int = 10) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Round 1 under perfect play: (the numbers placed, first mover first; the points of the
    first, second and third mover)."""
    return _round1(line, ())


def round1_best(line: int, placed: tuple[int, ...]) -> int:
    """The solved move for the next mover of round 1 after ``placed`` (in turn order)."""
    return _round1(line, placed)[0][0]


def _hidden_cases(state: ClosestState, me: int) -> list[tuple[Card, ...]]:
    """Every equally likely reading of the opponents' cards: which are decoys."""
    per_player = []
    for p in range(PLAYERS):
        mine = state.cards_of(p)
        if p == me or not mine:
            per_player.append([tuple(mine)])
        elif len(mine) == 1:
            per_player.append([(Card(p, mine[0].number, d),) for d in (False, True)])
        else:
            per_player.append([tuple(Card(p, c.number, i == k) for i, c in enumerate(mine)) for k in range(2)])
    return [tuple(itertools.chain(*case)) for case in itertools.product(*per_player)]


def _expected_points(state: ClosestState, me: int, extra: Card) -> tuple[float, ...]:
    cases = _hidden_cases(state, me)
    decoys_count = state.round == 3
    totals = [0.0] * PLAYERS
    for case in cases:
        for p, pts in enumerate(score(state.line, case + (extra,), decoys_count)[1]):
            totals[p] += pts / len(cases)
    return tuple(totals)


def hard_move(state: ClosestState) -> dict[str, Any]:
    """The hard bot's ``place`` action (see the module docstring)."""
    me = state.mover()
    free = state.free()
    if state.round == 1:
        order = [c.number for c in state.cards]
        return {"action": "place", "player": me, "number": round1_best(state.line, tuple(order))}
    rule = state.decoy_rule(me)
    opening = not state.cards
    decoy = opening if rule is None else rule
    if state.round == 3 or not decoy or opening:
        number = max(free, key=lambda n: (_expected_points(state, me, Card(me, n, False))[me], -n))
    else:
        leader = max((p for p in range(PLAYERS) if p != me), key=lambda p: (state.totals[p], -p))
        number = min(free, key=lambda n: (_expected_points(state, me, Card(me, n, True))[leader], n))
    return {"action": "place", "player": me, "number": number, "decoy": decoy}


def easy_move(state: ClosestState, rng: random.Random) -> dict[str, Any]:
    """The easy bot's ``place`` action: a random free number, a random decoy choice."""
    me = state.mover()
    rule = state.decoy_rule(me)
    action = {"action": "place", "player": me, "number": rng.choice(state.free())}
    if state.round > 1:
        action["decoy"] = rng.random() < 0.5 if rule is None else rule
    return action
