"""Arbiter throughput: fair race decisions per second, and what deciding by arrival would cost.

Each race builds a :class:`~companion.arbiter.race.Race`, feeds it three stations' presses in random
arrival order and decides. The baseline decides the same feeds the unfair way, by arrival (the
first event of the feed); the ratio is the price of fairness, per decision.

Run: ``python -m bench.race_throughput [--races N] [--runs R]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Callable

from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race

MS = 1_000_000
OPENS = 1_000 * MS
WINDOW = 10 * MS
STATIONS = (0, 1, 2)
WATERMARK = OPENS + 100 * MS  # past every press + window: each race decides


def make_feeds(races: int, rnd: random.Random) -> list[list[InputEvent]]:
    feeds = []
    for _ in range(races):
        feed = [InputEvent(s, "slap", True, OPENS + rnd.randrange(50 * MS)) for s in STATIONS]
        rnd.shuffle(feed)
        feeds.append(feed)
    return feeds


def fair(feeds: list[list[InputEvent]]) -> list[frozenset[int]]:
    winners = []
    for feed in feeds:
        race = Race(OPENS, WINDOW, STATIONS)
        for event in feed:
            race.press(event)
        winners.append(race.decide(WATERMARK).winners)
    return winners


def by_arrival(feeds: list[list[InputEvent]]) -> list[frozenset[int]]:
    return [frozenset((feed[0].station,)) for feed in feeds]


def rate(decide: Callable, feeds: list[list[InputEvent]], runs: int) -> float:
    """Median decisions per second over ``runs`` runs."""
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        decide(feeds)
        rates.append(len(feeds) / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    feeds = make_feeds(args.races, random.Random(1))
    fair_rate = rate(fair, feeds, args.runs)
    arrival_rate = rate(by_arrival, feeds, args.runs)
    wrong = sum(f != a for f, a in zip(fair(feeds), by_arrival(feeds))) / len(feeds)
    print(f"{args.races} races of 3 presses, median of {args.runs} runs")
    print(f"fair (edge times, tie window): {fair_rate:>12,.0f} decisions/s"
          f"  ({1e6 / fair_rate:.2f} us each)")
    print(f"by arrival order (baseline):   {arrival_rate:>12,.0f} decisions/s"
          f"  ({1e6 / arrival_rate:.3f} us each)")
    print(f"fair is {arrival_rate / fair_rate:.0f}x slower than by arrival;"
          f" by arrival picks other winners in {wrong:.0%} of these races")


if __name__ == "__main__":
    main()
