"""Who plays: when the box has more stations than a game needs, players take their seats.

After a game is picked, every station shows "Who plays?": a station presses ``slap`` to join
(``slap`` again to leave), and while joined chooses the name it plays under with
``left``/``right`` from a short list: the names of the box's stations, its own first, none taken
twice. Once at least the game's fewest players have joined, ``ok`` on a joined station seats
them; at most the game's most players can join. ``left`` on a station that has not joined goes
back to the game menu. Seats follow the stations around the table (the lowest station is the
first seat), so a three-player game on a six-station box can be played at stations 2, 4 and 6;
the stations left over watch.

A game that every station must play (as many stations as its fewest players) skips this step.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from ..games.base import Rules
from ..inputs import InputEvent
from ..screens.seating import SeatingView, seating_screen


@dataclass(frozen=True)
class Seated:
    """The stations that play, in seat order, and the name each plays under."""

    stations: tuple[int, ...]
    names: tuple[str, ...]


BACK = "back"
"""What :meth:`Seating.handle` returns when a station goes back to the game menu."""


def needs_seating(rules: Rules, stations: int) -> bool:
    """True when the players have a choice: more stations than the game's fewest players."""
    return stations > rules.min_players


class Seating:
    def __init__(self, rules: Rules, names: tuple[str, ...]) -> None:
        self.rules = rules
        self.names = names
        """The profile's name of each station: the default names and the list to pick from."""
        self.choices = tuple(dict.fromkeys(names))
        self.joined: dict[int, str] = {}
        """Joined station -> the name it plays under."""

    def _free(self, station: int) -> list[str]:
        taken = {name for s, name in self.joined.items() if s != station}
        return [name for name in self.choices if name not in taken]

    def handle(self, event: InputEvent) -> Seated | str | None:
        if not event.pressed:
            return None
        station, key = event.station, event.key
        if station not in self.joined:
            if key == "slap" and len(self.joined) < self.rules.max_players:
                free = self._free(station)
                self.joined[station] = self.names[station] if self.names[station] in free else free[0]
            elif key == "left":
                return BACK
            return None
        if key == "slap":
            del self.joined[station]
        elif key in ("left", "right"):
            free = self._free(station)
            i = free.index(self.joined[station])
            self.joined[station] = free[(i + (1 if key == "right" else -1)) % len(free)]
        elif key == "ok" and len(self.joined) >= self.rules.min_players:
            stations = tuple(sorted(self.joined))
            return Seated(stations, tuple(self.joined[s] for s in stations))
        return None

    def screen(self, station: int) -> Image.Image:
        rules, count = self.rules, len(self.joined)
        wanted = rules.players_allowed().replace(" to ", "-")
        joined = tuple(self.joined[s] for s in sorted(self.joined)) or (rules.title,)
        if station in self.joined:
            mine = f"You: <{self.joined[station]}>"
            short = rules.min_players - count
            hint = "ok: start  slap: out" if short <= 0 else f"{short} more to join"
        else:
            full = count >= rules.max_players
            mine = "Full: you watch" if full else "slap: join"
            hint = "left: back to games"
        return seating_screen(SeatingView(f"{count} of {wanted}", joined, mine, hint))
