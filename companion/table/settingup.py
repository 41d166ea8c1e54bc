"""Setting up a game in the lobby: asking who plays the game selected, the bots that sit in it,
and the box settings page beside the game menu.

Separate from the rest of the table because it is done before a game starts and touches no
game: it ends in the seats (:class:`.seating.Seated`) that :meth:`Table.start` deals the game to.
"""

from __future__ import annotations

from typing import Mapping

from ..arbiter.inputs import InputEvent
from .bots import GAMES as BOT_GAMES
from .bots import bot_name, seats_with
from .seating import Seated, Seating

class SettingUp:
    """The table's part that seats the players and bots of the game selected, and turns to the box settings."""

    def _bots_for(self, rules, bots: Mapping[int, str]) -> dict[int, str]:
        """The bot seats (seat -> level) that sit in a game of ``rules``: none in a game bots
        cannot play, and only those within its seats (stations first, then bots beyond them)."""
        if rules.name not in BOT_GAMES:
            return {}
        seats = min(seats_with(bots, self.stations), rules.max_players)
        return {s: level for s, level in bots.items() if s < seats}

    def _with_bots(self, people: Seated, bots: Mapping[int, str]) -> tuple[Seated, dict[int, str]]:
        """The seats of the players who took theirs (and of the bots they added, after them), with
        each of the box's bots put in at its seat (or after the last player, when fewer joined),
        and the bots' levels by the seats they got."""
        seats: list[tuple[int | None, str]] = list(zip(people.stations, people.names))
        for seat in sorted(bots):
            seats.insert(min(seat, len(seats)), (None, bots[seat]))
        count = sum(st is None for st, _ in seats)
        levels = {s: level for s, (st, level) in enumerate(seats) if st is None}
        return Seated(tuple(st for st, _ in seats),
                      tuple(bot_name(s, count) if st is None else name for s, (st, name) in enumerate(seats))), levels

    def _ask_who_plays(self) -> None:
        """Every station shows "Who plays?" for the game selected (:mod:`.seating`)."""
        bots = sorted(self._game_bots())
        self.seating = Seating(self.lobby.game, self.names, tuple(bot_name(s, len(bots)) for s in bots),
                               self._bots_join(self.lobby.game))

    def _turns_to_settings(self, event: InputEvent) -> bool:
        """On the game menu, the Box settings page comes after the last game and before the first."""
        if self.lobby.row is not None or self.lobby.rules_page is not None or not event.pressed:
            return self.on_settings_page
        last = len(self.lobby.games) - 1
        return self.on_settings_page or (event.key, self.lobby.index) in (("right", last), ("left", 0))

    def _settings(self, event: InputEvent) -> None:
        if not self.on_settings_page:
            self.on_settings_page = True
            return
        step = self.settings_page.handle(event)
        self.cues.extend(self.settings_page.cues)
        self.settings_page.cues.clear()
        if step:
            self.on_settings_page = False
            self.lobby.index = 0 if step > 0 else len(self.lobby.games) - 1

    def _seat(self, event: InputEvent) -> None:
        result = self.seating.handle(event)
        if result is None:
            return
        self.seating = None
        if isinstance(result, Seated):
            self.seated, self.bot_levels = self._with_bots(result, self._game_bots())
            self.lobby.seated = len(self.seated.stations)
            self.lobby.handle(event)  # the ok that seated them opens the game's options

    def _bots_join(self, rules) -> bool:
        """Whether players may add bots to a game of ``rules`` on "Who plays?": in a game bots
        play, when the command line seated none (:mod:`.seating`)."""
        return rules.name in BOT_GAMES and not self.bots

    def _game_bots(self) -> dict[int, str]:
        """The box's bot seats in the game selected in the lobby."""
        return self._bots_for(self.lobby.game, self.bots)
