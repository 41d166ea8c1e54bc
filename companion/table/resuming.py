"""Resuming a game a crash or a power cut interrupted: the offer on every station, the players'
answer, and the game carried on with the same state, journal and seats.

Separate from the rest of the table because it runs once, at start, before any game or lobby:
it is what :func:`companion.record.recovery.pick_up` found, handed to the players to accept
(``ok``) or set aside (``left``).
"""

from __future__ import annotations

import logging
import time

from ..arbiter.inputs import InputEvent
from ..record.recovery import Interrupted, abandon
from .bots import BotSeats, is_bot_name
from .game import table_for
from .seating import Seated

log = logging.getLogger(__name__)

RESUMED_BANNER_NS = 4_000_000_000


class Resuming:
    """The table's part that offers and resumes an interrupted game, and tells why one was not."""

    def tell(self, text: str) -> None:
        """Show ``text`` on every station's lobby until someone presses a button."""
        self.lobby_notice = text
        self.version += 1

    def cannot_resume(self, *why: str) -> None:
        """Tell every station the interrupted game was not resumed, ``why`` (up to three short
        lines: what it is, why, what became of it), until someone presses a button."""
        self.not_resumed = why
        self.version += 1

    def offer_resume(self, interrupted: Interrupted) -> None:
        """Ask every station whether to carry on with a game a crash interrupted."""
        self.offer = interrupted
        self.offer_from = time.strftime("%H:%M", time.localtime(interrupted.path.stat().st_mtime))
        """When the offered game was last played (its journal's last write), as players saw it."""
        self.version += 1

    def resume(self, interrupted: Interrupted, now_ns: int) -> None:
        """Carry on with a game a crash interrupted: same state, same journal, same seats."""
        self.offer = None
        match = interrupted.match
        table = table_for(match.rules.name)
        players = len(match.players)
        seats = interrupted.header.stations
        people = [s for s in seats or () if s is not None]
        if seats is None or len(seats) != players or max(people, default=-1) >= self.stations:
            seats = tuple(None if is_bot_name(name, s) else s for s, name in enumerate(match.players))
        self.seated = Seated(seats, match.players)
        self.game_number = interrupted.header.sequence
        start_ns = now_ns - round(interrupted.last_t * 1e9)
        self.game = table(match.rules, match.options, match.players, self.stations, match.seed,
                          interrupted.writer, start_ns, match=match, screens_take_time=self.screens_take_time,
                          resumed_ns=now_ns)
        self.game.phone_host = self.phone_host
        # Bot seats play on at the level journaled for them; a journal from before levels were
        # journaled: the box's level for the seat, easy if it has none.
        levels = interrupted.header.bots or (None,) * players
        bots = {s: levels[s] or self.bots.get(s, "easy") for s, station in enumerate(seats) if station is None}
        for line in interrupted.seats:  # the seats players left to bots, and took back
            self.game.seat_changed(line["player"], line.get("bot"), line.get("when", ""))
        self.game.bots = bots
        if interrupted.race_line is not None:
            self.game.resume_race(interrupted.race_line)
        self.game.resumed_from(interrupted.lines)
        self.bot_seats = BotSeats(bots, match.seed) if bots else None
        self.now_ns = now_ns
        self.resumed_until_ns = now_ns + RESUMED_BANNER_NS
        self.version += 1
        self.cues.append("go")
        self._collect()

    def _answer_offer(self, event: InputEvent) -> None:
        if not event.pressed or event.key not in ("ok", "left"):
            return
        interrupted, self.offer = self.offer, None
        if event.key == "ok":
            log.info("%s: resumed by the players", interrupted.path.name)
            self.resume_or_set_aside(interrupted, event.t_ns)
        else:
            interrupted.writer.close()
            log.info("%s: the players started afresh; marked abandoned", interrupted.path.name)
            abandon(interrupted.path)
