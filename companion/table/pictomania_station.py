"""One Pictomania station's place in the menus, apart from the table so that the guessing and
review screens (:mod:`.pictomania_guessing`, :mod:`.pictomania_review`) can name it without
importing the table that is made of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass
class Station:
    """One station's place in the menus; the game state itself lives in the match."""

    mode: str = "menu"
    """menu, number (a guess), sure (confirm the guess), token (done), wrong (confirm wrong word), words."""
    cursor: int = 0
    target: int = 0
    number: int = 1
    page: int = 0
    ready: bool = False
    unready: bool = False
    """Was ready, until a swapped card asked for another look."""
    message: str | Callable[[], str] = ""
    """A line for this station's screen; a function for words naming a player, made when the
    panel is drawn so the name reads as everywhere else on it (as :class:`~.game.Message`)."""

    def told(self) -> str:
        return self.message() if callable(self.message) else self.message
