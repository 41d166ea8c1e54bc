"""How late a GPIO press reaches the daemon on a Pi: the delivery model of the fairness benchmark.

A GPIO edge is stamped by the kernel in the interrupt (CLOCK_MONOTONIC, the time races are
decided on). The event then travels, and every step makes it later:

1. **lgpio's alert thread** (lg v0.2.2, ``lgPthAlerts.c``, read at that tag; see also
   ``LIBRARY-NOTES.md``) waits in ``ppoll`` on the line fds with a 0.5 ms timeout
   (``tspec = {0, 5e5}``), reads an edge as soon as it comes, and after every poll emits only the
   events older than 500 us, to sort them among the other lines' first
   (``emit(count, nowGT-500000)``). An edge therefore leaves for the Python notification pipe
   at the first poll at least 0.5 ms after it: 0.5 to about 1.05 ms late. Drawn uniformly from
   :data:`POLL_SORT_NS`.
2. **The hand-off to Python.** lgpio's Python callback thread reads the pipe and calls gpiozero,
   which calls the daemon's edge callback: a thread that needs the GIL. While the display writer
   packs a frame in Python (luma's ``display()``, 0.7 ms a frame on x86, 15-30 ms on a Zero), it
   holds the GIL, and gives it up only once the interpreter's switch interval has passed. So the
   wait is one switch interval, sometimes several (another thread takes the GIL first), plus the
   operating system's own wake-up delay, which has a tail of its own on a loaded CPU::

       hand-off = WAKE + s * (1 + X) + J

   ``s`` is the switch interval; ``X`` (extra intervals lost) is 0, or with probability
   :data:`EXTRA_INTERVALS_P` exponential with mean :data:`EXTRA_INTERVALS_MEAN` intervals; ``J``
   (scheduling) is 0, or with probability :data:`SCHEDULING_P` exponential with mean
   :data:`SCHEDULING_MEAN_NS`. Both tails are unbounded: no bound covers every press, only all
   but a vanishing fraction.

The parameters are fitted to measurements of the hand-off (``python -m bench.handoff``: a real
luma ``ssd1306.display()`` packing frames in one thread over a bus double, a reader thread stamping
events a child process writes into a pipe), on the 2-core x86 development machine while other
work ran (``bench/README.md`` has the figures):

- at the stock 5 ms switch interval: p90 6-8 ms and p99 18-20 ms in an earlier measurement, p90
  5.6 ms and p99 8.7 ms (max 14 ms of 2,000) in ours. ``X`` is fitted to the heavier one
  (the model gives p90 7.5 ms, p99 19 ms);
- at 1 ms and 0.5 ms: p99 2.5-3.4 ms, p99.9 5.2-5.6 ms, max 7-10 ms of 2,000: what does not shrink
  with the interval is scheduling, ``J`` (the model gives, at 1 ms, p99 4.4 ms and p99.9 7.2 ms: on
  the safe side).

The daemon sets the switch interval to 1 ms (:data:`companion.daemon.SWITCH_INTERVAL_S`), so the
model of the box uses that; :data:`STOCK_SWITCH_INTERVAL_NS` is the interpreter's default.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

US, MS = 1_000, 1_000_000

POLL_SORT_NS = (500 * US, 1_050 * US)
"""lgpio's poll period plus its 500 us sort hold: how late an edge reaches the pipe."""
WAKE_NS = 100 * US
"""A reader thread's wake-up once it may run (the measured median minus the interval)."""
EXTRA_INTERVALS_P, EXTRA_INTERVALS_MEAN = 0.147, 1.04
"""Fitted to p90 7 ms and p99 19 ms at the 5 ms interval: P(X > x) = 0.147 exp(-x / 1.04)."""
SCHEDULING_P, SCHEDULING_MEAN_NS = 0.0466, 1_300 * US
"""Fitted to p99 2 ms and p99.9 5 ms of scheduling delay: P(J > j) = 0.0466 exp(-j / 1.3 ms)."""
STOCK_SWITCH_INTERVAL_NS = 5 * MS
BOX_SWITCH_INTERVAL_NS = 1 * MS


@dataclass(frozen=True)
class GpioDelivery:
    """The delivery delay of one GPIO press, edge to the daemon's inbox, at a switch interval."""

    switch_interval_ns: int = BOX_SWITCH_INTERVAL_NS

    def handoff_ns(self, rnd: random.Random) -> int:
        """The wait from the notification pipe to the edge callback (step 2)."""
        extra = rnd.expovariate(1 / EXTRA_INTERVALS_MEAN) if rnd.random() < EXTRA_INTERVALS_P else 0.0
        scheduling = rnd.expovariate(1 / SCHEDULING_MEAN_NS) if rnd.random() < SCHEDULING_P else 0.0
        return round(WAKE_NS + self.switch_interval_ns * (1 + extra) + scheduling)

    def delay_ns(self, rnd: random.Random) -> int:
        """Edge to inbox: lgpio's poll and sort hold, then the hand-off."""
        return rnd.randint(*POLL_SORT_NS) + self.handoff_ns(rnd)


def quantiles(draw, rnd: random.Random, samples: int, qs: tuple[float, ...]) -> list[float]:
    """Nearest-rank quantiles, in ms, of ``samples`` draws of ``draw(rnd)`` (ns)."""
    values = sorted(draw(rnd) for _ in range(samples))
    return [values[min(samples - 1, round(q * (samples - 1)))] / MS for q in qs]


# --- With the GPIO reader process (companion/adapters/gpioreader.py) ---

KERNEL_QUEUE_NS = (10 * US, 200 * US)
"""From an edge's stamp to the event in the line request's queue: gpio-cdev stamps in the hard
interrupt handler and queues from the interrupt's kernel thread (``edge_irq_thread``), which runs
at real-time priority (SCHED_FIFO 50) and preempts every ordinary process. Assumed uniform in
10-200 us, well within the reader's margin (:data:`~companion.adapters.gpioreader.KERNEL_MARGIN_NS`):
this is the one assumption left, and the reader checks it on the box (an edge later than a
watermark is counted and logged)."""
READER_WAKE_NS = (20 * US, 300 * US)
"""The reader's wake-up from ``poll`` once an event is queued or its timeout is due: an ordinary
process doing nothing else, holding no one's GIL."""


@dataclass(frozen=True)
class ReaderDelivery:
    """GPIO presses through the reader: what the daemon receives and when. The reader's records
    cross a socket in order, then wait for the daemon's GIL like any thread hand-off
    (:meth:`GpioDelivery.handoff_ns`, with its heavy tail): arrival order and delays are as bad as
    before, but races are decided by the reader's watermark, not by a bound."""

    margin_ns: int = 1 * MS
    handoff: GpioDelivery = GpioDelivery()

    def records(self, edges: dict[int, int], due_ns: int, rnd: random.Random) -> list[tuple[int, str, int, int]]:
        """``(arrival, kind, station, t_ns)`` for every edge (kind ``"press"``) and watermark
        (``"mark"``, station -1) the reader sends until one passes ``due_ns`` (the race's first
        press plus its tie window, which the daemon asks for), in arrival order."""
        visible = sorted((t + rnd.randint(*KERNEL_QUEUE_NS), t, s) for s, t in edges.items())
        turns = [v + rnd.randint(*READER_WAKE_NS) for v, _, _ in visible]
        out: list[tuple[int, str, int, int]] = []
        read: set[int] = set()
        arrival = sent_mark = -(1 << 62)
        asked_at = None  # when the daemon's request for a watermark past due_ns reached the reader

        def send(checked: int) -> None:
            nonlocal arrival, sent_mark
            for v, t, s in visible:
                if v <= checked and s not in read:
                    read.add(s)
                    arrival = max(arrival, checked + self.handoff.handoff_ns(rnd))
                    out.append((arrival, "press", s, t))
            if checked - self.margin_ns > sent_mark:
                sent_mark = checked - self.margin_ns
                arrival = max(arrival, checked + self.handoff.handoff_ns(rnd))
                out.append((arrival, "mark", -1, sent_mark))

        turns.sort()
        while turns:
            send(turns.pop(0))
            if asked_at is None:  # the first press reached the daemon: it asks for due_ns
                asked_at = max(out[0][0], due_ns + self.margin_ns) + rnd.randint(*READER_WAKE_NS)
                turns = sorted(turns + [asked_at])
        return out
