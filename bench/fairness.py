"""Fairness: does the box name the right first presser, and does it favour any station on ties?

Simulated races with ground-truth edge times go through the real :class:`~companion.arbiter.race.Race`
and :class:`~companion.arbiter.watermark.Watermarks`, delivered the way a Pi delivers them:

- GPIO presses: the kernel stamps the edge; the event then waits in the kernel queue and for
  gpiozero's callback thread: 0 to 1 ms, the daemon's GPIO latency bound.
- Button-board presses: stamped by the board; the frame crosses USB serial in order (FIFO) with
  1 to 20 ms of delay, among heartbeats sent every 2 ms that carry the board's watermark.

Those GPIO delays stay within the 1 ms the box used to assume, so that case cannot see a bound
that is too short. :func:`gpio_model_misorder` races three GPIO stations with every press late
as the GPIO delivery model says (:mod:`bench.gpio_model`: lgpio's poll and sort hold, then the
GIL hand-off with its heavy tail), at any bounds, all judging the same races.

The baseline is what quiz buzzers do: the first *arrival* wins, there are no ties, and
simultaneous GPIO edges reach the callback in pin order (the interrupt handler walks pins in
ascending order).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from bench.gpio_model import GpioDelivery, ReaderDelivery
from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race
from companion.arbiter.watermark import Watermarks

US, MS = 1_000, 1_000_000
STATIONS = (0, 1, 2)
WINDOW = 10 * MS
GPIO_BOUND = 1 * MS
HEARTBEAT = 2 * MS
PIN_SCAN = 5 * US
"""How much later each further pin's simultaneous edge reaches the callback, in pin order."""


@dataclass(frozen=True)
class Delivery:
    arrival: int
    kind: str  # "press" or "heartbeat"
    station: int
    t_ns: int
    source: str


def deliveries(edges: dict[int, int], sources: dict[int, str], rnd: random.Random) -> list[Delivery]:
    """Every press and board heartbeat, with its arrival time at the host, in arrival order."""
    out = []
    gpio_groups: dict[int, list[int]] = {}
    for station in sorted(edges):
        if sources[station] == "gpio":
            gpio_groups.setdefault(edges[station], []).append(station)
    for t, group in gpio_groups.items():
        # Edges in the same interrupt reach the callback in pin order (pins ascend with stations).
        delay = rnd.randrange(GPIO_BOUND - len(group) * PIN_SCAN)
        for rank, station in enumerate(group):
            out.append(Delivery(t + delay + rank * PIN_SCAN, "press", station, t, "gpio"))
    frames = [(t, "press", s) for s, t in edges.items() if sources[s] == "board"]
    frames += [(h, "heartbeat", -1) for h in range(-5 * MS, max(edges.values()) + 30 * MS, HEARTBEAT)]
    arrival = -10 * MS
    for sent, kind, station in sorted(frames):
        arrival = max(arrival, sent + rnd.randrange(1 * MS, 20 * MS))  # a serial link keeps order
        out.append(Delivery(arrival, kind, station, sent, "board"))
    return sorted(out, key=lambda d: d.arrival)


def decide_fair(feed: list[Delivery], gpio_bound: int = GPIO_BOUND, board: bool = True,
                stations: tuple[int, ...] = STATIONS) -> frozenset[int]:
    """The box: the race is asked just before each arrival whether it can decide. Without a
    ``board`` only the GPIO watermark holds races back."""
    race = Race(0, WINDOW, stations)
    marks = Watermarks()
    marks.add_source("gpio", gpio_bound)
    if board:
        marks.add_source("board")
    for d in feed:
        result = race.decide(marks.low(d.arrival))
        if result is not None:
            return result.winners
        if d.kind == "heartbeat":
            marks.report("board", d.t_ns)
        else:
            race.press(InputEvent(d.station, "slap", True, d.t_ns, d.source))
            marks.saw(d.source, d.t_ns)
    return race.decide(1 << 62).winners


def decide_by_arrival(feed: list[Delivery]) -> frozenset[int]:
    """A quiz buzzer: the first press to arrive wins, and there is no such thing as a tie."""
    return frozenset((next(d.station for d in feed if d.kind == "press"),))


def truth(edges: dict[int, int]) -> frozenset[int]:
    first = min(edges.values())
    return frozenset(s for s, t in edges.items() if t - first < WINDOW)


def misorder(races: int, seed: int = 1, stations: tuple[int, ...] = STATIONS,
             sources: dict[int, str] | None = None) -> dict[str, float]:
    """Wrong verdicts (first presser or tie) among races whose first gap is >= 100 us; each
    station on GPIO or the board as ``sources`` say, else drawn for each race."""
    rnd = random.Random(seed)
    counted = fair_wrong = arrival_wrong = 0
    for _ in range(races):
        edges = {s: rnd.randrange(50 * MS) for s in stations}
        ordered = sorted(edges.values())
        if ordered[1] - ordered[0] < 100 * US:
            continue
        feed = deliveries(edges, sources or {s: rnd.choice(("gpio", "board")) for s in stations}, rnd)
        right = truth(edges)
        counted += 1
        fair_wrong += decide_fair(feed, stations=stations) != right
        arrival_wrong += decide_by_arrival(feed) != right
    return {"races": counted, "fair": fair_wrong / counted, "baseline": arrival_wrong / counted}


def chi_square_p(counts: list[int]) -> float:
    """p-value that ``counts`` are uniform; exact for three categories (2 degrees of freedom)."""
    assert len(counts) == 3
    expected = sum(counts) / 3
    x = sum((c - expected) ** 2 / expected for c in counts)
    return math.exp(-x / 2)


def tie_bias(races: int, seed: int = 2) -> dict[str, float]:
    """Exact ties of all three stations on GPIO: how often each station is named a winner."""
    rnd = random.Random(seed)
    fair_counts, arrival_counts = [0, 0, 0], [0, 0, 0]
    sources = {s: "gpio" for s in STATIONS}
    for _ in range(races):
        t = rnd.randrange(50 * MS)
        feed = deliveries({s: t for s in STATIONS}, sources, rnd)
        for s in decide_fair(feed):
            fair_counts[s] += 1
        for s in decide_by_arrival(feed):
            arrival_counts[s] += 1
    return {"fair": chi_square_p(fair_counts), "baseline": chi_square_p(arrival_counts),
            "fair_counts": fair_counts, "baseline_counts": arrival_counts}


def gpio_model_deliveries(edges: dict[int, int], model: GpioDelivery, rnd: random.Random) -> list[Delivery]:
    """Every press on GPIO, each late by its own draw from the delivery model, in arrival order."""
    out = [Delivery(t + model.delay_ns(rnd), "press", s, t, "gpio") for s, t in edges.items()]
    return sorted(out, key=lambda d: d.arrival)


def gpio_model_misorder(races: int, bounds: tuple[int, ...], model: GpioDelivery = GpioDelivery(),
                        seed: int = 3) -> dict[int, float]:
    """Wrong verdicts (first presser or tie) per GPIO latency bound, among races on GPIO alone
    whose first gap is >= 100 us, every press late as :mod:`bench.gpio_model` says. Every bound
    judges the same races with the same delays."""
    rnd = random.Random(seed)
    wrong = dict.fromkeys(bounds, 0)
    for edges in gpio_races(races, rnd):
        feed = gpio_model_deliveries(edges, model, rnd)
        right = truth(edges)
        for bound in bounds:
            wrong[bound] += decide_fair(feed, bound, board=False) != right
    return {bound: n / races for bound, n in wrong.items()}


def gpio_races(races: int, rnd: random.Random):
    """The edge times of ``races`` races of three GPIO stations whose first gap is >= 100 us."""
    counted = 0
    while counted < races:
        edges = {s: rnd.randrange(50 * MS) for s in STATIONS}
        ordered = sorted(edges.values())
        if ordered[1] - ordered[0] >= 100 * US:
            counted += 1
            yield edges


def gpio_reader_misorder(races: int, model: ReaderDelivery = ReaderDelivery(), seed: int = 3) -> dict[str, float]:
    """The races of :func:`gpio_model_misorder` with the GPIO reader: no latency bound, the race
    decided by the reader's watermark (an explicit source whose events may come out of order).
    Wrong verdicts, and the decision's delay past the tie window (p50/p99, ms)."""
    rnd = random.Random(seed)
    wrong = 0
    late: list[int] = []
    for edges in gpio_races(races, rnd):
        first = min(edges.values())
        race = Race(0, WINDOW, STATIONS)
        marks = Watermarks()
        marks.add_source("gpio", in_order=False)
        verdict = None
        for arrival, kind, station, t_ns in model.records(edges, first + WINDOW, rnd):
            if kind == "press":
                race.press(InputEvent(station, "slap", True, t_ns, "gpio"))
            else:
                marks.report("gpio", t_ns)
            verdict = race.decide(marks.low(arrival))
            if verdict is not None:
                late.append(arrival - first - WINDOW)
                break
        wrong += verdict is None or verdict.winners != truth(edges)
    late.sort()
    return {"rate": wrong / races, "decision_p50_ms": late[len(late) // 2] / MS,
            "decision_p99_ms": late[min(len(late) - 1, round(0.99 * (len(late) - 1)))] / MS}
