"""Pay-to-Play Tic-Tac-Toe on a station's 128x64 panel: the board on the left, the accounts,
whose turn it is and the selected move on the right."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from PIL import Image

from .canvas import CHAR_W, LINE_H, abbreviate, blank, fitting, lines_fit, text

CELL = 20
BOARD_X, BOARD_Y = 2, 2
SIDE_X = BOARD_X + 3 * CELL + 4
SIDE_COLS = (128 - SIDE_X) // CHAR_W


@dataclass(frozen=True)
class PayToPlayView:
    board: str
    """Nine characters, row-major: 'X', 'O' or '.'."""
    names: tuple[str, str]
    balances: tuple[int, int]
    x: int
    """Index of the player who is X this game."""
    me: int | None
    """The player this station belongs to; None for a station that only watches."""
    to_move: int | None
    cursor: int | str | None
    """Selected cell, 'pass' or 'draw' on the mover's own station; None elsewhere."""
    prompt: str = ""
    """The bottom lines: a cost, an automatic pass, a draw offer, the result; wrapped to the
    side's width, a new line at each ``\n``."""
    line: tuple[int, ...] = ()
    header: str = ""
    """Tournament progress, e.g. 'Game 2/4', or 'Watching' on a station without a seat, shown
    above the accounts when the prompt leaves room (the board fills the panel's height, so
    there is no title bar to say it)."""
    result: str = ""
    """Once the game is over: who won, shown where whose turn it is would be."""
    status: str = ""
    """Instead of whose turn it is: what the game waits for (a draw offer's answer)."""
    after_income: int | None = None
    """On the mover's own station: their balance once this turn's income is paid, the number
    that decides whether they may place (``balances`` hold no income for the turn being played,
    as the seed counts)."""


def _mark(view: PayToPlayView, player: int) -> str:
    return "X" if player == view.x else "O"


def _draw_mark(draw, mark: str, x0: int, y0: int, fill: int) -> None:
    m = 5
    if mark == "X":
        draw.line((x0 + m, y0 + m, x0 + CELL - m, y0 + CELL - m), fill=fill)
        draw.line((x0 + m, y0 + CELL - m, x0 + CELL - m, y0 + m), fill=fill)
    elif mark == "O":
        draw.ellipse((x0 + m, y0 + m, x0 + CELL - m, y0 + CELL - m), outline=fill)


def screen(view: PayToPlayView) -> Image.Image:
    image, draw = blank()
    for i in (1, 2):
        draw.line((BOARD_X + i * CELL, BOARD_Y, BOARD_X + i * CELL, BOARD_Y + 3 * CELL), fill=1)
        draw.line((BOARD_X, BOARD_Y + i * CELL, BOARD_X + 3 * CELL, BOARD_Y + i * CELL), fill=1)
    for cell, mark in enumerate(view.board):
        x0, y0 = BOARD_X + (cell % 3) * CELL, BOARD_Y + (cell // 3) * CELL
        lit = cell == view.cursor or cell in view.line
        if lit:
            draw.rectangle((x0 + 2, y0 + 2, x0 + CELL - 2, y0 + CELL - 2), fill=1)
        _draw_mark(draw, mark, x0, y0, fill=0 if lit else 1)
    y = 0
    line, lit = _turn_line(view)
    prompt = [row for part in view.prompt.split("\n") for row in textwrap.wrap(part, SIDE_COLS)]
    # the prompt comes first when room is short; a watching station has no income to show
    if view.header and len(prompt) + bool(line) <= (2 if view.me is None else 1):
        text(draw, SIDE_X, y, view.header)
        y += LINE_H
    for p in (0, 1):
        name = "You" if p == view.me else view.names[p]
        balance = str(view.balances[p])
        row = f"{_mark(view, p)} {abbreviate(name, SIDE_COLS - 3 - len(balance))}"
        row = row + balance.rjust(SIDE_COLS - len(row))
        text(draw, SIDE_X, y, row, invert=p == view.to_move)
        y += LINE_H
    if line:
        text(draw, SIDE_X, y, line, invert=lit)
        y += LINE_H
    if view.after_income is not None:
        income = textwrap.wrap(f"after your income: {view.after_income}", SIDE_COLS)
        if len(prompt) + len(income) <= (64 - y) // LINE_H:
            prompt += income  # only whole: a message (a refusal, a draw offer) comes first
    y = max(y, 64 - max(2, len(prompt)) * LINE_H)
    for row in lines_fit(prompt, (64 - y) // LINE_H, SIDE_X, y):
        text(draw, SIDE_X, y, row)
        y += LINE_H
    return image


def _turn_line(view: PayToPlayView) -> tuple[str, bool]:
    """The line under the accounts, and whether it is lit: the result, what the game waits
    for, the mover's Pass or Draw?, or whose turn it is (left out when the prompt says more)."""
    if view.result or view.status:
        return view.result or view.status, True
    if view.cursor in ("pass", "draw"):
        return ("Pass" if view.cursor == "pass" else "Draw?"), True
    if view.to_move is not None and view.cursor is None and not view.prompt:
        if view.to_move == view.me:
            return "your turn", False
        return fitting(lambda w: f"{abbreviate(view.names[view.to_move], w)}'s turn", SIDE_COLS), False
    return "", False
