"""Bot benchmarks: the hard Triangle bot against two basic-strategy players, its decision time,
and Pay-to-Play solved from scratch.

A Triangle turn is simulated on the timing model of :mod:`companion.bots.triangle` (each basic
player reaches at a normal time around their tier's mean, the hard bot around its slot), with the
rules' own scoring (:func:`companion.games.triangle.round_points`) and the table's 10 ms tie
window. Each seat's knowledge is exactly what a player at the table has seen this turn.
"""

from __future__ import annotations

import random
import statistics
import time

from companion.bots.closest import hard_move
from companion.bots.paytoplay import START, best_action, solve, solver_for
from companion.bots.triangle import (BASIC_REACH_MS, HARD_JITTER_MS, HARD_SLOTS_MS, LATE_WINDOW_MS,
                                     basic_statement, seat_view, tier)
from companion.games import get
from companion.games.closest import ClosestOptions
from companion.games.paytoplay import PayToPlayOptions
from companion.games.triangle import ROUNDS_PER_TURN, VALUES, round_points

TIE_WINDOW_MS = 10


def play_turn(rng: random.Random, levels: tuple[str, str, str]) -> tuple[int, int, int]:
    """One turn of six rounds; each seat ``hard`` or ``basic``. Returns the points per seat."""
    deck = [v for v in VALUES for _ in range(4)]
    rng.shuffle(deck)
    seen: list[list[int]] = [[], [], []]
    points = [0, 0, 0]
    for r in range(ROUNDS_PER_TURN):
        cards = tuple(deck[4 * r:4 * r + 3])
        rts = deck[4 * r + 3]
        views = [seat_view(p, cards, seen[p]) for p in range(3)]
        times, slots = [], {}
        for p, view in enumerate(views):
            if levels[p] == "hard":
                slots[p] = view.claim_slot()
                times.append(rng.gauss(HARD_SLOTS_MS[slots[p]], HARD_JITTER_MS))
            else:
                times.append(rng.gauss(*BASIC_REACH_MS[tier(view.cards.values())]))
        first, second = sorted(range(3), key=times.__getitem__)[:2]
        for p in range(3):
            seen[p] += views[p].cards.values()
        if times[second] - times[first] <= TIE_WINDOW_MS:
            continue
        if levels[first] == "hard":
            late = frozenset(p for p in range(3) if p != first and times[p] - times[first] <= LATE_WINDOW_MS)
            view = views[first]
            (fact, value), _, _ = view.best(view.odds(slots[first], late, rts))
        else:
            fact, value = basic_statement(views[first].cards.values())
        for p, gained in enumerate(round_points(cards, first, fact, value)):
            points[p] += gained
        for p in range(3):
            seen[p].append(cards[p])
        seen[first].append(rts)
    return tuple(points)


def triangle_hard_vs_basic(turns: int, seed: int = 21) -> dict:
    """Mean points per turn of one hard bot (rotating seats) against two basic players, and its
    lead over their mean, with 95 % confidence intervals (normal, over turns). The baseline: a
    basic player in the same seat among basic players, on turns dealt in the same run."""
    rng = random.Random(seed)
    hard, lead, basic, baseline = [], [], [], []
    for n in range(turns):
        seat = n % 3
        levels = tuple("hard" if p == seat else "basic" for p in range(3))
        pts = play_turn(rng, levels)
        others = [pts[p] for p in range(3) if p != seat]
        hard.append(pts[seat])
        basic.append(statistics.fmean(others))
        lead.append(pts[seat] - statistics.fmean(others))
        baseline.append(play_turn(rng, ("basic",) * 3)[seat])

    def ci(xs):
        half = 1.96 * statistics.stdev(xs) / len(xs) ** 0.5
        return [round(statistics.fmean(xs) - half, 3), round(statistics.fmean(xs) + half, 3)]

    return {"turns": turns, "hard_points_per_turn": round(statistics.fmean(hard), 3),
            "hard_points_ci95": ci(hard), "basic_points_per_turn": round(statistics.fmean(basic), 3),
            "lead_per_turn": round(statistics.fmean(lead), 3), "lead_ci95": ci(lead),
            "baseline_points_per_turn": round(statistics.fmean(baseline), 3)}


def triangle_decision_ms(samples: int, seed: int = 5) -> dict:
    """Median and p99 time of one hard decision: when to reach (the plan) and what to state."""
    rng = random.Random(seed)
    took = []
    for _ in range(samples):
        deck = [v for v in VALUES for _ in range(4)]
        rng.shuffle(deck)
        before = deck[:4 * rng.randrange(6)]
        cards = tuple(deck[len(before):len(before) + 3])
        rts = deck[len(before) + 3]
        start = time.perf_counter()
        view = seat_view(0, cards, before[::2])
        slot = view.claim_slot()
        view.best(view.odds(slot, frozenset(), rts))
        took.append((time.perf_counter() - start) * 1000)
    took.sort()
    return {"median": round(statistics.median(took), 3), "p99": round(took[int(0.99 * (len(took) - 1))], 3)}


def other_moves_ms(samples: int, seed: int = 6) -> dict:
    """Median time of one hard move in the closest-number game (random positions of rounds 1-3)
    and in Pay-to-Play (a lookup in its solved table, random positions of random games)."""
    rng = random.Random(seed)
    house = PayToPlayOptions(no_double_pass=True)
    solver_for(house).value(START)
    out = {}
    for name, move, options in (("closest", hard_move, ClosestOptions()), ("paytoplay", best_action, house)):
        rules = get(name)
        took = []
        while len(took) < samples:
            state = rules.new(rules.min_players, options)
            if name == "closest":
                state = rules.apply(state, {"action": "start", "player": rng.randrange(3)})
            for _ in range(rng.randrange(12)):
                if rules.outcome(state) is not None:
                    break
                state = rules.apply(state, rng.choice(rules.legal_actions(state)))
            if rules.outcome(state) is not None:
                continue
            start = time.perf_counter()
            move(state)
            took.append((time.perf_counter() - start) * 1000)
        out[name] = round(statistics.median(took), 3)
    return out


def paytoplay() -> dict:
    """Both rule sets solved from scratch: time and value."""
    out = {}
    for name, house in (("", False), ("_no_double_pass", True)):
        start = time.perf_counter()
        solution = solve(house)
        out[f"paytoplay_solve{name}_s"] = round(time.perf_counter() - start, 2)
        out[f"paytoplay_value{name}"] = {"result": solution.value.result, "margin": solution.value.margin,
                                         "words": solution.value.words(), "best_first": solution.best_first,
                                         "positions": solution.positions}
    return out
