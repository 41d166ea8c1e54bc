"""Drawing helpers shared by every screen: a blank panel, Pillow's built-in bitmap font, text
placed in a box it must fit. Characters the font lacks are drawn as a stand-in (:class:`ScreenFont`),
in measuring as in drawing, so the layout check sees what the panel shows.

The font is Pillow's own 6x11 bitmap font, so a screen is pixel-identical on every machine
(no anti-aliasing to threshold, no system fonts): 21 characters by 5 lines on a 128x64 panel.

Every piece of text goes through :func:`text` (or a helper built on it), which knows the box the
text must stay in and measures the text with the font. Text that does not fit is cut with a '.'
on the panel; under :func:`checking` every such cut is also recorded, so a test can render every
screen and fail on any text that was cut off instead of trusting eyes on a few images. Names are
the one thing a screen may shorten on purpose (:func:`abbreviate`); that is not an overflow, and
a station's panel is drawn by :func:`one_form_per_name`, so one name reads the same all over it.
"""

from __future__ import annotations

import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterator, Sequence, TypeVar

from PIL import Image, ImageDraw, ImageFont

T = TypeVar("T")

WIDTH, HEIGHT = 128, 64
CHAR_W, LINE_H = 6, 12
COLUMNS = WIDTH // CHAR_W


FALLBACK = "?"
"""Drawn for a character the font has no glyph for (a kanji, an emoji)."""


@lru_cache(maxsize=4096)
def _glyph(c: str) -> str:
    """The character the font draws for ``c``: itself if Latin-1, else its base letter if it is an
    accented Latin letter (``Ł`` is ``L``, ``ő`` is ``o``), else :data:`FALLBACK`."""
    if ord(c) < 0x100:
        return c if c.isprintable() else FALLBACK
    words = unicodedata.name(c, "").split()
    if len(words) >= 4 and words[:2] == ["LATIN", "CAPITAL" if c.isupper() else "SMALL"] \
            and words[2] == "LETTER" and len(words[3]) == 1:
        return words[3] if c.isupper() else words[3].lower()
    return FALLBACK


def shown(s: str) -> str:
    """``s`` as the screens draw it, one character cell per character (see :func:`_glyph`)."""
    return s if s.isascii() and s.isprintable() else "".join(map(_glyph, s))


def unshowable(s: str) -> str:
    """The characters of ``s`` the screens cannot draw as themselves, once each."""
    return "".join(dict.fromkeys(c for c in s if _glyph(c) != c))


class ScreenFont(ImageFont.ImageFont):
    """Pillow's bitmap font, which has glyphs for Latin-1 only and raises UnicodeEncodeError on
    anything else: here every text goes through :func:`shown` first, so any name or word a
    player can type is drawn, never an exception."""

    def getmask(self, text, *args, **kwargs):
        return super().getmask(shown(text), *args, **kwargs)

    def getbbox(self, text, *args, **kwargs):
        return super().getbbox(shown(text), *args, **kwargs)

    def getlength(self, text, *args, **kwargs):
        return super().getlength(shown(text), *args, **kwargs)


@lru_cache(maxsize=1)
def font() -> ImageFont.ImageFont:
    loaded = ImageFont.load_default_imagefont()
    loaded.__class__ = ScreenFont
    return loaded


@dataclass(frozen=True)
class Overflow:
    """Text that did not fit its box: what the screen wanted to say and where."""

    text: str
    x: int
    y: int
    width: int
    """The box's width in pixels (for lines, how many lines fit)."""

    def __str__(self) -> str:
        return f"{self.text!r} does not fit {self.width} px at ({self.x}, {self.y})"


_overflows: list[Overflow] | None = None


@contextmanager
def checking() -> Iterator[list[Overflow]]:
    """Check mode: every text cut or line dropped while inside is appended to the list."""
    global _overflows
    outer, _overflows = _overflows, []
    try:
        yield _overflows
    finally:
        _overflows = outer


def overflow(s: str, x: int, y: int, width: int) -> None:
    """Note, in check mode, that ``s`` was cut or dropped to fit ``width`` pixels at (x, y)."""
    if _overflows is not None:
        _overflows.append(Overflow(s, x, y, width))


@lru_cache(maxsize=8192)
def measure(s: str) -> int:
    """Width of ``s`` in pixels, in the panel's font. Remembered: a panel measures the same few
    names and their shortened forms over and over (a quiz's standings cut every name letter by
    letter at every drawing), and the font never changes."""
    return int(font().getlength(s))


def _cut(s: str, pixels: int) -> str:
    """The longest start of ``s`` that fits ``pixels`` with a '.' marking the cut."""
    while s and measure(s + ".") > pixels:
        s = s[:-1]
    return s + "."


def fit(s: str, width: int) -> str:
    """``s`` if it fits ``width`` character cells; else cut, marked with '.', and recorded as an
    overflow in check mode. Use it for text that must be read whole."""
    if measure(s) <= width * CHAR_W:
        return s
    overflow(s, -1, -1, width * CHAR_W)
    return _cut(s, width * CHAR_W)


_short: dict[str, str] | None = None
"""While a panel is drawn by :func:`one_form_per_name`: each name's shortest form on it so far."""
_shortened = False
"""Whether this drawing of the panel shortened a name already drawn longer on it."""


def abbreviate(name: str, width: int) -> str:
    """A player's name shortened to ``width`` character cells on purpose ('Alexandra' ->
    'Ale.'): the other names and the seat tell players apart. Not an overflow. While a panel is
    drawn by :func:`one_form_per_name`, a name is never longer than its shortest form there."""
    global _shortened
    short = name if measure(name) <= width * CHAR_W else _cut(name, width * CHAR_W)
    if _short is None:
        return short
    known = _short.get(name)
    if known is not None and len(known) <= len(short):
        return known
    _shortened = _shortened or known is not None
    _short[name] = short
    return short


def one_form_per_name(draw: Callable[[], T]) -> T:
    """``draw()``, a whole panel, with each name in one form wherever the panel shows it: the
    shortest any of its lines needed ('Alice' in the scores, 'Al.' beside a card: 'Al.' in both).
    A name shortened after it was drawn longer is drawn again, shorter everywhere; a shorter name
    only makes a line narrower, so nothing that fitted stops fitting."""
    global _short, _shortened
    outer, _short = _short, {}
    outer_shortened, _shortened = _shortened, False
    cut = len(_overflows) if _overflows is not None else 0
    try:
        while True:
            image = draw()
            if not _shortened:
                return image
            _shortened = False
            if _overflows is not None:  # only the drawing the panel keeps counts
                del _overflows[cut:]
    finally:
        _short, _shortened = outer, outer_shortened


def blank() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    return image, ImageDraw.Draw(image)


def text(draw: ImageDraw.ImageDraw, x: int, y: int, s: str, invert: bool = False,
         width: int | None = None, fill: int | None = None) -> None:
    """Text with its top-left at (x, y) in a box ``width`` pixels wide (to the panel's right
    edge if not given); ``invert`` draws it dark on a lit box (a selection), ``fill`` sets the
    ink alone (dark text on a bar drawn already). Text that does not fit is cut and, in check
    mode, recorded."""
    room = (WIDTH - x) if width is None else width
    if x < 0 or y < 0 or y + LINE_H - 1 > HEIGHT or measure(s) > room:
        overflow(s, x, y, room)
        s = _cut(s, max(0, room))
        x, y = max(0, x), max(0, y)
    if invert:
        draw.rectangle((x - 1, y, x + measure(s), y + LINE_H - 1), fill=1)
    draw.text((x, y), s, font=font(), fill=(0 if invert else 1) if fill is None else fill)


def lines_fit(lines: Sequence[str], room: int, x: int = 0, y: int = 0) -> list[str]:
    """The first ``room`` lines; lines beyond it are recorded as overflow in check mode."""
    for line in lines[room:]:
        if line:
            overflow(line, x, y, room)
    return list(lines[:room])


def centred(draw: ImageDraw.ImageDraw, y: int, s: str, invert: bool = False) -> None:
    text(draw, max(0, (WIDTH - measure(s)) // 2), y, s, invert)


def title(draw: ImageDraw.ImageDraw, s: str, more: bool = False) -> None:
    """A lit bar across the top with dark text: which screen this is. ``more`` adds a small
    arrow at its right end that says "press ok to go on"."""
    if not more:
        _bar(draw, 0, s)
        return
    draw.rectangle((0, 0, WIDTH - 1, LINE_H - 1), fill=1)
    text(draw, max(0, (WIDTH - CHAR_W - measure(s)) // 2), 0, s, fill=0, width=WIDTH - CHAR_W)
    x = WIDTH - 3
    draw.polygon([(x - 3, 2), (x - 3, LINE_H - 4), (x, LINE_H // 2 - 1)], fill=0)


def with_notice(image: Image.Image, s: str) -> Image.Image:
    """``image`` with a lit bar across its bottom line saying ``s``: something a player must know
    now, whatever the screen shows (the button board is unplugged, the game RESUMED, a button
    STUCK)."""
    image = image.copy()
    _bar(ImageDraw.Draw(image), HEIGHT - LINE_H, s)
    return image


def _bar(draw: ImageDraw.ImageDraw, y: int, s: str) -> None:
    draw.rectangle((0, y, WIDTH - 1, y + LINE_H - 1), fill=1)
    text(draw, max(0, (WIDTH - measure(s)) // 2), y, s, fill=0)


def fitting(build: Callable[[int], str], columns: int = COLUMNS, longest: int = 10) -> str:
    """The line ``build(width)`` makes with its names abbreviated to ``width`` cells, for the
    widest names that let it fit ``columns`` cells: 'Ana guessed it!' whole, a long name cut
    only as much as the line needs. Names keep at least three cells ('Wi.')."""
    global _shortened
    for width in range(longest, 2, -1):
        before = None if _short is None else (dict(_short), _shortened)
        line = build(width)
        if measure(line) <= columns * CHAR_W:
            return line
        if before is not None:  # a try that did not fit: its names are not on the panel
            _short.clear()
            _short.update(before[0])
            _shortened = before[1]
    return build(3)
