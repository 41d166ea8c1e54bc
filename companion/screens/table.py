"""Screens the table shows over any game: the offer to resume, the abandon confirmation, the
announcement that a game was abandoned."""

from __future__ import annotations

from PIL import Image

from .canvas import COLUMNS, LINE_H, blank, centred, fit, title


def _screen(heading: str, lines: tuple[str, ...]) -> Image.Image:
    image, draw = blank()
    title(draw, heading)
    for i, line in enumerate(lines):
        centred(draw, (i + 1) * LINE_H + 3, fit(line, COLUMNS))
    return image


def resume_screen(game: str, since: str) -> Image.Image:
    """Every station, when the box starts with a game a crash or power cut interrupted."""
    return _screen("Unfinished game", (f"Resume {game}", f"from {since}?", "ok: resume",
                                       "left: new game"))


def confirm_screen(game: str) -> Image.Image:
    """The station that held ``left``+``right``: abandon for good, or keep playing."""
    return _screen("Abandon the game?", (game, "ok: abandon it", "other key: play on"))


def abandoned_screen(game: str) -> Image.Image:
    """Every station, once a game was abandoned."""
    return _screen("Game abandoned", (game, "was abandoned.", "ok: back to games"))
