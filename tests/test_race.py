"""Race arbitration: the verdict depends on edge times only, never on arrival, station or source."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Press, Race, RaceResult

OPENS = 1_000
MS = 1_000_000


def slap(station: int, t_ns: int, source: str = "gpio", pressed: bool = True) -> InputEvent:
    return InputEvent(station, "slap", pressed, t_ns, source)


def run(race: Race, events, watermark_ns: int = 1 << 62) -> RaceResult | None:
    for event in events:
        race.press(event)
    return race.decide(watermark_ns)


# --- a brute-force statement of the rules, from edge times alone -------------------------------


def reference_verdict(events, opens_at, window, stations, key, lockout):
    """(first_ns, winners) straight from the specification, or None if nobody counted."""
    lockout_end: dict[int, int] = {}
    presses: dict[int, list[int]] = {}
    for e in events:
        if not e.pressed or e.key != key or e.station not in stations:
            continue
        if e.t_ns < opens_at:
            lockout_end[e.station] = max(lockout_end.get(e.station, 0), e.t_ns + lockout)
        else:
            presses.setdefault(e.station, []).append(e.t_ns)
    counted = {}
    for s, ts in presses.items():
        ok = [t for t in ts if t >= lockout_end.get(s, opens_at)]
        if ok:
            counted[s] = min(ok)
    if not counted:
        return None
    first = min(counted.values())
    return first, frozenset(s for s, t in counted.items() if t - first < window)


# --- strategies ---------------------------------------------------------------------------------

# Small times and windows so that ties, window boundaries and lockout edges are hit often.
race_params = st.fixed_dictionaries(
    {
        "n": st.integers(1, 6),
        "window": st.integers(1, 60),
        "lockout": st.sampled_from([0, 0, 1, 50, 150]),
        "key": st.sampled_from(["slap", "ok"]),
    }
)


@st.composite
def scenarios(draw):
    p = draw(race_params)
    n = p["n"]
    event = st.builds(
        InputEvent,
        station=st.integers(0, n),  # station n is not in the race
        key=st.sampled_from(["slap", "slap", "ok", "left"]),
        pressed=st.sampled_from([True, True, True, False]),
        t_ns=st.integers(OPENS - 200, OPENS + 200),
        source=st.sampled_from(["gpio", "board"]),
    )
    events = draw(st.lists(event, max_size=14))
    return p, events


def new_race(p, stations=None) -> Race:
    return Race(OPENS, p["window"], range(p["n"]) if stations is None else stations,
                key=p["key"], lockout_ns=p["lockout"])


# --- properties ---------------------------------------------------------------------------------


@given(scenarios(), st.randoms(use_true_random=False))
def test_result_does_not_depend_on_arrival_order(scenario, rnd):
    p, events = scenario
    shuffled = list(events)
    rnd.shuffle(shuffled)
    assert run(new_race(p), shuffled) == run(new_race(p), sorted(events, key=lambda e: e.t_ns))


@given(scenarios())
def test_result_matches_the_rules_stated_on_edge_times(scenario):
    p, events = scenario
    result = run(new_race(p), events)
    expected = reference_verdict(events, OPENS, p["window"], set(range(p["n"])), p["key"],
                                 p["lockout"])
    if expected is None:
        assert result is None
    else:
        assert (result.first_ns, result.winners) == expected
        assert result.tie == (len(expected[1]) > 1)


@given(scenarios(), st.randoms(use_true_random=False))
def test_relabelled_stations_give_the_relabelled_result(scenario, rnd):
    p, events = scenario
    n = p["n"]
    relabel = dict(zip(range(n + 1), rnd.sample(range(40), n + 1)))
    moved = [InputEvent(relabel[e.station], e.key, e.pressed, e.t_ns, e.source) for e in events]
    base = run(new_race(p), events)
    other = run(new_race(p, [relabel[s] for s in range(n)]), moved)
    if base is None:
        assert other is None
        return

    def renamed(presses):
        return sorted((relabel[x.station], x.t_ns, x.delta_ns) for x in presses)

    assert other.first_ns == base.first_ns
    assert other.winners == {relabel[s] for s in base.winners}
    assert sorted((x.station, x.t_ns, x.delta_ns) for x in other.order) == renamed(base.order)
    assert sorted((x.station, x.t_ns, x.delta_ns) for x in other.later()) == renamed(base.later())
    assert (sorted((x.station, x.t_ns, x.delta_ns) for x in other.false_starts)
            == renamed(base.false_starts))


@given(scenarios(), st.lists(st.sampled_from(["gpio", "board", "sim", "script"]), min_size=14,
                             max_size=14))
def test_source_does_not_matter(scenario, sources):
    p, events = scenario
    resourced = [InputEvent(e.station, e.key, e.pressed, e.t_ns, s)
                 for e, s in zip(events, sources)]
    assert run(new_race(p), resourced) == run(new_race(p), events)


@given(scenarios(), st.integers(0, 300), st.data())
def test_deciding_as_soon_as_watermarks_allow_is_never_wrong(scenario, max_latency, data):
    """Events arrive late by up to ``max_latency``, in any order that respects it; the race is
    asked after every arrival with the honest watermark ``arrival - max_latency``. Whenever it
    decides, it decides what all the edge times say."""
    p, events = scenario
    delays = data.draw(st.lists(st.integers(0, max_latency), min_size=len(events),
                                max_size=len(events)))
    arrivals = sorted(zip((e.t_ns + d for e, d in zip(events, delays)), range(len(events))))
    race = new_race(p)
    decided = None
    for arrival, i in arrivals:
        race.press(events[i])
        decided = decided or race.decide(arrival - max_latency)
    expected = reference_verdict(events, OPENS, p["window"], set(range(p["n"])), p["key"],
                                 p["lockout"])
    final = race.decide(1 << 62)
    if expected is None:
        assert final is None
    else:
        assert (final.first_ns, final.winners) == expected
        if decided is not None:
            assert (decided.first_ns, decided.winners) == expected


@given(st.integers(1, 10 * MS), st.integers(0, 10 * MS))
def test_decision_waits_for_the_watermark_to_reach_first_plus_window(window, offset):
    race = Race(OPENS, window, [0, 1])
    race.press(slap(0, OPENS + offset))
    due = OPENS + offset + window
    assert race.decision_due_ns == due
    assert race.decide(due - 1) is None
    assert race.decide(due).winners == {0}


@given(st.integers(1, 10 * MS), st.integers(0, 10 * MS))
def test_exactly_one_window_apart_is_not_a_tie_one_ns_inside_is(window, offset):
    first = OPENS + offset
    apart = run(Race(OPENS, window, [0, 1]), [slap(1, first + window), slap(0, first)])
    inside = run(Race(OPENS, window, [0, 1]), [slap(1, first + window - 1), slap(0, first)])
    assert apart.winners == {0} and not apart.tie
    assert apart.later() == (Press(1, first + window, window),)
    assert inside.winners == {0, 1} and inside.tie
    assert inside.later() == ()


# --- scenarios ----------------------------------------------------------------------------------


def test_equal_edge_times_are_a_tie_listed_by_station_for_display():
    result = run(Race(OPENS, 1, [0, 1, 2]), [slap(2, OPENS + 5), slap(0, OPENS + 5)])
    assert result.winners == {0, 2}
    assert result.tie
    assert result.order == (Press(0, OPENS + 5, 0), Press(2, OPENS + 5, 0))


def test_an_out_of_order_earlier_press_becomes_first():
    race = Race(OPENS, 10 * MS, [0, 1, 2])
    assert race.press(slap(0, OPENS + 50 * MS, "gpio")) == "counted"
    assert race.decision_due_ns == OPENS + 60 * MS
    assert race.decide(OPENS + 55 * MS) is None
    assert race.press(slap(1, OPENS + 30 * MS, "board")) == "counted"  # late serial frame
    assert race.decision_due_ns == OPENS + 40 * MS
    result = race.decide(OPENS + 60 * MS)
    assert result.first_ns == OPENS + 30 * MS
    assert result.winners == {1}
    assert result.later() == (Press(0, OPENS + 50 * MS, 20 * MS),)


def test_press_labels():
    race = Race(OPENS, 10, [0, 1], lockout_ns=100)
    assert race.press(slap(0, OPENS - 1)) == "false_start"
    assert race.press(slap(0, OPENS + 98)) == "locked_out"
    assert race.press(slap(0, OPENS + 99)) == "counted"  # lockout ends at false start + 100
    assert race.press(slap(0, OPENS + 120)) == "ignored"  # second press
    assert race.press(slap(0, OPENS + 99)) == "ignored"  # the same press again
    assert race.press(slap(1, OPENS + 5, pressed=False)) == "ignored"  # release
    assert race.press(InputEvent(1, "ok", True, OPENS + 5)) == "ignored"  # other key
    assert race.press(slap(7, OPENS + 5)) == "ignored"  # not in the race
    assert race.decide(1 << 62).winners == {0}


def test_false_starts_are_reported_relative_to_the_opening_and_do_not_count():
    race = Race(OPENS, 10, [0, 1])
    for e in [slap(1, OPENS - 30), slap(0, OPENS - 20), slap(1, OPENS + 40), slap(0, OPENS + 45)]:
        race.press(e)
    result = race.decide(OPENS + 50)
    assert result.false_starts == (Press(1, OPENS - 30, -30), Press(0, OPENS - 20, -20))
    assert result.first_ns == OPENS + 40  # no lockout: the false starter may still win
    assert result.winners == {0, 1}


def test_lockout_holds_even_when_the_false_start_arrives_after_the_press():
    race = Race(OPENS, 10, [0, 1], lockout_ns=250)
    assert race.press(slap(0, OPENS + 100)) == "counted"
    assert race.press(slap(1, OPENS + 200)) == "counted"
    assert race.decision_due_ns == OPENS + 110
    assert race.press(slap(0, OPENS - 50, "board")) == "false_start"  # late frame
    assert race.decision_due_ns == OPENS + 210  # station 0's press is void now
    assert race.press(slap(0, OPENS + 205)) == "counted"  # after the lockout ends (OPENS+200)
    result = race.decide(OPENS + 210)
    assert result.winners == {1, 0}
    assert result.order == (Press(1, OPENS + 200, 0), Press(0, OPENS + 205, 5))


def test_nobody_pressed_means_no_decision():
    race = Race(OPENS, 10, [0, 1], lockout_ns=100)
    race.press(slap(0, OPENS - 5))
    race.press(slap(0, OPENS + 50))  # locked out
    assert race.decision_due_ns is None
    assert race.decide(1 << 62) is None


def test_winners_are_frozen_after_the_decision_while_order_grows():
    race = Race(OPENS, 10 * MS, [0, 1, 2, 3])
    race.press(slap(2, OPENS + 100 * MS))
    race.press(slap(0, OPENS + 104 * MS))
    first = race.decide(OPENS + 110 * MS)
    assert first.winners == {2, 0}
    assert first.later() == ()

    race.press(slap(1, OPENS + 240 * MS))  # Ben, much later
    second = race.decide(OPENS + 110 * MS)
    assert second.winners == {2, 0}
    assert second.later() == (Press(1, OPENS + 240 * MS, 140 * MS),)

    # A source that broke its watermark promise: shown honestly, but the verdict stands.
    assert race.press(slap(3, OPENS + 90 * MS)) == "counted"
    assert race.press(slap(2, OPENS + 95 * MS)) == "ignored"
    third = race.decide(OPENS + 300 * MS)
    assert third.first_ns == OPENS + 100 * MS
    assert third.winners == {2, 0}
    assert third.order == (
        Press(3, OPENS + 90 * MS, -10 * MS),
        Press(2, OPENS + 100 * MS, 0),  # the winner's press as decided, not the late 95 ms one
        Press(0, OPENS + 104 * MS, 4 * MS),
        Press(1, OPENS + 240 * MS, 140 * MS),
    )
    assert third.later() == (Press(3, OPENS + 90 * MS, -10 * MS), Press(1, OPENS + 240 * MS,
                                                                         140 * MS))
    assert race.decision_due_ns == OPENS + 110 * MS


def test_ties_show_no_station_bias_over_many_random_races():
    """Two presses at the same edge time, arriving in random order: always a tie for both."""
    rnd = random.Random(7)
    for _ in range(300):
        stations = rnd.sample(range(12), 2)
        t = OPENS + rnd.randrange(10**6)
        feed = [slap(stations[0], t, "gpio"), slap(stations[1], t, "board")]
        rnd.shuffle(feed)
        assert run(Race(OPENS, 1, stations), feed).winners == set(stations)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"tie_window_ns": 0}, "tie_window_ns"),
        ({"lockout_ns": -1}, "lockout_ns"),
        ({"key": "jump"}, "key"),
    ],
)
def test_bad_parameters_are_refused(kwargs, message):
    args = {"opens_at_ns": 0, "tie_window_ns": 10, "stations": [0], **kwargs}
    with pytest.raises(ValueError, match=message):
        Race(**args)


# --- revealed races: each station's race starts at its own onset -------------------------------

def revealed_race(onsets, window_ns=10 * MS, **kwargs):
    race = Race(OPENS, window_ns, sorted(onsets), revealed=True, **kwargs)
    return race, (lambda: race.reveal({s: OPENS + t for s, t in onsets.items()}))


def test_a_player_whose_screen_came_20ms_later_and_who_pressed_15ms_later_wins():
    race, reveal = revealed_race({0: 0, 1: 20 * MS}, window_ns=2 * MS)
    race.press(slap(0, OPENS + 300 * MS))
    race.press(slap(1, OPENS + 315 * MS))          # 15 ms later at the pin, 5 ms faster a hand
    assert race.decide(1 << 62) is None          # nothing is decided before the onsets are known
    reveal()
    result = race.decide(1 << 62)
    assert result.winners == {1} and result.first_ns == OPENS + 315 * MS
    assert [(p.station, p.delta_ns) for p in result.order] == [(1, 0), (0, 5 * MS)]
    assert race.reaction_ns(1) == 295 * MS and race.reaction_ns(0) == 300 * MS


def test_a_revealed_race_waits_until_no_later_lit_station_can_still_beat_the_first():
    race, reveal = revealed_race({0: 0, 1: 2 * MS, 2: 40 * MS})
    reveal()
    race.press(slap(0, OPENS + 200 * MS))
    # station 2 saw it 40 ms later: its press up to 40 + 200 + window may still tie
    assert race.decision_due_ns == OPENS + 40 * MS + 200 * MS + 10 * MS
    assert race.decide(OPENS + 249 * MS) is None
    race.press(slap(2, OPENS + 245 * MS))          # reaction 205 ms: within the window of 200
    assert race.decide(OPENS + 250 * MS).winners == {0, 2}


def test_a_press_before_its_own_onset_is_a_false_start_even_after_the_opening():
    race, reveal = revealed_race({0: 0, 1: 30 * MS}, lockout_ns=100 * MS)
    assert race.press(slap(1, OPENS + 10 * MS)) == "pending"   # its panel is still dark
    assert race.press(slap(0, OPENS - 5 * MS)) == "false_start"
    reveal()
    assert race.early(1) == "false_start" and race.early(0) == "false_start"
    assert race.press(slap(1, OPENS + 90 * MS)) == "locked_out"  # 10 + 100 ms lockout
    assert race.early(1) == "locked_out"
    race.press(slap(0, OPENS + 200 * MS))
    result = race.decide(1 << 62)
    assert result.winners == {0}
    assert result.false_starts == (Press(0, OPENS - 5 * MS, -5 * MS), Press(1, OPENS + 10 * MS, -20 * MS))
