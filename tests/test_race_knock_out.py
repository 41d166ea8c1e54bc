"""Quiz races: a wrong answer knocks a station out from its edge time, whatever the arrival order."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race

OPENS = 1_000
WINDOW = 10
RIGHT = "ok"
NEVER = 1 << 62


def answer(race: Race, station: int, t_ns: int, right: bool) -> str | None:
    """Feed one answer as a quiz table does: the right key is the race, any other knocks out."""
    if right:
        return race.press(InputEvent(station, RIGHT, True, t_ns))
    race.knock_out(station, t_ns)
    return None


def verdict(answers) -> set[int]:
    """The rule from edge times alone: each station's first answer; the earliest right first
    answers within the window win (a wrong and a right answer at one instant are wrong)."""
    first: dict[int, tuple[int, bool]] = {}
    for station, t, right in sorted(answers, key=lambda a: (a[1], a[2])):
        first.setdefault(station, (t, right))
    right_firsts = {s: t for s, (t, right) in first.items() if right}
    if not right_firsts:
        return set()
    earliest = min(right_firsts.values())
    return {s for s, t in right_firsts.items() if t - earliest < WINDOW}


def test_a_wrong_fastest_answer_loses_to_a_right_second_one():
    race = Race(OPENS, WINDOW, [0, 1, 2], key=RIGHT)
    answer(race, 1, OPENS + 100, right=False)
    assert answer(race, 2, OPENS + 150, right=True) == "counted"
    assert answer(race, 1, OPENS + 120, right=True) == "knocked_out"
    assert race.decision_due_ns == OPENS + 160
    assert race.decide(OPENS + 159) is None
    assert race.decide(OPENS + 160).winners == {2}


def test_a_late_wrong_answer_voids_a_later_right_one_but_not_an_earlier_one():
    race = Race(OPENS, WINDOW, [0, 1], key=RIGHT)
    answer(race, 0, OPENS + 50, right=True)
    answer(race, 1, OPENS + 60, right=True)
    answer(race, 0, OPENS + 40, right=False)     # arrives late, pressed first: Ana is out
    answer(race, 1, OPENS + 70, right=False)     # after Ben's right answer: it stands
    assert race.decide(NEVER).winners == {1}


def test_a_knock_out_after_the_decision_changes_nothing():
    race = Race(OPENS, WINDOW, [0, 1], key=RIGHT)
    answer(race, 0, OPENS + 50, right=True)
    assert race.decide(OPENS + 60).winners == {0}
    answer(race, 0, OPENS + 10, right=False)
    assert race.decide(NEVER).winners == {0}
    assert not race.nobody_can_win(NEVER)


def test_nobody_can_win_once_everyone_is_out_and_nothing_earlier_can_arrive():
    race = Race(OPENS, WINDOW, [0, 1], key=RIGHT)
    answer(race, 0, OPENS + 100, right=False)
    assert race.decision_due_ns is None and not race.nobody_can_win(NEVER)
    answer(race, 1, OPENS + 200, right=False)
    assert race.decision_due_ns == OPENS + 200
    assert not race.nobody_can_win(OPENS + 199)
    assert race.nobody_can_win(OPENS + 200)
    assert race.decide(NEVER) is None
    # A right answer pressed before the knock-out, arriving late, still wins.
    answer(race, 1, OPENS + 150, right=True)
    assert not race.nobody_can_win(NEVER)
    assert race.decide(NEVER).winners == {1}


def test_stations_outside_the_race_are_not_knocked_out():
    race = Race(OPENS, WINDOW, [0, 1], key=RIGHT)
    race.knock_out(5, OPENS)
    answer(race, 0, OPENS + 1, right=False)
    answer(race, 1, OPENS + 2, right=False)
    assert race.nobody_can_win(OPENS + 2)


answers = st.lists(
    st.tuples(st.integers(0, 2), st.integers(OPENS, OPENS + 40), st.booleans()),
    min_size=1, max_size=7,
)


@given(answers, st.randoms(use_true_random=False))
def test_the_verdict_follows_edge_times_in_any_arrival_order(given_answers, rnd):
    expected = verdict(given_answers)
    shuffled = list(given_answers)
    rnd.shuffle(shuffled)
    race = Race(OPENS, WINDOW, [0, 1, 2], key=RIGHT)
    for station, t, right in shuffled:
        answer(race, station, t, right)
    result = race.decide(NEVER)
    assert (result.winners if result else set()) == expected
    assert race.nobody_can_win(NEVER) == (not expected and {a[0] for a in given_answers} == {0, 1, 2})


def test_every_arrival_order_of_a_small_race_agrees():
    given_answers = [(0, OPENS + 5, False), (0, OPENS + 9, True), (1, OPENS + 7, True),
                     (2, OPENS + 3, True), (2, OPENS + 3, False)]
    results = set()
    for order in itertools.permutations(given_answers):
        race = Race(OPENS, WINDOW, [0, 1, 2], key=RIGHT)
        for a in order:
            answer(race, *a)
        results.add(frozenset(race.decide(NEVER).winners))
    assert results == {frozenset({1})}

