"""Screens are pure images: checked by pixels, and against golden PNGs reviewed by eye.

To review a changed screen, the failing test saves what it rendered next to the golden file as
``*.actual.png``; look at both, and replace the golden file only if the new one is right.
"""

from pathlib import Path

import pytest
from PIL import Image, ImageChops

from companion.screens.canvas import HEIGHT, WIDTH, blank, fit, text
from companion.screens.lobby import GameMenuView, OptionsView, game_menu, options_menu
from companion.screens.paytoplay import BOARD_X, BOARD_Y, CELL, PayToPlayView, screen

GOLDEN = Path(__file__).parent / "golden"

SEED_END = PayToPlayView(
    board="XOXOXOOXO", names=("Alice", "Bob"), balances=(1, 0), x=0, me=1, to_move=None,
    cursor=None, prompt="on points ok: lobby", result="Alice wins",
)


def assert_golden(image: Image.Image, name: str) -> None:
    expected = Image.open(GOLDEN / name)
    if ImageChops.difference(image.convert("L"), expected.convert("L")).getbbox() is not None:
        image.save(GOLDEN / name.replace(".png", ".actual.png"))
        pytest.fail(f"{name} differs from the reviewed image; see {name.replace('.png', '.actual.png')}")


def lit(image: Image.Image, box) -> int:
    return sum(image.crop(box).histogram()[1:])


def test_every_screen_is_a_one_bit_128x64_panel_image():
    for image in (screen(SEED_END), game_menu(GameMenuView("Pay-to-Play", "2 players", 0, 1))):
        assert image.mode == "1" and image.size == (WIDTH, HEIGHT)


def test_seed_end_screen_matches_the_reviewed_image():
    assert_golden(screen(SEED_END), "paytoplay-seed-end.png")


def test_game_menu_matches_the_reviewed_image():
    assert_golden(game_menu(GameMenuView("Pay-to-Play Tic-Tac-Toe", "2 players", 0, 5)), "lobby-games.png")


def cell_box(cell):
    x0, y0 = BOARD_X + (cell % 3) * CELL, BOARD_Y + (cell // 3) * CELL
    return (x0 + 3, y0 + 3, x0 + CELL - 2, y0 + CELL - 2)


def test_board_cells_show_marks_and_the_cursor_lights_its_cell():
    empty = PayToPlayView(board="." * 9, names=("A", "B"), balances=(1, 0), x=0, me=0,
                          to_move=0, cursor=4)
    image = screen(empty)
    inside = (CELL - 5) ** 2
    assert lit(image, cell_box(4)) > inside * 0.6        # the cursor's cell is lit
    assert all(lit(image, cell_box(c)) == 0 for c in range(9) if c != 4)
    marked = screen(PayToPlayView(board="X...O....", names=("A", "B"), balances=(1, 0), x=0,
                                  me=None, to_move=0, cursor=None))
    x_pixels, o_pixels = lit(marked, cell_box(0)), lit(marked, cell_box(4))
    assert x_pixels > 10 and o_pixels > 10
    # An X lights its centre pixel, an O does not.
    centre = lambda c: marked.getpixel((BOARD_X + (c % 3) * CELL + CELL // 2, BOARD_Y + (c // 3) * CELL + CELL // 2))
    assert centre(0) and not centre(4)


def test_the_mover_is_highlighted_and_pass_shows_as_a_choice():
    view = PayToPlayView(board="." * 9, names=("Alice", "Bob"), balances=(1, 0), x=0, me=0,
                         to_move=0, cursor="pass")
    image = screen(view)
    right = 128 - 60
    assert lit(image, (right, 0, 127, 11)) > lit(image, (right, 12, 127, 23))  # inverted row 1
    assert lit(image, (right, 24, right + 30, 35)) > 100                      # "Pass" lit box


@pytest.mark.parametrize("cursor, top", [(3, 28), ("pass", 40)])
def test_the_movers_own_screen_shows_the_balance_after_income(cursor, top):
    """The accounts count as the seed does (Ben 0 before his turn); the mover also reads the
    number that lets them place, under the selected cell's cost or under Pass."""
    from companion.screens.paytoplay import SIDE_X

    view = PayToPlayView(board="....X....", names=("Ana", "Ben"), balances=(-3, 0), x=0, me=1,
                         to_move=1, cursor=cursor, prompt="cost 2" if cursor == 3 else "",
                         after_income=2)
    expected, draw = blank()
    text(draw, SIDE_X, top + 12 * (cursor == 3), "after your")
    text(draw, SIDE_X, top + 12 * (cursor == 3) + 12, "income: 2")
    box = (SIDE_X, top + 12 * (cursor == 3), WIDTH, HEIGHT)
    assert screen(view).crop(box) == expected.crop(box)


def test_options_menu_scrolls_to_keep_the_selected_row_visible():
    rows = tuple((f"opt{i}", str(i)) for i in range(5)) + (("Start", ""),)
    first = options_menu(OptionsView("Game", rows, 0))
    last = options_menu(OptionsView("Game", rows, 5))
    assert first.tobytes() != last.tobytes()
    # The selected row is drawn inverted: a lit band in the list area.
    assert lit(last, (0, 36, 127, 47)) > 150 or lit(last, (0, 26, 127, 37)) > 150


def test_fit_marks_a_cut_and_text_stays_on_the_panel():
    assert fit("Alexandra", 5) == "Alex."
    assert fit("Bob", 5) == "Bob"
    image, draw = blank()
    text(draw, 0, 0, "W" * 21)
    assert lit(image, (0, 0, 127, 11)) > 0


def test_a_panel_draws_each_name_in_the_shortest_form_any_of_its_lines_needs():
    """A line that fits a long name whole, then a narrow place that cuts it: drawn again, the
    first line says it cut too. A shorter form only tried (it did not fit) is not the panel's."""
    from companion.screens.canvas import abbreviate, fitting, one_form_per_name

    def panel():
        return (fitting(lambda w: f"{abbreviate('Alexandra', w)} speaks"),
                fitting(lambda w: f"{abbreviate('Bernadette', w)} has won!", 14),
                abbreviate("Alexandra", 3), abbreviate("Bernadette", 10))

    assert panel() == ("Alexandra speaks", "Bern. has won!", "Al.", "Bernadette")
    assert one_form_per_name(panel) == ("Al. speaks", "Bern. has won!", "Al.", "Bern.")
