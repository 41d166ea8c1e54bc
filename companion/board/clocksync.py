"""Board time to host time: where on the host's monotonic clock a board microsecond falls.

The host pings the board and notes its own clock just before sending (``sent``) and just after
the pong arrived (``received``); the pong carries the board's clock when it read the ping. So
the board read ``board_us`` at some host time between ``sent`` and ``received``. Each exchange
is a pair of bounds on the line ``host = offset + rate * board``:

    sent <= offset + rate * board_us <= received

USB moves data in 1 ms frames, so most exchanges are loose; but whenever the ping's leg was
quick the lower bound is tight, and whenever the pong's was, the upper one is. Keeping the
tightest bounds is a minimum round-trip filter applied to each leg separately, which needs far
fewer exchanges than waiting for one that was quick both ways. The rate (the board crystal's
error, tens of ppm, drifting with temperature) is the slope that leaves the widest margin
between the bounds over the last minute, and the offset sits in the middle of that margin.

A stamp taken late only loosens a bound, never breaks it, so a stalled host or a slow pong
cannot pull the estimate; only the exchanges with the quickest legs shape it. The binding
bounds lie on the convex hulls of the lower and upper bound points, so a fit looks at a few
dozen points however many exchanges are kept.

How far a converted time can be from the truth (:meth:`ClockSync.uncertainty_ns`) follows from
the same bounds: the true line is one of the lines the bounds allow, so a converted time is at
most as far from the truth as the farthest allowed line is from the fitted one there. Between the
oldest and the newest exchange that is about half the band; beyond them (a frame read after the
last exchange, up to a ping interval later) it grows with the spread of the rates the bounds
still allow, measured from the exchanges themselves: wide while there are few, a few ppm once
they span the window, never more than ``max_drift``, which is only the ceiling of the search. The
board link uses it to reject frames stamped in the future (:mod:`companion.board.session`).
"""

from __future__ import annotations

from collections import deque

NOMINAL_RATE = 1000.0
"""Host nanoseconds per board microsecond if both crystals were perfect."""


class ClockSync:
    """The board-to-host line, refitted from every ping exchange.

    ``window_ns``: how long bounds are kept (the drift must be steady over it);
    ``interval_ns``: of all exchanges sent within one interval, only the tightest lower and upper
    bound are kept, which keeps a fit small; ``max_drift``: the largest rate error searched
    (a crystal is within 0.01 %): the rate itself, and how sure it is, are measured within it.
    """

    def __init__(self, window_ns: int = 60_000_000_000, interval_ns: int = 1_000_000_000,
                 max_drift: float = 1e-3) -> None:
        self.window_ns = window_ns
        self.interval_ns = interval_ns
        self.max_drift = max_drift
        self._ref: tuple[int, int] | None = None  # (board_us, host_ns) all points are relative to
        self._last_board_us = 0
        # Per interval: [interval, (board, lowest host), (board, highest host)], relative to _ref.
        self._intervals: deque[list] = deque()
        self._fit: tuple[float, float] | None = None  # offset, rate
        self._half_band = 0.0  # half the margin between the bounds at the fitted rate, host ns
        self._span = (0, 0)  # board times (relative to _ref) of the oldest and newest bound kept
        self._hulls: tuple[list, list] = ([], [])  # the binding lower and upper bound points
        self._corners: list[float] | None = None
        """The rates the bounds allow, from the slowest to the fastest, with every hull slope between
        (where the allowed offsets' ends bend); None: the bounds cross."""

    @property
    def synced(self) -> bool:
        return self._fit is not None

    @property
    def rate(self) -> float:
        """Host ns per board us (1000 for perfect crystals)."""
        return self._fit[1] if self._fit else NOMINAL_RATE

    def add(self, sent_ns: int, board_us: int, received_ns: int) -> None:
        """One ping exchange. Board time going backwards means the board restarted: start over."""
        if received_ns < sent_ns:
            raise ValueError(f"received_ns {received_ns} is before sent_ns {sent_ns}")
        if self._ref is None or board_us < self._last_board_us:
            self.reset()
            self._ref = (board_us, sent_ns)
        self._last_board_us = board_us
        x = board_us - self._ref[0]
        low, high = (x, sent_ns - self._ref[1]), (x, received_ns - self._ref[1])
        interval = sent_ns // self.interval_ns
        if self._intervals and self._intervals[-1][0] == interval:
            kept = self._intervals[-1]
            rate = self.rate
            if low[1] - rate * low[0] > kept[1][1] - rate * kept[1][0]:
                kept[1] = low
            if high[1] - rate * high[0] < kept[2][1] - rate * kept[2][0]:
                kept[2] = high
        else:
            self._intervals.append([interval, low, high])
        while (interval - self._intervals[0][0]) * self.interval_ns > self.window_ns:
            self._intervals.popleft()
        self._refit()

    def reset(self) -> None:
        self._ref = None
        self._intervals.clear()
        self._fit = None

    def to_host_ns(self, board_us: int) -> int:
        """The host monotonic time at which the board's clock read ``board_us``."""
        if self._fit is None:
            raise RuntimeError("no ping exchange yet: the board's clock is unknown")
        offset, rate = self._fit
        return self._ref[1] + round(offset + rate * (board_us - self._ref[0]))

    def uncertainty_ns(self, board_us: int) -> int:
        """How far :meth:`to_host_ns` of ``board_us`` can be from the truth: the farthest that any
        line the bounds allow lies from the fitted one at ``board_us``. Exact for a linear clock,
        since every stamp is taken only late: a slow leg loosens a bound, never breaks it. Bounds
        that cross (no line fits them all: a clock that jumped) say the fit is off by at least
        half the crossing; then the largest rate error searched is added beyond the exchanges."""
        x = board_us - self._ref_checked()
        allowed = self._allowed(x)
        if allowed is None:
            outside = max(0, self._span[0] - x, x - self._span[1])
            return round(self._half_band + self.max_drift * NOMINAL_RATE * outside)
        lowest, highest = allowed
        offset, rate = self._fit
        fitted = offset + rate * x
        return round(max(highest - fitted, fitted - lowest, self._half_band))

    def centred_ns(self, board_us: int) -> tuple[int, int]:
        """The host time of ``board_us`` in the middle of those the allowed lines give there, and
        half their spread: the least error any single time can claim. The fitted line is the one
        with the widest margin, which beyond the exchanges need not be the middle of the allowed
        ones, so its :meth:`uncertainty_ns` is the farther side; this is never more. Where the
        bounds cross it is :meth:`to_host_ns` and :meth:`uncertainty_ns`."""
        x = board_us - self._ref_checked()
        allowed = self._allowed(x)
        if allowed is None:
            return self.to_host_ns(board_us), self.uncertainty_ns(board_us)
        lowest, highest = allowed
        return self._ref[1] + round((lowest + highest) / 2), round((highest - lowest) / 2)

    def _ref_checked(self) -> int:
        if self._fit is None:
            raise RuntimeError("no ping exchange yet: the board's clock is unknown")
        return self._ref[0]

    def _allowed(self, x: float) -> tuple[float, float] | None:
        """The lowest and the highest host time (relative to the reference) that the lines the
        bounds allow give at ``x``; None if the bounds cross."""
        if self._corners is None:
            return None
        lower, upper = self._hulls
        # At each rate the bounds allow offsets from the highest lower bound to the lowest upper
        # one; both ends are piecewise linear in the rate with corners at the hulls' slopes.
        highest = max(min(y + r * (x - bx) for bx, y in upper) for r in self._corners)
        lowest = min(max(y + r * (x - bx) for bx, y in lower) for r in self._corners)
        return lowest, highest

    def _refit(self) -> None:
        lower = _hull([kept[1] for kept in self._intervals], upper=True)
        upper = _hull([kept[2] for kept in self._intervals], upper=False)

        def band(rate: float) -> tuple[float, float]:
            low = max(y - rate * x for x, y in lower)
            high = min(y - rate * x for x, y in upper)
            return high - low, (low + high) / 2

        rate = NOMINAL_RATE
        slowest, fastest = NOMINAL_RATE * (1 - self.max_drift), NOMINAL_RATE * (1 + self.max_drift)
        # The margin is concave and piecewise linear in the rate, with corners at the hulls' edge
        # slopes: its maximum is at one of them, or at a limit, and so are the ends of where it
        # is not negative (the rates the bounds allow).
        rates = sorted({slowest, fastest, *(r for hull in (lower, upper) for r in _slopes(hull)
                                            if slowest < r < fastest)})
        margins = [band(r)[0] for r in rates]
        if len(lower) > 1 or len(upper) > 1:
            widest = max(margins)
            flat = [r for r, margin in zip(rates, margins) if margin >= widest - 1.0]
            rate = (min(flat) + max(flat)) / 2
        width, middle = band(rate)
        self._fit = (middle, rate)
        self._half_band = abs(width) / 2  # bounds that cross: the line is off by at least that
        self._hulls = (lower, upper)
        allowed = _allowed(rates, margins)
        self._corners = None if allowed is None else \
            [allowed[0], *(r for r in rates if allowed[0] < r < allowed[1]), allowed[1]]
        xs = [x for kept in self._intervals for x in (kept[1][0], kept[2][0])]
        self._span = (min(xs), max(xs))


def _allowed(rates: list[float], margins: list[float]) -> tuple[float, float] | None:
    """The rates whose margin is not negative, from the margin at each corner (sorted rates) of a
    concave piecewise linear margin: None if there are none (the bounds cross)."""
    inside = [i for i, m in enumerate(margins) if m >= 0]
    if not inside:
        return None

    def edge(i: int, j: int) -> float:  # corner i allowed, its neighbour j not: where the margin is 0
        return rates[i] + (rates[j] - rates[i]) * margins[i] / (margins[i] - margins[j])

    first, last = inside[0], inside[-1]
    return (edge(first, first - 1) if first > 0 else rates[first],
            edge(last, last + 1) if last < len(rates) - 1 else rates[last])


def _hull(points: list[tuple[int, int]], upper: bool) -> list[tuple[int, int]]:
    """The upper (or lower) convex hull of points sorted by x (Andrew's monotone chain)."""
    hull: list[tuple[int, int]] = []
    for p in points:
        while len(hull) >= 2:
            (ox, oy), (ax, ay) = hull[-2], hull[-1]
            cross = (ax - ox) * (p[1] - oy) - (ay - oy) * (p[0] - ox)
            if (cross >= 0) if upper else (cross <= 0):
                hull.pop()
            else:
                break
        hull.append(p)
    return hull


def _slopes(hull: list[tuple[int, int]]) -> list[float]:
    return [(y2 - y1) / (x2 - x1) for (x1, y1), (x2, y2) in zip(hull, hull[1:]) if x2 != x1]
