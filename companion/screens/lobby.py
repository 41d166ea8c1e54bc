"""The lobby screens every station shows between games, and the rules pages."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from PIL import Image, ImageDraw

from .canvas import CHAR_W, COLUMNS, LINE_H, WIDTH, blank, centred, lines_fit, measure, text, title


@dataclass(frozen=True)
class GameMenuView:
    title: str
    players: str
    index: int
    count: int
    keys: str = "ok: pick  slap: rules"
    """The bottom line: what the keys do on this page."""
    room: str = ""
    """The room code phones join with, when the box serves phones: it takes the title bar."""


@dataclass(frozen=True)
class OptionsView:
    game: str
    rows: tuple[tuple[str, str], ...]
    """(label, value) per row; the last row is the Start row with an empty value."""
    row: int
    brief: str = ""
    """What the selected option does, in one line."""
    keys: str = "</>: change  ok: next"
    """The bottom line on an option row: what the keys do there."""


@dataclass(frozen=True)
class RulesView:
    game: str
    page: int
    count: int
    lines: tuple[str, ...]
    badge: str = ""
    """What the game behind the pages wants from this player now ("RACE!", "YOUR TURN"),
    dark on the lit title bar at its left end; empty in the lobby and while nothing is asked."""


def _badged_title(draw: ImageDraw.ImageDraw, badge: str, heading: str, short: str, more: bool) -> None:
    """The title bar with ``badge`` in a dark box at its left end, then ``heading`` (``short``
    where the heading does not fit beside the badge, and only its last word, the page count,
    where that does not either) and the arrow that more follow."""
    title(draw, "", more=more)
    end = measure(badge) + 4
    draw.rectangle((1, 1, end, LINE_H - 2), fill=0)
    text(draw, 3, 0, badge, fill=1, width=end - 2)
    room = WIDTH - end - 3 - (CHAR_W if more else 0)
    said = next((t for t in (heading, short) if measure(t) <= room), short.split()[-1])
    text(draw, end + 3 + max(0, (room - measure(said)) // 2), 0, said, fill=0, width=room)


def game_menu(view: GameMenuView) -> Image.Image:
    """The game's name (on two lines if long) between arrows, its player count, the keys."""
    image, draw = blank()
    title(draw, f"Phones: room {view.room}" if view.room else "Choose a game")
    names = lines_fit(textwrap.wrap(view.title, COLUMNS - 4), 2)
    top = LINE_H + 2 + (LINE_H // 2 if len(names) == 1 else 0)
    draw.rectangle((0, LINE_H + 2, WIDTH - 1, 3 * LINE_H + 1), fill=1)
    for i, name in enumerate(names):
        centred(draw, top + i * LINE_H, name, invert=True)
    text(draw, 1, 2 * LINE_H - 4, "<", invert=True)
    text(draw, WIDTH - CHAR_W - 1, 2 * LINE_H - 4, ">", invert=True)
    centred(draw, 3 * LINE_H + 3, f"{view.players}   {view.index + 1}/{view.count}")
    centred(draw, 4 * LINE_H + 4, view.keys)
    return image


def _row(draw, y: int, label: str, value: str, selected: bool) -> None:
    """``label`` at the left, ``value`` at the right; the selected row lit, its value between
    the arrows that change it."""
    if selected:
        draw.rectangle((0, y, WIDTH - 1, y + LINE_H - 1), fill=1)
    shown = f"<{value}>" if selected and value else value
    ink = 0 if selected else 1
    right = WIDTH - 1 - measure(shown)
    text(draw, 2, y, label, fill=ink, width=right - 5)
    text(draw, right, y, shown, fill=ink)


def options_menu(view: OptionsView) -> Image.Image:
    """The selected row and the one after it; what the selected option does; the keys."""
    image, draw = blank()
    title(draw, view.game)
    for line, i in enumerate(range(view.row, min(view.row + 2, len(view.rows)))):
        label, value = view.rows[i]
        _row(draw, LINE_H + 1 + line * LINE_H, label, value, i == view.row)
    start = view.row == len(view.rows) - 1
    centred(draw, 3 * LINE_H + 2, view.brief if not start else "everything is set")
    centred(draw, 4 * LINE_H + 2, "ok: start  slap: back" if start else view.keys)
    return image


def rules(view: RulesView) -> Image.Image:
    """A page of a game's rules: the title bar says which page, an arrow that more follow, and
    the badge, if any, that the game is waiting for this player."""
    image, draw = blank()
    more = view.page + 1 < view.count
    heading = f"{view.game} {view.page + 1}/{view.count}"
    if not view.badge:
        title(draw, heading, more=more)
    else:
        _badged_title(draw, view.badge, heading, f"rules {view.page + 1}/{view.count}", more)
    for i, line in enumerate(lines_fit(view.lines, 4)):
        text(draw, 1, LINE_H + 1 + i * LINE_H, line)
    return image
