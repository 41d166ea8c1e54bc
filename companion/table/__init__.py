"""The table: the referee's state machine for the whole box, lobby and games alike.

It receives debounced inputs and the passage of time, and offers a screen per station and
the buzzer cues to play. Players take seats (:mod:`.seating`): the game table sees seats, never
stations, so every input is translated from its station to its seat on the way in and every
screen from seat to station on the way out; a station without a seat watches. Holding ``left``
and ``right`` together on a seated station counts down on its screen for two seconds, then asks
to confirm (``ok`` abandons, any other key keeps playing); an abandoned game is announced on
every station until ``ok`` returns to the lobby. A game a crash interrupted is offered on every
station before it is resumed. Holding ``right`` and pressing ``ok`` during a game shows that
station the game's rules (``left``/``right`` turn the pages, ``ok`` or ``slap`` go back to the
game, which carries on meanwhile). Holding ``left`` and pressing ``ok`` asks to take back that
seat's last action (``ok`` takes it back, any other key keeps it), or says why it cannot be; a
take-back is announced on every station for a few seconds. No chord's keys reach the game
(:mod:`.chord`). In the games bots play, the ``left``+``right`` hold asks *Leave the game?*:
``left`` or ``right`` lets an easy or a hard bot play that seat on, and a station without a seat
takes a bot's seat with ``left`` held and ``ok`` (a ``seat`` line in the journal each time).

Bots (:mod:`.bots`) are seats with no station (``None`` in :attr:`Table.seats`): they press and
move on the game table directly, are never a station's seat, have no panel (a race's onset for
a bot seat is the race's opening) and no light.
"""

from __future__ import annotations

import errno
import logging
import random
from dataclasses import replace
from typing import Any, Callable, Mapping

from .. import games
from ..games.options import options_dict, parse_options
from ..arbiter.inputs import InputEvent
from ..record.journal import Header, JournalWriter
from ..arbiter.latepress import LateNote
from ..record.recovery import Interrupted, abandon, dismiss
from ..rulebook import pages
from ..settings import BoxSettings
from .bots import GAMES as BOT_GAMES
from .bots import BotSeats, bot_name, seats_with
from .box_settings import SettingsPage
from .chord import Chords
from .dialogs import ABANDON_HOLD_NS, ANNOUNCED_NS, Dialogs, S
from .faults import Faults
from .game import GameTable, has_table, table_for
from .hostphone import HostPhone, PhoneHost
from .lobby import Lobby, StartGame, turn_page
from .resuming import RESUMED_BANNER_NS, Resuming
from .seating import Seated, Seating, needs_seating
from .settingup import SettingUp
from .stationscreen import StationScreens
from .stuck import StuckButtons

log = logging.getLogger(__name__)

__all__ = ["ABANDON_HOLD_NS", "ANNOUNCED_NS", "RESUMED_BANNER_NS", "Table"]


class Table(Resuming, SettingUp, Dialogs, Faults, StationScreens, HostPhone):
    """The referee of the whole box; its parts in :mod:`.resuming`, :mod:`.settingup`,
    :mod:`.dialogs`, :mod:`.faults`, :mod:`.stationscreen` and :mod:`.hostphone`."""

    def __init__(self, names: tuple[str, ...], open_journal: Callable[[Header], JournalWriter] | None = None,
                 seed: int | None = None, defaults: Mapping[str, Mapping[str, Any]] | None = None,
                 settings: BoxSettings | None = None, bots: Mapping[int, str] | None = None) -> None:
        """``bots``: seat (0-based) -> ``easy``/``hard``, seats the box plays itself in the games
        bots can play (:mod:`.bots`). A bot seat beyond the stations makes room for a game of
        more players than stations; in a game with room for them, bot seats count as taken when
        players take their seats (:mod:`.seating`)."""
        self.names = names
        self.stations = len(names)
        self.open_journal = open_journal
        self._seeds = random.Random(seed)
        self.bots = dict(bots or {})
        seats = seats_with(self.bots, self.stations)
        self.lobby = Lobby([g for g in games.all_games() if has_table(g.name)], self.stations, defaults,
                           seats - self.stations, BOT_GAMES, bots_join=not self.bots)
        self.game: GameTable | None = None
        self.phone_host = PhoneHost()
        self.game_number: int | None = None
        """The number on this box of the game in play (its journal header's ``sequence``), if saved."""
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
        self.now_ns = 0
        self.resumed_until_ns: int | None = None
        self.stuck_buttons = StuckButtons()
        self.seating: Seating | None = None
        """Asking who plays the game just picked, while it does."""
        self.seated: Seated | None = None
        """Who plays the game being set up or played: its seats' stations and names."""
        self.bot_levels: dict[int, str] = {}
        """The level of each bot seat of :attr:`seated` (seats whose station is None)."""
        self.chords = Chords()
        self.confirming: int | None = None
        """The station asked whether to abandon the game, while it is asked."""
        self.taking_back: dict[int, tuple[str, str | None]] = {}
        """Stations asked whether to take back their last action, each with what it is (``a
        mark``) and why it cannot be taken back (None: it can), until their next press."""
        self.left_seats: dict[int, int] = {}
        """Station -> the seat its player left to a bot in the game in play."""
        self.joining: dict[int, int] = {}
        """Stations without a seat asked whether to take a bot's seat, and the seat, until their
        next press."""
        self.announced: tuple[Callable[[], str], int] | None = None
        """"Ana took back a mark" (or "Ana left: a bot plays") and until when every station says it;
        the words are made as each panel is drawn, the name as the rest of that panel has it."""
        self.abandoned: str | None = None
        self.abandoned_by = ""
        """The name of the station that abandoned it."""
        """The title of the game just abandoned, shown until a station presses ``ok``."""
        self.offer: Interrupted | None = None
        """A game a crash interrupted, offered on every station until ``ok`` or ``left``."""
        self.settings_page = SettingsPage(settings or BoxSettings())
        self.lobby.pages_after = 1
        self.on_settings_page = False
        """True while the game menu shows the Box settings page (after the last game)."""
        self.rules_open: dict[int, int] = {}
        """Stations reading the rules during a game, and the page each is on."""

        self.lobby_notice: str | None = None
        """Shown under the lobby until the next press: something the players must know (a game
        could not start)."""
        self.not_resumed: tuple[str, ...] | None = None
        """Why the interrupted game was not resumed, and what became of it: on every station
        until a press."""

    @property
    def settings(self) -> BoxSettings:
        return self.settings_page.settings

    # --- seats ---------------------------------------------------------------------------------

    @property
    def seats(self) -> tuple[int | None, ...]:
        """The station of each seat of the game in play (or being set up); None for a bot."""
        if self.seated is not None:
            return self.seated.stations
        bots = self._bots_for(self.lobby.game, self.bots)
        return tuple(None if s in bots else s for s in range(self.lobby.players))

    def seat_of(self, station: int) -> int | None:
        """The seat ``station`` plays in, or None for a station that watches."""
        seats = self.seats
        return seats.index(station) if station in seats else None

    # --- inputs ---------------------------------------------------------------------------------

    def handle(self, event: InputEvent) -> None:
        """A debounced input from a station."""
        if event.station >= self.stations:
            return
        self.version += 1
        self.now_ns = max(self.now_ns, event.t_ns)
        self.stuck_buttons.seen(event)
        if self.game is None and event.pressed:
            self.lobby_notice = None
        if self.not_resumed is not None or self.fault_notice is not None:
            if event.pressed:
                self.not_resumed = self.fault_notice = None
        elif self.offer is not None:
            self._answer_offer(event)
        elif self.abandoned is not None:
            if event.pressed and event.key == "ok":
                self.abandoned = None
        elif self.game is not None:
            with self.refereeing():
                self._play(event)
        elif self.seating is not None:
            self._seat(event)
        elif self._turns_to_settings(event):
            self._settings(event)
        elif self.lobby.row is None and self.lobby.rules_page is None and event.pressed \
                and event.key == "ok" and needs_seating(self.lobby.game, self.stations, len(self._game_bots()),
                                                        self._bots_join(self.lobby.game)):
            self._ask_who_plays()
        elif self.lobby.row is not None and self.seated is not None and event.station not in self.seated.stations:
            return  # the game's options are its players' to set: a station that watches has no say
        elif self.lobby.back_to_seats and event.pressed and event.key == "slap":
            self.lobby.handle(event)  # off the options, as back to the games...
            self.lobby.seated, self.seated = None, None
            self._ask_who_plays()  # ...but asking who plays on the way: the players may add bots
        else:
            start = self.lobby.handle(event)
            if start is not None:
                self.start(start, event.t_ns)
            elif self.lobby.row is None:  # back on the game menu: the seats go with the game
                self.lobby.seated, self.seated = None, None

    def _play(self, event: InputEvent) -> None:
        if self._answer_dialog(event):
            return
        if self.seat_of(event.station) is None:
            if self.game.match.outcome is not None:  # anyone may take the table back to the lobby
                self.game.handle(replace(event, station=len(self.seats)))
                self._collect()
            elif self._seat_to_take(event.station) is not None:
                _, chord = self.chords.feed(event)  # a watcher's keys never reach the game
                if chord == "takeback":
                    self.joining[event.station] = self._seat_to_take(event.station)
                elif chord == "abandon" and any(s is not None for s in self.seats):
                    del self.chords.since[event.station]  # a watcher has no seat to leave, nor the players' game to abandon
            return
        if self._turn_rules_page(event):
            return
        passed, chord = self.chords.feed(event)
        for each in passed:
            self._to_game(each)
        if chord == "rules" and self.game is not None:
            self.rules_open[event.station] = 0
        if chord == "takeback" and self.game is not None:
            seat = self.seat_of(event.station)
            refusal = self.game.takeback_refusal(seat)
            self.taking_back[event.station] = ("" if refusal else self.game.takeback_word(seat), refusal)

    def _to_game(self, event: InputEvent) -> None:
        seat = self.seat_of(event.station)
        if self.game is None or event.station == self.confirming or seat is None:
            return  # (a press held back on a station that has since left its seat, or watches)
        self.game.handle(event if seat == event.station else replace(event, station=seat))
        self._collect()

    def _turn_rules_page(self, event: InputEvent) -> bool:
        """True if ``event`` was a press on a station reading the rules: it turns their pages (or
        goes back to the game), never reaching the game. Releases go on as ever (the chords keep
        track of what is held)."""
        station = event.station
        if not event.pressed or station not in self.rules_open:
            return False
        page = turn_page(self.rules_open[station], len(pages(self.game.match.rules.name)), event.key)
        if page is None:
            del self.rules_open[station]
        else:
            self.rules_open[station] = page
        return True

    def start(self, start: StartGame, now_ns: int, bots: Mapping[int, str] | None = None) -> None:
        """Start the lobby's game. ``bots`` (seat -> level) overrides the box's bot seats, for
        the stations' seats the lobby would give (a station whose seat is a bot watches)."""
        rules = start.rules
        options = parse_options(rules.Options, start.options)
        if bots is not None or self.seated is None:
            bots = self._bots_for(rules, self.bots if bots is None else bots)
            seats = min(seats_with(bots, self.stations), rules.max_players)
            stations = tuple(None if s in bots else s for s in range(seats))
            names = tuple(bot_name(s, len(bots)) if s in bots else self.names[s] for s in range(seats))
            self.seated, self.bot_levels = Seated(stations, names), bots
        stations, names, bots = self.seated.stations, self.seated.names, self.bot_levels
        seed = self._seeds.randrange(2**31)
        journal = None
        if self.open_journal is not None:
            try:
                levels = tuple(bots.get(s) for s in range(len(names))) if bots else None
                journal = self.open_journal(Header(rules.name, names, options_dict(options), seed, stations,
                                                   bots=levels))
            except OSError as e:
                log.error("cannot start %s: its journal cannot be written: %s", rules.name, e)
                self.tell("DISK FULL: NOT STARTED" if e.errno == errno.ENOSPC else "CANNOT SAVE: NOT STARTED")
                self.cues.append("wrong")
                return
        self.game_number = None if journal is None else journal.sequence
        try:
            self.game = table_for(rules.name)(rules, options, names, self.stations, seed, journal, now_ns,
                                           screens_take_time=self.screens_take_time)
            self.game.phone_host = self.phone_host
        except Exception:
            self.set_aside(rules, journal, self.game_number, "as it started")
            return
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

    def _close(self, abandoned_by: str | None = None) -> None:
        abandoned = abandoned_by is not None
        journal = self.game.journal
        if journal is not None:
            journal.close()
            if abandoned:
                abandon(journal.path)
            else:
                dismiss(journal.path)
        if abandoned:
            self.abandoned, self.abandoned_by = self.game.match.rules.title, abandoned_by
            self.cues.append("wrong")
        self._leave_game()

    def _leave_game(self) -> None:
        """Back to the lobby: nothing of the game in play stays (its journal is dealt with)."""
        self.game = None
        self.bot_seats = None
        self.resumed_until_ns = None
        self.confirming = None
        self.taking_back.clear()
        self.joining.clear()
        self.left_seats.clear()
        self.announced = None
        self.chords.clear()
        self.lobby.seated, self.seated = None, None
        self.rules_open.clear()
        self.version += 1

    # --- time -----------------------------------------------------------------------------------

    def tick(self, now_ns: int, watermark_ns: int) -> None:
        """Time passing: held-back presses, abandon holds, then the game's own timers and races."""
        if self.game is not None and self.chords.since and now_ns // S != self.now_ns // S:
            self.version += 1  # a hold's countdown moves on
        self.now_ns = now_ns
        if self.game is not None:
            with self.refereeing():
                self._tick_game(now_ns, watermark_ns)

    def _tick_game(self, now_ns: int, watermark_ns: int) -> None:
        for event in self.chords.due(now_ns):
            self._to_game(event)
            self.version += 1  # a held key reaches the game now: draw what it does now
            if self.game is None:
                return
        if self.resumed_until_ns is not None and now_ns >= self.resumed_until_ns:
            self.resumed_until_ns = None
            self.version += 1
        if self.announced is not None and now_ns >= self.announced[1]:
            self.announced = None
            self.version += 1
        for station, since in list(self.chords.since.items()):
            if now_ns - since >= ABANDON_HOLD_NS and self.confirming is None:
                del self.chords.since[station]
                self.confirming = station
                self.cues.append("wrong")
                self.version += 1
        held = self.chords.oldest_held_ns()
        if held is not None:  # a press held back for a chord may still reach the game
            watermark_ns = min(watermark_ns, held)
        if self.bot_seats is not None:
            version = self.game.match.state
            self.bot_seats.step(self.game, now_ns)
            watermark_ns = min(watermark_ns, self.bot_seats.watermark(now_ns))
            if self.game.match.state is not version:
                self.version += 1
        if self.game.tick(now_ns, watermark_ns):
            self.version += 1
        self._collect()

    def late_press(self, note: LateNote) -> None:
        """A press came too late for the race the game decided last (the daemon found it while
        the game handled the press): the game journals it and notes it on the screens."""
        if self.game is not None:
            with self.refereeing():
                self.game.late_press(note, self.now_ns)
            self.version += 1

    def unread(self, source: str, for_ns: int) -> None:
        """``source``'s buttons could not be read for ``for_ns`` until now: the game in play (if
        any) puts it on its record."""
        if self.game is not None:
            self.game.unread(source, for_ns, self.now_ns)

    def race_open(self) -> bool:
        """Whether the game in play has a race open (:meth:`~.game.Game.race_open`)."""
        return self.game is not None and self.game.race_open()

    def take_reveal(self) -> int | None:
        """If the screens now due open a race, the reveal's number (once): the daemon shows them
        on every panel at once and reports the onsets to :meth:`revealed` with that number."""
        if not self._reveal_due:
            return None
        self._reveal_due = False
        return self.reveals

    def revealed(self, number: int, onsets: dict[int, int], light: dict[int, int] | None = None,
                 errors: dict[int, int] | None = None) -> None:
        """When each station showed reveal ``number`` (host monotonic ns; a station left out
        showed it at once), and when its light sensor saw it (``light``, stations with one);
        ``errors``: how far a station's onset may be from the truth (a phone's, by its clock). A
        reveal the table has moved past is ignored."""
        if number != self.reveals or self.game is None:
            return
        seats = {seat: onsets[station] for seat, station in enumerate(self.seats) if station in onsets}
        lit = None if light is None else {seat: light[station] for seat, station in enumerate(self.seats)
                                          if station in light}
        off = {seat: errors[station] for seat, station in enumerate(self.seats) if station in (errors or {})}
        with self.refereeing():
            if self.game.revealed(seats, lit, off):
                self.version += 1

    def wakeup_ns(self) -> int | None:
        shown = self.announced[1] if self.announced is not None else None
        times = [t for t in (self.chords.wakeup_ns(), self.resumed_until_ns, shown) if t is not None]
        for since in self.chords.since.values():
            done = since + ABANDON_HOLD_NS
            times.append(min(done, since + (max(self.now_ns - since, 0) // S + 1) * S))
        if self.game is not None and self.game.wakeup_ns() is not None:
            times.append(self.game.wakeup_ns())
        if self.bot_seats is not None and self.bot_seats.wakeup_ns() is not None:
            times.append(self.bot_seats.wakeup_ns())
        return min(times) if times else None

    # --- stuck buttons --------------------------------------------------------------------------

    def stuck(self, station: int, key: str) -> bool:
        """A button held far too long: shown on its station until it is released. A key held as
        half of the abandon chord is not stuck: False, and nothing is shown."""
        if self.chords.holding(station, key) or station == self.confirming:
            return False
        self.stuck_buttons.report(station, key)
        self.version += 1
        return True
