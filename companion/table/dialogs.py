"""The dialogs a seated player opens with a chord during a game: abandon (or, where bots play,
leave the seat to a bot), take back their last action, and a watcher taking a bot's seat.

Separate from the rest of the table because each asks one station a question while the game
carries on for everyone else: the station's next press answers it, and what it changes (a seat
changing hands, a take-back) is journaled and announced on every station.
"""

from __future__ import annotations

from dataclasses import replace

from ..arbiter.inputs import InputEvent
from ..games.base import IllegalAction
from ..screens.canvas import abbreviate, fitting
from ..screens.table import confirm_screen, join_screen, leave_screen, takeback_screen
from .bots import GAMES as BOT_GAMES
from .bots import BotSeats

ABANDON_HOLD_NS = 2_000_000_000
ANNOUNCED_NS = 4_000_000_000
"""How long every station says "Ana took back a mark" or "Ana left: a bot plays": long enough
for the table to look up."""
S = 1_000_000_000


class Dialogs:
    """The table's part that asks a station to abandon, leave, take back or take a seat, and acts on the answer."""

    def _answer_dialog(self, event: InputEvent) -> bool:
        """True if ``event`` was a press answering the dialog its station is asked (abandon or
        leave, take a bot's seat, take back)."""
        if event.station == self.confirming:
            if event.pressed:
                self.confirming = None
                if event.key == "ok":
                    self._close(abandoned_by=self.names[event.station])
                elif event.key in ("left", "right") and self._may_leave_to_a_bot(event.station):
                    self._bot_takes_seat(event.station, "easy" if event.key == "left" else "hard")
                return True
        if event.station in self.joining and event.pressed:
            seat = self.joining.pop(event.station)
            if event.key == "ok":
                self._person_takes_seat(event.station, seat)
            return True
        if event.station in self.taking_back and event.pressed:
            _, refusal = self.taking_back.pop(event.station)
            if event.key == "ok" and refusal is None:
                self._take_back(event)
            return True
        return False

    def _dialog_screen(self, station: int):
        """The dialog ``station`` is asked, or None."""
        if station == self.confirming:
            if self._may_leave_to_a_bot(station):
                return leave_screen()
            return confirm_screen(self.game.match.rules.title)
        if station in self.joining:
            return join_screen(self.game.names[self.joining[station]])
        if station in self.taking_back:
            return takeback_screen(*self.taking_back[station])
        return None

    def _bots_may_sit(self) -> bool:
        """A player leaving may give their seat to a bot in the games bots play."""
        return self.game is not None and self.game.match.rules.name in BOT_GAMES

    def _may_leave_to_a_bot(self, station: int) -> bool:
        """Whether ``station`` has a seat to leave to a bot: a station that watches (a table of
        bots alone) is asked only whether to abandon."""
        return self._bots_may_sit() and self.seat_of(station) is not None

    def _bot_takes_seat(self, station: int, level: str) -> None:
        """The player at ``station`` leaves: a bot of ``level`` plays their seat from now on, with
        its score and its history; the station watches (and may take the seat back)."""
        seat = self.seat_of(station)
        self.game.now_ns = max(self.game.now_ns, self.now_ns)
        self.game.seat_changes(seat, level, None)
        self._reseat(seat, None)
        self.left_seats[station] = seat
        if self.bot_seats is None:
            self.bot_seats = BotSeats({}, self.game.match.seed)
        self.bot_seats.levels[seat] = level
        self.rules_open.pop(station, None)
        self.taking_back.pop(station, None)
        name = self.game.names[seat]
        self.announced = (lambda: fitting(lambda w: f"{abbreviate(name, w)} left: a bot plays"),
                          self.now_ns + ANNOUNCED_NS)

    def _seat_to_take(self, station: int) -> int | None:
        """The bot's seat a station without a seat may take: the one it left, else the first a
        bot plays; None when there is none (or the station plays)."""
        bots = sorted(s for s, st in enumerate(self.seats) if st is None)
        if not bots or self.game is None or self.game.match.outcome is not None:
            return None
        left = self.left_seats.get(station)
        return left if left in bots else bots[0]

    def _person_takes_seat(self, station: int, seat: int) -> None:
        """The person at ``station`` plays ``seat`` from now on, where a bot played it: they see
        what the seat may see from now on (its own screen), nothing more."""
        if seat not in self.bot_seats.levels:  # someone else took it first
            return
        self.game.now_ns = max(self.game.now_ns, self.now_ns)
        self.game.seat_changes(seat, None, station)
        self._reseat(seat, station)
        self.bot_seats.leave(seat)
        name = self.game.names[seat]
        self.announced = (lambda: fitting(lambda w: f"{abbreviate(name, w)}'s seat: a person"),
                          self.now_ns + ANNOUNCED_NS)

    def _reseat(self, seat: int, station: int | None) -> None:
        stations = list(self.seated.stations)
        stations[seat] = station
        self.seated = replace(self.seated, stations=tuple(stations))
        self.version += 1

    def _take_back(self, event: InputEvent) -> None:
        """The confirmed take-back of ``event``'s station's last action, announced to everyone;
        refused after all if someone acted while it was asked."""
        seat = self.seat_of(event.station)
        try:
            what = self.game.take_back(seat, event)
        except IllegalAction as e:
            self.taking_back[event.station] = ("", str(e))
            return
        name = self.game.names[seat]
        self.announced = (lambda: fitting(lambda w: f"{abbreviate(name, w)} took back {what}"),
                          event.t_ns + ANNOUNCED_NS)
        self._collect()
