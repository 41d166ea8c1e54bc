"""Shared test helpers: station inputs on a fake clock (times in ms)."""

from companion.inputs import InputEvent

MS = 1_000_000


def tap(table, station: int, key: str, t_ms: float) -> None:
    """Press and release a key on ``table`` at ``t_ms`` (release 50 ms later)."""
    table.handle(InputEvent(station, key, True, round(t_ms * MS)))
    table.handle(InputEvent(station, key, False, round((t_ms + 50) * MS)))


class Clock:
    """A fake clock handing out increasing times, 100 ms apart."""

    def __init__(self) -> None:
        self.ms = 0.0

    def next(self) -> float:
        self.ms += 100
        return self.ms



def _text_rows(s: str, scale: int, lit: bool) -> list[str]:
    """The cells of ``s`` as the screens draw it (scaled like the big cards), one string of
    '0'/'1' per pixel row of the glyphs; ``lit`` False gives dark text on a lit bar."""
    from PIL import Image, ImageDraw

    from companion.screens.canvas import CHAR_W, font

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
