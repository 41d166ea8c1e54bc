"""Three-player Pictionary on a station's 128x64 panel.

Top to bottom: who draws and the countdown (lit bar; the clock turns dark in the last ten
seconds, the visual twin of the buzzer's ticks), the word on the artist's own station or what is
happening on the others, two message lines, then the scores with the artist's highlighted and who
is eligible to win or ineligible to draw: the facts every player needs at every moment.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from .canvas import CHAR_W, LINE_H, WIDTH, abbreviate, blank, centred, text, title

MESSAGE_Y = (LINE_H + 1, 2 * LINE_H + 1)
RULE_Y = 3 * LINE_H + 1
SCORES_Y = 3 * LINE_H + 3
STATUS_Y = 4 * LINE_H + 3
CELL_W = WIDTH // 3
NAME_CHARS = 4


@dataclass(frozen=True)
class TrioView:
    names: tuple[str, str, str]
    scores: tuple[int, int, int]
    highlight: int | None
    """The player lit in the scores: the artist, or the winner at the end."""
    heading: str
    """The title bar: "You draw", "Ben draws", "Cy wins!"."""
    clock: str = ""
    """Time left, "0:42", at the right of the title bar; empty before the timer starts."""
    hurry: bool = False
    """The last ten seconds (and time up): the clock is drawn dark on the lit bar."""
    word: str = ""
    """The secret word, on the artist's station only."""
    lines: tuple[str, ...] = ()
    """Up to two message lines (one when a word is shown)."""
    eligible: int | None = None
    """Eligible to win this round."""
    leader: int | None = None
    """Strictly ahead, hence ineligible to draw."""
    footer: str = ""
    """Replaces the bottom line (who can win or skips drawing) at the end of the game."""


def _clock(draw, view: TrioView) -> None:
    if not view.clock:
        return
    x = WIDTH - len(view.clock) * CHAR_W - 2
    if view.hurry:
        draw.rectangle((x - 2, 1, WIDTH - 2, LINE_H - 2), fill=0)
    text(draw, x, 0, view.clock, fill=1 if view.hurry else 0)


def status(view: TrioView) -> str:
    """Who is eligible to win (always the leader, who only guesses) or, leading short of that,
    skips drawing, in one line. The words never say "no draw": in a drawing game a player read
    it as "no tie"."""
    if view.leader is None:
        return ""
    name = abbreviate(view.names[view.leader], NAME_CHARS)
    return f"{name} can win, guesses" if view.eligible == view.leader else f"{name} skips drawing"


def screen(view: TrioView) -> Image.Image:
    image, draw = blank()
    title(draw, "")
    room = WIDTH - 4 - (len(view.clock) + 1) * CHAR_W if view.clock else WIDTH - 2
    text(draw, 2, 0, view.heading, fill=0, width=room)
    _clock(draw, view)
    lines = list(view.lines)
    if view.word:
        centred(draw, MESSAGE_Y[0], view.word, invert=True)
        lines = [""] + lines
    for y, line in zip(MESSAGE_Y, lines):
        centred(draw, y, line)
    draw.line((0, RULE_Y, WIDTH - 1, RULE_Y), fill=1)
    for p, (name, score) in enumerate(zip(view.names, view.scores)):
        cell = f"{abbreviate(name, NAME_CHARS):<{NAME_CHARS}}{score:>2}"
        text(draw, p * CELL_W + 3, SCORES_Y, cell, invert=p == view.highlight)
        if p:
            draw.line((p * CELL_W, RULE_Y, p * CELL_W, SCORES_Y + LINE_H - 1), fill=1)
    centred(draw, STATUS_Y, view.footer or status(view))
    return image
