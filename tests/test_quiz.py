"""Quiz rules: the host's actions, the race's verdict, who's next, teams, the end and standings."""

from __future__ import annotations

import random

import pytest

from companion.games import get
from companion.games.base import IllegalAction
from companion.games.quiz import team_of

QUIZ = get("quiz")


def play(players: int, actions: list[dict], **options):
    state = QUIZ.new(players, options)
    for action in actions:
        state = QUIZ.apply(state, action)
        QUIZ.check_invariants(state)
    return state


ARM = {"action": "arm"}
RIGHT, WRONG, SKIP = {"action": "right"}, {"action": "wrong"}, {"action": "skip"}


def buzz(*order, tied=0):
    if tied:
        return {"action": "buzz", "players": list(order[:tied]), "order": list(order)}
    return {"action": "buzz", "player": order[0], "order": list(order)}


def test_a_right_answer_scores_and_ends_the_question():
    state = play(4, [ARM, buzz(2, 1), RIGHT], points=2)
    assert state.scores == (0, 0, 2, 0) and state.phase == "ready" and state.question == 1


def test_wrong_then_whos_next_in_press_order_then_the_rest_re_open():
    state = play(5, [ARM, buzz(3, 1), WRONG], penalty=1)
    assert state.answering == 1 and state.scores[3] == -1
    state = QUIZ.apply(state, WRONG)
    assert state.phase == "reopen" and state.eligible() == [2, 4]
    state = QUIZ.apply(QUIZ.apply(QUIZ.apply(state, ARM), buzz(4)), RIGHT)
    assert state.scores == (0, -1, 0, -1, 1) and state.asked[-1].wrong == (3, 1)


def test_later_presses_join_the_order_and_re_open_skips_whos_next():
    state = play(4, [ARM, buzz(1), {"action": "wrong", "later": [3]}])
    assert state.answering == 3 and state.order == (1, 3)
    state = play(4, [ARM, buzz(1, 2), WRONG], after_wrong="reopen")
    assert state.phase == "reopen"
    with pytest.raises(IllegalAction, match="one press per team"):
        play(4, [ARM, buzz(1), {"action": "wrong", "later": [1]}])


def test_everyone_wrong_closes_the_question():
    state = play(3, [ARM, buzz(1, 2), WRONG, WRONG])
    assert state.phase == "ready" and state.asked[-1].right is None


def test_a_tie_is_picked_by_the_host_or_drawn():
    state = play(5, [ARM, buzz(2, 4, 1, tied=2)])
    assert state.phase == "tie" and QUIZ.to_move(state) == (0,)
    with pytest.raises(IllegalAction, match="tied players"):
        QUIZ.apply(state, {"action": "pick", "target": 1})
    picked = QUIZ.apply(state, {"action": "pick", "target": 4})
    assert picked.answering == 4 and picked.order == (4, 2, 1)
    drawn = play(5, [ARM, buzz(2, 4, tied=2)], tie="draw")
    assert QUIZ.chance_needed(drawn)
    event = QUIZ.draw_chance(drawn, random.Random(1))
    assert QUIZ.apply_chance(drawn, event).answering == event["player"] in (2, 4)
    with pytest.raises(IllegalAction):
        QUIZ.apply(drawn, {"action": "pick", "target": 2})


def test_teams_in_seat_order_one_press_each_and_out_together():
    assert [team_of(p, 5, 2) for p in range(1, 5)] == [0, 0, 1, 1]
    assert [team_of(p, 4, 4) for p in range(1, 4)] == [0, 1, 2]       # fewer players than teams
    with pytest.raises(IllegalAction, match="one press per team"):
        play(5, [ARM, buzz(1, 2)], teams=2)
    state = play(5, [ARM, buzz(1, 3), WRONG], teams=2)
    assert state.answering == 3 and state.eligible() == [3, 4]
    state = QUIZ.apply(state, RIGHT)
    assert state.standings()[0] == (1, [1], 1)                          # team 2 leads


def test_the_end_after_n_questions_or_at_the_target_with_ties_as_ties():
    state = play(4, [ARM, buzz(1), RIGHT, ARM, buzz(2), RIGHT], questions=2)
    assert state.phase == "over"
    outcome = QUIZ.outcome(state)
    assert outcome.winners == (1, 2) and [r for r, _, _ in state.standings()] == [1, 3]
    state = play(4, [ARM, buzz(3), RIGHT], target=1, questions=10)
    assert QUIZ.outcome(state).winners == (3,)
    with pytest.raises(IllegalAction, match="over"):
        QUIZ.apply(state, ARM)


def test_corrections_and_the_host_who_never_scores():
    state = play(4, [{"action": "correct", "target": 2, "score": 7}])
    assert state.scores == (0, 0, 7, 0)
    for bad in ({"action": "correct", "target": 0, "score": 1}, {"action": "correct", "target": 2, "score": 1.5},
                {"action": "correct", "target": True, "score": 1}):
        with pytest.raises(IllegalAction):
            QUIZ.apply(state, bad)


def test_what_a_wire_could_get_wrong_is_refused():
    state = play(4, [ARM])
    for bad, rule in [
        (buzz(0), "not out"), (buzz(1, 1), "one press per team"),
        ({"action": "buzz", "player": 2, "order": [1, 2]}, "first in 'order'"),
        ({"action": "buzz", "players": [1, 3], "order": [1, 2, 3]}, "first two"),
        (RIGHT, "nobody is answering"), (ARM, "armed already"),
        ({"action": "timeout"}, "nobody is answering"),
    ]:
        with pytest.raises(IllegalAction, match=rule):
            QUIZ.apply(state, bad)
    with pytest.raises(IllegalAction, match="answer timer"):
        QUIZ.apply(QUIZ.apply(state, buzz(1)), {"action": "timeout"})
    with pytest.raises(IllegalAction, match="arm the next"):
        QUIZ.apply(QUIZ.new(3, {}), SKIP)
    with pytest.raises(ValueError, match="3 to 33"):
        QUIZ.new(34, {})


def early(p):
    return {"action": "early", "player": p}


def test_a_prelock_keeps_its_player_out_of_the_question_re_opens_included_until_it_closes():
    # Player 2 presses while question 1 is read: out of its race, and of its re-open.
    state = play(4, [early(2), ARM], early="prelock")
    assert state.prelocked == (2,) and state.eligible() == [1, 3]
    assert QUIZ.to_move(state) == (1, 3)
    with pytest.raises(IllegalAction, match="only players whose team is not out"):
        QUIZ.apply(state, buzz(2))
    state = play(4, [early(2), ARM, buzz(1), WRONG], early="prelock", after_wrong="reopen")
    assert state.phase == "reopen" and state.eligible() == [3]
    state = QUIZ.apply(state, ARM)
    assert state.prelocked == (2,) and state.eligible() == [3]
    # The question closes: question 2 starts with nobody prelocked.
    state = QUIZ.apply(QUIZ.apply(state, buzz(3)), RIGHT)
    assert state.prelocked == () and QUIZ.apply(state, ARM).eligible() == [1, 2, 3]
    # A false start once the buzzers are armed (before the player's panel showed the cue) too.
    state = play(4, [ARM, early(3), buzz(1), RIGHT], early="prelock")
    assert state.prelocked == () and state.scores == (0, 1, 0, 0)


def test_a_prelock_is_one_players_not_their_teams():
    state = play(5, [early(1), ARM], early="prelock", teams=2)
    assert state.eligible() == [2, 3, 4]
    state = QUIZ.apply(state, buzz(2, 3))
    assert state.answering == 2


def test_everyone_prelocked_leaves_the_host_to_skip_and_nobody_left_closes_the_question():
    state = play(3, [early(1), early(2), ARM], early="prelock")
    assert state.phase == "open" and QUIZ.to_move(state) == (0,)
    assert QUIZ.legal_actions(state) == [SKIP]
    assert QUIZ.apply(state, SKIP).phase == "ready"
    # Player 1 is wrong and player 2, the only other, pressed early: nobody may answer.
    state = play(3, [ARM, buzz(1)], early="prelock")
    with pytest.raises(IllegalAction, match="while a question is read or its buzzers are armed"):
        QUIZ.apply(state, early(2))
    state = play(3, [early(2), ARM, buzz(1), WRONG], early="prelock")
    assert state.phase == "ready" and state.asked[-1].wrong == (1,) and state.prelocked == ()


def test_an_early_press_is_refused_with_the_lockout_for_the_prelocked_the_host_and_the_out():
    with pytest.raises(IllegalAction, match="only with the option early = prelock"):
        play(3, [early(1)])
    with pytest.raises(IllegalAction, match="only with the option early = prelock"):
        play(3, [ARM, early(1)], early="lockout")
    with pytest.raises(IllegalAction, match="pressed too early already"):
        play(3, [early(1), ARM, early(1)], early="prelock")
    with pytest.raises(IllegalAction, match="the host does not buzz"):
        play(3, [early(0)], early="prelock")
    with pytest.raises(IllegalAction, match="team is out"):
        play(4, [ARM, buzz(1), WRONG, early(1)], early="prelock", after_wrong="reopen")
    with pytest.raises(IllegalAction, match="must be a player index"):
        play(3, [early(3)], early="prelock")
    with pytest.raises(IllegalAction, match="buzzers are armed"):
        play(3, [ARM, buzz(1, 2, tied=2), early(1)], early="prelock", tie="host")
    state = play(3, [ARM, buzz(1), RIGHT], early="prelock", questions=1)
    with pytest.raises(IllegalAction, match="the quiz is over"):
        QUIZ.apply(state, early(1))
    # The legal actions offer the early press to exactly the players who may still make one.
    state = play(4, [early(2)], early="prelock")
    assert [a["player"] for a in QUIZ.legal_actions(state) if a["action"] == "early"] == [1, 3]
    assert not [a for a in QUIZ.legal_actions(QUIZ.new(4, {})) if a["action"] == "early"]
