"""The board's clock: MicroPython's ``ticks_us`` extended to microseconds since start-up.

``ticks_us`` is 1 us resolution but wraps every 2**30 us (about 18 minutes) on the RP2040, and a
hard interrupt handler may not allocate, so it cannot build a 64-bit integer. The interrupt keeps
the raw ticks; the main loop extends them here, in any order within half a wrap of each other
(about 9 minutes; the loop runs every millisecond).
"""

TICKS_PERIOD = 1 << 30
_HALF = TICKS_PERIOD >> 1


def ticks_diff(a, b):
    """``a - b`` in raw ticks across a wrap, as MicroPython's ``time.ticks_diff``."""
    return ((a - b + _HALF) & (TICKS_PERIOD - 1)) - _HALF


class Clock64:
    """Extends raw ticks to a count that never wraps, starting at ``start_raw`` (its zero)."""

    def __init__(self, start_raw):
        self._raw = start_raw
        self._us = 0

    def extend(self, raw):
        """The extended time of ``raw``; ``raw`` may be a little older than the newest seen."""
        delta = ticks_diff(raw, self._raw)
        if delta <= 0:
            return self._us + delta
        self._raw = raw
        self._us += delta
        return self._us
