"""The table screen's painter: one frame being drawn, its palette and its text.

Text is Pillow's own 6x11 bitmap font (the panels' font) scaled up by whole pixels, so a frame
is pixel-identical on every machine (no system fonts, no anti-aliasing) and golden images can be
compared exactly. Everything is measured in units of the frame's size (a unit is 4 pixels at
1280x720, 6 at 1920x1080), so the layout is the same on a small monitor and a big TV.

Every string drawn goes through :meth:`Painter.text`, which can collect them: the secret-leak
test reads exactly what the screen says. The renderer and the score chart both paint with it.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from ..screens.canvas import font, overflow

CHAR_W, CHAR_H, LINE = 6, 11, 13
BACKGROUND = (18, 24, 32)
PANEL = (30, 38, 50)
TEXT = (236, 240, 245)
DIM = (140, 150, 165)
ACCENT = (255, 196, 40)
ALERT = (235, 80, 70)
PLAYER_COLOURS = ((235, 95, 85), (80, 170, 245), (245, 205, 60), (110, 205, 120),
                  (200, 125, 235), (245, 150, 60))


def colour(player: int) -> tuple[int, int, int]:
    return PLAYER_COLOURS[player % len(PLAYER_COLOURS)]


@lru_cache(maxsize=512)
def _mask(s: str, scale: int) -> Image.Image:
    """``s`` in the bitmap font as a mask, every font pixel a ``scale`` x ``scale`` block."""
    width = max(1, round(ImageDraw.Draw(Image.new("L", (1, 1))).textlength(s, font=font())))
    mask = Image.new("L", (width, CHAR_H), 0)
    ImageDraw.Draw(mask).text((0, 0), s, font=font(), fill=255)
    return mask.resize((width * scale, CHAR_H * scale), Image.Resampling.NEAREST)


class Painter:
    """A frame being drawn; ``drawn`` (if given) receives every string put on it."""

    def __init__(self, size: tuple[int, int], drawn: list[str] | None = None) -> None:
        self.image = Image.new("RGB", size, BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)
        self.drawn = drawn
        w, h = size
        self.u = max(1, min(w // 320, h // 180))
        """One unit in pixels: the font's pixel at body size."""

    def text(self, x: int, y: int, s: str, scale: int | None = None, fill=TEXT,
             align: str = "left", width: int | None = None) -> int:
        """Draw ``s`` with its top at ``y``: starting at ``x``, ending at it (``right``) or centred
        on it; cut with '.' to ``width`` pixels. Returns the pixel width drawn."""
        scale = scale or self.u
        if width is not None:
            columns = max(1, width // (CHAR_W * scale))
            if len(s) > columns:
                overflow(s, x, y, width)
                s = s[: columns - 1] + "."
        if not s:
            return 0
        if self.drawn is not None:
            self.drawn.append(s)
        mask = _mask(s, scale)
        left = {"left": x, "right": x - mask.width, "centre": x - mask.width // 2}[align]
        self.image.paste(fill, (left, y), mask)
        return mask.width

    def line_h(self, scale: int | None = None) -> int:
        return LINE * (scale or self.u)
