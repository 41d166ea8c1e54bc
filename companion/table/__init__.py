"""The table: the referee's state machine for the whole box, lobby and games alike.

It receives debounced inputs and the passage of time, and offers a screen per station and
the buzzer cues to play. Holding ``left`` and ``right`` together on any station for two
seconds abandons the game in progress and returns to the lobby.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Mapping

from PIL import Image

from .. import games
from ..games.options import options_dict, parse_options
from ..inputs import InputEvent
from ..journal import Header, JournalWriter
from ..recovery import Interrupted, abandon
from ..screens.canvas import with_notice
from .bots import GAMES as BOT_GAMES
from .bots import BotSeats, bot_name, is_bot_name, seats_with
from .game import TABLES, GameTable, load_tables
from .lobby import Lobby, StartGame
from .stuck import StuckButtons

ABANDON_HOLD_NS = 2_000_000_000
RESUMED_BANNER_NS = 4_000_000_000


class Table:
    def __init__(self, names: tuple[str, ...], open_journal: Callable[[Header], JournalWriter] | None = None,
                 seed: int | None = None, defaults: Mapping[str, Mapping[str, Any]] | None = None,
                 bots: Mapping[int, str] | None = None) -> None:
        """``bots``: seat (0-based) -> ``easy``/``hard``, seats the box plays itself in the games
        bots can play (:mod:`.bots`). A bot seat beyond the stations makes room for a game of
        more players than stations; a station whose seat is a bot watches."""
        self.names = names
        self.stations = len(names)
        self.open_journal = open_journal
        self._seeds = random.Random(seed)
        self.bots = dict(bots or {})
        seats = seats_with(self.bots, self.stations)
        load_tables()
        self.lobby = Lobby([g for g in games.all_games() if g.name in TABLES], self.stations, defaults,
                           seats - self.stations, BOT_GAMES)
        self.game: GameTable | None = None
        self.bot_seats: BotSeats | None = None
        self.cues: list[str] = []
        self.version = 0
        """Bumped whenever a screen may have changed, so the daemon renders only then."""
        self.reveals = 0
        """How many screen changes have opened a race (see :meth:`take_reveal`)."""
        self.screens_take_time = False
        """False: a screen is seen as soon as it is asked for (mock panels, the simulator, a
        table on its own), so a race opens on every station as the table opens it. The daemon
        sets it for real panels; it then shows each reveal and reports its onsets."""
        self._reveal_due = False
        self._held: dict[tuple[int, str], int] = {}
        self.now_ns = 0
        self.resumed_until_ns: int | None = None
        self.stuck_buttons = StuckButtons()

    def resume(self, interrupted: Interrupted, now_ns: int) -> None:
        """Carry on with a game a crash interrupted: same state, same journal, players told."""
        match = interrupted.match
        table = TABLES[match.rules.name]
        start_ns = now_ns - round(interrupted.last_t * 1e9)
        self.game = table(match.rules, match.options, match.players, self.stations, match.seed,
                          interrupted.writer, start_ns, match=match, screens_take_time=self.screens_take_time)
        # Seats named as bots play on, at the box's level for the seat (easy if it has none).
        bots = {s: self.bots.get(s, "easy") for s, name in enumerate(match.players) if is_bot_name(name, s)}
        self.game.bots = bots
        self.bot_seats = BotSeats(bots, match.seed) if bots else None
        self.now_ns = now_ns
        self.resumed_until_ns = now_ns + RESUMED_BANNER_NS
        self.version += 1
        self.cues.append("go")
        self._collect()

    def handle(self, event: InputEvent) -> None:
        """A debounced input from a station."""
        if event.station >= self.stations or (self.bot_seats and event.station in self.bot_seats.levels):
            return
        self.version += 1
        self.stuck_buttons.seen(event)
        if event.key in ("left", "right"):
            if event.pressed:
                self._held[(event.station, event.key)] = event.t_ns
            else:
                self._held.pop((event.station, event.key), None)
        if self.game is None:
            start = self.lobby.handle(event)
            if start is not None:
                self.start(start, event.t_ns)
            return
        self.game.handle(event)
        self._collect()

    def start(self, start: StartGame, now_ns: int, bots: Mapping[int, str] | None = None) -> None:
        """Start the lobby's game; ``bots`` (seat -> level) overrides the box's bot seats, the
        hook a seating lobby calls with the seats it gave to bots."""
        rules = start.rules
        options = parse_options(rules.Options, start.options)
        bots = (self.bots if bots is None else dict(bots)) if rules.name in BOT_GAMES else {}
        seats = min(seats_with(bots, self.stations), rules.max_players)
        bots = {s: level for s, level in bots.items() if s < seats}
        names = tuple(bot_name(s, len(bots)) if s in bots else self.names[s] for s in range(seats))
        seed = self._seeds.randrange(2**31)
        journal = None
        if self.open_journal is not None:
            journal = self.open_journal(Header(rules.name, names, options_dict(options), seed))
        self.game = TABLES[rules.name](rules, options, names, self.stations, seed, journal, now_ns,
                                       screens_take_time=self.screens_take_time)
        self.bot_seats = BotSeats(bots, seed) if bots else None
        self.game.bots = dict(bots)
        self.cues.append("go")
        self._collect()

    def _collect(self) -> None:
        game = self.game
        self.cues.extend(game.cues)
        game.cues.clear()
        if game.reveal_asked:
            game.reveal_asked = False
            self.reveals += 1
            self._reveal_due = True
        if game.finished:
            self._close()

    def _close(self, abandoned: bool = False) -> None:
        journal = self.game.journal
        if journal is not None:
            journal.close()
            if abandoned:
                abandon(journal.path)
        self.game = None
        self.bot_seats = None
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
        if self.bot_seats is not None:
            version = self.game.match.state
            self.bot_seats.step(self.game, now_ns)
            watermark_ns = min(watermark_ns, self.bot_seats.watermark(now_ns))
            if self.game.match.state is not version:
                self.version += 1
        if self.game.tick(now_ns, watermark_ns):
            self.version += 1
        self._collect()

    def take_reveal(self) -> int | None:
        """If the screens now due open a race, the reveal's number (once): the daemon shows them
        on every panel at once and reports the onsets to :meth:`revealed` with that number."""
        if not self._reveal_due:
            return None
        self._reveal_due = False
        return self.reveals

    def revealed(self, number: int, onsets: dict[int, int]) -> None:
        """When each station showed reveal ``number`` (host monotonic ns; a station left out
        showed it at once). A reveal the table has moved past is ignored."""
        if number == self.reveals and self.game is not None and self.game.revealed(onsets):
            self.version += 1

    def wakeup_ns(self) -> int | None:
        times = [max(self._held.get((s, "left"), -1), self._held.get((s, "right"), -1)) + ABANDON_HOLD_NS
                 for s in range(self.stations)
                 if (s, "left") in self._held and (s, "right") in self._held]
        if self.game is not None and self.game.wakeup_ns() is not None:
            times.append(self.game.wakeup_ns())
        if self.bot_seats is not None and self.bot_seats.wakeup_ns() is not None:
            times.append(self.bot_seats.wakeup_ns())
        if self.resumed_until_ns is not None:
            times.append(self.resumed_until_ns)
        return min(times) if times else None

    def screen(self, station: int) -> Image.Image:
        if self.game is None:
            return self.stuck_buttons.mark(station, self.lobby.screen())
        watcher = self.bot_seats is not None and station in self.bot_seats.levels
        image = self.game.screen(max(self.stations, len(self.game.names)) if watcher else station)
        if self.resumed_until_ns is not None:
            image = with_notice(image, "RESUMED")
        return self.stuck_buttons.mark(station, image)

    def stuck(self, station: int, key: str) -> None:
        """A button held far too long: shown on its station until it is released."""
        self.stuck_buttons.report(station, key)
        self.version += 1
