"""The reveal benchmark's own arithmetic: the chi-square tail, the display-only race model."""

import pytest

from bench.reveal import MS, chi_square_uniform_p, onsets, wins


@pytest.mark.parametrize(("counts", "p"), [([100, 100, 100], 1.0), ([90, 100, 110], 0.3679),
                                           ([1000, 1100, 900, 1000, 1000, 1000], 0.001249)])
def test_chi_square_tail_for_even_and_odd_degrees_of_freedom(counts, p):
    assert chi_square_uniform_p(counts) == pytest.approx(p, rel=1e-3)


def test_players_alike_win_alike_when_timed_from_their_onsets_and_the_late_panels_lose_when_not():
    sequential, _ = onsets(3, synchronized=False)
    assert sequential[2] - sequential[0] > 50 * MS
    fair = wins(3000, sequential, revealed=True, seed=1)
    assert chi_square_uniform_p(fair) > 0.01
    biased = wins(3000, sequential, revealed=False, seed=1)
    assert biased[0] > biased[1] > biased[2]
