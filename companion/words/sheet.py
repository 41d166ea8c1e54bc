"""Printable sheets of word cards, for groups who play Pictomania with paper cards (the box's
"physical cards" mode) or want the words on the table as well as on the stations.

A page is A4, eight cards to a page (two columns, four rows), each card framed with its deck's
title and id on top and its seven words numbered 1 to 7, ready to cut out. A ``.pdf`` path gets a
vector PDF (:mod:`.vector`, with fpdf2); a ``.png`` path numbered PNG files at 150 dpi.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from . import WORDS_PER_CARD, Card, Deck

PAGE = (1240, 1754)
"""A4 at 150 dpi."""
DPI = 150
MARGIN = 60
COLUMNS, ROWS = 2, 4
GAP = 24


def _card(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], deck: Deck, card: Card,
          fonts: tuple[ImageFont.FreeTypeFont, ImageFont.FreeTypeFont]) -> None:
    small, big = fonts
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=18, outline=0, width=3)
    draw.text((x0 + 20, y0 + 14), deck.title, font=small, fill=0)
    draw.text((x1 - 20, y0 + 14), card.id, font=small, fill=0, anchor="ra")
    line = (y1 - y0 - 70) // WORDS_PER_CARD
    for n, word in enumerate(card.words, start=1):
        y = y0 + 60 + (n - 1) * line
        draw.text((x0 + 30, y), f"{n}", font=big, fill=0)
        draw.text((x0 + 80, y), word, font=big, fill=0)


def pages(decks: list[Deck]) -> list[Image.Image]:
    """Every card of ``decks``, deck after deck, eight to an A4 page (one-bit images)."""
    fonts = (ImageFont.load_default(size=26), ImageFont.load_default(size=36))
    width = (PAGE[0] - 2 * MARGIN - (COLUMNS - 1) * GAP) // COLUMNS
    height = (PAGE[1] - 2 * MARGIN - (ROWS - 1) * GAP) // ROWS
    cards = [(deck, card) for deck in decks for card in deck.cards]
    out = []
    per_page = COLUMNS * ROWS
    for first in range(0, len(cards), per_page):
        page = Image.new("1", PAGE, 1)
        draw = ImageDraw.Draw(page)
        for i, (deck, card) in enumerate(cards[first:first + per_page]):
            x = MARGIN + (i % COLUMNS) * (width + GAP)
            y = MARGIN + (i // COLUMNS) * (height + GAP)
            _card(draw, (x, y, x + width, y + height), deck, card, fonts)
        out.append(page)
    return out


def save(decks: list[Deck], path: Path | str) -> list[Path]:
    """Write the sheets: one PDF, or ``name-1.png``, ``name-2.png``... for a ``.png`` path."""
    path = Path(path)
    if path.suffix.lower() != ".png":
        from .vector import save_pdf

        return [save_pdf(decks, path)]
    images = pages(decks)
    paths = [path.with_name(f"{path.stem}-{i}.png") for i in range(1, len(images) + 1)]
    for image, p in zip(images, paths):
        image.save(p, dpi=(DPI, DPI))
    return paths
