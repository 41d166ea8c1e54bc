"""Closest Number screens, checked by pixels and against a golden PNG reviewed by eye."""

from PIL import ImageChops

from companion.screens.canvas import HEIGHT, WIDTH, blank
from companion.screens.closest import (
    CARDS_Y, NUMBERS_Y, SHAPE, SLOT, VERDICTS_Y, LineView, QuestionView, draw_shape, number_line, question,
)

from test_screens import assert_golden, lit

NAMES = ("Ana", "Ben", "Cy")
ANA, BEN, CY = 0, 1, 2
X0 = (WIDTH - 10 * SLOT) // 2

# The end of the scripted game (companion/demo/closest.txt): decoys revealed as hollow shapes.
SCRIPTED_END = LineView(
    title="Ben wins!", line=10,
    cards=((4, ANA, False), (10, BEN, True), (6, CY, False), (2, ANA, True), (7, BEN, False),
           (3, CY, True)),
    names=NAMES, totals=(7, 8, 4), me=ANA,
    verdicts=(ANA, ANA, ANA, ANA, "tie", CY, BEN, BEN, BEN, BEN), points=(4, 4, 1),
)


def card_box(number):
    x = X0 + (number - 1) * SLOT
    return (x, CARDS_Y, x + SLOT - 1, CARDS_Y + SHAPE - 1)


def verdict_box(number):
    x = X0 + (number - 1) * SLOT
    return (x, VERDICTS_Y - 1, x + SLOT - 1, VERDICTS_Y + 8)


def test_the_scripted_end_screen_matches_the_reviewed_image():
    image = number_line(SCRIPTED_END)
    assert image.mode == "1" and image.size == (WIDTH, HEIGHT)
    assert_golden(image, "closest-end.png")


def test_a_decoy_is_a_hollow_shape_and_a_counting_card_a_filled_one():
    for player in (ANA, BEN, CY):
        filled, hollow = blank(), blank()
        draw_shape(filled[1], player, 0, 0)
        draw_shape(hollow[1], player, 0, 0, hollow=True)
        centre = (SHAPE // 2, SHAPE // 2 + 1)
        assert filled[0].getpixel(centre) and not hollow[0].getpixel(centre)
        assert 0 < lit(hollow[0], (0, 0, SHAPE, SHAPE)) < lit(filled[0], (0, 0, SHAPE, SHAPE))
    view = LineView("Round 2", 10, ((2, BEN, True), (5, CY, False)), NAMES, (0, 0, 0))
    image = number_line(view)
    assert lit(image, card_box(2)) < lit(image, card_box(5))
    assert all(lit(image, card_box(n)) == 0 for n in (1, 3, 4, 6, 7, 8, 9, 10))


def test_the_cursor_lights_its_number_and_shows_the_card_about_to_be_placed():
    plain = number_line(LineView("Round 1", 10, (), NAMES, (0, 0, 0)))
    cursor = number_line(LineView("Round 1", 10, (), NAMES, (0, 0, 0), me=BEN, cursor=(7, BEN, False)))
    x = X0 + 6 * SLOT
    slot = (x, 12, x + SLOT - 1, CARDS_Y + SHAPE)
    assert lit(cursor, slot) > 0.5 * SLOT * (CARDS_Y + SHAPE - 12) > lit(plain, slot)
    outside = (0, 12, x - 1, CARDS_Y + SHAPE)
    assert lit(cursor, outside) == lit(plain, outside)


def test_the_scoring_row_shows_a_winner_a_tie_and_nothing_counted_differently():
    row = [lit(number_line(SCRIPTED_END), verdict_box(n)) for n in range(1, 11)]
    assert row[0] == row[1] == row[2] == row[3] > 0          # Ana's circles
    assert row[4] > 0 and row[4] != row[0]                   # the tie's "="
    nothing = number_line(LineView("Round 5", 3, ((1, BEN, True),), NAMES, (0, 0, 0),
                                   verdicts=(None, None, None), points=(0, 0, 0)))
    x = (WIDTH - 3 * SLOT) // 2
    dash = lit(nothing, (x, VERDICTS_Y - 1, x + SLOT - 1, VERDICTS_Y + 8))
    assert 0 < dash < row[4]


def test_the_question_shows_the_answers_in_button_order_and_the_prompt():
    one = question(QuestionView("17 x 34 = ?", (578, 598, 558, 478), "First right answer"))
    swapped = question(QuestionView("17 x 34 = ?", (598, 578, 558, 478), "First right answer"))
    other = question(QuestionView("17 x 34 = ?", (578, 598, 558, 478), "Wrong: you're out"))
    answers_rows, prompt_row = (0, 26, WIDTH, 50), (0, 52, WIDTH, HEIGHT)
    assert ImageChops.difference(one, swapped).getbbox()[1] >= answers_rows[1]
    assert ImageChops.difference(one, swapped).getbbox()[3] <= answers_rows[3]
    assert ImageChops.difference(one, other).getbbox()[1] >= prompt_row[1]
    assert lit(one, answers_rows) > 100


def test_a_ruler_tick_parts_every_number_from_the_next_so_9_10_never_reads_910():
    image = number_line(LineView("Round 1", 10, (), NAMES, (0, 0, 0)))
    for n in range(2, 11):
        x = X0 + (n - 1) * SLOT
        assert image.getpixel((x, NUMBERS_Y + 9)), f"no tick before {n}"
        assert not image.getpixel((x, NUMBERS_Y + 3)), "the tick stays below the digits"


def test_cards_are_big_enough_to_tell_a_decoy_from_a_counting_card():
    assert SHAPE >= 10   # 1.7 mm on a 0.96" panel (128 px over 21.7 mm)
    filled, hollow = blank(), blank()
    draw_shape(filled[1], BEN, 0, 0)
    draw_shape(hollow[1], BEN, 0, 0, hollow=True)
    assert lit(filled[0], (0, 0, SHAPE, SHAPE)) - lit(hollow[0], (0, 0, SHAPE, SHAPE)) >= 30



def test_a_two_digit_total_keeps_a_gap_from_the_name_before_it_and_the_shape_after_it():
    """The names row read "▲You15" with a two-digit total: not one dark column between the
    name and its total. Here each player's name (its ink: the row drawn with and without the
    names), total and the next player's shape are parted by at least two dark columns, on the
    end screen and during a round, for three-letter names and two-digit totals on every seat."""
    from companion.screens.closest import MARK, PLAYER_W, ROW_Y, SCORED_ROW_Y

    def columns(image, y, x0, x1):
        return [x for x in range(x0, x1) if any(image.getpixel((x, row)) for row in range(y, y + 12))]

    totals = (15, 28, 30)
    for me in (None, 0, 1, 2):
        for y, view in ((SCORED_ROW_Y[1], dict(title="Ana wins!", verdicts=(None,) * 10, points=(4, 4, 1))),
                        (ROW_Y[0], dict(title="Round 2"))):
            row = number_line(LineView(line=10, cards=(), names=("Alexandra", "Ben", "Cy"), totals=totals,
                                       me=me, **view))
            unnamed = number_line(LineView(line=10, cards=(), names=("", "", ""), totals=totals, **view))
            for p in range(3):
                x0 = p * PLAYER_W
                name = [x for x in columns(row, y, x0, min(WIDTH, x0 + PLAYER_W)) if x not in columns(unnamed, y, 0, WIDTH)]
                total = columns(unnamed, y, x0 + MARK + 1, min(WIDTH, x0 + PLAYER_W))
                assert name and total, (me, y, p)
                assert min(total) - max(name) > 2, f"player {p + 1}'s name and total touch (me={me}, row {y})"
                if p < 2:
                    assert min(columns(row, y, x0 + PLAYER_W, WIDTH)) - max(total) > 2
                assert max(total) < WIDTH
