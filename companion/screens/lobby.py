"""The lobby screens every station shows between games."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from PIL import Image

from .canvas import CHAR_W, COLUMNS, LINE_H, WIDTH, blank, centred, fit, text, title


@dataclass(frozen=True)
class GameMenuView:
    title: str
    players: str
    index: int
    count: int


@dataclass(frozen=True)
class OptionsView:
    game: str
    rows: tuple[tuple[str, str], ...]
    """(label, value) per row; the last row is the Start row with an empty value."""
    row: int


def game_menu(view: GameMenuView) -> Image.Image:
    """The game's name (on two lines if long) between arrows, its player count, the keys."""
    image, draw = blank()
    title(draw, "Choose a game")
    names = textwrap.wrap(view.title, COLUMNS - 4)[:2]
    top = LINE_H + 2 + (LINE_H // 2 if len(names) == 1 else 0)
    draw.rectangle((0, LINE_H + 2, WIDTH - 1, 3 * LINE_H + 1), fill=1)
    for i, name in enumerate(names):
        centred(draw, top + i * LINE_H, name, invert=True)
    text(draw, 1, 2 * LINE_H - 4, "<", invert=True)
    text(draw, WIDTH - CHAR_W - 1, 2 * LINE_H - 4, ">", invert=True)
    centred(draw, 3 * LINE_H + 3, f"{view.players}   {view.index + 1}/{view.count}")
    centred(draw, 4 * LINE_H + 4, "</>: game  ok: pick")
    return image


def options_menu(view: OptionsView) -> Image.Image:
    """Up to three rows around the selected one; ``<``/``>`` change it, ``ok`` moves on."""
    image, draw = blank()
    title(draw, view.game)
    first = max(0, min(view.row - 1, len(view.rows) - 3))
    for line, i in enumerate(range(first, min(first + 3, len(view.rows)))):
        label, value = view.rows[i]
        s = f"{label}: {value}" if value else label
        text(draw, 2, LINE_H + 2 + line * LINE_H, fit(s, 20), invert=i == view.row)
    hint = "ok: start  slap: back" if view.row == len(view.rows) - 1 else "</>: change  ok: next"
    centred(draw, 4 * LINE_H + 2, hint)
    return image
