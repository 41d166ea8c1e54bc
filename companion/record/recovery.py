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
kept; rotation logs every journal it deletes and never deletes a game that is not over.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .journal import Header, JournalError, JournalWriter, parse_header, read_journal, replay, replay_file
from .match import Match
from ..untrusted import JOURNAL_BYTES, Unreadable, is_regular_file, json_value, read_text

log = logging.getLogger(__name__)

KEEP_JOURNALS = 500
ABANDONED = ".abandoned.jsonl"
DISMISSED = ".dismissed"
"""The name of the last journal whose result screen the players left (not a journal itself)."""
POSTPONED = ".postponed"
"""The name of the journal of an unfinished game set aside for a box with more stations."""
HEADER_BYTES = 64 << 10
"""The most read to find a journal's header line."""


@dataclass
class Interrupted:
    """A game to resume: its journal reopened for appending, and the journal time it reached."""

    path: Path
    header: Header
    match: Match
    writer: JournalWriter
    last_t: float
    race_line: dict | None = None
    """The action line of the race whose result the game still shows (see :func:`where_it_stopped`)."""


@dataclass(frozen=True)
class NotResumed:
    """The newest game was not over but cannot be resumed: the players are told why."""

    path: Path
    reason: str


def journals(directory: Path) -> list[Path]:
    """Every game journal in ``directory`` that is a regular file, oldest game first (see the
    module docstring); anything else named like a journal is logged and left alone."""
    if not directory.is_dir():
        return []
    found = []
    for path in directory.glob("*.jsonl"):
        if is_regular_file(path):
            found.append(path)
        else:
            log.warning("%s: skipped, not a regular file (a directory or a symlink is never a journal)",
                        path.name)
    return sorted(found, key=lambda p: (sequence(p), p.name))


def sequence(path: Path) -> int:
    """The game's ``sequence`` from its header line; 0 for a journal without one (or a header
    that cannot be read: replaying it says why)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return 0
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return 0
        first = os.read(fd, HEADER_BYTES).split(b"\n", 1)[0]
        return parse_header(json_value(first.decode("utf-8"))).sequence or 0
    except (OSError, ValueError):
        return 0
    finally:
        os.close(fd)


def next_sequence(directory: Path) -> int:
    """The sequence for a game starting now: one more than any journal's in ``directory``."""
    paths = journals(directory)
    return (sequence(paths[-1]) if paths else 0) + 1


def cut_torn_line(path: Path) -> bool:
    """Drop a last line that lacks its newline (a write cut short); True if one was dropped.

    The file is opened without following a symlink, so only a journal itself is ever cut."""
    fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > JOURNAL_BYTES:
            return False  # not a journal we may cut; replaying it says why
        data = os.pread(fd, info.st_size, 0)
        if not data or data.endswith(b"\n"):
            return False
        keep = data.rfind(b"\n") + 1
        os.ftruncate(fd, keep)
        os.fsync(fd)
    finally:
        os.close(fd)
    log.warning("%s: dropped a torn last line (%d bytes)", path.name, len(data) - keep)
    return True


def pick_up(directory: Path, before_replay: Callable[[int], None] | None = None) -> Interrupted | NotResumed | None:
    """The newest game if it is neither over nor abandoned, reopened to carry on; why not, if it
    cannot be; None if there is nothing to resume. When the newest gives nothing to resume, a
    game set aside for a box with more stations (:func:`postpone`) is offered again, unless it is
    over. Every outcome is logged. ``before_replay`` is told the journal's size in bytes before it
    is replayed (the daemon asks systemd for time)."""
    candidates = [p for p in journals(directory) if not p.name.endswith(ABANDONED)]
    if not candidates:
        log.info("no game to resume in %s", directory)
        return None
    found = _open(candidates[-1], before_replay)
    if found is None or isinstance(found, Interrupted) and found.match.outcome is not None \
            and _marker(directory, DISMISSED) == found.path.name:
        if found is not None:
            found.writer.close()
            log.info("nothing to resume: the newest game, %s, is over", found.path.name)
        return _set_aside(directory, candidates, before_replay)
    if isinstance(found, Interrupted) and found.match.outcome is not None:
        log.info("showing the result of %s again: the box stopped before the players left it", found.path.name)
    return found


def _set_aside(directory: Path, candidates: list[Path], before_replay) -> Interrupted | NotResumed | None:
    """The game :func:`postpone` set aside, reopened, if it is still there and not over."""
    name = _marker(directory, POSTPONED)
    path = next((p for p in candidates[:-1] if p.name == name), None)
    if path is None:
        return None
    found = _open(path, before_replay)
    if isinstance(found, Interrupted) and found.match.outcome is not None:
        found.writer.close()
        return None
    return found


def _open(path: Path, before_replay) -> Interrupted | NotResumed:
    """The game journaled in ``path``, replayed and reopened to carry on; or why it cannot be."""
    try:
        cut_torn_line(path)
        if before_replay is not None:
            before_replay(path.stat().st_size)
        lines = read_journal(path)  # read once: replayed, then where it stopped
        header, match = replay(lines)
    except OSError as e:
        return _not_resumed(path, f"cannot read: {e.strerror or e}")
    except Unreadable as e:
        return _not_resumed(path, e.detail)
    except JournalError as e:
        return _not_resumed(path, str(e))
    if match.outcome is None:
        log.info("found %s not over in %s (game %s): the players are asked whether to resume it",
                 header.game, path.name, header.sequence or "without a sequence")
    last_t, race_line = where_it_stopped(lines[1:])
    return Interrupted(path, header, match, JournalWriter(path), last_t, race_line)


def where_it_stopped(lines: list[bytes]) -> tuple[float, dict | None]:
    """From a replayed journal's lines after the header: the latest journal time, and the line
    of the last race decided (one with race fields, ``journal.NOTES``) unless a chance event came
    after it (a new round was dealt, and that race is no longer shown). One pass, no list of
    every line: a long game's journal is large."""
    last_t, race_line = 0, None
    for line in lines:
        if not line.strip():
            continue
        event = json.loads(line)
        last_t = max(last_t, event.get("t", 0))
        if event.get("type") == "chance":
            race_line = None
        elif "reaction_ms" in event:
            race_line = event
    return last_t, race_line


def _not_resumed(path: Path, reason: str) -> NotResumed:
    log.error("%s cannot be resumed: %s", path.name, reason)
    return NotResumed(path, reason)


def find_interrupted(directory: Path) -> Interrupted | None:
    """The unfinished game to resume, if there is one."""
    found = pick_up(directory)
    if isinstance(found, Interrupted) and found.match.outcome is not None:
        found.writer.close()
        return None
    return found if isinstance(found, Interrupted) else None


def dismiss(path: Path) -> None:
    """The players left the result screen of the game journaled in ``path``: a restart does not
    show it again. Failing to note it (a full disk) only means it is shown once more."""
    _note(path, DISMISSED, "dismissed")


def postpone(path: Path) -> None:
    """Set aside the unfinished game journaled in ``path``, which this box cannot resume (it has
    more players than stations): it is offered again whenever no newer game is to be resumed,
    on a box with enough stations. Failing to note it (a full disk) is logged."""
    _note(path, POSTPONED, "set aside")


def _note(path: Path, marker: str, what: str) -> None:
    """Write ``path``'s name to the ``marker`` file beside it (never through a symlink)."""
    try:
        fd = os.open(path.parent / marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "w") as f:
            f.write(path.name + "\n")
    except OSError as e:
        log.warning("could not note that %s was %s: %s", path.name, what, e)


def _marker(directory: Path, name: str) -> str | None:
    """The journal name a marker file (:data:`DISMISSED`, :data:`POSTPONED`) holds."""
    try:
        return read_text(directory / name, HEADER_BYTES, follow_symlinks=False).strip()
    except Unreadable:
        return None


def abandon(path: Path) -> Path:
    """Mark a journal's game as abandoned by the players, so it is never resumed."""
    target = path.with_name(path.name[: -len(".jsonl")] + ABANDONED)
    path.rename(target)
    return target


def rotate(directory: Path, keep: int = KEEP_JOURNALS) -> list[Path]:
    """Delete the oldest journals beyond ``keep``, each with a log line; returns what was deleted.

    A game that is not over (and not abandoned) is kept, whatever its age, and said so: it may
    still be resumed or looked at. A journal that cannot be replayed at all is deleted, naming
    why."""
    paths = journals(directory)
    deleted = []
    for path in paths[: max(len(paths) - keep, 0)]:
        if not path.name.endswith(ABANDONED):
            try:
                _, match = replay_file(path)
            except Unreadable as e:
                why = f"unreadable ({e.reason})"
            else:
                if match.outcome is None:
                    log.warning("%s: kept beyond the newest %d journals: its game is not over", path.name, keep)
                    continue
                why = "over"
        else:
            why = "abandoned"
        path.unlink()
        log.info("%s: deleted, the newest %d journals are kept (this game was %s)", path.name, keep, why)
        deleted.append(path)
    return deleted
