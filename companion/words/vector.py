"""Word cards as a vector PDF: the same sheets as :mod:`.sheet` (eight cards to an A4 page, two
columns by four rows, each framed with its deck's title and id and its seven numbered words),
drawn as PDF text and lines, so they print sharp at any size.

It needs fpdf2, an optional dependency for this command alone (``pip install ".[cards]"``). The
PDF's own Helvetica is used, so no font file is needed; it covers Latin-1 (Western European
letters), and a word outside it is named in the error, with PNG sheets as the way out.
"""

from __future__ import annotations

from pathlib import Path

from . import WORDS_PER_CARD, Deck

PAGE_MM = (210.0, 297.0)
MARGIN_MM = 10.0
GAP_MM = 4.0
COLUMNS, ROWS = 2, 4


class CardsError(Exception):
    """Vector cards cannot be made: fpdf2 is missing, or a word has letters Helvetica lacks."""


def _latin1(deck: Deck) -> None:
    for card in deck.cards:
        for text in (deck.title, card.id, *card.words):
            try:
                text.encode("latin-1")
            except UnicodeEncodeError:
                raise CardsError(f"deck {deck.name!r}, card {card.id}: {text!r} has letters the PDF's "
                                 "built-in font lacks; print PNG sheets instead (--out cards.png)") from None


def save_pdf(decks: list[Deck], path: Path) -> Path:
    try:
        from fpdf import FPDF
    except ImportError:
        raise CardsError('vector PDF cards need fpdf2: pip install ".[cards]" '
                         "(or print PNG sheets with --out cards.png)") from None
    for deck in decks:
        _latin1(deck)
    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_line_width(0.5)
    width = (PAGE_MM[0] - 2 * MARGIN_MM - (COLUMNS - 1) * GAP_MM) / COLUMNS
    height = (PAGE_MM[1] - 2 * MARGIN_MM - (ROWS - 1) * GAP_MM) / ROWS
    line = (height - 12) / WORDS_PER_CARD
    cards = [(deck, card) for deck in decks for card in deck.cards]
    for i, (deck, card) in enumerate(cards):
        slot = i % (COLUMNS * ROWS)
        if slot == 0:
            pdf.add_page()
        x = MARGIN_MM + (slot % COLUMNS) * (width + GAP_MM)
        y = MARGIN_MM + (slot // COLUMNS) * (height + GAP_MM)
        pdf.rect(x, y, width, height, round_corners=True, corner_radius=3)
        pdf.set_font("Helvetica", size=11)
        pdf.text(x + 4, y + 7, deck.title)
        pdf.text(x + width - 4 - pdf.get_string_width(card.id), y + 7, card.id)
        pdf.set_font("Helvetica", size=15)
        for n, word in enumerate(card.words, start=1):
            baseline = y + 12 + n * line - line / 3
            pdf.text(x + 5, baseline, str(n))
            pdf.text(x + 14, baseline, word)
    pdf.output(str(path))
    return path
