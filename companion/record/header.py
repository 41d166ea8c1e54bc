"""A journal's header line: which game, who plays it at which station (or a bot at which level),
its options, seed and number on this box; and the seat lines that change who plays a seat.

Separate from reading and replaying a journal (:mod:`.journal`) because the header is what
everything else reads first and alone: ``companion games`` lists journals by it, resume
finds the newest game by its ``sequence``, and every field it names is checked here with a reason
a person can act on (``docs/JOURNAL.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..profile import NAME_MAX
from .crc import CRC

FORMAT = "companion-journal/1"
BOT_LEVELS = ("easy", "hard")
"""How well a seat the box plays itself plays: the basic strategy, or the best it knows."""


@dataclass(frozen=True)
class Header:
    game: str
    players: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    stations: tuple[int | None, ...] | None = None
    """Informational: the 0-based station each player sat at, so a resumed game keeps its
    seats (written as 1-based station numbers, as the box numbers them); None (``null``) for
    a bot's seat, which has no station."""
    bots: tuple[str | None, ...] | None = None
    """Informational: the level (:data:`BOT_LEVELS`) of each seat the box plays itself, None for a
    player's seat, so a resumed game's bots play on at the level they had."""
    sequence: int | None = None
    """The game's number on this box, one more than any journal beside it had when it started:
    which game is newest follows from the journals themselves, not from a clock that may have
    gone back (a Pi without a real-time clock) or from file names."""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "game": self.game, "players": list(self.players),
                               "options": self.options}
        if self.seed is not None:
            out["seed"] = self.seed
        if self.stations is not None:
            out["stations"] = [None if s is None else s + 1 for s in self.stations]
        if self.bots is not None:
            out["bots"] = list(self.bots)
        if self.sequence is not None:
            out["sequence"] = self.sequence
        return out


def parse_header(obj: Any) -> Header:
    """Check a header object; ValueError names what is wrong."""
    if not isinstance(obj, dict):
        raise ValueError("the header must be a JSON object")
    if obj.get("format") != FORMAT:
        raise ValueError(f"format must be {FORMAT!r}, not {obj.get('format')!r}")
    unknown = sorted(set(obj) - {"format", "game", "players", "options", "seed", "stations", "bots", "sequence", CRC})
    if unknown:
        raise ValueError(f"unknown header field {unknown[0]!r}")
    game = obj.get("game")
    if not isinstance(game, str):
        raise ValueError("game must be a game's code name")
    players = obj.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
        raise ValueError("players must be a list of names")
    for name in players:
        if len(name) > NAME_MAX or not name.isprintable() or _has_surrogate(name):
            raise ValueError(f"player name {name!r} is not a name: at most {NAME_MAX} printable characters")
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise ValueError("options must be an object")
    seed = obj.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ValueError("seed must be a whole number")
    stations = obj.get("stations")
    if stations is not None:
        numbers = [s for s in stations if s is not None] if isinstance(stations, list) else []
        if (not isinstance(stations, list) or len(stations) != len(players)
                or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in numbers)
                or len(set(numbers)) != len(numbers)):
            raise ValueError("stations must list a different station number (from 1), or null for a "
                             "bot, for each player")
        stations = tuple(None if s is None else s - 1 for s in stations)
    bots = obj.get("bots")
    if bots is not None:
        if (not isinstance(bots, list) or len(bots) != len(players)
                or not all(level is None or level in BOT_LEVELS for level in bots)):
            raise ValueError(f"bots must give, for each player, a bot's level ({' or '.join(BOT_LEVELS)}) "
                             "or null for a player's seat")
        if stations is not None and any(level is not None and stations[p] is not None
                                        for p, level in enumerate(bots)):
            raise ValueError("bots: a bot's seat has no station (null in stations)")
        bots = tuple(bots)
    sequence = obj.get("sequence")
    if sequence is not None and (isinstance(sequence, bool) or not isinstance(sequence, int) or sequence < 1):
        raise ValueError("sequence must be a whole number from 1")
    return Header(game, tuple(players), options, seed, stations=stations, bots=bots, sequence=sequence)


SEAT = "seat"
"""A line saying who plays a seat from now on: a bot for a player who left, or a person at a
station taking a bot's seat (docs/JOURNAL.md, "Seats changing hands"). It changes nothing in the
game; a resumed game seats them so."""


SEAT_FIELDS = ("player", "bot", "station")
"""What every seat line names; ``when`` is optional, informational."""


def parse_seat(obj: dict, players: int) -> tuple[int, str | None, int | None]:
    """A seat line's (player, bot level or None, 0-based station or None); ValueError naming the
    field that is wrong. A bot has no station; a person has one. Every field is there (a null
    says "no bot" or "no station"; a missing one is no line the box writes) and no other."""
    for name in SEAT_FIELDS:
        if name not in obj:
            raise ValueError(f"seat: {name} is missing: a seat line names its player, bot and station")
    unknown = sorted(set(obj) - {*SEAT_FIELDS, "when", "type", "t", CRC})
    if unknown:
        raise ValueError(f"seat: unknown field {unknown[0]!r}: a seat line has player, bot, station and when")
    player, level, station = obj.get("player"), obj.get("bot"), obj.get("station")
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < players:
        raise ValueError(f"seat: player must be a player index from 0 to {players - 1}, not {player!r}")
    if level is not None and level not in BOT_LEVELS:
        raise ValueError(f"seat: bot must be {' or '.join(BOT_LEVELS)} or null, not {level!r}")
    if level is not None and station is not None:
        raise ValueError("seat: a bot's seat has no station")
    if level is None and (isinstance(station, bool) or not isinstance(station, int) or station < 1):
        raise ValueError(f"seat: a person's station must be a station number from 1, not {station!r}")
    if not isinstance(obj.get("when", ""), str):
        raise ValueError(f"seat: when must be text (where the game was), not {obj['when']!r}")
    return player, level, None if station is None else station - 1


def seated_after(header: Header, obj: dict) -> Header:
    """``header`` with its ``stations`` and ``bots`` as a seat line leaves them (a resumed game
    seats its players so)."""
    players = len(header.players)
    player, level, station = parse_seat(obj, players)
    stations = list(header.stations or range(players))
    bots = list(header.bots or (None,) * players)
    if station is not None and station in stations:
        stations[stations.index(station)] = None  # a station plays one seat at a time
    stations[player], bots[player] = station, level
    return replace(header, stations=tuple(stations), bots=tuple(bots))


def _has_surrogate(text: str) -> bool:
    """A lone UTF-16 surrogate (JSON's ``"\\ud800"``) is no character: it cannot be printed."""
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)
