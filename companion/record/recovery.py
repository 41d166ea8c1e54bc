"""Never lose a game: find the game a crash or power cut interrupted, and pick it up again.

The journal is written (and fsync'd) before the table shows any result, so after a crash it
holds every applied action. A power cut in the middle of a write leaves a *torn* last line: bytes
without their newline. It is cut off, never fatal, since the action it held was never shown.

Which game is newest follows from the journals' own headers (their ``sequence``, one more than
any journal beside it when the game started), not from file names or the clock, which a Pi
without a real-time clock may have set back. Journals from before ``sequence`` count as older
than any that have one, and among themselves go by name. Anything in the directory that is not
a regular file (a directory, a symlink) is skipped with a log line, never followed.

A game that is over is shown again (its result screen) until the players dismiss it: the box may
have stopped while the result was showing. Dismissing writes the journal's name to
:data:`DISMISSED` beside it. Abandoned games are renamed so they are not resumed. A game with more
players than the box has stations is set aside (:data:`POSTPONED`) and offered again once no newer
game is to be resumed, on a box with enough stations. Only the newest :data:`KEEP_JOURNALS` are
kept; rotation logs every journal it deletes and never deletes a game that is not over. The
journals kept, their numbers and markers are :mod:`.shelf`.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .journal import (CRC, SEAT, Header, JournalError, JournalWriter, journal_lines, parse_header, parse_line,
                      replay, seated_after)
from .match import Match
from .shelf import (ABANDONED, DISMISSED, HEADER_BYTES, KEEP_JOURNALS, POSTPONED, abandon, dismiss, journals,
                    marker, next_sequence, note_sequence, postpone, rotate, sequence)
from ..untrusted import JOURNAL_BYTES, Unreadable, json_value, read_bytes

log = logging.getLogger(__name__)

@dataclass
class Interrupted:
    """A game to resume: its journal reopened for appending, and the journal time it reached."""

    path: Path
    header: Header
    match: Match
    writer: JournalWriter | None
    """None when the journal cannot be written (a read-only state directory)."""
    last_t: float
    race_line: dict | None = None
    """The action line of the race whose result the game still shows (see :func:`where_it_stopped`)."""
    lines: list[bytes] = field(default_factory=list)
    """The journal's lines that replay, the header first, each with its newline."""
    damaged: str | None = None
    """Why the journal's last line was left out (it does not replay): the players are told."""
    seats: tuple[dict, ...] = ()
    """The seat lines, in order: who took over which seat, from when (the header already seats
    them as the last says)."""


@dataclass(frozen=True)
class NotResumed:
    """The newest game was not over but cannot be resumed: the players are told why."""

    path: Path
    reason: str
    fault: tuple[str, int | None] | None = None
    """Set when the game's own code failed on its journal, which was set aside (:func:`postpone`):
    the game (its code name) and its number on this box."""


def cut_torn_line(path: Path) -> bool:
    """Drop a last line that lacks its newline (a write cut short); True if one was dropped.

    The file is opened without following a symlink, so only a journal itself is ever cut."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > JOURNAL_BYTES:
            return False  # not a journal we may cut; replaying it says why
        data = os.pread(fd, info.st_size, 0)
    finally:
        os.close(fd)
    if not data or data.endswith(b"\n"):
        return False
    cut_after(path, data.rfind(b"\n") + 1, "a torn last line")
    return True


def cut_after(path: Path, keep: int, what: str) -> None:
    """Cut ``path`` to its first ``keep`` bytes (the lines that replay), durably, logging ``what``
    was dropped. Only a journal itself is cut, never through a symlink."""
    fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        size = os.fstat(fd).st_size
        os.ftruncate(fd, keep)
        os.fsync(fd)
    finally:
        os.close(fd)
    log.warning("%s: dropped %s (%d bytes)", path.name, what, size - keep)


def _torn_header(path: Path) -> bool:
    """True for a journal whose header never reached the disk whole (empty, or no newline and not
    a header that reads): a game that a power cut stopped as it started. Nothing of it was
    ever shown. (Its header does not read, so it sorts with the journals without a sequence.)"""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or b"\n" in os.pread(fd, 4096, 0):
            return False
        first = os.pread(fd, HEADER_BYTES, 0)
        if b"\n" in first:
            return False
        parse_header(json_value(first.decode("utf-8")))  # a whole header without its newline
        return False
    except (UnicodeDecodeError, ValueError):
        return True  # cut off mid-line: it does not read
    except OSError:
        return False
    finally:
        os.close(fd)


def _clean_torn_headers(candidates: list[Path]) -> list[Path]:
    """``candidates`` without the journals that hold only a torn header (:func:`_torn_header`),
    each removed with a log line; on a read-only directory they are only passed over."""
    kept = []
    for path in candidates:
        if not _torn_header(path):
            kept.append(path)
            continue
        try:
            path.unlink()
            log.warning("%s: removed: its header was cut short as the game started (a power cut)", path.name)
        except OSError as e:
            log.warning("%s: passed over, its header was cut short as the game started (cannot remove "
                        "it: %s)", path.name, e.strerror or e)
    return kept


def pick_up(directory: Path, before_replay: Callable[[int], None] | None = None) -> Interrupted | NotResumed | None:
    """The newest game if it is neither over nor abandoned, reopened to carry on; why not, if it
    cannot be; None if there is nothing to resume. When the newest gives nothing to resume, a
    game set aside for a box with more stations (:func:`postpone`) is offered again, unless it is
    over. Every outcome is logged. ``before_replay`` is told the journal's size in bytes before it
    is replayed (the daemon asks systemd for time).

    The journal is read, not opened to write, until it replays: a torn last line is left out,
    and so is a last line that does not replay (one flipped bit failing its crc): the game goes
    on from the line before, saying so (:attr:`Interrupted.damaged`). The file is cut to the
    lines that replay only when it is reopened to carry on; on a read-only directory it is left
    as it is and :attr:`Interrupted.writer` is None (the game is played on unsaved)."""
    candidates = _clean_torn_headers([p for p in journals(directory) if not p.name.endswith(ABANDONED)])
    if not candidates:
        log.info("no game to resume in %s", directory)
        return None
    found = _open(candidates[-1], before_replay)
    if found is None or isinstance(found, Interrupted) and found.match.outcome is not None \
            and marker(directory, DISMISSED) == found.path.name:
        if found is not None and found.writer is not None:
            found.writer.close()
            log.info("nothing to resume: the newest game, %s, is over", found.path.name)
        return _set_aside(directory, candidates, before_replay)
    if isinstance(found, Interrupted) and found.match.outcome is not None:
        log.info("showing the result of %s again: the box stopped before the players left it", found.path.name)
    return found


def _set_aside(directory: Path, candidates: list[Path], before_replay) -> Interrupted | NotResumed | None:
    """The game :func:`postpone` set aside, reopened, if it is still there and not over."""
    name = marker(directory, POSTPONED)
    path = next((p for p in candidates[:-1] if p.name == name), None)
    if path is None:
        return None
    found = _open(path, before_replay)
    if isinstance(found, Interrupted) and found.match.outcome is not None:
        if found.writer is not None:
            found.writer.close()
        return None
    return found


def _open(path: Path, before_replay) -> Interrupted | NotResumed:
    """The game journaled in ``path``, replayed and reopened to carry on; or why it cannot be."""
    try:
        if before_replay is not None:
            before_replay(path.stat().st_size)
        data = read_bytes(path, JOURNAL_BYTES, False)  # read once: replayed, then where it stopped
    except OSError as e:
        return _not_resumed(path, f"cannot read: {e.strerror or e}")
    except Unreadable as e:
        return _not_resumed(path, e.detail)
    lines = journal_lines(data, keepends=True)
    torn = bool(lines) and not lines[-1].endswith(b"\n")
    if torn:
        log.warning("%s: a torn last line (%d bytes) is left out: a write was cut short", path.name, len(lines[-1]))
        lines.pop()
    try:
        header, match, lines, damaged = _replayed(path, lines)
    except JournalError as e:
        return _not_resumed(path, str(e))
    except Exception:  # the game's own code failed on its journal: set aside, never a crash at every start
        log.exception("%s: its game hit a fault as it was replayed: set aside", path.name)
        postpone(path)
        header = parse_header(json.loads(lines[0]))  # it read: the game's rules were running
        return NotResumed(path, "hit a fault as it was replayed", (header.game, header.sequence))
    if match.outcome is None:
        log.info("found %s not over in %s (game %s): the players are asked whether to resume it",
                 header.game, path.name, header.sequence or "without a sequence")
    last_t, race_line, seats = where_it_stopped(lines[1:])
    for seat in seats:  # who plays each seat now: a bot for a player who left, or a person back
        header = seated_after(header, seat)
    writer = _reopen(path, sum(len(line) for line in lines), len(data), damaged, len(lines))
    return Interrupted(path, header, match, writer, last_t, race_line, lines, damaged, tuple(seats))


def _replayed(path: Path, lines: list[bytes]) -> tuple[Header, Match, list[bytes], str | None]:
    """The journal's ``lines`` replayed, with the lines that replay and why the last was left out
    (a damaged last line: the game goes on from the line before); :class:`JournalError` if a
    line before the last does not replay."""
    try:
        header, match = replay(lines)
        return header, match, lines, None
    except JournalError as e:
        last = max((n for n, text in enumerate(lines, start=1) if text.strip()), default=0)
        if e.line != last or e.line < 2 or not _garbled(lines[-1], lines[0]):
            raise
        log.warning("%s: its last line (line %d) is damaged (%s): the game goes on from the %d lines "
                    "before it", path.name, e.line, e.reason, e.line - 1)
        header, match = replay(lines[:e.line - 1])  # the lines before it replayed
        return header, match, lines[:e.line - 1], e.reason


def _garbled(line: bytes, header: bytes) -> bool:
    """True if ``line``, in a journal the box sealed (its ``header`` has a crc), is not the line
    the box wrote: not UTF-8 JSON, or not matching its crc. A line that reads well but breaks the
    rules, or any line of a journal written by hand (no crc to tell damage by), is no damage but
    a wrong journal: that game is not resumed."""
    try:
        if CRC not in json.loads(header):
            return False
        parse_line(line.decode("utf-8"), True)
    except (UnicodeDecodeError, ValueError):
        return True
    return False


def _reopen(path: Path, keep: int, size: int, damaged: str | None, count: int) -> JournalWriter | None:
    """The journal reopened to carry on (its ``count`` lines kept), cut first to the ``keep``
    bytes that replay; None if it cannot be written (a read-only directory: the cut waits for a
    start that can write)."""
    try:
        if keep < size:
            cut_after(path, keep, "a damaged last line" if damaged else "a torn last line")
        return JournalWriter(path, lines=count)
    except OSError as e:
        log.warning("%s: cannot be written (%s): the game is played on unsaved", path.name, e.strerror or e)
        return None


def where_it_stopped(lines: list[bytes]) -> tuple[float, dict | None, list[dict]]:
    """From a replayed journal's lines after the header: the latest journal time, the line
    of the last race decided (one with race fields, ``journal.NOTES``) unless a chance event came
    after it (a new round was dealt, and that race is no longer shown), and the seat lines (seats
    changing hands). One pass, no list of every line: a long game's journal is large."""
    last_t, race_line, seats = 0, None, []
    for line in lines:
        if not line.strip():
            continue
        event = json.loads(line)
        last_t = max(last_t, event.get("t", 0))
        if event.get("type") == "chance":
            race_line = None
        elif event.get("type") == SEAT:
            seats.append(event)
        elif "reaction_ms" in event:
            race_line = event
    return last_t, race_line, seats


def _not_resumed(path: Path, reason: str) -> NotResumed:
    log.error("%s cannot be resumed: %s", path.name, reason)
    return NotResumed(path, reason)


def find_interrupted(directory: Path) -> Interrupted | None:
    """The unfinished game to resume, if there is one."""
    found = pick_up(directory)
    if isinstance(found, Interrupted) and found.match.outcome is not None and found.writer is not None:
        found.writer.close()
        return None
    return found if isinstance(found, Interrupted) else None


