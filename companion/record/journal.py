"""The journal: the product's public file format, ``companion-journal/1`` (JSON Lines),
specified in ``docs/JOURNAL.md``.

One file is one game: a header line, then every chance event and action in the order they
happened. The writer appends, flushes and fsyncs each line before the table shows its result,
so a crash or power cut loses no applied action. :func:`replay` reads a journal back into a
:class:`~companion.record.match.Match`, stopping at the first bad line with its number and the reason.

Every line the box writes ends with a ``crc`` field (:func:`sealed`): a bit flipped on a card or a
disk that leaves valid JSON (a ``3`` turned ``2``) would otherwise replay as another game. A line
without one (a scenario written by hand) is read as it is, unless its journal's header has one.
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .. import games
from ..games.base import IllegalAction
from ..games.options import OptionError, options_dict, parse_options
from ..arbiter.latepress import LATE, late_notes, parse_late
from .match import Match
from ..profile import NAME_MAX
from ..untrusted import JOURNAL_BYTES, Unreadable, json_value, read_bytes

FORMAT = "companion-journal/1"
BOT_LEVELS = ("easy", "hard")
"""How well a seat the box plays itself plays: the basic strategy, or the best it knows."""
LONGEST_GAME_S = 366 * 86400
"""A line's ``t`` (seconds since the game started) is at most a year: larger is corruption."""


class JournalError(Exception):
    """A bad journal line: ``line N: reason``. Nothing after line N was applied."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


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


def parse_seat(obj: dict, players: int) -> tuple[int, str | None, int | None]:
    """A seat line's (player, bot level or None, 0-based station or None); ValueError naming the
    field that is wrong. A bot has no station; a person has one."""
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


def start_match(header: Header, record=None) -> Match:
    """A Match for ``header``; ValueError for an unknown game, option or player count."""
    try:
        rules = games.get(header.game)
    except KeyError as e:
        raise ValueError(e.args[0]) from None
    try:
        options = parse_options(rules.Options, header.options)
        match = Match(rules, options, header.players, header.seed, record)
        match.settle()
        return match
    except (OptionError, IllegalAction) as e:
        raise ValueError(str(e)) from None


CRC = "crc"
"""The last field of every line the box writes: the CRC-32 (``zlib.crc32``, the one of gzip and
PNG) of the line's UTF-8 bytes before it, with the closing brace, as 8 lowercase hex digits."""
_CRC_OPEN = ', "crc": "'
_CRC_TAIL = len(_CRC_OPEN) + 8 + len('"}')
_HEX = frozenset("0123456789abcdef")


def sealed(line: dict[str, Any]) -> str:
    """``line`` as the box writes it: its JSON, then its :data:`CRC` as the last field."""
    text = json.dumps({k: v for k, v in line.items() if k != CRC}, separators=(", ", ": "))
    return f'{text[:-1]}, "{CRC}": "{zlib.crc32(text.encode("utf-8")):08x}"}}'


def check_crc(text: str, obj: Any, required: bool) -> None:
    """ValueError unless the line ``text`` (parsed as ``obj``) is the line its :data:`CRC` was
    taken of. ``required`` (its journal's header has a crc) refuses a line without one: the
    field's own name may be what a flipped bit changed."""
    if not isinstance(obj, dict) or CRC not in obj:
        if required:
            raise ValueError('the line has no "crc" although its journal\'s header has one: it was '
                             'corrupted or edited by hand (to edit a journal by hand, remove "crc" '
                             "from the header and from the lines you change)")
        return
    text = text.rstrip()
    body, tail = text[:-_CRC_TAIL], text[-_CRC_TAIL:]
    found = f"{zlib.crc32((body + '}').encode('utf-8')):08x}"
    if tail == f'{_CRC_OPEN}{found}"}}':
        return
    written = tail[len(_CRC_OPEN):-2]
    if not (tail.startswith(_CRC_OPEN) and tail.endswith('"}') and _HEX.issuperset(written)):
        raise ValueError('"crc" must be the last field, 8 lowercase hex digits: {..., "crc": "89abcdef"}')
    raise ValueError(f'the line does not match its "crc" ({written}; its bytes give {found}): '
                     'it was corrupted or edited by hand (remove "crc" from a line you change, '
                     "and from the header)")


def parse_line(text: str, required: bool) -> Any:
    """One journal line's JSON, read with the limits of :mod:`companion.untrusted` and checked
    against its :data:`CRC` (``required``: its journal's header has one); ValueError says why not."""
    obj = json_value(text)
    check_crc(text, obj, required)
    return obj


class JournalWriter:
    """Appends journal lines durably: each line is flushed and fsync'd before ``write`` returns."""

    def __init__(self, path: Path | str, header: Header | None = None, sync: bool = True,
                 lines: int = 0) -> None:
        """Open ``path`` to append (never through a symlink: a journal is written only inside the
        state directory) and, for a new game, write its header. If the header cannot be written
        (a full disk), the file is removed again, so no empty journal is left behind. ``sync``
        false skips the fsync: only for writing a benchmark's long journal quickly."""
        self.path = Path(path)
        self.sync = sync
        self.lines = lines
        """How many lines the file holds (``lines`` it had when reopened to carry on, and every
        line written since): the number of the line written last, which an ``undo`` names."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        self._file = os.fdopen(os.open(self.path, flags, 0o644), "a", encoding="utf-8")
        if header is not None:
            try:
                self.write(header.as_json())
            except OSError:
                with contextlib.suppress(OSError):  # the unwritten header cannot be flushed either
                    self._file.close()
                self.path.unlink(missing_ok=True)
                raise

    def write(self, line: dict[str, Any]) -> int:
        """Write ``line`` durably; the number of the line it is in the file."""
        self._file.write(sealed(line) + "\n")
        self._file.flush()
        if self.sync:
            os.fsync(self._file.fileno())
        self.lines += 1
        return self.lines

    def fileno(self) -> int:
        return self._file.fileno()

    def close(self) -> None:
        self._file.close()


def read_journal(path: Path | str, follow_symlinks: bool = False) -> list[bytes]:
    """A journal file's lines, read with the limits of :mod:`companion.untrusted`: a regular
    file, in the state directory never through a symlink; :class:`Unreadable` otherwise."""
    return read_bytes(path, JOURNAL_BYTES, follow_symlinks).splitlines()


def replay_file(path: Path | str, follow_symlinks: bool = False) -> tuple[Header, Match]:
    """Replay a journal file; :class:`Unreadable` naming the file, the line and the reason."""
    try:
        return replay(read_journal(path, follow_symlinks))
    except JournalError as e:
        raise Unreadable(path, e.reason, e.line) from None


NOTES = ("onset_ms", "light_ms", "reaction_ms", "question")
"""Informational fields the box adds to the action line that ends a race (claim, draw, start, buzz):
per player, ``onset_ms`` is when their screen showed the race, in ms after the race opened, and
``reaction_ms`` their counted press's time after that onset; null for a player not in the race
or without a counted press. With a light sensor on every station the line also has
``light_ms``, when each player's panel lit up, and ``reaction_ms`` counts from that instead. The closest game's ``start`` also names the ``question`` its race
answered (``[a, b]`` for a x b). They are not part of the action: replay reads past them."""
LONGEST_REACTION_MS = 3_600_000
"""A reaction time beyond an hour is no reaction time (a hand-edited or damaged line)."""


def _time_ms(value: Any) -> float | None:
    """A race field's entry as a time in ms, or None for one that is not (null, a hand-edited
    or damaged entry: the fields are informational, and replay does not check them)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= LONGEST_REACTION_MS:
        return float(value)
    return None


def _per_player(obj: dict, key: str, players: int) -> list[float | None] | None:
    """A race field (:data:`NOTES`) as one time or None per player; None for a line without it."""
    values = obj.get(key)
    if not isinstance(values, list):
        return None
    return [_time_ms(values[p]) if p < len(values) else None for p in range(players)]


def reaction_times(obj: Any, players: int) -> list[tuple[float, int]] | None:
    """A race line's counted presses as ``(reaction ms, player)``, fastest first; None for a line
    without race fields. Entries that are not a time are left out."""
    reactions = _per_player(obj, "reaction_ms", players) if isinstance(obj, dict) else None
    if reactions is None:
        return None
    return sorted((ms, p) for p, ms in enumerate(reactions) if ms is not None)


def race_winners(obj: dict, players: int) -> list[int]:
    """Who a race's line names: the claimer or starter (``player``), or a draw's ``players``;
    what is not a player index is left out."""
    named = obj.get("players")
    named = named if isinstance(named, list) else [obj.get("player")]
    return [p for p in named if isinstance(p, int) and not isinstance(p, bool) and 0 <= p < players]


def race_lines(lines: Iterable[str | bytes]) -> Iterator[dict[str, Any]]:
    """The lines of a journal that replays which end a race (they carry :data:`NOTES`)."""
    for text in lines:
        try:
            obj = json.loads(text)
        except ValueError:  # not JSON, not UTF-8, or a number too long: replay has said so
            continue
        if isinstance(obj, dict) and isinstance(obj.get("reaction_ms"), list):
            yield obj


def race_json(obj: dict[str, Any], players: int) -> dict[str, Any]:
    """A race's line for ``companion replay --json``: when it was decided, the action it led to,
    who it named, and per player index the onset and the reaction time (null: not a time)."""
    out = {"t": obj.get("t", 0), "action": obj.get("action"), "winners": race_winners(obj, players),
           "onset_ms": _per_player(obj, "onset_ms", players) or [None] * players,
           "reaction_ms": _per_player(obj, "reaction_ms", players)}
    if isinstance(obj.get("light_ms"), list):
        out["light_ms"] = _per_player(obj, "light_ms", players)
    question = race_question(obj)
    if question is not None:
        out["question"] = list(question)
    return out


def race_question(obj: dict[str, Any]) -> tuple[int, int] | None:
    """The closest game's ``question`` a race line names (``[a, b]`` for a x b, each 1-99);
    None for a line without one (an older or hand-written journal) or one that is not."""
    question = obj.get("question")
    if isinstance(question, list) and len(question) == 2 \
            and all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 99 for n in question):
        return question[0], question[1]
    return None


BOT = "bot"
"""Informational: ``true`` on the action line of a seat the box played itself (a bot)."""
IGNORED = ("type", "t", "auto", BOT, CRC, *NOTES)


def reaction_lines(lines: Iterable[str | bytes], players: tuple[str, ...]) -> list[str]:
    """One line per race a journal records with its reaction times (see :data:`NOTES`), for
    ``companion replay``: ``4.460 s claim: Ben 285 ms, Ana 300 ms``, fastest first."""
    out = []
    for obj in race_lines(lines):
        timed = reaction_times(obj, len(players)) or []
        who = ", ".join(f"{players[p]} {ms:.0f} ms" for ms, p in timed) or "nobody counted"
        out.append(f"{obj.get('t', 0):.3f} s {obj.get('action')}: {who}")
    return out


LineHook = Callable[[int, Match, list[dict[str, Any]], Any], None]
"""Told, after each applied line, its number, the match and the events it led to: what it
recorded, chance events drawn from the seed before it, and the automatic actions after it; for
a late press's line (:mod:`companion.arbiter.latepress`), the line itself, which changes nothing; and
the line as it was read (its ``t`` and race fields, which replay reads past)."""


def replay(lines: Iterable[str | bytes], on_line: LineHook | None = None) -> tuple[Header, Match]:
    """Apply a journal's lines (text, or bytes to decode as UTF-8); :class:`JournalError` at the
    first bad one. ``on_line`` follows along line by line (``companion replay --explain``,
    ``companion history``)."""
    match: Match | None = None
    header: Header | None = None
    autos: list[tuple[Any, dict[str, Any]]] = []  # (state before, line) since a player's last line
    events: list[dict[str, Any]] = []  # what the line being applied led to
    sealed_journal = False  # the header has a crc: so must every line

    def record(line: dict[str, Any]) -> int:
        events.append(line)
        if line.get("auto") is not True:
            autos.clear()
        elif match is not None:
            autos.append((match.state, line))
        return number  # the line being applied: an undo names it

    for number, text in enumerate(lines, start=1):
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as e:
                raise JournalError(number, f"not UTF-8 text (byte {e.start + 1})") from None
        if not text.strip():
            continue
        try:
            obj = parse_line(text, sealed_journal)
        except ValueError as e:
            raise JournalError(number, str(e)) from None
        try:
            if match is None:
                header = parse_header(obj)
                sealed_journal = CRC in obj
                match = start_match(header, record)
            else:
                _apply_line(match, obj)
                if obj.get("type") in (LATE, SEAT):  # told along (replay --explain), never applied
                    events.append(obj)
        except IllegalAction as e:
            raise JournalError(number, _explain(match, obj, autos, str(e))) from None
        except ValueError as e:
            raise JournalError(number, str(e)) from None
        if on_line is not None:
            on_line(number, match, list(events), obj)
        events.clear()
    if match is None or header is None:
        raise JournalError(1, "the journal is empty: a header line is needed")
    return header, match


def _explain(match: Match, obj: Any, autos: list[tuple[Any, dict[str, Any]]], reason: str) -> str:
    """The rule a refused action broke when the box had already made that player's move.

    A player who may not act (a paytoplay balance that is not positive) is passed by the box, so
    their action would otherwise only be refused as "not your turn": name the rule that forced
    the pass, or, for a forced move written without ``"auto": true``, that the box made it.
    """
    if match is None or not isinstance(obj, dict):
        return reason
    player = obj.get("player")
    if player in match.rules.to_move(match.state):
        return reason
    for state, line in reversed(autos):
        if player in match.rules.to_move(state):
            action = {k: v for k, v in obj.items() if k not in IGNORED}
            auto = {k: v for k, v in line.items() if k not in ("type", "auto")}
            try:
                match.rules.apply(state, action)
            except IllegalAction as e:
                reason = str(e)
            return (f"{reason} (the box already made player {player}'s move automatically: "
                    f"{json.dumps(auto)})")
    return reason


def _apply_line(match: Match, obj: Any) -> None:
    if not isinstance(obj, dict):
        raise ValueError("an event line must be a JSON object")
    kind = obj.get("type")
    body = {k: v for k, v in obj.items() if k not in IGNORED}
    if not isinstance(obj.get("auto", False), bool):
        raise ValueError(f"auto must be true or false, not {obj['auto']!r}")
    t = obj.get("t", 0)
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= LONGEST_GAME_S:
        raise ValueError(f"t must be seconds since the game started (0 or more, at most a year), not {t!r}")
    if kind == LATE:
        parse_late(obj, len(match.players))  # informational: checked, and read past
    elif kind == SEAT:
        parse_seat(obj, len(match.players))  # who plays it changes nothing in the game
    elif kind == "chance":
        match.chance_or_draw(body)
    elif kind == "action":
        if obj.get("auto") is True:
            return
        if match.outcome is not None and not match.rules.to_move(match.state):
            raise IllegalAction("the game is already over")
        match.act_or_draw(body)
    else:
        raise ValueError(f"type must be 'chance', 'action', '{LATE}' or '{SEAT}', not {kind!r}")


def summary(header: Header, match: Match, lines: Iterable[str | bytes] = ()) -> dict[str, Any]:
    """The object ``companion replay --json`` prints; ``lines``, the journal replayed, give each
    race's times and the late presses (players by index, as everywhere in the journal)."""
    outcome = match.outcome
    rules = match.rules
    lines = list(lines)
    players = len(header.players)
    return {
        "game": header.game,
        "over": outcome is not None,
        "scores": list(outcome.scores if outcome else rules.scores(match.state)),
        "winners": list(outcome.winners) if outcome else [],
        "detail": rules.detail(match.state),
        "races": [race_json(obj, players) for obj in race_lines(lines)],
        "late_presses": [note.record(lambda p: p) for note in late_notes(lines, players)],
    }


def header_for(match: Match) -> Header:
    return Header(match.rules.name, match.players, options_dict(match.options), match.seed)
