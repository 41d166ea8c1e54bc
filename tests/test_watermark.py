"""Watermarks: a race waits for the slowest source, and only as long as it must."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.arbiter.debounce import Debouncer
from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race
from companion.arbiter.watermark import NOTHING_REPORTED, Watermarks

MS = 1_000_000


def test_with_no_sources_the_watermark_is_now():
    assert Watermarks().low(123) == 123
    assert Watermarks().reaches_at(500) == 500


def test_an_explicit_source_holds_everything_until_it_reports():
    w = Watermarks()
    w.add_source("board")
    assert w.low(10**12) == NOTHING_REPORTED
    assert w.reaches_at(100) is None
    w.report("board", 100)
    assert w.low(10**12) == 100
    assert w.reaches_at(100) == 100
    assert w.reaches_at(101) is None


def test_a_report_never_moves_the_watermark_backwards():
    w = Watermarks()
    w.add_source("board")
    w.report("board", 500)
    w.report("board", 400)
    assert w.low(0) == 500


def test_a_live_source_follows_now_minus_its_latency_bound():
    w = Watermarks()
    w.add_source("gpio", latency_bound_ns=2 * MS)
    assert w.low(10 * MS) == 8 * MS
    w.report("gpio", 9 * MS)  # an event's edge time: ahead of the bound
    assert w.low(10 * MS) == 9 * MS
    assert w.low(20 * MS) == 18 * MS
    assert w.reaches_at(30 * MS) == 32 * MS


def test_low_is_the_minimum_and_removing_a_source_stops_waiting_for_it():
    w = Watermarks()
    w.add_source("gpio", latency_bound_ns=1 * MS)
    w.add_source("board")
    w.report("board", 50 * MS)
    assert w.low(100 * MS) == 50 * MS
    assert w.reaches_at(60 * MS) is None
    w.remove_source("board")
    assert w.low(100 * MS) == 99 * MS
    assert w.reaches_at(60 * MS) == 61 * MS
    w.add_source("board")  # plugged back in: starts from nothing again
    assert w.low(100 * MS) == NOTHING_REPORTED


@given(st.lists(st.tuples(st.sampled_from("abcd"), st.integers(-10**9, 10**9)), max_size=30),
       st.integers(0, 10**6), st.integers(0, 10**6), st.integers(-10**9, 10**9))
def test_low_is_the_minimum_of_each_sources_highest_report(reports, bound_c, bound_d, now):
    w = Watermarks()
    w.add_source("a")
    w.add_source("b")
    w.add_source("c", latency_bound_ns=bound_c)
    w.add_source("d", latency_bound_ns=bound_d)
    highest = dict.fromkeys("abcd", NOTHING_REPORTED)
    for name, t in reports:
        w.report(name, t)
        highest[name] = max(highest[name], t)
    assert w.low(now) == min(highest["a"], highest["b"], max(highest["c"], now - bound_c),
                             max(highest["d"], now - bound_d))
    due = w.reaches_at(now)
    assert (due is None) == (min(highest["a"], highest["b"]) < now)
    if due is not None:
        assert w.low(due) >= now
        assert due == now or w.low(due - 1) < now  # and not later than needed


def test_unknown_sources_are_refused_with_a_clear_message():
    w = Watermarks()
    w.add_source("gpio", latency_bound_ns=0)
    with pytest.raises(KeyError, match=r"unknown input source 'board' \(known: 'gpio'\)"):
        w.report("board", 1)
    with pytest.raises(KeyError, match="add_source"):
        w.remove_source("board")


def test_bad_sources_are_refused():
    w = Watermarks()
    w.add_source("gpio", latency_bound_ns=0)
    with pytest.raises(ValueError, match="already"):
        w.add_source("gpio")
    with pytest.raises(ValueError, match="latency_bound_ns"):
        w.add_source("board", latency_bound_ns=-1)


def test_a_race_on_the_low_watermark_waits_for_a_late_board_frame():
    """End to end: GPIO reports a press at once; the board's earlier press arrives 20 ms late.
    Deciding on arrival would give it to station 0; the watermark makes it station 1's."""
    window = 10 * MS
    w = Watermarks()
    w.add_source("gpio", latency_bound_ns=1 * MS)
    w.add_source("board")
    debounce = Debouncer()
    race = Race(opens_at_ns=0, tie_window_ns=window, stations=[0, 1])

    def arrive(event: InputEvent) -> None:
        w.report(event.source, event.t_ns)
        for out in debounce.edge(event):
            race.press(out)

    w.report("board", 90 * MS)  # heartbeat
    arrive(InputEvent(0, "slap", True, 102 * MS, "gpio"))
    assert race.decide(w.low(now_ns=103 * MS)) is None
    assert w.reaches_at(race.decision_due_ns) is None  # the board has to speak first
    assert race.decide(w.low(now_ns=115 * MS)) is None  # GPIO is past 112 ms, the board is not
    arrive(InputEvent(1, "slap", True, 100 * MS, "board"))  # the late frame
    w.report("board", 111 * MS)  # heartbeat
    result = race.decide(w.low(now_ns=120 * MS))
    assert result.winners == {1, 0}  # 2 ms apart: inside the 10 ms window, a tie
    assert result.first_ns == 100 * MS


def test_an_arriving_event_reports_only_for_an_in_order_source():
    marks = Watermarks()
    marks.add_source("board")
    marks.add_source("gpio", latency_bound_ns=1_000)
    marks.saw("board", 500)
    marks.saw("gpio", 10_000)     # GPIO lines are not ordered across pins: no report
    assert marks.low(now_ns=2_000) == 500
    assert marks.low(now_ns=200_000) == 500
    marks.report("board", 300_000)
    assert marks.low(now_ns=200_000) == 199_000
