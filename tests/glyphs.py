"""Finding text on a rendered panel image, as a player would read it: the screens' own bitmap
font, small or as big as the card values, lit on dark or dark on a lit bar."""

from PIL import Image, ImageDraw

from companion.screens.canvas import CHAR_W, font


def _text_rows(s: str, scale: int, lit: bool) -> list[str]:
    """The cells of ``s`` as the screens draw it (scaled like the big cards), one string of
    '0'/'1' per pixel row of the glyphs; ``lit`` False gives dark text on a lit bar."""
    cells = Image.new("L", (CHAR_W * len(s), 7), 0)
    ImageDraw.Draw(cells).text((0, -2), s, font=font(), fill=255)
    cells = cells.resize((cells.width * scale, 7 * scale), Image.Resampling.NEAREST)
    on, off = ("1", "0") if lit else ("0", "1")
    return _rows(cells, on, off)


def _rows(image, on: str = "1", off: str = "0") -> list[str]:
    w = image.width
    pixels = image.convert("L").tobytes()
    return ["".join(on if p else off for p in pixels[y * w:(y + 1) * w]) for y in range(image.height)]


def shows(image, s: str) -> bool:
    """Whether text ``s`` appears anywhere on a panel image, in small or big type, lit or dark."""
    rows = _rows(image)
    for scale in (1, 3):
        for lit in (True, False):
            glyphs = _text_rows(s, scale, lit)
            for y in range(len(rows) - len(glyphs) + 1):
                x = rows[y].find(glyphs[0])
                while x != -1:
                    if all(rows[y + i][x:x + len(g)] == g for i, g in enumerate(glyphs)):
                        return True
                    x = rows[y].find(glyphs[0], x + 1)
    return False
