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


def test_the_light_model_compares_the_box_with_luma_s_clock_and_sensors_on_the_same_races():
    from bench.reveal import light_misjudged, light_skew, panel_clock

    assert panel_clock("box") == (0xF0, 0x22) and panel_clock("luma") == (0x80, 0xF1)
    box, luma = light_skew(300, "box"), light_skew(300, "luma")
    assert 0.6 < box["p50"] < box["p99"] < 7.7 + 0.7        # within a frame, command skew included
    assert box["p99"] < luma["p99"]
    restarts = light_skew(300, "box", "restarts")
    assert restarts["p99"] < 1.0                             # only the command skew and Fosc spread
    fast, slow = light_misjudged(2000, "box", 11), light_misjudged(2000, "luma", 10)
    assert 0 < fast["misjudged"] < slow["misjudged"]
    assert fast["wrong_winner"] == 0
    assert light_misjudged(2000, "box", 11, sensor=True)["misjudged"] == 0
