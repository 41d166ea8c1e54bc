"""Drawing helpers shared by every screen: a blank panel, Pillow's built-in bitmap font, text
placed by character cells.

The font is Pillow's own 6x11 bitmap font, so a screen is pixel-identical on every machine
(no anti-aliasing to threshold, no system fonts): 21 characters by 5 lines on a 128x64 panel.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 128, 64
CHAR_W, LINE_H = 6, 12
COLUMNS = WIDTH // CHAR_W


@lru_cache(maxsize=1)
def font() -> ImageFont.ImageFont:
    return ImageFont.load_default_imagefont()


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
