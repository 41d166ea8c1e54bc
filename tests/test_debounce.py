"""Debouncing keeps the first edge's time; stuck buttons are reported once."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.arbiter.debounce import Debouncer, Stuck
from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race

MS = 1_000_000
DEBOUNCE = 5 * MS
STUCK = 5_000 * MS


def edge(pressed: bool, t_ns: int, station: int = 0, key: str = "slap", source: str = "gpio"):
    return InputEvent(station, key, pressed, t_ns, source)


def feed(debouncer: Debouncer, events) -> list[InputEvent]:
    return [out for e in events for out in debouncer.edge(e)]


def test_a_bounce_burst_keeps_the_first_edge_and_its_time():
    d = Debouncer(DEBOUNCE, STUCK)
    burst = [edge(True, 0), edge(False, 1 * MS), edge(True, 2 * MS), edge(False, 3 * MS),
             edge(True, 4 * MS)]
    assert feed(d, burst) == [burst[0]]
    assert d.next_deadline() == STUCK + 1  # nothing to reconcile: the raw level is pressed
    assert d.settle(100 * MS) == []


def test_a_short_tap_is_reconciled_by_settle_with_the_release_time():
    d = Debouncer(DEBOUNCE, STUCK)
    press, release = edge(True, 10 * MS), edge(False, 12 * MS)
    assert d.edge(press) == [press]
    assert d.edge(release) == []  # inside the bounce window
    assert d.next_deadline() == 17 * MS  # quiet for DEBOUNCE after the release
    assert d.settle(17 * MS - 1) == []
    assert d.settle(17 * MS) == [release]
    assert d.next_deadline() is None
    assert d.settle(1_000 * MS) == []


def test_a_pending_release_is_emitted_before_the_next_press_without_settle():
    d = Debouncer(DEBOUNCE, STUCK)
    press, release, again = edge(True, 0), edge(False, 2 * MS), edge(True, 50 * MS)
    assert feed(d, [press, release, again]) == [press, release, again]


def test_a_release_after_the_window_passes_straight_through():
    d = Debouncer(DEBOUNCE, STUCK)
    events = [edge(True, 0), edge(False, DEBOUNCE), edge(True, 2 * DEBOUNCE + 1)]
    assert feed(d, events) == events


def test_out_of_order_edges_are_swallowed():
    d = Debouncer(DEBOUNCE, STUCK)
    press = edge(True, 100 * MS)
    assert d.edge(press) == [press]
    assert d.edge(edge(False, 90 * MS)) == []  # older than what the line already said
    assert d.settle(1_000 * MS) == []  # and it did not change the raw level


def test_lines_are_independent_and_keep_their_source():
    d = Debouncer(DEBOUNCE, STUCK)
    a = edge(True, 0, station=0, source="gpio")
    b = edge(True, 1 * MS, station=1, source="board")
    c = edge(True, 2 * MS, station=0, key="ok", source="gpio")
    assert feed(d, [a, b, c]) == [a, b, c]
    assert d.settle(20 * MS) == []


def test_a_stuck_button_is_reported_once_and_cleared_by_its_release():
    d = Debouncer(DEBOUNCE, STUCK)
    press = edge(True, 1 * MS, station=2)
    assert d.edge(press) == [press]
    assert d.next_deadline() == 1 * MS + STUCK + 1  # "more than" stuck_after_ns
    assert d.settle(1 * MS + STUCK) == []
    assert not d.is_stuck(2, "slap")
    assert d.settle(1 * MS + STUCK + 1) == [Stuck(2, "slap", 1 * MS)]
    assert d.is_stuck(2, "slap")
    assert d.next_deadline() is None
    assert d.settle(10 * STUCK) == []  # reported once
    assert d.edge(edge(True, 2 * STUCK, station=2)) == []  # its presses are swallowed

    release = edge(False, 3 * STUCK, station=2)
    assert d.edge(release) == [release]
    assert not d.is_stuck(2, "slap")
    again = edge(True, 3 * STUCK + 10 * MS, station=2)
    assert d.edge(again) == [again]
    assert d.settle(4 * STUCK + 10 * MS + 1) == [Stuck(2, "slap", again.t_ns)]


def test_next_deadline_is_the_earliest_over_all_lines():
    d = Debouncer(DEBOUNCE, STUCK)
    assert d.next_deadline() is None
    feed(d, [edge(True, 0, station=0), edge(True, 100 * MS, station=1),
             edge(False, 101 * MS, station=1)])
    assert d.next_deadline() == 106 * MS  # station 1's short tap, before station 0's stuck
    feed(d, [edge(True, 90 * MS, station=2), edge(False, 94 * MS, station=2)])
    assert d.oldest_held_ns() == 94 * MS  # the older of the two held-back releases
    assert d.settle(99 * MS) == [edge(False, 94 * MS, station=2)]
    assert d.oldest_held_ns() == 101 * MS
    assert d.settle(106 * MS) == [edge(False, 101 * MS, station=1)]
    assert d.next_deadline() == STUCK + 1


def test_a_held_back_press_holds_the_watermark_so_a_race_cannot_miss_it():
    """A re-press inside the bounce window of a release is held until the line is quiet, then
    delivered with its own early time; until then it caps the watermark of debounced events."""
    d = Debouncer(DEBOUNCE, STUCK)
    race = Race(opens_at_ns=21 * MS, tie_window_ns=3 * MS, stations=[0, 1])
    for raw in [edge(True, 0, station=0), edge(False, 20 * MS, station=0),
                edge(True, 22 * MS, station=0), edge(True, 23 * MS, station=1)]:
        for out in d.edge(raw):
            race.press(out)
    assert d.oldest_held_ns() == 22 * MS
    gpio_watermark = 26 * MS  # GPIO has delivered every raw edge before 26 ms
    assert copy.deepcopy(race).decide(gpio_watermark).winners == {1}  # uncapped: wrong
    assert race.decide(min(gpio_watermark, d.oldest_held_ns())) is None
    for out in d.settle(27 * MS):
        race.press(out)
    assert d.oldest_held_ns() is None
    assert race.decide(gpio_watermark).winners == {0, 1}


@pytest.mark.parametrize("kwargs", [{"debounce_ns": -1}, {"stuck_after_ns": -1}])
def test_bad_parameters_are_refused(kwargs):
    with pytest.raises(ValueError):
        Debouncer(**kwargs)


# --- properties ---------------------------------------------------------------------------------


@given(st.integers(0, 10**12), st.lists(st.integers(0, 2 * DEBOUNCE), max_size=20))
def test_any_bounce_burst_then_quiet_alternates_from_the_first_edge(t0, gaps):
    """A burst of alternating raw edges starting with a press, then quiet: the output alternates
    pressed/released, starts with the first raw edge (its time), and ends at the raw level."""
    times = [t0]
    for gap in gaps:
        times.append(times[-1] + gap)
    burst = [edge(i % 2 == 0, t) for i, t in enumerate(times)]
    d = Debouncer(DEBOUNCE, STUCK)
    out = feed(d, burst) + d.settle(times[-1] + DEBOUNCE)
    assert out[0] is burst[0]
    assert [e.pressed for e in out] == [i % 2 == 0 for i in range(len(out))]
    assert out[-1].pressed == burst[-1].pressed
    assert all(any(e is raw for raw in burst) for e in out)
    assert [e.t_ns for e in out] == sorted(e.t_ns for e in out)
    assert d.next_deadline() in (None, out[-1].t_ns + STUCK + 1)


raw_edges = st.lists(
    st.builds(edge, st.booleans(), st.integers(0, 40 * MS), station=st.integers(0, 1),
              key=st.sampled_from(["slap", "ok"])),
    max_size=25,
)


@given(raw_edges, st.lists(st.integers(0, 40 * MS), max_size=5))
def test_any_raw_feed_gives_alternating_edges_per_line(raws, settles):
    """Whatever arrives (missed edges, out of order, interleaved settles), each line's output
    alternates starting with a press, never goes back in time, and ends at the raw level of its
    newest edge once quiet."""
    d = Debouncer(DEBOUNCE, 30 * MS)
    out: list = []
    for i, raw in enumerate(raws):
        out += d.edge(raw)
        if i < len(settles):
            out += d.settle(settles[i])
    out += d.settle(10**12)
    assert d.oldest_held_ns() is None
    for line in {(e.station, e.key) for e in raws}:
        ins = [e for e in raws if (e.station, e.key) == line]
        outs = [e for e in out if isinstance(e, InputEvent) and (e.station, e.key) == line]
        assert [e.pressed for e in outs] == [i % 2 == 0 for i in range(len(outs))]
        assert [e.t_ns for e in outs] == sorted(e.t_ns for e in outs)
        newest = max(e.t_ns for e in ins)
        raw_level = [e for e in ins if e.t_ns == newest][-1].pressed
        assert (outs[-1].pressed if outs else False) == raw_level
        stucks = [s for s in out if isinstance(s, Stuck) and (s.station, s.key) == line]
        assert len(stucks) <= sum(e.pressed for e in outs)


@given(raw_edges)
def test_next_deadline_and_oldest_held_tell_when_and_what_settle_releases(raws):
    d = Debouncer(DEBOUNCE, 30 * MS)
    feed(d, raws)
    held = d.oldest_held_ns()
    late = [e for e in copy.deepcopy(d).settle(10**12) if isinstance(e, InputEvent)]
    assert [e.t_ns for e in late if held is None or e.t_ns < held] == []
    due = d.next_deadline()
    if due is None:
        assert d.settle(10**12) == []
    else:
        assert copy.deepcopy(d).settle(due - 1) == []
        assert d.settle(due) != []
