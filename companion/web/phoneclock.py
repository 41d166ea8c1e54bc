"""A phone's clock on the box's: each touch's phone time as a box time with its error.

The box pings the phone over its WebSocket and notes its own monotonic clock just before sending
and when the pong arrived; the pong carries the phone's clock when it answered. That is exactly
the button board's exchange (:mod:`companion.board.clocksync`), so the same bounds fit the same
line: a slow leg only loosens a bound, and the error of a mapped time is half the band the
quickest legs leave (about half the best round trip), plus the drift allowance beyond the
exchanges. Two things differ from the board's crystal timer:

- the phone's clock is read by a browser that may coarsen it (to 0.1 ms in Chrome, 1 ms in
  Firefox and Safari), so a stamp may be up to :data:`PHONE_RESOLUTION_NS` early, which breaks
  "a stamp is only ever late"; that much is added to every error;
- a phone is on Wi-Fi, whose legs are often tens or hundreds of milliseconds (a phone in power
  save sleeps up to a second): the error is what it is, and the arbiter never ranks two presses
  whose intervals overlap (:mod:`companion.arbiter.race`).

Each pong is also the phone's watermark: the page sends every press before answering a ping, so
every press with a phone time before the pong's has arrived. On the box's clock that is the
pong's time mapped less its error, and less once more the error a later press may carry: a race
waits until no press still to come could start its interval early enough to tie.
"""

from __future__ import annotations

from ..board.clocksync import ClockSync

PHONE_RESOLUTION_NS = 1_000_000
"""The coarsest a browser's ``performance.now()`` is (Firefox and Safari: 1 ms)."""
MAX_DRIFT = 2e-4
"""A phone's clock rate error believed at most: 200 ppm (a cheap crystal is within 100)."""


class PhoneClock:
    """One phone's clock, refitted from every ping exchange (phone ms to box ns)."""

    def __init__(self) -> None:
        self.sync = ClockSync(window_ns=30_000_000_000, interval_ns=500_000_000, max_drift=MAX_DRIFT)
        self.watermark_ns: int | None = None
        """Every press of this phone with a box time before this has arrived."""
        self.error_ns = 0
        """The error of the latest exchange's mapped time: what a press made now will carry."""

    @property
    def synced(self) -> bool:
        return self.sync.synced

    def exchange(self, sent_ns: int, phone_ms: float, received_ns: int) -> None:
        """One ping sent at ``sent_ns``, answered at ``phone_ms`` on the phone, back at ``received_ns``."""
        self.sync.add(sent_ns, _us(phone_ms), received_ns)
        t_ns, error_ns = self.to_box(phone_ms)
        self.error_ns = error_ns
        mark = t_ns - 2 * error_ns  # the pong's earliest, less the error a press after it may have
        self.watermark_ns = mark if self.watermark_ns is None else max(self.watermark_ns, mark)

    def to_box(self, phone_ms: float) -> tuple[int, int]:
        """The box time of a phone time and how far it may be from the truth, both in ns."""
        us = _us(phone_ms)
        return self.sync.to_host_ns(us), self.sync.uncertainty_ns(us) + PHONE_RESOLUTION_NS


def _us(phone_ms: float) -> int:
    return round(phone_ms * 1000)
