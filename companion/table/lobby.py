"""The lobby: every station shows the same menu; any station may drive it.

``left``/``right`` choose a game, ``ok`` picks it; then each option is a row whose value
``left``/``right`` cycle through the option's lobby choices, ``ok`` moves to the next row, and
``ok`` on the Start row starts the game. ``slap`` goes back one step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from PIL import Image

from ..games.base import Rules
from ..games.options import parse_options
from ..inputs import InputEvent
from ..screens.lobby import GameMenuView, OptionsView, game_menu, options_menu


@dataclass(frozen=True)
class StartGame:
    """What the lobby hands the table when players press Start."""

    rules: Rules
    options: dict[str, Any]


def _show(value: Any) -> str:
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


class Lobby:
    def __init__(self, games: list[Rules], stations: int,
                 defaults: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.games = [g for g in games if g.min_players <= stations]
        if not self.games:
            raise ValueError(f"no game can be played with {stations} stations")
        self.stations = stations
        self.defaults = {name: dict(given) for name, given in (defaults or {}).items()}
        """Per game, options the box was started with (``companion run --option``): the lobby's
        rows start from them, and the rest go to every game of that kind as they are."""
        self.index = 0
        self.row: int | None = None
        """None on the game menu; the selected options row otherwise."""
        self.values: dict[str, Any] = {}

    @property
    def game(self) -> Rules:
        return self.games[self.index]

    @property
    def players(self) -> int:
        """How many play the selected game: the first stations, as many as it takes."""
        return min(self.game.max_players, self.stations)

    def _rows(self) -> list[tuple[str, tuple[Any, ...]]]:
        """Each option's row and the values it cycles through: a value the box was started with
        that is not one of the lobby's choices (``--option triangle.target=30``) comes first."""
        given = self.defaults.get(self.game.name, {})
        return [(name, choices if name not in given or given[name] in choices else (given[name], *choices))
                for name, choices, _ in self.game.lobby_options(self.players)]

    def handle(self, event: InputEvent) -> StartGame | None:
        if not event.pressed:
            return None
        step = {"left": -1, "right": 1}.get(event.key, 0)
        if self.row is None:
            if step:
                self.index = (self.index + step) % len(self.games)
            elif event.key == "ok":
                defaults = parse_options(self.game.Options, self.defaults.get(self.game.name))
                self.values = {name: getattr(defaults, name) if getattr(defaults, name) in choices
                               else choices[0] for name, choices in self._rows()}
                self.row = 0
            return None
        rows = self._rows()
        if event.key == "slap":
            self.row = None if self.row == 0 else self.row - 1
        elif self.row == len(rows):
            if event.key == "ok":
                start = StartGame(self.game, {**self.defaults.get(self.game.name, {}), **self.values})
                self.row = None
                return start
            if event.key == "left":
                self.row -= 1 if rows else 0
        elif step:
            name, choices = rows[self.row]
            current = self.values[name]
            i = choices.index(current) if current in choices else -1
            self.values[name] = choices[(i + step) % len(choices)]
        elif event.key == "ok":
            self.row += 1
        return None

    def players_label(self) -> str:
        g, n = self.game, self.players
        return f"{n} players" if g.min_players == n else f"{g.min_players}-{n} players"

    def screen(self) -> Image.Image:
        if self.row is None:
            return game_menu(GameMenuView(self.game.title, self.players_label(), self.index, len(self.games)))
        rows = tuple((name.replace("_", " "), _show(self.values[name])) for name, _ in self._rows())
        return options_menu(OptionsView(self.game.title, rows + (("Start", ""),), self.row))
