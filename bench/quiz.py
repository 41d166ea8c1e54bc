"""Quiz night's buzzer race with 16 players, some on GPIO and the rest on the button board.

The same simulated delivery as :mod:`bench.fairness` (GPIO: 0 to 1 ms, simultaneous edges
reaching the callback in pin order; the board: FIFO serial frames 1 to 20 ms late among 2 ms
heartbeats), the real :class:`~companion.arbiter.race.Race` and watermarks deciding, and for an
exact tie the quiz's own settlement with the option ``tie = "draw"``: the rules' ``tiebreak``
drawn from the game's seed and the count of chance events, as the table's match draws it.

- ``quiz_misorder_rate_ge_100us``: races whose first two presses are at least 100 us apart in
  which the box names another first presser than the edges do (or a tie), against the
  arrival-order buzzer's rate (the first press to arrive answers).
- ``quiz_tie_bias_p``: all 16 press at the same edge time; the chi-square p-value that every
  station answers as often as any other (16 categories), against arrival order's.
"""

from __future__ import annotations

import math
import random

from bench import fairness
from bench.fairness import MS, decide_by_arrival, decide_fair, deliveries
from companion.games import get

PLAYERS = 16
STATIONS = tuple(range(PLAYERS))
GPIO_STATIONS = 7
"""Stations 1-7 on GPIO (the host's panel and buttons take four more pins), 8-16 on the board,
as hardware/profiles/quiz-16.toml wires them."""
SOURCES = {s: "gpio" if s < GPIO_STATIONS else "board" for s in STATIONS}


def misorder(races: int, seed: int = 11) -> dict[str, float]:
    result = fairness.misorder(races, seed, STATIONS, SOURCES)
    return {"quiz_races": result["races"], "quiz_misorder_rate_ge_100us": result["fair"],
            "baseline_quiz_misorder_rate_ge_100us": result["baseline"]}


def answerer(tied: frozenset[int], seed: int, chances: int) -> int:
    """Who answers a tie under ``tie = "draw"``: the quiz rules' own draw (seats 1.. are the
    players, seat 0 the host), from the seed as the match seeds each chance event."""
    quiz = get("quiz")
    state = quiz.apply(quiz.new(PLAYERS + 1, {"tie": "draw"}), {"action": "arm"})
    seats = sorted(s + 1 for s in tied)
    state = quiz.apply(state, {"action": "buzz", "players": seats, "order": seats})
    event = quiz.draw_chance(state, random.Random(f"{seed}/{chances}"))
    return quiz.apply_chance(state, event).answering - 1


def chi_square_p(counts: list[int]) -> float:
    """p-value that ``counts`` are uniform: the chi-square statistic's upper tail with
    ``len(counts) - 1`` degrees of freedom (the regularized upper incomplete gamma, by its series)."""
    expected = sum(counts) / len(counts)
    x = sum((c - expected) ** 2 / expected for c in counts) / 2
    s = (len(counts) - 1) / 2
    if x == 0:
        return 1.0
    term = total = 1 / s
    n = 0
    while term > 1e-17 * total:
        n += 1
        term *= x / (s + n)
        total += term
    lower = math.exp(s * math.log(x) - x - math.lgamma(s)) * total
    return max(0.0, 1.0 - lower)


def tie_bias(races: int, seed: int = 12) -> dict:
    rnd = random.Random(seed)
    fair, arrival = [0] * PLAYERS, [0] * PLAYERS
    for n in range(races):
        t = rnd.randrange(50 * MS)
        feed = deliveries(dict.fromkeys(STATIONS, t), SOURCES, rnd)
        winners = decide_fair(feed, stations=STATIONS)
        assert winners == frozenset(STATIONS), "an exact tie of all 16 is declared as one"
        fair[answerer(winners, seed, n)] += 1
        for s in decide_by_arrival(feed):
            arrival[s] += 1
    return {"quiz_tie_bias_p": chi_square_p(fair), "baseline_quiz_tie_bias_p": chi_square_p(arrival),
            "quiz_tie_counts": fair, "baseline_quiz_tie_counts": arrival}
