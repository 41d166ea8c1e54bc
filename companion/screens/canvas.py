"""Drawing helpers shared by every screen: a blank panel, Pillow's built-in bitmap font, text
placed by character cells. Characters the font lacks are drawn as a stand-in (:class:`ScreenFont`).

The font is Pillow's own 6x11 bitmap font, so a screen is pixel-identical on every machine
(no anti-aliasing to threshold, no system fonts): 21 characters by 5 lines on a 128x64 panel.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

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


def blank() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    return image, ImageDraw.Draw(image)


def text(draw: ImageDraw.ImageDraw, x: int, y: int, s: str, invert: bool = False) -> None:
    """Text with its top-left at (x, y); ``invert`` draws it dark on a lit box (a selection)."""
    if invert:
        draw.rectangle((x - 1, y, x + len(s) * CHAR_W, y + LINE_H - 1), fill=1)
    draw.text((x, y), s, font=font(), fill=0 if invert else 1)


def centred(draw: ImageDraw.ImageDraw, y: int, s: str, invert: bool = False) -> None:
    s = fit(s, COLUMNS)
    text(draw, (WIDTH - len(s) * CHAR_W) // 2, y, s, invert)


def title(draw: ImageDraw.ImageDraw, s: str) -> None:
    """A lit bar across the top with dark text: which screen this is."""
    _bar(draw, 0, s)


def with_notice(image: Image.Image, s: str) -> Image.Image:
    """``image`` with a lit bar across its bottom line saying ``s``: something a player must know
    now, whatever the screen shows (the button board is unplugged, the game RESUMED, a button
    STUCK)."""
    image = image.copy()
    _bar(ImageDraw.Draw(image), HEIGHT - LINE_H, s)
    return image


def _bar(draw: ImageDraw.ImageDraw, y: int, s: str) -> None:
    draw.rectangle((0, y, WIDTH - 1, y + LINE_H - 1), fill=1)
    s = fit(s, COLUMNS)
    draw.text(((WIDTH - len(s) * CHAR_W) // 2, y), s, font=font(), fill=0)


def fit(s: str, width: int) -> str:
    """``s`` cut to ``width`` characters, marking the cut with '.'."""
    return s if len(s) <= width else s[: width - 1] + "."
