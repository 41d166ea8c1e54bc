"""Races with phones: a press (and a phone's onset) known only within an error is never ranked
against another whose interval overlaps it; the verdict is a declared tie, never a guess."""

from __future__ import annotations

from hypothesis import given, strategies as st

from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race

MS = 1_000_000
TIE = 11 * MS


def press(station: int, t_ms: float, error_ms: float = 0.0) -> InputEvent:
    return InputEvent(station, "slap", True, round(t_ms * MS), "phone" if error_ms else "gpio", round(error_ms * MS))


def decided(race: Race):
    result = race.decide(1 << 62)
    assert result is not None
    return result


def test_a_wired_race_is_unchanged_by_the_rule():
    race = Race(0, TIE, [0, 1, 2])
    for p in (press(0, 120), press(1, 140), press(2, 125)):
        race.press(p)
    result = decided(race)
    assert result.winners == {0, 2}  # 5 ms apart, within the 11 ms window
    assert race.error_ns(0) == 0


def test_a_phone_press_whose_interval_overlaps_the_fastest_is_a_declared_tie():
    race = Race(0, TIE, [0, 1])
    race.press(press(0, 100))  # wired, exact
    race.press(press(1, 140, error_ms=35))  # the phone: 105..175
    result = decided(race)
    assert result.winners == {0, 1}
    assert [p.error_ns for p in result.order] == [0, 35 * MS]  # the margin shown beside it


def test_a_phone_press_surely_later_is_ranked_later():
    race = Race(0, TIE, [0, 1])
    race.press(press(0, 100))
    race.press(press(1, 160, error_ms=20))  # 140..180: surely after 100 + the window
    assert decided(race).winners == {0}


def test_a_phone_surely_first_wins_alone():
    race = Race(0, TIE, [0, 1])
    race.press(press(0, 200))
    race.press(press(1, 150, error_ms=30))  # 120..180: before 200 by more than the window
    assert decided(race).winners == {1}


def test_the_decision_waits_for_a_press_that_could_still_tie():
    race = Race(0, TIE, [0, 1])
    race.press(press(1, 100, error_ms=30))  # ends at 130
    assert race.decision_due_ns == 130 * MS + TIE


def test_a_phones_onset_error_widens_its_reaction_and_the_wait():
    race = Race(0, TIE, [0, 1], revealed=True)
    race.reveal({0: 0, 1: 50 * MS}, errors={1: 10 * MS})
    race.press(press(0, 300))  # reaction 300
    race.press(press(1, 345, error_ms=5))  # reaction 295 +- 15: may have been after 300
    # the latest onset at its latest (50 + 10) plus the earliest end of a reaction (300) and the window
    assert race.decision_due_ns == (60 + 300) * MS + TIE
    result = decided(race)
    assert result.winners == {0, 1}
    assert race.error_ns(1) == 15 * MS


@given(st.lists(st.tuples(st.integers(0, 2_000), st.integers(0, 150), st.integers(-1000, 1000)),
                min_size=2, max_size=8))
def test_the_true_first_press_always_wins_or_ties(presses):
    """Wherever each measured time falls within its error of the truth, the station that truly
    pressed first is among the winners: a verdict never contradicts the true order beyond the
    declared error."""
    race = Race(0, TIE, range(len(presses)))
    truth = {}
    for station, (true_ms, error_ms, where) in enumerate(presses):
        truth[station] = true_ms
        measured = true_ms + error_ms * where / 1000  # anywhere inside its interval
        race.press(press(station, 5_000 + measured, error_ms))
    first = min(truth.values())
    winners = decided(race).winners
    assert any(truth[s] == first for s in winners)


def test_a_station_not_in_the_race_has_no_error():
    race = Race(0, TIE, [1, 2], revealed=True)
    race.reveal({1: 0, 2: 0})
    race.press(press(1, 100, error_ms=5))
    assert race.error_ns(0) is None and race.error_ns(2) is None and race.error_ns(1) == 5 * MS
