"""Triangle's screens by pixels and against golden PNGs reviewed by eye (see test_screens.py)."""

from companion.screens.canvas import HEIGHT, LINE_H, WIDTH
from companion.screens.triangle import (
    BAND_H, BAND_Y, FOOTER_Y, AidView, EndView, RoundView, aid_screen, end_screen, round_screen,
    scores_line,
)

from glyphs import shows
from test_screens import assert_golden, lit

CLAIMER = RoundView("Right to Speak: 5", cards=(("Ben", 4), ("Cy", 2)), status="Ben +140ms  Cy +2.1s",
                    footer="I'm greater +3", menu=True)
RESULT = RoundView("You: exactly 4 wrong", cards=(("You", 3), ("Ben", 4), ("Cy", 2)),
                   status="Ben +140ms  Cy +2.1s", footer="You 0  Ben 3  Cy 3", more=True)
END = EndView("Ana and Cy win", "Ana 27  Ben 19  Cy 27",
              ("Ana, Cy: even", "Ben pays Ana 8", "Ben pays Cy 8"))


def test_screens_are_one_bit_128x64_panels():
    for image in (round_screen(CLAIMER), end_screen(END), aid_screen(AidView(1, (0,) * 6))):
        assert image.mode == "1" and image.size == (WIDTH, HEIGHT)


def test_claimer_screen_matches_the_reviewed_image():
    assert_golden(round_screen(CLAIMER), "triangle-claimer.png")


def test_result_screen_matches_the_reviewed_image():
    assert_golden(round_screen(RESULT), "triangle-result.png")


def test_end_screen_with_settlement_matches_the_reviewed_image():
    assert_golden(end_screen(END), "triangle-end-settlement.png")


def test_the_countdown_fills_the_band_with_one_big_number():
    image = round_screen(RoundView("Turn 1  Round 1/6", count=3))
    band = (0, BAND_Y, WIDTH, BAND_Y + BAND_H)
    assert lit(image, band) > 100
    assert lit(image, (0, BAND_Y, WIDTH // 2 - 10, BAND_Y + BAND_H)) == 0   # centred
    assert shows(image, "3") and not shows(image, "2")


def test_cards_are_big_values_beside_their_names_and_hidden_cards_show_a_question_mark():
    image = round_screen(RoundView("t", cards=(("Ben", 4), ("Cy", None))))
    assert shows(image, "Ben") and shows(image, "4") and shows(image, "?")
    left, right = (0, BAND_Y, WIDTH // 2, BAND_Y + BAND_H), (WIDTH // 2, BAND_Y, WIDTH, BAND_Y + BAND_H)
    assert lit(image, left) > 60 and lit(image, right) > 60


def test_the_more_arrow_and_the_menu_arrows():
    plain = round_screen(RoundView("Draw"))
    more = round_screen(RoundView("Draw", more=True))
    corner = (WIDTH - 8, 0, WIDTH, LINE_H)
    assert lit(more, corner) < lit(plain, corner)          # a dark arrow cut into the lit bar
    menu = round_screen(RoundView("t", footer="I'm odd +2", menu=True))
    assert shows(menu, "<") and shows(menu, ">") and shows(menu, "I'm odd +2")
    assert lit(menu, (20, FOOTER_Y, WIDTH - 20, FOOTER_Y + LINE_H)) > 300   # lit selection


def test_the_counting_aid_lists_seen_and_unseen_cards():
    image = aid_screen(AidView(2, (2, 0, 1, 4, 0, 1)))
    assert shows(image, "Seen in turn 2")
    assert shows(image, "seen  2 0 1 4 0 1") and shows(image, "not   2 4 3 0 4 3")


def test_scores_shorten_names_only_as_much_as_needed():
    assert scores_line(("Ana", "Ben", "Cy"), (12, 3, 20)) == "Ana 12  Ben 3  Cy 20"
    line = scores_line(("Anastasia", "Benjamin", "Cyrille"), (12, 30, 20))
    assert len(line) <= 21 and line.startswith("An")
