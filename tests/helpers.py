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


def _glyph_rows(ch: str, scale: int, lit: bool) -> list[str]:
    """The 6x7 cell of ``ch`` as the screens draw it (scaled like the big cards), one string of
    '0'/'1' per row; ``lit`` False gives dark text on a lit bar."""
    from PIL import Image, ImageDraw

    from companion.screens.canvas import CHAR_W, font

    cell = Image.new("1", (CHAR_W, 7), 0)
    ImageDraw.Draw(cell).text((0, -2), ch, font=font(), fill=1)
    cell = cell.resize((CHAR_W * scale, 7 * scale), Image.Resampling.NEAREST)
    on, off = ("1", "0") if lit else ("0", "1")
    pixels = cell.convert("L").tobytes()
    w = cell.width
    return ["".join(on if p else off for p in pixels[y * w:(y + 1) * w]) for y in range(cell.height)]


def shows_char(image, ch: str) -> bool:
    """Whether ``ch`` appears anywhere on a panel image, in small or big text, lit or dark."""
    w = image.width
    pixels = image.convert("L").tobytes()
    rows = ["".join("1" if p else "0" for p in pixels[y * w:(y + 1) * w]) for y in range(image.height)]
    for scale in (1, 3):
        for lit in (True, False):
            glyph = _glyph_rows(ch, scale, lit)
            for y in range(len(rows) - len(glyph) + 1):
                x = rows[y].find(glyph[0])
                while x != -1:
                    if all(rows[y + i][x:x + len(g)] == g for i, g in enumerate(glyph)):
                        return True
                    x = rows[y].find(glyph[0], x + 1)
    return False
