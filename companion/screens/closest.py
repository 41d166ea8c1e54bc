"""The closest-number game on a station's 128x64 panel.

Two screens: the start race (the product question and the four answers, one per button, laid
out like the buttons) and the number line (every number with the card on it; a player is a
shape: circle, square, triangle). On the line, a hollow shape is a decoy: the table puts one in
a view only for the decoy's owner, or for everyone once the round is scored. The scoring screen
adds, under each number, who won it (their shape), ``=`` for a tie, ``-`` for no counting card.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from .canvas import CHAR_W, LINE_H, WIDTH, abbreviate, blank, centred, text, title

SLOT = 2 * CHAR_W
"""Width of one number on the line: room for "10"."""
SHAPE = 10
"""A card on the line: 10 px (1.7 mm on a 0.96" panel), so hollow and filled differ at a glance."""
MARK = 8
"""A player's shape in the text rows."""
NUMBERS_Y = 11
CARDS_Y = 22
VERDICTS_Y = 35
VERDICT = 6
"""Who won a number: always a filled shape, so smaller than a card."""
ROW_Y = (36, 50)
"""Text rows under the line: the players row, then the prompt."""
SCORED_ROW_Y = (41, 52)
"""On the scoring screen: this round's points, then the totals."""
PLAYER_W = 43
"""Width of a player's part of the players row: a third of the panel. It holds the shape, a gap,
the name (three letters), a gap of two pixels and a two-digit total, and two pixels before the
next player's shape: the panel has no room for more, so a longer name is abbreviated."""
TOTAL_END = PLAYER_W - 2
"""Where a player's total ends in their part of the row: a two-digit total keeps two pixels
from the name before it ("You 15", never "You15") and two from the next player's shape."""
LABEL_W = 5 * CHAR_W + 3
"""The scoring rows' labels, "round" and "total"."""


@dataclass(frozen=True)
class QuestionView:
    """The start race: ``answers`` in button order left, ok, right, slap."""

    question: str
    answers: tuple[int, int, int, int]
    prompt: str


@dataclass(frozen=True)
class LineView:
    title: str
    line: int
    """The numbers are 1..line."""
    cards: tuple[tuple[int, int, bool], ...]
    """(number, player, hollow): hollow marks a decoy this station may see."""
    names: tuple[str, ...]
    totals: tuple[int, ...]
    me: int | None = None
    """The player this station belongs to (shown as "You"); None for a watching station."""
    cursor: tuple[int, int, bool] | None = None
    """(number, player, hollow): the card the mover is about to place, on their station only."""
    prompt: str = ""
    menu: tuple[str, ...] = ()
    """Choices drawn on the prompt row instead of the prompt, ``selected`` one lit."""
    selected: int = 0
    verdicts: tuple[int | str | None, ...] | None = None
    """On the scoring screen: each number's winner, ``"tie"`` or None (nothing counted)."""
    points: tuple[int, ...] = ()
    """On the scoring screen: each player's points this round."""


def draw_shape(draw: ImageDraw.ImageDraw, player: int, x: int, y: int, size: int = SHAPE,
               hollow: bool = False, ink: int = 1) -> None:
    """Player 0 a circle, 1 a square, 2 a triangle, in a ``size`` square from (x, y)."""
    fill = None if hollow else ink
    right, bottom = x + size - 1, y + size - 1
    if player == 0:
        draw.ellipse((x, y, right, bottom), fill=fill, outline=ink)
    elif player == 1:
        draw.rectangle((x + 1, y + 1, right - 1, bottom - 1), fill=fill, outline=ink)
    else:
        mid = x + size // 2
        draw.polygon([(mid - 1, y), (mid, y), (right, bottom), (x, bottom)], fill=fill, outline=ink)


def question(view: QuestionView) -> Image.Image:
    image, draw = blank()
    title(draw, "Who starts?")
    centred(draw, LINE_H + 2, view.question)
    left, ok, right, slap = view.answers
    centred(draw, 2 * LINE_H + 5, f"<{left}  ok {ok}  {right}>")
    centred(draw, 3 * LINE_H + 5, f"slap {slap}")
    centred(draw, 4 * LINE_H + 4, view.prompt)
    return image


def _slot_x(view: LineView, number: int) -> int:
    return (WIDTH - view.line * SLOT) // 2 + (number - 1) * SLOT


def number_line(view: LineView) -> Image.Image:
    image, draw = blank()
    title(draw, view.title, more=view.verdicts is not None)
    on = {number: (player, hollow) for number, player, hollow in view.cards}
    for n in range(1, view.line + 1):
        x = _slot_x(view, n)
        lit = view.cursor is not None and view.cursor[0] == n
        if lit:
            draw.rectangle((x, NUMBERS_Y + 1, x + SLOT - 1, CARDS_Y + SHAPE), fill=1)
        elif n > 1:  # a ruler's tick between numbers, so "9 10" never reads "910"
            draw.line((x, NUMBERS_Y + 8, x, NUMBERS_Y + 10), fill=1)
        label = str(n)
        text(draw, x + (SLOT - len(label) * CHAR_W) // 2 + 1, NUMBERS_Y, label, fill=0 if lit else 1,
             width=SLOT)
        card = (view.cursor[1], view.cursor[2]) if lit else on.get(n)
        if card is not None:
            draw_shape(draw, card[0], x + (SLOT - SHAPE) // 2, CARDS_Y, hollow=card[1],
                       ink=0 if lit else 1)
        if view.verdicts is not None:
            _verdict(draw, view.verdicts[n - 1], x)
    if view.verdicts is not None:  # a rule between the cards and who won each number
        x0 = _slot_x(view, 1)
        draw.line((x0, VERDICTS_Y - 2, x0 + view.line * SLOT - 1, VERDICTS_Y - 2), fill=1)
        _scored_row(draw, "round", [f"+{p}" for p in view.points], SCORED_ROW_Y[0])
        _players_row(draw, view, SCORED_ROW_Y[1])  # whose shape is whose, with the totals
        return image
    _players_row(draw, view, ROW_Y[0])
    if view.menu:
        _menu(draw, view.menu, view.selected, ROW_Y[1])
    else:
        centred(draw, ROW_Y[1], view.prompt)
    return image


def _verdict(draw: ImageDraw.ImageDraw, verdict: int | str | None, x: int) -> None:
    if isinstance(verdict, int):
        draw_shape(draw, verdict, x + (SLOT - VERDICT) // 2, VERDICTS_Y, size=VERDICT)
    else:
        text(draw, x + (SLOT - CHAR_W) // 2 + 1, VERDICTS_Y - 2, "=" if verdict == "tie" else "-")


def _players_row(draw: ImageDraw.ImageDraw, view: LineView, y: int) -> None:
    """Per player: shape, name, total."""
    for p, name in enumerate(view.names):
        x = p * PLAYER_W
        draw_shape(draw, p, x, y + 2, size=MARK)
        label = "You" if p == view.me else name
        text(draw, x + MARK + 1, y, abbreviate(label, 3))
        total = str(view.totals[p])
        text(draw, x + TOTAL_END - len(total) * CHAR_W, y, total)


def _scored_row(draw: ImageDraw.ImageDraw, label: str, numbers: list[str], y: int) -> None:
    """``round ●+7 ■+1 ▲+1``: a word saying what the numbers are, then each player's shape and
    number."""
    text(draw, 0, y, label)
    cell = (WIDTH - LABEL_W) // len(numbers)
    for p, number in enumerate(numbers):
        x = LABEL_W + p * cell
        draw_shape(draw, p, x + 1, y + 2, size=MARK)
        text(draw, x + MARK + 2, y, number, width=cell - MARK - 2)


def _menu(draw: ImageDraw.ImageDraw, choices: tuple[str, ...], selected: int, y: int) -> None:
    words = "  ".join(choices)
    x = (WIDTH - len(words) * CHAR_W) // 2
    for i, choice in enumerate(choices):
        text(draw, x, y, choice, invert=i == selected)
        x += (len(choice) + 2) * CHAR_W
