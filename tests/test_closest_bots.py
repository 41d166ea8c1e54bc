"""Round 1 of the closest-number game solved, checked by a plain search over the rules engine;
the bots' moves are legal in every round."""

import random

import pytest

from companion.bots.closest import easy_move, hard_move, round1_solution
from companion.games import get

RULES = get("closest")


def brute(state, starter):
    """Backward induction straight over Closest.legal_actions/apply and its scoring, no memo:
    each mover keeps the first (lowest) number that gives them the most round-1 points."""
    if state.round > 1:
        return [], state.scored[0].points
    best = None
    for action in RULES.legal_actions(state):
        line, points = brute(RULES.apply(state, action), starter)
        if best is None or points[action["player"]] > best[1][action["player"]]:
            best = ([action["number"]] + line, points)
    return best


@pytest.mark.parametrize("line, starter", [(10, 0), (7, 1), (5, 2)])
def test_round1_matches_a_search_over_the_rules(line, starter):
    state = RULES.apply(RULES.new(3, {"line_length": line}), {"action": "start", "player": starter})
    numbers, points = brute(state, starter)
    order = [(starter + i) % 3 for i in range(3)]
    solved_numbers, solved_points = round1_solution(line)
    assert list(solved_numbers) == numbers
    assert tuple(points[p] for p in order) == solved_points


def test_round1_on_the_seeds_line():
    # The first player takes 8 and scores 6 to 10; the others answer 3 (3 to 5) and 2 (1, 2).
    assert round1_solution(10) == ((8, 3, 2), (5, 3, 2))


def test_the_hard_bot_plays_the_solution_in_round1_and_legal_moves_after():
    state = RULES.apply(RULES.new(3, {}), {"action": "start", "player": 1})
    first = hard_move(state)
    assert first == {"action": "place", "player": 1, "number": 8}
    rng = random.Random(2)
    for seed in range(20):
        state = RULES.apply(RULES.new(3, {}), {"action": "start", "player": seed % 3})
        rng.seed(seed)
        levels = ["hard", "easy", "hard"] if seed % 2 else ["easy", "hard", "hard"]
        while RULES.outcome(state) is None:
            p = state.mover()
            action = hard_move(state) if levels[p] == "hard" else easy_move(state, rng)
            state = RULES.apply(state, action)   # refused with the rule if illegal
            RULES.check_invariants(state)


def test_the_hard_bot_bluffs_with_its_decoy_when_it_opens_a_round():
    state = RULES.apply(RULES.new(3, {}), {"action": "start", "player": 2})
    for n in (8, 3, 2):
        state = RULES.apply(state, {"action": "place", "player": state.mover(), "number": n})
    assert state.round == 2 and state.mover() == 0
    opening = hard_move(state)
    assert opening["decoy"] is True
    state = RULES.apply(state, opening)
    assert hard_move(state)["decoy"] is False
