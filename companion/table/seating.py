"""Who plays: when the box has more stations than a game needs, players take their seats.

After a game is picked, every station shows "Who plays?": a station presses ``slap`` to join
(``slap`` again to leave), and while joined chooses the name it plays under with
``left``/``right`` (``left`` alone in a game bots can play) from a short list: the names of the box's stations, its own first, none taken
twice. Once at least the game's fewest players have joined, ``ok`` on a joined station seats
them; at most the game's most players can join. ``left`` on a station that has not joined goes
back to the game menu. Seats follow the stations around the table (the lowest station is the
first seat), so a three-player game on a six-station box can be played at stations 2, 4 and 6;
the stations left over watch. A game with a host (the quiz) also offers the name ``Host``:
the station that chooses it hosts, in the first seat; if none does, the lowest station hosts.

A game that every station must play (as many stations as its fewest players, the command
line's bots counted) skips this step: its options come at once. Bots the box seats in the game
(:mod:`.bots`, from the command line) count as joined from the start: fewer stations need to
join, and fewer can.

**Adding bots.** In a game bots can play, when the command line seated none, ``right`` on any
station adds a bot and chooses its level, one press at a time: an easy bot, that bot hard,
another easy bot beside it... and back to none once no more fit (a game keeps one seat for a
person). A joined station picks its name with ``left`` alone there, so that it can add bots
too: two stations that both joined Triangle add its third player themselves. Bots count against
the game's most players, and seated people and bots together must reach its fewest, so a
two-station box is asked who plays Triangle and can add a bot, and on three stations one person
can play Pay-to-Play against a bot while the others watch. Where every station must play
(Pay-to-Play on two stations, Triangle on three), ``slap`` on the game's first option comes
back to this screen (that row says ``slap: bots``; see :class:`.lobby.Lobby`), so one person
plays Pay-to-Play against a bot at a two-station box, and a plain game starts with no press
more. The added bots sit after the people. ``ok`` with nobody joined seats every station, when
they and the bots fill the game.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from ..games.base import Rules
from ..arbiter.inputs import InputEvent
from ..screens.seating import SeatingView, seating_screen


@dataclass(frozen=True)
class Seated:
    """The stations that play, in seat order, and the name each plays under."""

    stations: tuple[int | None, ...]
    """None for a bot's seat."""
    names: tuple[str, ...]
    """From :class:`Seating`, a bot's seat has its level here, until the table names it."""


HOST = "Host"
"""The name a station chooses on "Who plays?" to be the host of a game that has one (the quiz)."""
BACK = "back"
"""What :meth:`Seating.handle` returns when a station goes back to the game menu."""


def needs_seating(rules: Rules, stations: int, bots: int = 0, add_bots: bool = False) -> bool:
    """True when the players have a choice: more stations than the game's fewest players
    leave to seat beside its ``bots``, or, where they may add bots (``add_bots``), fewer."""
    wanted = rules.min_players - bots
    return stations != wanted if add_bots else stations > wanted


class Seating:
    def __init__(self, rules: Rules, names: tuple[str, ...], bots: tuple[str, ...] = (),
                 add_bots: bool = False) -> None:
        """``bots``: the names of the game's bot seats, taken already; ``add_bots``: whether
        the players may add bots here (see the module's docstring)."""
        self.rules = rules
        self.names = names
        """The profile's name of each station: the default names and the list to pick from."""
        self.bots = bots
        self.add_bots = add_bots
        self.added: list[str] = []
        """The level of each bot added here, in seat order (after the people)."""
        self.choices = tuple(dict.fromkeys(names + ((HOST,) if rules.host_seat else ())))
        self.joined: dict[int, str] = {}
        """Joined station -> the name it plays under."""

    @property
    def room(self) -> int:
        """How many stations can join."""
        return self.rules.max_players - len(self.bots) - len(self.added)

    @property
    def fewest(self) -> int:
        """How many stations must join to start."""
        return max(1, self.rules.min_players - len(self.bots) - len(self.added))

    def _next_bots(self) -> list[str]:
        """The added bots after one more ``right``: the last easy bot turns hard, else one more
        easy bot if it fits beside the people (one seat at least), else none."""
        if self.added and self.added[-1] == "easy":
            return [*self.added[:-1], "hard"]
        if self.room > max(1, len(self.joined)):
            return [*self.added, "easy"]
        return []

    def _everyone(self) -> Seated | None:
        """Every station seated, if nobody has joined and they and the bots fill the game."""
        players = len(self.names) + len(self.bots) + len(self.added)
        if self.joined or not self.rules.min_players <= players <= self.rules.max_players:
            return None
        return self._seated(range(len(self.names)), self.names)

    def _seated(self, stations, names) -> Seated:
        return Seated(tuple(stations) + (None,) * len(self.added), tuple(names) + tuple(self.added))

    def _free(self, station: int) -> list[str]:
        taken = {name for s, name in self.joined.items() if s != station}
        return [name for name in self.choices if name not in taken]

    def handle(self, event: InputEvent) -> Seated | str | None:
        if not event.pressed:
            return None
        station, key = event.station, event.key
        if station not in self.joined:
            if key == "slap" and len(self.joined) < self.room:
                free = self._free(station)
                self.joined[station] = self.names[station] if self.names[station] in free else free[0]
            elif key == "left":
                return BACK
            elif key == "right" and self.add_bots:
                self.added = self._next_bots()
            elif key == "ok":
                return self._everyone()
            return None
        if key == "slap":
            del self.joined[station]
        elif key == "right" and self.add_bots:
            self.added = self._next_bots()
        elif key in ("left", "right"):
            free = self._free(station)
            i = free.index(self.joined[station])
            self.joined[station] = free[(i + (1 if key == "right" else -1)) % len(free)]
        elif key == "ok" and len(self.joined) >= self.fewest:
            stations = sorted(self.joined, key=lambda s: (self.joined[s] != HOST, s))
            return self._seated(stations, (self.joined[s] for s in stations))
        return None

    def screen(self, station: int) -> Image.Image:
        rules, count = self.rules, len(self.joined) + len(self.bots) + len(self.added)
        wanted = rules.players_allowed().replace(" to ", "-")
        nobody = (rules.title,)
        if rules.host_seat:  # one who joins hosts: the count is of the players beside the host
            fewest, most = rules.min_players - 1, min(rules.max_players, len(self.names)) - 1  # as the lobby says
            count, wanted = max(count - 1, 0), f"{fewest}" if fewest == most else f"{fewest}-{most}"
            nobody = (f"{rules.title}: a host and {wanted} players",)
        added = tuple(f"Bot:{level}" for level in self.added)
        joined = tuple(self.joined[s] for s in sorted(self.joined)) + self.bots + added or nobody
        if station in self.joined:
            name = self.joined[station]
            mine = f"You: {name}" if self.add_bots else f"You: <{name}>"
            short = self.fewest - len(self.joined)
            more = f"{short} more  right:bots" if self.add_bots else f"{short} more to join"
            hint = "ok: start  slap: out" if short <= 0 else more
        else:
            full = len(self.joined) >= self.room
            mine = "Full: you watch" if full else "slap: join"
            if self._everyone() is not None:
                mine += "  ok: all"
            hint = "left:back right:bots" if self.add_bots else "left: back to games"
        return seating_screen(SeatingView(f"{count} of {wanted}", joined, mine, hint))
