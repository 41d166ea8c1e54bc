"""A phone's clock on the box's: each touch's phone time as a box time with its error.

The box pings the phone over its WebSocket and notes its own monotonic clock just before sending
and when the pong arrived; the pong carries the phone's clock when it answered. That is exactly
the button board's exchange (:mod:`companion.board.clocksync`), so the same bounds fit the same
line: a slow leg only loosens a bound, and the error of a mapped time is half the band the
quickest legs leave (about half the best round trip), plus the drift allowance beyond the
exchanges. Two things differ from the board's crystal timer:

- the phone's clock is read by a browser that may coarsen it (5 us to 0.1 ms in Chrome, 1 ms in
  Firefox and Safari, 16.67 ms or 100 ms in a browser resisting fingerprinting, and Chrome's
  jittered clamp may round up as well as down), so a stamp may be a step early or late, which
  breaks "a stamp is only ever late". The page measures its clock's step and says it in every
  pong (``res``); the phone carries its own: every exchange's bounds are widened by it and every
  mapped time's error grows by it. A page that says nothing is taken at :data:`PHONE_RESOLUTION_NS`;
- the phone's clock rate is measured, not assumed: the fit searches up to :data:`MAX_DRIFT` (a
  phone's clock is its crystal, 100 ppm at worst, plus what NTP slews it by, up to 500 ppm on
  Linux) and the error beyond the exchanges grows with the spread of rates the exchanges still
  allow (:meth:`~companion.board.clocksync.ClockSync.uncertainty_ns`);
- a phone is on Wi-Fi, whose legs are often tens or hundreds of milliseconds (a phone in power
  save sleeps up to a second): the error is what it is, and the arbiter never ranks two presses
  whose intervals overlap (:mod:`companion.arbiter.race`).

Each pong is also the phone's watermark: the page sends every press before answering a ping, so
every press with a phone time before the pong's has arrived. On the box's clock that is the
pong's time mapped less its error, and less once more the error a later press may carry: a race
waits until no press still to come could start its interval early enough to tie.

That promise holds only for presses whose handlers have run. A touch is stamped when it happens
(``event.timeStamp``), but its handler runs when the page's main thread is free: behind a busy
task the page may answer a ping first (measured in Chromium 156: with a 100 ms or 300 ms task, the
pong went out before a touch made during the task in 8 of 12 tries) and send the touch after it,
stamped before the pong's time. So the watermark is held back by the page's **handler delay**:
the longest of what the page says of itself in each pong (the longest stall of its main thread in
the last second, ``lag``) and of each press (its handler's start less its event's time) over the
window. The page cannot see input still queued for it, so only these delays, measured, make the
promise true; a press later than even that is a late press, disclosed as such
(:mod:`companion.arbiter.latepress`).
"""

from __future__ import annotations

from collections import deque

from ..arbiter.touch import TOUCH_SHIFT_NS, TOUCH_SPREAD_NS
from ..board.clocksync import ClockSync

PHONE_RESOLUTION_NS = 1_000_000
"""A phone clock's step when its page does not say it: the coarsest of the ordinary browsers'
``performance.now()`` (Firefox and Safari: 1 ms)."""
MAX_DRIFT = 1e-3
"""The ceiling of a phone clock's rate error searched: 1000 ppm, as the button board's (a crystal
within 100 ppm, plus up to 500 ppm of NTP slew). The rate is measured within it, from the exchanges."""
ASSUMED_DRIFT = 2e-4
"""The rate error assumed before the rate was measured (200 ppm): :class:`PhoneClock`'s baseline
arm in ``python -m bench.phones``, which a phone 500 ppm fast broke (issue 48)."""
PAINT_ERROR_NS = 18_000_000
"""How far a ``requestAnimationFrame`` time can be from the frame the screen presented: Chromium
156's own paint time of the same image differed by -10 to +18 ms (issue 48). The page can say no
better (no browser tells a page when a frame was presented), so a phone's onset carries that much."""
HOLD_MAX_NS = 1_000_000_000
"""The most a page's handler delay holds its watermark back: a page stalled longer than this is
as good as silent (a race goes on without a phone silent for 1.5 s, :mod:`companion.daemon.phones`)."""
HOLD_WINDOW_NS = 30_000_000_000
"""How long a press's handler delay is remembered: as long as the clock's exchanges are."""


class PhoneClock:
    """One phone's clock, refitted from every ping exchange (phone ms to box ns).

    ``measured=False`` is the clock as it was before its rate and step were measured (200 ppm
    assumed, 1 ms added to a mapped time, the exchanges taken as exact): the baseline arm of
    ``python -m bench.phones``, kept beside the measured clock so both run on the same links."""

    def __init__(self, measured: bool = True) -> None:
        self.measured = measured
        self.sync = ClockSync(window_ns=30_000_000_000, interval_ns=500_000_000,
                              max_drift=MAX_DRIFT if measured else ASSUMED_DRIFT)
        self.watermark_ns: int | None = None
        """Every press of this phone with a box time before this has arrived."""
        self.error_ns = 0
        """The error of the latest exchange's mapped time: what a press made now will carry."""
        self.hold_ns = 0
        """How far the watermark is held back for the page's handler delay (:meth:`hold`)."""
        self.step_ns: int | None = None
        """The coarsest clock step the page has said (None: it has said none)."""
        self._handled: deque[tuple[int, int]] = deque()  # (box ns, a press's handler delay ns)
        self._stall_ns = 0

    @property
    def synced(self) -> bool:
        return self.sync.synced

    @property
    def resolution_ns(self) -> int:
        """How far one of this phone's stamps may be from its clock's true reading: its page's
        clock step, or :data:`PHONE_RESOLUTION_NS` for a page that says none."""
        if self.step_ns is None or not self.measured:
            return PHONE_RESOLUTION_NS
        return self.step_ns

    def exchange(self, sent_ns: int, phone_ms: float, received_ns: int, stall_ms: float = 0.0,
                 step_ms: float | None = None) -> None:
        """One ping sent at ``sent_ns``, answered at ``phone_ms`` on the phone, back at
        ``received_ns``; ``stall_ms``: the page's longest main-thread stall in the last second;
        ``step_ms``: its clock's step, as the page measured it."""
        if step_ms is not None:
            self.step_ns = max(self.step_ns or 0, round(step_ms * 1e6))
        widen = self.resolution_ns if self.measured else 0  # a stamp a step early or late
        self.sync.add(sent_ns - widen, _us(phone_ms), received_ns + widen)
        t_ns, error_ns = self.to_box(phone_ms)
        self.error_ns = error_ns
        self._stall_ns = round(stall_ms * 1e6)
        self.hold_ns = self._hold(received_ns)
        mark = t_ns - error_ns - self.behind_ns  # the pong's earliest, less how early a later press may start
        self.watermark_ns = mark if self.watermark_ns is None else max(self.watermark_ns, mark)

    @property
    def behind_ns(self) -> int:
        """How far before its stamp a press may start its interval: its error, its touch's
        latency (:meth:`touched`) and the page's handler delay (:meth:`handled`)."""
        return self.error_ns + TOUCH_SHIFT_NS + TOUCH_SPREAD_NS + self.hold_ns

    def handled(self, lag_ms: float, now_ns: int) -> None:
        """A press whose handler ran ``lag_ms`` after its touch: later pongs hold back that much."""
        self._handled.append((now_ns, round(lag_ms * 1e6)))
        self.hold_ns = max(self.hold_ns, self._hold(now_ns))

    def _hold(self, now_ns: int) -> int:
        while self._handled and self._handled[0][0] < now_ns - HOLD_WINDOW_NS:
            self._handled.popleft()
        return min(HOLD_MAX_NS, max([self._stall_ns] + [lag for _, lag in self._handled]))

    def touched(self, phone_ms: float) -> tuple[int, int]:
        """A touch's box time and error: its stamp mapped, less the touch latency's middle, its
        error widened by that latency's spread (:data:`TOUCH_SHIFT_NS`)."""
        t_ns, error_ns = self.to_box(phone_ms)
        return t_ns - TOUCH_SHIFT_NS, error_ns + TOUCH_SPREAD_NS

    def painted(self, phone_ms: float) -> tuple[int, int]:
        """A panel's onset on this phone: its frame's time mapped, with a frame's doubt (:data:`PAINT_ERROR_NS`)."""
        t_ns, error_ns = self.to_box(phone_ms)
        return t_ns, error_ns + PAINT_ERROR_NS

    def to_box(self, phone_ms: float) -> tuple[int, int]:
        """The box time of a phone time and how far it may be from the truth, both in ns: the
        middle of the times the exchanges allow there and half their spread (a press comes after
        the last exchange, where the fitted line is off the middle), and the stamp's own step.
        The clock as it was (``measured=False``) took the fitted line and its farther side."""
        us = _us(phone_ms)
        if not self.measured:
            return self.sync.to_host_ns(us), self.sync.uncertainty_ns(us) + self.resolution_ns
        t_ns, error_ns = self.sync.centred_ns(us)
        return t_ns, error_ns + self.resolution_ns


def _us(phone_ms: float) -> int:
    return round(phone_ms * 1000)
