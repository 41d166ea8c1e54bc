"""Pictionary screens by pixels, and against golden PNGs reviewed by eye."""

from dataclasses import replace

from companion.screens.canvas import LINE_H, WIDTH
from companion.screens.trio import SCORES_Y, TrioView, screen, status

from test_screens import assert_golden, lit

NAMES = ("Ana", "Ben", "Cy")
JUDGING = TrioView(NAMES, (7, 8, 9), 1, "Tie: Ana right?", clock="0:42", word="lighthouse",
                   lines=("ok: yes   left: no",), eligible=2, leader=2)
GUESSING = TrioView(NAMES, (7, 8, 9), 1, "Ben draws", clock="0:07", hurry=True,
                    lines=("Slap to guess!", "Judging Ana"), eligible=2, leader=2)
END = TrioView(NAMES, (7, 9, 10), 2, "Cy wins!", lines=("Cy guessed it:", "lighthouse"),
               footer="ok: back to lobby")


def test_the_artist_judging_a_tie_matches_the_reviewed_image():
    assert_golden(screen(JUDGING), "trio-judging.png")


def test_a_guesser_in_the_last_seconds_matches_the_reviewed_image():
    assert_golden(screen(GUESSING), "trio-last-seconds.png")


def test_the_end_screen_matches_the_reviewed_image():
    assert_golden(screen(END), "trio-end.png")


def test_the_clock_turns_dark_in_the_last_ten_seconds():
    clock_box = (WIDTH - 30, 1, WIDTH - 3, LINE_H - 2)
    calm = screen(TrioView(NAMES, (0, 0, 0), 0, "Ben draws", clock="0:11"))
    hurry = screen(TrioView(NAMES, (0, 0, 0), 0, "Ben draws", clock="0:10", hurry=True))
    area = (clock_box[2] - clock_box[0]) * (clock_box[3] - clock_box[1])
    assert lit(calm.convert("L"), clock_box) > area / 2        # dark digits on the lit bar
    assert lit(hurry.convert("L"), clock_box) < area / 2       # lit digits on a dark box


def test_the_artist_is_lit_in_the_scores_and_the_word_only_on_the_artists_screen():
    third = WIDTH // 3
    row = lambda x: (x * third + 2, SCORES_Y, (x + 1) * third - 2, SCORES_Y + LINE_H - 1)
    image = screen(GUESSING).convert("L")
    assert lit(image, row(1)) > 2 * lit(image, row(0))
    assert screen(GUESSING) != screen(replace(GUESSING, word="lighthouse"))


def test_the_status_line_names_who_can_win_or_skips_drawing_without_saying_no_draw():
    """"no draw" read as "no tie": the line says what the leader does instead."""
    assert status(JUDGING) == "Cy can win, guesses"
    assert status(TrioView(NAMES, (3, 1, 1), 1, "", eligible=None, leader=0)) == "Ana skips drawing"
    longest = ("W" * 10,) * 3
    for eligible in (None, 0):
        line = status(TrioView(longest, (3, 1, 1), 1, "", eligible=eligible, leader=0))
        assert "draw" not in line.replace("drawing", "") and len(line) <= 21
    assert status(TrioView(NAMES, (3, 3, 1), 1, "")) == ""
