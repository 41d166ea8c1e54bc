"""The "Who plays?" screen: who has joined, how many may, this station's name or how to join."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from .canvas import COLUMNS, LINE_H, blank, centred, fit, text, title


@dataclass(frozen=True)
class SeatingView:
    game: str
    joined: str
    """The joined players' names, in seat order."""
    count: str
    mine: str
    """This station's name while joined, else how to join."""
    hint: str


def seating_screen(view: SeatingView) -> Image.Image:
    image, draw = blank()
    title(draw, fit(f"Who plays {view.game}?", COLUMNS))
    text(draw, 1, LINE_H + 1, fit(view.joined, COLUMNS))
    text(draw, 1, 2 * LINE_H + 1, fit(view.count, COLUMNS))
    centred(draw, 3 * LINE_H + 2, view.mine, invert=True)
    centred(draw, 4 * LINE_H + 3, view.hint)
    return image


def spectator(image: Image.Image, game: str) -> Image.Image:
    """A station that does not play watches the public state, under a title saying so."""
    image = image.copy()
    title(ImageDraw.Draw(image), fit(f"Watching {game}", COLUMNS))
    return image
