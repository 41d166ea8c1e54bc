"""Triangle on a station's 128x64 panel.

Every round screen has the same four parts, so a player's eye always knows where to look:

- the top bar: turn and round, who speaks, or the verdict; a small arrow at its right end means
  "press ok to go on";
- a band of big cards: the countdown number, then the two peers' cards (or all three once a
  fact is stated), each with its owner's name; a hidden card is ``?``;
- a status line: a false start, who else slapped and how much later, the verdict;
- a footer: the running scores, or the claimer's fact menu between arrows.

The end screen lists the winners, the scores and, if chosen, the settlement; the counting aid
shows which cards of the turn the player has seen.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from .canvas import CHAR_W, COLUMNS, LINE_H, WIDTH, abbreviate, blank, centred, fit, font, text, title

BAND_Y = LINE_H
BAND_H = 2 * LINE_H
STATUS_Y = BAND_Y + BAND_H + 2
FOOTER_Y = STATUS_Y + LINE_H + 1
BIG = 3
"""Big cards are the font's digits scaled three times: 18x21 pixels."""


@dataclass(frozen=True)
class RoundView:
    title: str
    cards: tuple[tuple[str, int | None], ...] = ()
    """(name, value) of each card the band shows; value None is a hidden card."""
    count: int | None = None
    """The countdown number, shown in the band instead of cards."""
    status: str = ""
    alert: bool = False
    """Draw the status lit, for the player's own attention (a false start)."""
    footer: str = ""
    menu: bool = False
    """The footer is the claimer's menu choice, between arrows."""
    more: bool = False
    """Show the arrow that says ``ok`` goes on."""


@dataclass(frozen=True)
class EndView:
    title: str
    scores: str
    rows: tuple[str, ...]


@dataclass(frozen=True)
class AidView:
    turn: int
    seen: tuple[int, ...]
    """How many of each value 1 to 6 the player has seen this turn."""


def big_text(image: Image.Image, x: int, y: int, s: str) -> None:
    """``s`` in the bitmap font scaled by :data:`BIG`, its glyphs' top-left at (x, y)."""
    small = Image.new("1", (len(s) * CHAR_W, 7), 0)
    ImageDraw.Draw(small).text((0, -2), s, font=font(), fill=1)
    image.paste(small.resize((small.width * BIG, small.height * BIG), Image.Resampling.NEAREST), (x, y))


def _band(image: Image.Image, draw, view: RoundView) -> None:
    """The countdown number, or each card as its owner's name beside a big value, centred in
    a column of its own."""
    if view.count is not None:
        big_text(image, (WIDTH - CHAR_W * BIG) // 2, BAND_Y + 2, str(view.count))
        return
    if not view.cards:
        return
    width = WIDTH // len(view.cards)
    big_w = CHAR_W * BIG
    for i, (name, value) in enumerate(view.cards):
        name = abbreviate(name, (width - big_w - 4) // CHAR_W)
        x = i * width + (width - len(name) * CHAR_W - 3 - big_w) // 2
        text(draw, x, BAND_Y + (BAND_H - LINE_H) // 2 + 2, name)
        big_text(image, x + len(name) * CHAR_W + 3, BAND_Y + 2, "?" if value is None else str(value))


def round_screen(view: RoundView) -> Image.Image:
    image, draw = blank()
    title(draw, view.title, view.more)
    _band(image, draw, view)
    if view.status:
        centred(draw, STATUS_Y, view.status, invert=view.alert)
    if view.menu:
        label = fit(view.footer, COLUMNS - 4)
        text(draw, 0, FOOTER_Y, "<")
        text(draw, WIDTH - CHAR_W, FOOTER_Y, ">")
        centred(draw, FOOTER_Y, label, invert=True)
    elif view.footer:
        centred(draw, FOOTER_Y, view.footer)
    return image


def end_screen(view: EndView) -> Image.Image:
    image, draw = blank()
    title(draw, view.title, more=True)
    centred(draw, LINE_H + 2, view.scores)
    for i, row in enumerate(view.rows[:3]):
        text(draw, 2, 2 * LINE_H + 4 + i * LINE_H, row)
    return image


def aid_screen(view: AidView) -> Image.Image:
    """A table of the six values: how many of each the player has seen, and how many not."""
    image, draw = blank()
    title(draw, f"Seen in turn {view.turn}")
    rows = (("card", range(1, 7)), ("seen", view.seen), ("not", (4 - n for n in view.seen)))
    for i, (label, numbers) in enumerate(rows):
        text(draw, 2, LINE_H + 2 + i * LINE_H, f"{label:<5}" + "".join(f"{n:>2}" for n in numbers))
    centred(draw, 4 * LINE_H + 3, "release left: back")
    return image


def scores_line(names: tuple[str, ...], scores: tuple[int, ...]) -> str:
    """``Ana 12  Ben 3  Cy 20``, names shortened as much as the 21 columns need."""
    for width in range(8, 0, -1):
        for gap in ("  ", " "):
            line = gap.join(f"{abbreviate(n, width)} {v}" for n, v in zip(names, scores))
            if len(line) <= COLUMNS:
                return line
    return fit(line, COLUMNS)
