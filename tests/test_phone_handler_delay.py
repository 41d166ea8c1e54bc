"""A phone's watermark is held back by its page's handler delay: a pong promises only presses
whose handlers have run, and a touch behind a busy main thread is stamped before the pong that
overtook it (issue 48, F1; in Chromium: tests/test_phone_busy.py)."""

from __future__ import annotations

import pytest

from companion.web.messages import Refused, read_frame
from companion.web.phoneclock import (HOLD_MAX_NS, HOLD_WINDOW_NS, PAINT_ERROR_NS, TOUCH_SHIFT_NS, TOUCH_SPREAD_NS,
                                     PhoneClock)

MS = 1_000_000


def synced(clock: PhoneClock, at_ns: int = 1_000 * MS, stall_ms: float = 0.0) -> int:
    """One exchange with a 2 ms round trip, the phone's clock equal to the box's: its watermark."""
    clock.exchange(at_ns, (at_ns + MS) / MS, at_ns + 2 * MS, stall_ms)
    return clock.watermark_ns


def test_a_pong_s_stall_holds_the_watermark_back_by_it():
    quiet, stalled = PhoneClock(), PhoneClock()
    assert synced(quiet) - synced(stalled, stall_ms=150) == 150 * MS
    assert stalled.hold_ns == 150 * MS


def test_a_press_s_handler_delay_holds_back_every_later_pong_in_the_window():
    clock = PhoneClock()
    first = synced(clock)
    clock.handled(300.0, 1_010 * MS)
    assert clock.hold_ns == 300 * MS
    later = synced(clock, 1_500 * MS)
    assert later == first + 500 * MS - 300 * MS  # moved on, less the delay seen
    gone = synced(clock, 1_010 * MS + HOLD_WINDOW_NS + MS)
    assert clock.hold_ns == 0 and gone > later


def test_the_hold_is_capped_a_page_stalled_longer_is_as_good_as_silent():
    clock = PhoneClock()
    synced(clock, stall_ms=60_000)
    assert clock.hold_ns == HOLD_MAX_NS


def test_the_page_s_delays_are_read_as_untrusted_numbers():
    assert read_frame('{"type": "pong", "id": 1, "t": 5, "lag": 12.5}').lag_ms == 12.5
    assert read_frame('{"type": "press", "key": "slap", "down": true, "t": 5, "seq": 1}').lag_ms == 0.0
    for lag in ("-1", "1e9", "true", '"5"'):
        with pytest.raises(Refused, match="lag"):
            read_frame('{"type": "pong", "id": 1, "t": 5, "lag": %s}' % lag)


def test_a_touch_is_placed_before_its_stamp_by_the_touch_latency_and_a_reveal_carries_a_frame():
    """A touch's glass-to-stamp latency (9.6-29.6 ms, WALT) is a bias: the press moves earlier by
    its middle and its error widens by half its span; a watermark leaves room for that."""
    clock = PhoneClock()
    synced(clock)
    stamp_ns, stamp_error = clock.to_box(1_500.0)
    assert clock.touched(1_500.0) == (stamp_ns - TOUCH_SHIFT_NS, stamp_error + TOUCH_SPREAD_NS)
    assert clock.painted(1_500.0) == (stamp_ns, stamp_error + PAINT_ERROR_NS)
    earliest = min(clock.touched(phone_ms)[0] - clock.touched(phone_ms)[1] for phone_ms in (1_001.0, 1_002.0))
    assert clock.watermark_ns <= earliest  # every press after the pong starts its interval past it
