"""The closest-number game: scoring, decoys, turn order, tiebreak rounds and every refusal."""

from __future__ import annotations

import json

import pytest

from companion.games import get
from companion.games.base import IllegalAction
from companion.games.closest import TIE, Card, ClosestOptions, score
from companion.record.journal import replay, summary
from companion.record.match import Match

GAME = get("closest")
ANA, BEN, CY = 0, 1, 2
NAMES = ("Ana", "Ben", "Cy")


def new(**options):
    return GAME.new(3, ClosestOptions(**options))


def started(starter=ANA, **options):
    return GAME.apply(new(**options), {"action": "start", "player": starter})


def place(player, number, decoy=False):
    return {"action": "place", "player": player, "number": number, "decoy": decoy}


def decoy(number):
    return ("decoy", number)


def run(state, *moves):
    """Place a card for whoever is to move, per move: a number (a counting card) or decoy(n)."""
    for move in moves:
        (p,) = GAME.to_move(state)
        action = place(p, move[1], True) if isinstance(move, tuple) else place(p, move)
        assert action in GAME.legal_actions(state)
        state = GAME.apply(state, action)
        GAME.check_invariants(state)
    return state


# The seed's idea: "If the first person simply chooses 5, they can be surrounded by the other 2
# players who guess 6 and 4."
SURROUNDED = (5, 6, 4)
# Round 2 (Ben, Cy, Ana, Ben, Cy, Ana): counting cards Ana 4, Ben 3, Cy 8; decoys Ben 2, Cy 6, Ana 1.
ROUND_2 = (decoy(2), decoy(6), 4, 3, 8, decoy(1))
# Round 3 (Cy, Ana, Ben, ...): every card counts, decoys too.
ROUND_3 = (4, decoy(1), 8, decoy(6), 2, decoy(10))
# Round 4 on 1..9 (Ana, Ben, Cy, ...), decoys void again.
ROUND_4 = (5, decoy(3), 7, decoy(9), 1, decoy(2))


def test_the_surrounded_five_scores_only_itself():
    state = run(started(ANA), *SURROUNDED)
    [round_1] = state.scored
    assert round_1.verdicts == (CY, CY, CY, CY, ANA, BEN, BEN, BEN, BEN, BEN)
    assert round_1.points == (1, 5, 4)
    assert state.round == 2 and state.cards == () and state.totals == (1, 5, 4)


def test_different_players_equidistant_score_for_nobody():
    verdicts, points = score(10, (Card(ANA, 3), Card(BEN, 5)), decoys_count=False)
    assert verdicts[3] == TIE
    assert verdicts == (ANA, ANA, ANA, TIE, BEN, BEN, BEN, BEN, BEN, BEN)
    assert points == (3, 6, 0)


def test_same_player_equidistant_scores_for_that_player():
    verdicts, points = score(10, (Card(ANA, 3), Card(ANA, 5), Card(BEN, 9)), decoys_count=True)
    assert verdicts[3] == ANA
    assert verdicts == (ANA,) * 6 + (TIE, BEN, BEN, BEN)
    assert points == (6, 3, 0)


def test_a_decoy_neither_counts_nor_blocks():
    cards = (Card(ANA, 5, decoy=True), Card(BEN, 7), Card(CY, 2))
    verdicts, points = score(10, cards, decoys_count=False)
    # Number 5 goes to Ben (2 away) over Cy (3 away): Ana's decoy on it takes nothing and
    # stands in nobody's way.
    assert verdicts == (CY, CY, CY, CY, BEN, BEN, BEN, BEN, BEN, BEN)
    assert points == (0, 6, 4)
    assert score(10, cards, decoys_count=True)[1] == (2, 4, 3)


def test_a_line_with_no_counting_card_scores_for_nobody():
    assert score(3, (Card(ANA, 2, decoy=True),), decoys_count=False) == ((None,) * 3, (0, 0, 0))


def test_a_clear_lead_after_round_2_wins():
    state = run(started(ANA), *SURROUNDED)
    state = run(state, decoy(9), 2, 5, 8, decoy(3), decoy(6))
    round_2 = state.scored[1]
    assert round_2.points == (3, 4, 3)   # Ana 4 5 6, Ben 7..10, Cy 1 2 3
    assert state.totals == (4, 9, 7)
    outcome = GAME.outcome(state)
    assert outcome.winners == (BEN,) and outcome.scores == (4, 9, 7)
    assert GAME.to_move(state) == () and GAME.legal_actions(state) == []


def test_turns_start_with_the_starter_and_rotate_clockwise_each_round():
    state = started(BEN)
    order = []
    for move in SURROUNDED + ROUND_2:
        order.append(GAME.to_move(state)[0])
        state = run(state, move)
    assert order == [BEN, CY, ANA] + [CY, ANA, BEN] * 2


def test_round_2_needs_exactly_one_decoy_each():
    state = run(started(ANA), *SURROUNDED, decoy(2))        # Ben's first card is his decoy
    state = run(state, 6)                                   # Cy's first card counts
    with pytest.raises(IllegalAction, match="round 1 has no decoys"):
        GAME.apply(started(ANA), place(ANA, 5, True))
    state = run(state, 4, 3)                                # Ana counts, Ben's second counts
    with pytest.raises(IllegalAction, match="your first one counts: it must be your decoy"):
        GAME.apply(state, place(CY, 8, False))
    state = run(state, decoy(8))
    with pytest.raises(IllegalAction, match="you have already played your decoy"):
        GAME.apply(run(started(ANA), *SURROUNDED, decoy(2), 6, decoy(4)), place(BEN, 3, True))
    assert GAME.legal_actions(state) == [place(ANA, n, True) for n in (1, 5, 7, 9, 10)]


def test_the_decoy_is_the_players_choice_on_their_first_card_of_a_round():
    state = run(started(ANA), *SURROUNDED)
    choices = GAME.legal_actions(state)
    assert place(BEN, 1, False) in choices and place(BEN, 1, True) in choices
    assert len(choices) == 20


def test_a_shared_lead_plays_round_3_where_decoys_count_then_round_4_on_1_to_9():
    state = run(started(ANA), *SURROUNDED, *ROUND_2)
    assert state.scored[1].verdicts == (BEN, BEN, BEN, ANA, ANA, TIE, CY, CY, CY, CY)
    assert state.totals == (3, 8, 8)                     # Ben and Cy share the lead
    assert GAME.outcome(state) is None and state.round == 3 and state.line == 10
    assert GAME.to_move(state) == (CY,)

    state = run(state, *ROUND_3)
    round_3 = state.scored[2]
    assert round_3.decoys_count
    # 3: Ana's 2 and Cy's 4 tie; 5: Cy's two cards tie with each other and score; 6: Cy's decoy
    # counts; 7: Cy's decoy and Ben's 8 tie; 9: Ben's 8 and his decoy 10 score.
    assert round_3.verdicts == (ANA, ANA, TIE, CY, CY, CY, TIE, BEN, BEN, BEN)
    assert state.totals == (5, 11, 11)
    assert state.round == 4 and state.line == 9 and GAME.to_move(state) == (ANA,)
    with pytest.raises(IllegalAction, match=r"line 1..9, not 10 \(10 and up are removed in round 4\)"):
        GAME.apply(state, place(ANA, 10))
    assert max(a["number"] for a in GAME.legal_actions(state)) == 9

    state = run(state, *ROUND_4)
    round_4 = state.scored[3]
    assert (round_4.line, round_4.decoys_count) == (9, False)
    assert round_4.verdicts == (BEN, BEN, TIE, ANA, ANA, TIE, CY, CY, CY)
    assert state.totals == (7, 13, 14)
    assert GAME.outcome(state).winners == (CY,)


def test_a_round_with_no_free_number_ends_at_once_and_is_scored():
    state = run(started(ANA, line_length=5), 3, 1, 5)
    assert state.scored[0].points == (1, 1, 1)
    state = run(state, decoy(2), 4, 3, 1, decoy(5))       # five cards on five numbers
    round_2 = state.scored[1]
    assert len(round_2.cards) == 5                        # Ana's second card is never played
    assert round_2.verdicts == (BEN, TIE, ANA, CY, CY)
    assert GAME.outcome(state).winners == (CY,)
    assert state.totals == (2, 2, 3)


def test_a_shared_lead_with_every_number_removed_is_a_shared_win():
    state = run(started(ANA, line_length=3), 1, 2, 3)     # 1 point each
    state = run(state, 1, 2, 3)                           # round 2: three counting cards
    state = run(state, 1, 2, 3)                           # round 3
    assert state.totals == (3, 3, 3) and state.line == 2
    state = run(state, 1, 2)                              # round 4 on 1..2: no number for Cy
    assert state.totals == (4, 4, 3) and state.round == 5 and state.line == 1
    state = run(state, decoy(1))                          # round 5: Ben's decoy scores nothing
    assert state.scored[-1].verdicts == (None,)
    assert GAME.outcome(state).winners == (ANA, BEN)


@pytest.mark.parametrize("action, message", [
    ({"action": "place", "player": ANA, "number": 5}, r"the starting player must be chosen \(start\)"),
    ({"action": "pass", "player": ANA}, "unknown action 'pass': closest has start and place"),
    ({"action": "start"}, "'player' must be a player index from 0 to 2, not None"),
    ({"action": "start", "player": 3}, "'player' must be a player index"),
])
def test_refusals_before_the_start(action, message):
    with pytest.raises(IllegalAction, match=message):
        GAME.apply(new(), action)


@pytest.mark.parametrize("action, message", [
    ({"action": "start", "player": BEN}, "the starting player is already chosen"),
    (place(BEN, 5), "it is player 0's turn to place, not player 1's"),
    (place(ANA, 0), r"'number' must be a number of this round's line 1..10, not 0"),
    (place(ANA, 11), r"line 1..10, not 11"),
    (place(ANA, "5"), r"line 1..10, not '5'"),
    (place(ANA, True), r"line 1..10, not True"),
    ({"action": "place", "player": ANA}, r"line 1..10, not None"),
    ({"action": "place", "player": ANA, "number": 5, "decoy": "no"}, "'decoy' must be true or false"),
])
def test_refusals_after_the_start(action, message):
    with pytest.raises(IllegalAction, match=message):
        GAME.apply(started(ANA), action)


def test_an_occupied_number_is_refused_and_a_missing_decoy_means_it_counts():
    state = run(started(ANA), 5)
    with pytest.raises(IllegalAction, match="number 5 already has a card on it"):
        GAME.apply(state, place(BEN, 5))
    state = GAME.apply(state, {"action": "place", "player": BEN, "number": 6})
    assert state.cards[-1] == Card(BEN, 6, decoy=False)


def test_seat_1_starts_by_itself_with_the_seat1_option():
    lines = []
    match = Match(GAME, ClosestOptions(start="seat1"), NAMES, record=lines.append)
    match.settle()
    assert lines == [{"type": "action", "action": "start", "player": 0, "auto": True}]
    assert match.state.starter == ANA
    with pytest.raises(IllegalAction, match="seat 1 \\(player 0\\) starts"):
        GAME.apply(new(start="seat1"), {"action": "start", "player": BEN})


def test_a_journal_replays_with_its_decoys():
    header = {"format": "companion-journal/1", "game": "closest", "players": list(NAMES),
              "options": {"line_length": 5}}
    moves = [(ANA, 3, False), (BEN, 1, False), (CY, 5, False),
             (BEN, 2, True), (CY, 4, False), (ANA, 3, False), (BEN, 1, False), (CY, 5, True)]
    lines = [header, {"type": "action", "action": "start", "player": ANA}]
    lines += [{"type": "action", **place(p, n, d)} for p, n, d in moves]
    _, match = replay(json.dumps(line) for line in lines)
    result = summary(_, match)
    assert result["over"] and result["winners"] == [CY] and result["scores"] == [2, 2, 3]
    assert result["detail"]["rounds"][1]["cards"][0] == {"player": BEN, "number": 2, "decoy": True}
    assert result["detail"]["rounds"][1]["verdicts"] == [BEN, TIE, ANA, CY, CY]
    assert GAME.describe(match.state)[2].startswith("Round 2 on 1..5: 1:B 2:B* 3:A 4:C 5:C*")
    from companion.cli.review import named      # the replay names each player's points and letter
    assert named(GAME.describe(match.state)[0], NAMES) == (
        f"On the lines: A is {NAMES[0]} (seat 1), B is {NAMES[1]} (seat 2), C is {NAMES[2]} (seat 3); "
        "* marks a decoy, - a free number")
    assert named(GAME.describe(match.state)[2], NAMES).endswith(
        f"points: {NAMES[0]} (seat 1) {match.state.scored[1].points[0]}, {NAMES[1]} (seat 2) "
        f"{match.state.scored[1].points[1]}, {NAMES[2]} (seat 3) {match.state.scored[1].points[2]}")
