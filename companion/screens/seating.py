"""The "Who plays?" screen: who has joined, how many may, this station's name or how to join."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from PIL import Image, ImageDraw

from .canvas import COLUMNS, LINE_H, blank, centred, text, title


@dataclass(frozen=True)
class SeatingView:
    count: str
    """How many joined, of how many may play: ``2 of 3-6``."""
    joined: tuple[str, ...]
    """The joined players' names, in seat order; none yet: the game's title."""
    mine: str
    """This station's name while joined, else how to join."""
    hint: str


def seating_screen(view: SeatingView) -> Image.Image:
    image, draw = blank()
    title(draw, f"Who plays? {view.count}")
    for i, line in enumerate(textwrap.wrap(" ".join(view.joined), COLUMNS)[:2]):
        text(draw, 1, (i + 1) * LINE_H + 1, line)
    centred(draw, 3 * LINE_H + 2, view.mine, invert=True)
    centred(draw, 4 * LINE_H + 3, view.hint)
    return image


def spectator(image: Image.Image, game: str) -> Image.Image:
    """A station that does not play watches the public state, under a title saying so."""
    image = image.copy()
    heading = f"Watching {game}"
    title(ImageDraw.Draw(image), heading if len(heading) <= COLUMNS else "Watching")
    return image
