"""Quiz night on a station's 128x64 panel: a player's and the host's.

A player's panel says, top to bottom: the question number (title bar), what is happening to
*them* in large words where it matters (``BUZZ!`` armed, ``YOU ANSWER``, ``Too early!``), the
race's presses with their delays (``Ben +12ms``), and their own score and rank. The host's panel
has the same title, who answers or what is due, the race, and its key map on the bottom line,
which changes with what the host can do (arm, judge, pick among the tied, correct a score).
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from .canvas import LINE_H, WIDTH, blank, centred, text, title

BODY_Y = (LINE_H + 1, 2 * LINE_H + 1, 3 * LINE_H + 1)
FOOTER_Y = 4 * LINE_H + 3


@dataclass(frozen=True)
class QuizView:
    heading: str
    """The title bar: ``Q3/10``, ``Host  Q3/10``, ``Ana wins!``."""
    big: str = ""
    """One line drawn lit (inverted) under the title: what this station must notice now."""
    lines: tuple[str, ...] = ()
    """Up to three lines (two under ``big``): the race, who is out, the standings."""
    footer: str = ""
    """The bottom line under a rule: the player's score and rank, or the host's keys."""


def quiz_screen(view: QuizView) -> Image.Image:
    image, draw = blank()
    title(draw, view.heading)
    lines = ([None] if view.big else []) + list(view.lines)
    if view.big:
        centred(draw, BODY_Y[0], view.big, invert=True)
    for y, line in zip(BODY_Y, lines):
        if line:
            text(draw, 2, y, line)
    draw.line((0, FOOTER_Y - 2, WIDTH - 1, FOOTER_Y - 2), fill=1)
    centred(draw, FOOTER_Y, view.footer)
    return image
