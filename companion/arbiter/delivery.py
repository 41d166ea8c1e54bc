"""How late GPIO presses reach the daemon, and the presses that came too late for their race.

On a Pi the GPIO reader process says how far it has read (:mod:`companion.adapters.gpioreader`), and a
race waits for that: no bound is assumed, and the delays below are only measured and reported. With
the fallback ``timing.gpio_watermark = "bound"`` (buttons read in the daemon), a race on GPIO is
decided once ``now - timing.gpio_latency_ms`` passes ``first + tie_window``
(:mod:`companion.arbiter.watermark`): a promise that every edge reaches the loop within the bound. That
promise rests on the Pi (lgpio's poll, the GIL hand-off, the CPU's load), so the daemon watches it
keep: every GPIO press's *delivery delay* (arrival in the daemon's inbox minus its kernel edge
time) goes into a rolling window with its p99 and max, a delay beyond the bound is counted, and a
*late press* (one that arrived after its race was decided with an edge that would have changed
the verdict, see :class:`~companion.arbiter.race.LatePress`) is logged at WARNING with its delay (and
journaled by the game's table, :mod:`companion.arbiter.latepress`).
``companion selftest`` prints the same figures for a box under display load.
"""

from __future__ import annotations

import logging
import math
from collections import deque

from .latepress import LateNote

log = logging.getLogger(__name__)

KEEP = 1000
"""Delays kept for the rolling p99 (the most recent presses)."""
MS = 1_000_000
MARGIN = 1.5
"""A self-test sees a few dozen presses, so the bound it asks for is its worst delay times this:
the tail a few dozen presses cannot show is in the margin."""
PROFILE_MAX_MS = 50
"""The largest ``timing.gpio_latency_ms`` a profile accepts."""


def nearest_rank(sorted_values: list[int], q: float) -> int:
    """The ``q`` quantile of an ascending list by nearest rank (p99 of 100 values: the largest)."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


class DeliveryWatch:
    """Delivery delays of GPIO presses against the latency bound the races rely on."""

    def __init__(self, bound_ns: int | None, keep: int = KEEP) -> None:
        """``bound_ns`` is the GPIO source's latency bound (None: none assumed, the GPIO reader's
        watermark, or no GPIO source)."""
        self.bound_ns = bound_ns
        self.recent: deque[int] = deque(maxlen=keep)
        self.presses = 0
        self.max_ns = 0
        self.beyond_bound = 0
        self.late_presses = 0

    def saw(self, delay_ns: int) -> None:
        """One GPIO edge arrived ``delay_ns`` after it happened."""
        self.presses += 1
        self.recent.append(delay_ns)
        self.max_ns = max(self.max_ns, delay_ns)
        if self.bound_ns is not None and delay_ns > self.bound_ns:
            self.beyond_bound += 1
            log.warning("a GPIO edge arrived %.1f ms after it happened, beyond the %.1f ms bound "
                        "(timing.gpio_latency_ms); a race may have been decided without it",
                        delay_ns / MS, self.bound_ns / MS)

    def late(self, note: LateNote) -> None:
        """A race found a press too late: ``note.delay_ms`` is its delivery delay if it came from
        GPIO (from a button board, its source's watermark broke its promise)."""
        self.late_presses += 1
        advice = ("" if note.delay_ms is None or self.bound_ns is None
                  else " (raise timing.gpio_latency_ms, see companion selftest)")
        log.warning("late press: %s%s", note.told(lambda seat: f"seat {seat + 1}"), advice)

    def p99_ns(self) -> int | None:
        """The p99 of the recent delays (None before the first press)."""
        return nearest_rank(sorted(self.recent), 0.99) if self.recent else None

    def summary(self) -> str:
        """One line for the log and the self-test report."""
        if not self.presses:
            return "GPIO delivery: no presses measured"
        bound = "" if self.bound_ns is None else f", bound {self.bound_ns / MS:g} ms"
        return (f"GPIO delivery: {self.presses} edges, p99 {self.p99_ns() / MS:.1f} ms, max "
                f"{self.max_ns / MS:.1f} ms{bound}; {self.beyond_bound} beyond the bound, "
                f"{self.late_presses} late presses")

    def check(self) -> tuple[bool, str]:
        """For the self-test: the delay distribution, whether the bound covers it (the worst
        delay with :data:`MARGIN` to spare) and, if not, which bound to set."""
        if not self.recent:
            return True, "GPIO delivery: no GPIO button was pressed, nothing measured"
        delays = sorted(self.recent)
        seen = ", ".join(f"{name} {nearest_rank(delays, q) / MS:.1f}" for name, q in
                         (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)))
        line = (f"GPIO delivery delay of {len(delays)} edges while every display was written: "
                f"{seen}, max {delays[-1] / MS:.1f} ms")
        need_ms = math.ceil(MARGIN * delays[-1] / MS)
        if self.bound_ns is None:
            return True, f"{line}\nraces wait for the GPIO reader's watermark: no bound to cover"
        bound = f"timing.gpio_latency_ms = {self.bound_ns / MS:g}"
        if need_ms * MS <= self.bound_ns:
            return True, f"{line}\nthe profile's {bound} covers it (it needs {need_ms} ms with margin)"
        if need_ms > PROFILE_MAX_MS:
            return False, (f"{line}\nthe profile's {bound} does NOT cover it, and no bound a profile "
                           f"allows would ({need_ms} ms needed): the box is too loaded for fair races")
        return False, (f"{line}\nthe profile's {bound} does NOT cover it: set "
                       f"timing.gpio_latency_ms = {need_ms} in the profile")
