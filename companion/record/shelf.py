"""The journals kept on the box: which there are and in which order (each game's number on this
box), the games the players dismissed, set aside or abandoned, and how many are kept.

Separate from picking a game up again (:mod:`.recovery`) because starting a game, listing games
(``companion games``) and rotating old ones all use it without replaying anything; it reads a
journal's header line only, and follows no symlink.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from ..settings import write_whole
from ..untrusted import Unreadable, is_regular_file, json_value, read_text
from .header import parse_header
from .journal import replay_file

log = logging.getLogger(__name__)

KEEP_JOURNALS = 500
ABANDONED = ".abandoned.jsonl"
DISMISSED = ".dismissed"
"""The name of the last journal whose result screen the players left (not a journal itself)."""
POSTPONED = ".postponed"
"""The name of the journal of an unfinished game set aside for a box with more stations."""
LEFT_BEHIND = ".left-behind"
"""Added to the name of a journal's copy left in a folder moved away mid-game (the game went on
in the box's own folder): no longer named like a journal, so no box offers that game again."""
HEADER_BYTES = 64 << 10
"""The most read to find a journal's header line."""


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
    return max(sequence(paths[-1]) if paths else 0, _last_sequence(directory)) + 1


LAST_GAME = ".last-game"
"""The highest game number (``sequence``) this box has given, beside the journals: a game whose
journal was lost (its header torn by a power cut, and removed) never has its number given again."""


def note_sequence(directory: Path, number: int) -> None:
    """Note that game ``number`` is starting, durably, before its journal is made."""
    write_whole(directory / LAST_GAME, f"{number}\n".encode())


def _last_sequence(directory: Path) -> int:
    try:
        text = read_text(directory / LAST_GAME, HEADER_BYTES, follow_symlinks=False).strip()
    except Unreadable:
        return 0
    return int(text) if text.isdigit() else 0


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


def marker(directory: Path, name: str) -> str | None:
    """The journal name a marker file (:data:`DISMISSED`, :data:`POSTPONED`) holds."""
    try:
        return read_text(directory / name, HEADER_BYTES, follow_symlinks=False).strip()
    except Unreadable:
        return None


def abandon(path: Path) -> Path:
    """Mark a journal's game as abandoned by the players, so it is never resumed. On a read-only
    directory it cannot be: logged (the game is offered again at the next start)."""
    target = path.with_name(path.name[: -len(".jsonl")] + ABANDONED)
    try:
        path.rename(target)
    except OSError as e:
        log.warning("%s: cannot be marked abandoned: %s", path.name, e.strerror or e)
        return path
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
