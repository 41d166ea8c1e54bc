"""What each station shows and lights: the one place that chooses, per station, between the resume
offer, the lobby, a dialog, the rules, the game's own screen or a watcher's view, and the notice
over it (the abandon countdown, an announcement, "RESUMED").

Separate from the rest of the table because it only reads the table's state, never changes it:
the seats are turned back into stations here, on the way out.
"""

from __future__ import annotations

from PIL import Image

from ..screens.canvas import one_form_per_name, with_notice
from ..screens.seating import spectator
from ..screens.table import abandoned_screen, fault_screen, not_resumed_screen, resume_screen
from .dialogs import ABANDON_HOLD_NS, S
from .lobby import rules_screen

class StationScreens:
    """The table's part that draws each station's screen and sets its light."""

    def screen(self, station: int) -> Image.Image:
        """The station's panel, each player's name in one form all over it (the shortest its
        lines need: :func:`~companion.screens.canvas.one_form_per_name`). A game whose screen
        fails to draw is set aside (:mod:`.faults`): the station shows the sentence that says so."""
        with self.refereeing():
            return self.stuck_buttons.mark(station, one_form_per_name(lambda: self._screen(station)))
        return self.screen(station)

    def _screen(self, station: int) -> Image.Image:
        if self.fault_notice is not None:
            return fault_screen(self.fault_notice)
        if self.not_resumed is not None:
            return not_resumed_screen(self.not_resumed)
        if self.offer is not None:
            return resume_screen(self.offer.match.rules.title, self.offer_from)
        if self.abandoned is not None:
            return abandoned_screen(self.abandoned, self.abandoned_by)
        if self.game is None:
            if self.seating is not None:
                return self.seating.screen(station)
            if self.on_settings_page:
                count = len(self.lobby.games)
                return self.settings_page.screen(count, count + 1)
            if self.lobby_notice is not None:
                return with_notice(self.lobby.screen(), self.lobby_notice)
            return self.lobby.screen()
        dialog = self._dialog_screen(station)
        if dialog is not None:
            return dialog
        seat = self.seat_of(station)
        if seat is None:
            image = spectator(self.game.screen(len(self.seats)), self.game.match.rules.title)
            return with_notice(image, self.announced[0]()) if self.announced is not None else image
        if station in self.rules_open:
            image = rules_screen(self.game.match.rules.name, self.rules_open[station],
                                 self.game.waiting_on(seat))
        else:
            image = self.game.screen(seat)
        since = self.chords.since.get(station)
        if since is not None:
            left_s = -(-(since + ABANDON_HOLD_NS - self.now_ns) // S)
            image = with_notice(image, f"ABANDON? HOLD ON {max(left_s, 1)}s")  # as the dialog says
        elif self.announced is not None:
            image = with_notice(image, self.announced[0]())
        elif self.resumed_until_ns is not None:
            image = with_notice(image, "RESUMED")
        return image

    def lights(self) -> tuple[str, ...]:
        """Each station's light (``off``, ``on``, ``blink``): the game's, from seats to stations."""
        lit = {}
        if self.game is not None and self.confirming is None:
            with self.refereeing():  # a game whose lights fail is set aside: all lights off
                lit = self.game.lights()
        seats = self.seats
        return tuple(lit.get(seats.index(s), "off") if s in seats else "off" for s in range(self.stations))
