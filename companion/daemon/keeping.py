"""Keeping the game saved: the state directory held, one journal opened per game, and the game
paused while its journal cannot be written.

Separate from the loop because it is one promise of its own (no decision is shown before it is on
disk, :mod:`companion.record.saving`) with its own faults (a full, read-only or vanished card) and
their notices; the loop only asks :meth:`Keeping._check_saving` at each step whether to pause.
"""

from __future__ import annotations

import errno
import logging
import os
import time
from dataclasses import replace
from pathlib import Path

from ..record.journal import Header, JournalWriter, sealed
from ..record.shelf import KEEP_JOURNALS, next_sequence, note_sequence, rotate
from ..record.saving import Saving, SavedJournal
from ..record.statedir import hold, in_ram, read_only

log = logging.getLogger(__name__)

RETRY_NS = 2_000_000_000
"""How often a journal write that failed (a full disk) is tried again while the game is paused."""
HARNESS_WAIT_S = 60.0
"""How long a daemon stepped by a harness of its own (a test on a fake clock, no loop between its
steps to wait in) waits for its journal lines at each step before showing anything."""
SLOW_SAVE_NS = 1_000_000_000
"""A line not yet on disk after this long (a stalled card) is said on the screens."""


def journal_opener(directory: Path, saving: Saving | None = None):
    """Opens one new journal file per game in ``directory``, named by start time and game and
    numbered by its header's ``sequence``, deleting the oldest finished games beyond what we keep.
    With ``saving``, the game's lines then go through its writer thread; an unsaved ``saving``
    (a read-only state directory) keeps them in memory and opens no file. The directory is made
    again for each game if it is gone (deleted mid-game), so the next game is never refused."""
    if saving is None or not saving.unsaved:
        directory.mkdir(parents=True, exist_ok=True)

    def open_journal(header: Header) -> JournalWriter | SavedJournal:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        header = replace(header, sequence=next_sequence(directory))
        if saving is not None and saving.unsaved:
            log.info("game started: %s, not saved (read-only state directory)", header.game)
            return saving.journal(None, directory / f"{stamp}-{header.game}.jsonl", [sealed(header.as_json()).encode()],
                                  header.sequence)
        path = directory / f"{stamp}-{header.game}.jsonl"
        n = 1
        while os.path.lexists(path):
            n += 1
            path = directory / f"{stamp}-{header.game}-{n}.jsonl"
        log.info("game started: %s (number %d on this box), journal %s", header.game, header.sequence, path)

        def prepare() -> None:
            """What must be on disk before the game's journal: its directory (made again if it is
            gone), the oldest finished games beyond what we keep removed, the game's number noted."""
            directory.mkdir(parents=True, exist_ok=True)
            rotate(directory, KEEP_JOURNALS - 1)
            note_sequence(directory, header.sequence)

        if saving is not None:  # the writes off the loop: a frozen card holds the game, not the loop
            return saving.begin(path, sealed(header.as_json()).encode(), prepare, header.sequence)
        prepare()
        return JournalWriter(path, header)

    return open_journal


def saving_notice(fault: OSError) -> tuple[str, str]:
    """What the screens say while the game is paused because its journal cannot be written:
    one station line, and the table screen's longer line."""
    if fault.errno in (errno.ENOSPC, errno.EDQUOT):
        return "DISK FULL: PAUSED", "DISK FULL: game paused, free space on the card"
    why = "read-only" if fault.errno == errno.EROFS else (fault.strerror or str(fault))
    return "CANNOT SAVE: PAUSED", f"CANNOT SAVE ({why}): game paused"


class Keeping:
    """The daemon's part that holds the state directory and watches the journal writer."""

    def _open_state(self, directory: Path) -> None:
        """Take the state directory (one program per directory, :mod:`companion.record.statedir`)
        and check it: read-only, the box plays unsaved; kept in RAM, it warns. Both are logged
        and said in the lobby."""
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            if e.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise
        self._state_dir = directory
        self._lock_fd = hold(directory) if directory.is_dir() else None
        unsaved = not directory.is_dir() or read_only(directory)
        if unsaved:
            log.warning("%s is read-only: games are played but not saved (no resume after a stop)", directory)
            self._tell("READ-ONLY: NOT SAVED", "storage", "read-only: games are not saved", cue=False)
        elif (kind := in_ram(directory)) is not None:
            log.warning("%s is kept in RAM (%s): games will not survive a power cut; keep the state "
                        "directory on a writable disk partition", directory, kind)
            self._tell("GAMES IN RAM ONLY", "storage", f"games are kept in RAM ({kind}): lost at a power cut",
                       cue=False)
        self.saving = Saving(self._saved, unsaved=unsaved)

    def _hold_again(self) -> None:
        """The state directory was made again (it vanished mid-game): its lock file went with the
        old one, so take the lock again in the new one."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
        try:
            self._lock_fd = hold(self._state_dir)
        except OSError as e:  # another program took the new directory meanwhile
            self._lock_fd = None
            log.error("%s: cannot hold the state directory again: %s", self._state_dir, e.strerror or e)

    def _saved(self) -> None:
        """Runs in the journal writer thread: lines are on disk, or writing failed or works again."""
        loop = getattr(self, "_loop", None)
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._wake.set)
        except RuntimeError:  # the loop has stopped
            pass

    def _check_saving(self, now_ns: int) -> bool:
        """How the journal writer is doing, said on the screens; True while writing fails (the
        game is paused, and the lines are tried again every :data:`RETRY_NS` on the loop's clock)."""
        saving = self.saving
        while saving.news:
            self._tell(saving.news.pop(0), "journal", "the journal's folder vanished: rewritten from memory")
            self._hold_again()
        fault = saving.fault
        if fault is not None:
            short, longer = saving_notice(fault)
            self._tell(short, "saving", longer)
            if self._retry_at_ns is None:
                self._retry_at_ns = now_ns + RETRY_NS
            elif now_ns >= self._retry_at_ns:
                self._retry_at_ns = now_ns + RETRY_NS
                saving.retry()
            return True
        self._retry_at_ns = None
        if not saving.pending:
            self._unsaved_since_ns = None
            self._tell(None, "saving")
        elif self._unsaved_since_ns is None:
            self._unsaved_since_ns = now_ns
        elif now_ns - self._unsaved_since_ns >= SLOW_SAVE_NS:
            self._tell("SAVING...", "saving", "Saving: the card is slow to write", cue=False)
        return False
