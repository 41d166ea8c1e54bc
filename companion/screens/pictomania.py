"""Pictomania on a station's 128x64 panel: a title bar and four lines, one of them the choice
that ``left``/``right`` change and ``ok`` takes (drawn lit).

The screens are the player's private view while drawing (their letter, number and word on top,
what they have guessed below), the 21 words a card at a time, the guess and black-token choices,
then the scoring walk-through: each drawing's stack in guess order, the round's scores and the
running totals, and the final result.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from .canvas import COLUMNS, LINE_H, abbreviate, blank, fit, lines_fit, text, title

LINES = 4


def panel(heading: str, lines: tuple[str, ...], selected: int | None = None) -> Image.Image:
    """A title bar and up to four lines; ``selected`` is drawn lit, between arrows."""
    image, draw = blank()
    title(draw, heading)
    for i, line in enumerate(lines_fit(lines, LINES, 1, LINE_H + 1)):
        if i == selected:
            line = f"< {fit(line, COLUMNS - 4)} >"
        text(draw, 1, LINE_H + 1 + i * LINE_H, line, invert=i == selected)
    return image


def footed(lines: list[str] | tuple[str, ...], footer: str) -> tuple[str, ...]:
    """Three lines (cut or padded) and a footer on the bottom line."""
    body = lines_fit(list(lines), LINES - 1, 1, LINE_H + 1)
    return (*body, *[""] * (LINES - 1 - len(body)), footer)


@dataclass(frozen=True)
class GuessMark:
    """What a station shows for one opponent: their name and the number guessed, if any."""

    name: str
    number: int | None
    sent: bool = True
    """False while the guess waits for the box to order it by time ("?" after the number)."""

    def label(self) -> str:
        mark = "-" if self.number is None else f"{self.number}{'' if self.sent else '?'}"
        return f"{abbreviate(self.name, 4)}:{mark}"


def secret_line(letter: str, number: int, word: str | None) -> str:
    """``B5 lighthouse``; just ``B5`` with physical cards."""
    return f"{letter}{number} {word}" if word else f"{letter}{number} (card {letter}, word {number})"


@dataclass(frozen=True)
class PlayView:
    secret: str
    marks: tuple[GuessMark, ...]
    choice: str
    """The menu item under the cursor: ``Guess Ben``, ``Words``, ``Done``, ``Wrong word``, or one
    that can no longer be picked (``Ben: guessed 3``)."""
    message: str = ""
    taken: bool = False
    """The item under the cursor can no longer be picked: drawn between its arrows, unlit."""


def play(view: PlayView) -> Image.Image:
    """The station while drawing: secret on top, guesses (three to a line), the menu."""
    labels = [m.label() for m in view.marks]
    rows = [" ".join(labels[i:i + 3]) for i in range(0, len(labels), 3)]
    rows = (rows + [""])[:2]
    if view.taken:
        return panel(view.secret, (*rows, f"< {fit(view.choice, COLUMNS - 4)} >", view.message))
    return panel(view.secret, (*rows, view.choice, view.message), selected=2)


@dataclass(frozen=True)
class ChoiceView:
    """A choice being made: a heading, the value under the cursor, up to three lines of help."""

    heading: str
    value: str
    notes: tuple[str, ...] = ()


def choice(view: ChoiceView) -> Image.Image:
    return panel(view.heading, (view.value, *view.notes), selected=0)


@dataclass(frozen=True)
class WordsView:
    heading: str
    words: tuple[str, ...]
    """Up to four ``A1 apple`` lines: half a card."""


def words(view: WordsView) -> Image.Image:
    return panel(view.heading, view.words)


@dataclass(frozen=True)
class StackView:
    """One drawing's stack turned over: who drew what, then each guess in order."""

    heading: str
    word: str
    """``C7 flamingo``: the drawing's letter, number and word."""
    guesses: tuple[str, ...]
    """``Ben 5 +2`` or ``Cy 3 x``, in time order."""
    footer: str


def stack(view: StackView) -> Image.Image:
    """The word, the guesses two to a line, and the drawer's result on the last line; with five
    guesses (six players) the guesses take the last line too (the scores page has the result)."""
    pairs = [" ".join(f"{g:<10}" for g in view.guesses[i:i + 2]).rstrip()
             for i in range(0, len(view.guesses), 2)] or ["nobody guessed"]
    if len(pairs) > LINES - 2:
        return panel(view.heading, (view.word, *pairs))
    return panel(view.heading, footed([view.word, *pairs], view.footer))


@dataclass(frozen=True)
class ScoresView:
    heading: str
    rows: tuple[tuple[str, int | None, int], ...]
    """(name, this round's score or None on the final screen, total)."""
    footer: str


SCORE_CELL = "{name:<3}{middle:>3}{total:>4}"
"""One player on the scores page: name (three letters), the round's score (signed), the total."""
COLUMN_HEADS = SCORE_CELL.format(name="", middle="rnd", total="tot")
"""Over each player's cell on a round's page: which number is the round's, which the total."""


def scores(view: ScoresView) -> Image.Image:
    """Two players to a line; on a round's page (scores given) a line of column heads over them.
    With five or six players the rows and heads fill the panel and the footer takes the title
    bar's place (the heading's ``ok: next`` is on every page before)."""
    cells = [SCORE_CELL.format(name=abbreviate(name, 3), middle="" if score is None else f"{score:+d}",
                               total=total) for name, score, total in view.rows]
    lines = [" ".join(cells[i:i + 2]) for i in range(0, len(cells), 2)]
    if any(score is not None for _, score, _ in view.rows):
        lines.insert(0, " ".join([COLUMN_HEADS] * min(2, len(cells))))
    if len(lines) >= LINES:
        return panel(view.footer, tuple(lines))
    return panel(view.heading, footed(lines, view.footer))
