"""A few random kills of a real box process (``python -m tests.power_cut`` runs many): no line
the box said was saved is lost, and a restart resumes the game an uninterrupted run had."""

import pytest

from power_cut import attack


@pytest.mark.parametrize("game", ["triangle"])  # races, a claim, a fact: the richest short game
def test_random_kills_lose_no_saved_line_and_resume_the_uninterrupted_game(tmp_path, game):
    figures = attack(kills=3, game=game, seed=7, scratch=tmp_path)
    assert figures["kills"] == 3
    assert figures["lines_lost"] == 0, figures
    assert figures["resumes_different"] == 0, figures
