"""The table: the referee's state machine for the whole box, lobby and games alike.

It receives debounced inputs and the passage of time, and offers a screen per station and
the buzzer cues to play. Holding ``left`` and ``right`` together on any station for two
seconds abandons the game in progress and returns to the lobby.
"""

from __future__ import annotations

import errno
import logging
import random
from typing import Any, Callable, Mapping

from PIL import Image

from .. import games
from ..games.options import options_dict, parse_options
from ..inputs import InputEvent
from ..journal import Header, JournalWriter
from ..recovery import Interrupted, abandon, dismiss
from ..screens.canvas import with_notice
from .game import TABLES, GameTable, load_tables
from .lobby import Lobby, StartGame
from .stuck import StuckButtons

log = logging.getLogger(__name__)

ABANDON_HOLD_NS = 2_000_000_000
RESUMED_BANNER_NS = 4_000_000_000


class Table:
    def __init__(self, names: tuple[str, ...], open_journal: Callable[[Header], JournalWriter] | None = None,
                 seed: int | None = None, defaults: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.names = names
        self.stations = len(names)
        self.open_journal = open_journal
        self._seeds = random.Random(seed)
        load_tables()
        self.lobby = Lobby([g for g in games.all_games() if g.name in TABLES], self.stations, defaults)
        self.game: GameTable | None = None
        self.cues: list[str] = []
        self.version = 0
        """Bumped whenever a screen may have changed, so the daemon renders only then."""
        self._held: dict[tuple[int, str], int] = {}
        self.now_ns = 0
        self.resumed_until_ns: int | None = None
        self.stuck_buttons = StuckButtons()
        self.lobby_notice: str | None = None
        """Shown under the lobby until the next press: something the players must know (the
        interrupted game could not be resumed, a game could not start)."""

    def tell(self, text: str) -> None:
        """Show ``text`` on every station's lobby until someone presses a button."""
        self.lobby_notice = text
        self.version += 1

    def resume(self, interrupted: Interrupted, now_ns: int) -> None:
        """Carry on with a game a crash interrupted: same state, same journal, players told."""
        match = interrupted.match
        table = TABLES[match.rules.name]
        start_ns = now_ns - round(interrupted.last_t * 1e9)
        self.game = table(match.rules, match.options, match.players, self.stations, match.seed,
                          interrupted.writer, start_ns, match=match)
        self.now_ns = now_ns
        self.resumed_until_ns = now_ns + RESUMED_BANNER_NS
        self.version += 1
        self.cues.append("go")

    def handle(self, event: InputEvent) -> None:
        """A debounced input from a station."""
        if event.station >= self.stations:
            return
        self.version += 1
        self.stuck_buttons.seen(event)
        if event.key in ("left", "right"):
            if event.pressed:
                self._held[(event.station, event.key)] = event.t_ns
            else:
                self._held.pop((event.station, event.key), None)
        if self.game is None:
            if event.pressed:
                self.lobby_notice = None
            start = self.lobby.handle(event)
            if start is not None:
                self.start(start, event.t_ns)
            return
        self.game.handle(event)
        self._collect()

    def start(self, start: StartGame, now_ns: int) -> None:
        rules = start.rules
        options = parse_options(rules.Options, start.options)
        names = self.names[: min(self.stations, rules.max_players)]
        seed = self._seeds.randrange(2**31)
        journal = None
        if self.open_journal is not None:
            try:
                journal = self.open_journal(Header(rules.name, names, options_dict(options), seed))
            except OSError as e:
                log.error("cannot start %s: its journal cannot be written: %s", rules.name, e)
                self.tell("DISK FULL: NOT STARTED" if e.errno == errno.ENOSPC else "CANNOT SAVE: NOT STARTED")
                self.cues.append("wrong")
                return
        self.game = TABLES[rules.name](rules, options, names, self.stations, seed, journal, now_ns)
        self.cues.append("go")
        self._collect()

    def _collect(self) -> None:
        game = self.game
        self.cues.extend(game.cues)
        game.cues.clear()
        if game.finished:
            self._close()

    def _close(self, abandoned: bool = False) -> None:
        journal = self.game.journal
        if journal is not None:
            journal.close()
            if abandoned:
                abandon(journal.path)
            else:
                dismiss(journal.path)
        self.game = None
        self.resumed_until_ns = None
        self._held.clear()

    def tick(self, now_ns: int, watermark_ns: int) -> None:
        """Time passing: abandon holds, then the game's own timers and races."""
        self.now_ns = now_ns
        if self.game is None:
            return
        if self.resumed_until_ns is not None and now_ns >= self.resumed_until_ns:
            self.resumed_until_ns = None
            self.version += 1
        for station in range(self.stations):
            left = self._held.get((station, "left"))
            right = self._held.get((station, "right"))
            if left is not None and right is not None and now_ns - max(left, right) >= ABANDON_HOLD_NS:
                self._close(abandoned=True)
                self.cues.append("wrong")
                self.version += 1
                return
        if self.game.tick(now_ns, watermark_ns):
            self.version += 1
        self._collect()

    def wakeup_ns(self) -> int | None:
        times = [max(self._held.get((s, "left"), -1), self._held.get((s, "right"), -1)) + ABANDON_HOLD_NS
                 for s in range(self.stations)
                 if (s, "left") in self._held and (s, "right") in self._held]
        if self.game is not None and self.game.wakeup_ns() is not None:
            times.append(self.game.wakeup_ns())
        if self.resumed_until_ns is not None:
            times.append(self.resumed_until_ns)
        return min(times) if times else None

    def screen(self, station: int) -> Image.Image:
        if self.game is None:
            image = self.lobby.screen()
            if self.lobby_notice is not None:
                image = with_notice(image, self.lobby_notice)
            return self.stuck_buttons.mark(station, image)
        image = self.game.screen(station)
        if self.resumed_until_ns is not None:
            image = with_notice(image, "RESUMED")
        return self.stuck_buttons.mark(station, image)

    def stuck(self, station: int, key: str) -> None:
        """A button held far too long: shown on its station until it is released."""
        self.stuck_buttons.report(station, key)
        self.version += 1
