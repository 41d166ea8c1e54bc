"""The solved Pay-to-Play table against a plain minimax over the rules engine itself."""

import random

import pytest

from companion.bots.paytoplay import RESULT_WEIGHT, Solver, Value, best_action, key_of, solve, tictactoe
from companion.games import get
from companion.games.paytoplay import PayToPlayOptions

RULES = get("paytoplay")


def brute(state) -> int:
    """Minimax straight over PayToPlay.legal_actions/apply, no memo and no encoding of ours.

    The solver's one modelling choice is mirrored: when a draw is on offer, passing on is not
    searched (the module docstring says why)."""
    over = RULES.outcome(state)
    if over is not None:
        x, o = state.x, 1 - state.x
        result = 0 if len(over.winners) == 2 else (1 if over.winners == (x,) else -1)
        return result * RESULT_WEIGHT + state.balances[x] - state.balances[o]
    actions = RULES.legal_actions(state)
    if any(a["action"] == "draw" for a in actions):
        actions = [a for a in actions if a["action"] != "pass"]
    values = [brute(RULES.apply(state, a)) for a in actions]
    return max(values) if state.to_move == state.x else min(values)


def positions(no_double_pass: bool, empties: int, count: int, seed: int):
    """Live positions reached by random legal play, ``empties`` cells left: random balances and
    pass streaks come with them."""
    rng = random.Random(seed)
    options = PayToPlayOptions(no_double_pass=no_double_pass)
    found = []
    while len(found) < count:
        state = RULES.new(2, options)
        while state.to_move is not None and state.board.count(".") > empties:
            actions = [a for a in RULES.legal_actions(state) if a["action"] != "draw"]
            plays = [a for a in actions if a["action"] == "play"]
            state = RULES.apply(state, rng.choice(plays if plays and rng.random() < 0.6 else actions))
        if state.to_move is not None:
            found.append(state)
    return found


@pytest.mark.parametrize("no_double_pass, empties", [(True, 4), (False, 3)])
def test_solver_matches_a_plain_minimax_over_the_rules(no_double_pass, empties):
    states = positions(no_double_pass, empties, 12, seed=21)
    assert len({(s.board, s.balances) for s in states}) > 6, "the sample covers varied positions"
    solver = Solver(no_double_pass)
    for state in states:
        expected = brute(state)
        assert solver.value(key_of(state, solver)) == expected, RULES.describe(state)
        assert brute(RULES.apply(state, best_action(state))) == expected, "the bot's move is optimal"


def test_a_single_move_position_is_valued_by_hand():
    state = RULES.new(2, {})
    for a in ({"action": "play", "player": 0, "cell": 0}, {"action": "play", "player": 1, "cell": 1},
              {"action": "pass", "player": 0}, {"action": "pass", "player": 1},
              {"action": "pass", "player": 0}, {"action": "play", "player": 1, "cell": 2}):
        state = RULES.apply(state, a)
    state = RULES.apply(state, {"action": "play", "player": 0, "cell": 4})
    state = RULES.apply(state, {"action": "pass", "player": 1})
    # X holds 0 and 4 with 2 after income: only the bottom-right corner completes a line now.
    assert state.board == "XOO.X...." and state.balances == (0, 3)
    assert best_action(state) == {"action": "play", "player": 0, "cell": 8}


def test_the_whole_game_under_the_house_rule():
    solution = solve(no_double_pass=True)
    assert solution.value == Value(-1, 3)
    assert solution.best_first[0] == "pass"


def test_plain_tictactoe_is_a_draw_from_every_first_cell():
    assert tictactoe() == (0, list(range(9)))


def test_companion_solve_prints_both_games(capsys):
    from companion.cli import main

    assert main(["solve", "paytoplay", "--no-double-pass"]) == 0
    out = capsys.readouterr().out
    assert "O wins, 3 behind X in balance at the end" in out      # who is behind whom
    assert "X loses whatever it does; its least bad first move: pass or cell 2 (top edge)" in out  # cells 1-9
    assert "Plain tic-tac-toe" in out and "a draw; every first cell keeps it" in out
