"""Pictomania's station screens: reviewed golden images and pixel checks."""

from pathlib import Path

from companion.screens.canvas import CHAR_W, HEIGHT, LINE_H, WIDTH
from companion.screens.pictomania import (
    ChoiceView, GuessMark, PlayView, ScoresView, StackView, choice, panel, play, scores, stack,
)

from test_screens import assert_golden, lit

GOLDEN = Path(__file__).parent / "golden"

PLAY = PlayView("B5 lighthouse", (GuessMark("Ana", 3), GuessMark("Cy", 5, sent=False), GuessMark("Dee", None),
                                  GuessMark("Eve", None), GuessMark("Fatima", 1)), "Guess Dee", "sent: Cy 5")
STACK = StackView("Ana drew  ok: next", "C5 plate", ("Ben 5 +2", "Cy 2 x", "Dee 5 +1", "Eve 5 +1"),
                  "not taken -1 black +2")
SCORES = ScoresView("Round 2  ok: next", (("Ana", 6, 9), ("Ben", -1, 3), ("Cy", 2, 2), ("Dee", -7, -12),
                                             ("Eve", 0, 4), ("Fatima", 3, 10)), "black sheep: Dee")


def test_play_screen_matches_the_reviewed_image():
    assert_golden(play(PLAY), "pictomania-play.png")


def test_stack_screen_matches_the_reviewed_image():
    assert_golden(stack(STACK), "pictomania-stack.png")


def test_scores_screen_matches_the_reviewed_image():
    assert_golden(scores(SCORES), "pictomania-scores.png")


def test_guess_marks_say_what_was_guessed_and_what_waits():
    assert [m.label() for m in PLAY.marks] == ["Ana:3", "Cy:5?", "Dee:-", "Eve:-", "Fat.:1"]


def test_the_selected_line_is_lit_and_the_others_are_not():
    image = choice(ChoiceView("Guess Ben", "number 4", ("A4 spider", "B4 bicycle", "C4 cup")))
    assert image.mode == "1" and image.size == (WIDTH, HEIGHT)
    row = (0, LINE_H + 1, WIDTH, 2 * LINE_H)
    chosen = lit(image, (0, LINE_H + 1, len("< number 4 >") * CHAR_W, 2 * LINE_H))
    assert chosen > 0.6 * len("< number 4 >") * CHAR_W * (LINE_H - 1)
    assert lit(image, (0, 2 * LINE_H + 1, WIDTH, 3 * LINE_H)) < 0.3 * WIDTH * LINE_H
    assert lit(image, row) > lit(image, (0, 3 * LINE_H + 1, WIDTH, 4 * LINE_H))


def test_long_lines_are_cut_to_the_panel():
    image = panel("x" * 40, ("y" * 40,))
    assert image.getbbox()[2] <= WIDTH
    assert panel("t", ("a", "b", "c", "d", "e")) == panel("t", ("a", "b", "c", "d"))
