"""The lobby: every station shows the same menu; any station may drive it.

``left``/``right`` choose a game, ``ok`` picks it, ``slap`` shows its rules (pages turned with
``left``/``right``, ``ok`` or ``slap`` go back). Then each option is a row: its lobby choices are
in ascending order, ``left`` takes the one before (less) and ``right`` the one after (more),
stopping at the ends; ``ok`` moves to the next row, and ``ok`` on the Start row starts the game.
``slap`` goes back one step: from the first row, to "Who plays?" in a game the players may add
bots to (:mod:`.seating`; the table opens it, and where it was not asked, the row says ``slap:
bots``), else to the games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Mapping

from PIL import Image

from ..games.base import Rules
from ..games.options import option_label, parse_options, show_value
from ..arbiter.inputs import InputEvent
from ..rulebook import SHORT_TITLES, pages
from ..screens.lobby import GameMenuView, OptionsView, RulesView, game_menu, options_menu, rules


@dataclass(frozen=True)
class StartGame:
    """What the lobby hands the table when players press Start."""

    rules: Rules
    options: dict[str, Any]


class Lobby:
    def __init__(self, games: list[Rules], stations: int,
                 defaults: Mapping[str, Mapping[str, Any]] | None = None,
                 bot_seats: int = 0, bot_games: Collection[str] = (), bots_join: bool = False) -> None:
        """``bot_seats`` seats beyond the stations are bots, who sit in ``bot_games`` only.
        ``bots_join``: players may add bots to ``bot_games`` when they take their seats, so those
        games are offered even to fewer stations than their fewest players."""
        self.stations = stations
        self.bot_seats = bot_seats
        self.bot_games = frozenset(bot_games)
        self.bots_join = bots_join
        # Games the stations (and the command line's bots) fill come first, in their own order;
        # those only bots added on "Who plays?" can fill come after them.
        self.games = sorted((g for g in games if g.min_players <= self._seats(g)),
                            key=lambda g: g.min_players > self.stations + self.bot_seats)
        if not self.games:
            raise ValueError(f"no game can be played with {stations} stations")
        self.defaults = {name: dict(given) for name, given in (defaults or {}).items()}
        """Per game, options the box was started with (``companion run --option``): the lobby's
        rows start from them, and the rest go to every game of that kind as they are."""
        self.index = 0
        self.row: int | None = None
        """None on the game menu; the selected options row otherwise."""
        self.values: dict[str, Any] = {}
        self.played: dict[str, dict[str, Any]] = {}
        """The options each game was last started with: picked again, it starts from them."""
        self.seated: int | None = None
        """How many took their seats for the selected game (see :mod:`.seating`), if asked."""
        self.pages_after = 0
        """Pages the game menu turns to after the last game (the table's Box settings), counted
        in the menu's "2/6"."""
        self.rules_page: int | None = None
        """The rules page shown for the selected game, from the game menu; None otherwise."""
        self.room = ""
        """The room code phones join with (the daemon sets it when the box serves phones)."""

    @property
    def game(self) -> Rules:
        return self.games[self.index]

    @property
    def back_to_seats(self) -> bool:
        """Whether ``slap`` on the first option row goes back to "Who plays?": in a game the
        players may add bots to, even where every station had to play and was not asked."""
        return self.row == 0 and self.bots_join and self.game.name in self.bot_games

    def _seats(self, game: Rules) -> int:
        """How many seats the box can fill in ``game``: its stations, and bots where they sit."""
        if game.name not in self.bot_games:
            return self.stations
        seats = self.stations + self.bot_seats
        return max(seats, game.min_players) if self.bots_join else seats

    @property
    def players(self) -> int:
        """How many play the selected game: those seated (bots included), else every station
        it can take (then the bots beyond them, in a game bots play)."""
        return self.seated or min(self.game.max_players, self._seats(self.game))

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
        if self.rules_page is not None:
            self.rules_page = turn_page(self.rules_page, len(pages(self.game.name)), event.key)
            return None
        if self.row is None:
            if event.key == "slap":
                self.rules_page = 0
            elif step:
                self.index = (self.index + step) % len(self.games)
            elif event.key == "ok":
                defaults = parse_options(self.game.Options, self.defaults.get(self.game.name))
                last = self.played.get(self.game.name, {})
                self.values = {name: last[name] if name in last and last[name] in choices
                               else getattr(defaults, name) if getattr(defaults, name) in choices
                               else choices[0] for name, choices in self._rows()}
                self.row = 0
            return None
        rows = self._rows()
        if event.key == "slap":
            self.row = None if self.row == 0 else self.row - 1
        elif self.row == len(rows):
            if event.key == "ok":
                start = StartGame(self.game, self.game.lobby_start({**self.defaults.get(self.game.name, {}), **self.values}))
                self.played[self.game.name] = dict(self.values)
                self.row = None
                return start
            if event.key == "left":
                self.row -= 1 if rows else 0
        elif step:
            name, choices = rows[self.row]
            current = self.values[name]
            i = choices.index(current) if current in choices else -1
            self.values[name] = choices[max(0, min(len(choices) - 1, i + step))]
        elif event.key == "ok":
            self.row += 1
        return None

    def players_label(self) -> str:
        """``3 players``, ``3-6 players``; a game with a host counts the host apart, as its rules
        say it (``host + 2-16``: the quiz is for a host and 2 to 16 players)."""
        g, n = self.game, self.players
        if g.host_seat:
            return f"host + {n - 1}" if g.min_players == n else f"host + {g.min_players - 1}-{n - 1}"
        return f"{n} players" if g.min_players == n else f"{g.min_players}-{n} players"

    def screen(self) -> Image.Image:
        if self.rules_page is not None:
            return rules_screen(self.game.name, self.rules_page)
        if self.row is None:
            return game_menu(GameMenuView(self.game.title, self.players_label(), self.index,
                                          len(self.games) + self.pages_after, room=self.room))
        options = self.game.Options
        rows = tuple((option_label(options, name)[0], show_value(options, name, self.values[name]))
                     for name, _ in self._rows())
        if self.row < len(rows):
            name = self._rows()[self.row][0]
            brief = option_label(options, name, self.values[name])[1]
        else:
            brief = ""
        # Where nobody was asked who plays, the first row says how to get there.
        keys = "ok: next  slap: bots" if self.back_to_seats and self.seated is None else OptionsView.keys
        return options_menu(OptionsView(SHORT_TITLES.get(self.game.name, self.game.title),
                                        rows + (("Start", ""),), self.row, brief, keys))


def turn_page(page: int, count: int, key: str) -> int | None:
    """The rules page after ``key``: ``left``/``right`` turn it (stopping at the ends), ``ok``
    or ``slap`` close the rules (None)."""
    if key in ("ok", "slap"):
        return None
    step = {"left": -1, "right": 1}.get(key, 0)
    return max(0, min(count - 1, page + step))


def rules_screen(game: str, page: int, badge: str = "") -> Image.Image:
    """A page of ``game``'s rules; ``badge`` says what the game in play wants from the reader."""
    shown = pages(game)
    return rules(RulesView(SHORT_TITLES.get(game, game), page, len(shown), shown[page], badge))
