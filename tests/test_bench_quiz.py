"""The quiz benchmark: 16 players on GPIO and the board, through the real arbiter and rules."""

from bench import fairness, quiz


def test_sixteen_players_are_never_misordered_while_arrival_order_mostly_is():
    result = quiz.misorder(300, seed=5)
    assert result["quiz_races"] > 250
    assert result["quiz_misorder_rate_ge_100us"] == 0
    assert result["baseline_quiz_misorder_rate_ge_100us"] > 0.5


def test_an_exact_tie_of_sixteen_is_declared_and_drawn_for_any_station_while_arrival_picks_the_lowest_pin():
    result = quiz.tie_bias(160, seed=6)
    assert sum(result["quiz_tie_counts"]) == 160 and sum(1 for c in result["quiz_tie_counts"] if c) > 10
    assert result["baseline_quiz_tie_counts"] == [160] + [0] * 15
    assert result["baseline_quiz_tie_bias_p"] < 1e-9


def test_the_chi_square_tail_matches_the_closed_form_for_two_degrees():
    for counts in ([10, 10, 10], [20, 10, 0], [13, 9, 8]):
        assert abs(quiz.chi_square_p(counts) - fairness.chi_square_p(counts)) < 1e-12
