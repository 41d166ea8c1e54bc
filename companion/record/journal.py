"""The journal: the product's public file format, ``companion-journal/1`` (JSON Lines),
specified in ``docs/JOURNAL.md``.

One file is one game: a header line, then every chance event and action in the order they
happened. The writer appends, flushes and fsyncs each line before the table shows its result,
so a crash or power cut loses no applied action. :func:`replay` reads a journal back into a
:class:`~companion.record.match.Match`, stopping at the first bad line with its number and the reason.

Every line the box writes ends with a ``crc`` field (:func:`sealed`): a bit flipped on a card or a
disk that leaves valid JSON (a ``3`` turned ``2``) would otherwise replay as another game. A line
without one (a scenario written by hand) is read as it is, unless its journal's header has one.

The header line is :mod:`.header`, the CRC :mod:`.crc`, the race fields' readers :mod:`.races`.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable

from .. import games
from ..games.base import IllegalAction
from ..games.options import OptionError, options_dict, parse_options
from ..arbiter.latepress import LATE, late_notes, parse_late
from ..arbiter.unread import UNREAD, parse_unread, unread_notes
from .match import UNDO, Match
from ..untrusted import JOURNAL_BYTES, Unreadable, read_bytes
# The header, the CRC and the race fields live in modules of their own; what the rest of the box
# and the tests import from here stays importable from here.
from .crc import CRC, check_crc, parse_line, sealed
from .header import BOT_LEVELS, FORMAT, SEAT, Header, parse_header, parse_seat, seated_after
from .races import (NOTES, race_json, race_lines, race_question, race_winners, reaction_lines,
                    reaction_times)

LONGEST_GAME_S = 366 * 86400
"""A line's ``t`` (seconds since the game started) is at most a year: larger is corruption."""


class JournalError(Exception):
    """A bad journal line: ``line N: reason``. Nothing after line N was applied."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


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
        self.sequence = header.sequence if header is not None else None
        """The game's number on this box (its header's ``sequence``), when this writer wrote the
        header: what a game set aside by a fault is kept as."""
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


def journal_lines(data: bytes, keepends: bool = False) -> list[bytes]:
    """A journal's bytes as its lines. Only ``\\n`` ends a line: the box writes nothing else
    (its JSON escapes every control character), so a ``\\r`` or any other byte that Python's
    ``splitlines`` would also break at belongs to the line it is in. Whatever follows the last
    ``\\n`` is one line, the last, however many such bytes it holds: a torn write, left as
    one torn tail (:mod:`.recovery`), never read as lines of its own. ``keepends`` keeps each
    line's ``\\n``."""
    lines = data.split(b"\n")
    tail = lines.pop()
    if keepends:
        lines = [line + b"\n" for line in lines]
    return lines + [tail] if tail else lines


def read_journal(path: Path | str, follow_symlinks: bool = False) -> list[bytes]:
    """A journal file's lines (:func:`journal_lines`), read with the limits of
    :mod:`companion.untrusted`: a regular file, in the state directory never through a symlink;
    :class:`Unreadable` otherwise."""
    return journal_lines(read_bytes(path, JOURNAL_BYTES, follow_symlinks))


def replay_file(path: Path | str, follow_symlinks: bool = False) -> tuple[Header, Match]:
    """Replay a journal file; :class:`Unreadable` naming the file, the line and the reason."""
    try:
        return replay(read_journal(path, follow_symlinks))
    except JournalError as e:
        raise Unreadable(path, e.reason, e.line) from None


BOT = "bot"
"""Informational: ``true`` on the action line of a seat the box played itself (a bot)."""
IGNORED = ("type", "t", "auto", BOT, CRC, *NOTES)


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
                if obj.get("type") in (LATE, SEAT, UNREAD):  # told along (replay --explain), never applied
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
    if obj.get("action") == UNDO:  # the match's reason stands; the box's pass was never the player's move
        passes = [line for _, line in autos if line.get("player") == player]
        if passes:
            return (f"{reason} ({match.players[player]}'s last move was the box's automatic "
                    f"{passes[-1]['action']}, which is not taken back)")
        return reason
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
    elif kind == UNREAD:
        parse_unread(obj)  # informational too: buttons nobody could read for a while
    elif kind == SEAT:
        if not match.rules.bots_play:
            raise ValueError(f"seat: no bot plays {match.rules.title}, so no seat changes hands in it")
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
        raise ValueError(f"type must be 'chance', 'action', '{LATE}', '{UNREAD}' or '{SEAT}', not {kind!r}")


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
        "unread": [note.record() for note in unread_notes(lines)],
    }


def header_for(match: Match) -> Header:
    return Header(match.rules.name, match.players, options_dict(match.options), match.seed)
