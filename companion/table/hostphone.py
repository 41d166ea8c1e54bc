"""The quiz host's phone as the table sees it: its PIN on the host's panel, its keys and its page.

The web companion (:mod:`companion.web.host`) lets a phone host with the PIN and hands its keys
over; the table hands them to the game in play, which acts on them as on the host station's own
keys (:mod:`.quiz_host`), and makes the page the phone shows. A game with no host phone keys
(every game but the quiz) has a page that says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class PhoneHost:
    """Shared by the table and its game: the host's PIN (None: the box has no web companion) and
    whether a phone hosts now (the host's panel shows the PIN only while none does)."""

    pin: str | None = None
    joined: bool = False

    @property
    def shown_pin(self) -> str | None:
        return None if self.joined else self.pin


NO_QUIZ = {"quiz": False, "status": "No quiz is being played: the host's keys come with the quiz."}


class HostPhone:
    """The :class:`~companion.table.Table`'s part that takes the host phone's keys."""

    def hosting(self, joined: bool) -> None:
        """A phone hosts now (or no longer): the host's panel shows the PIN only without one."""
        self.phone_host.joined = joined
        self.version += 1

    def host_act(self, act: str, turn: int, seat: int | None, now_ns: int) -> None:
        """A key on the host's phone, for the game in play (ignored by a game without them)."""
        game = self.game
        if game is None or not hasattr(game, "host_act"):
            return
        with self.refereeing():
            game.host_act(act, turn, seat, max(now_ns, self.now_ns))
            self.version += 1
            self._collect()

    def host_page(self) -> dict[str, Any]:
        """What the host's phone shows: the game's host page, or that there is none."""
        game = self.game
        if game is None or not hasattr(game, "host_page"):
            return NO_QUIZ
        with self.refereeing():
            return game.host_page()
        return NO_QUIZ
