"""Saving a game's journal off the event loop: a writer thread does every append and fsync.

The promise stays "journaled before shown": the loop hands each line to :class:`Saving` and
goes on turning (timers, the watchdog's ping, the display writer's retries), but shows nothing
and plays no cue while a line is not yet on disk (:attr:`Saving.pending`). A storage stall (a
frozen or slow card) then delays what the players see, never the loop itself.

A write or fsync that fails (a full disk, an I/O error, a file system turned read-only) loses
nothing: the lines stay queued in memory, in order, the part of a line that may have reached the
file is cut off again, and :attr:`Saving.fault` says what went wrong until a retry (asked by the
loop on its own clock, :meth:`Saving.retry`) writes them. The daemon pauses the game meanwhile.

The thread also watches each open journal: if its file is deleted or its directory removed or
renamed mid-game, the directory is made again and the journal rewritten from the lines kept in
memory (every line of the game so far), so a game never goes on writing into a deleted file.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .journal import JournalWriter, sealed

log = logging.getLogger(__name__)

WATCH_S = 0.5
"""How often the writer thread checks that every open journal is still where it was written."""


@dataclass
class _Open:
    """One game's journal as the writer thread keeps it."""

    path: Path
    fd: int | None
    lines: list[bytes]
    """Every line of the game so far that reached the file (the header first): what a journal
    whose file vanished is rewritten from."""
    queue: deque[bytes] = field(default_factory=deque)
    closing: bool = False
    prepare: Callable[[], None] | None = None
    """For a game whose journal is still to be made (:meth:`Saving.begin`): what must be on disk
    before it (old journals rotated, the game's number noted); None once the file is made."""


class Saving:
    """The daemon's journal writer thread and the lines it has still to write.

    ``wake`` is called (from the thread) whenever lines became durable or writing failed or
    recovered: the daemon's loop then steps. ``unsaved`` (a read-only state directory) keeps
    each game's lines in memory only: nothing is written, nothing waits."""

    def __init__(self, wake: Callable[[], None] = lambda: None, unsaved: bool = False) -> None:
        self.wake = wake
        self.unsaved = unsaved
        self.fault: OSError | None = None
        """Why the last write failed, until a retry succeeds: the game is paused meanwhile."""
        self.news: list[str] = []
        """What the thread has to tell the players and the log once (a journal rewritten)."""
        self._open: list[_Open] = []
        self._lock = threading.Condition()
        self._retry = False
        self._stopping = False
        self._busy = False
        self._thread: threading.Thread | None = None
        if not unsaved:
            self._thread = threading.Thread(target=self._run, name="journal writer", daemon=True)
            self._thread.start()

    # --- the loop's side ------------------------------------------------------------------------

    def journal(self, writer: JournalWriter | None, path: Path, lines: list[bytes],
                sequence: int | None = None) -> "SavedJournal":
        """Take over an open journal (its header and ``lines`` already on disk) of game number
        ``sequence``: from now on its lines go through the thread. ``writer`` None: an unsaved
        game (read-only state)."""
        fd = None
        if writer is not None:
            fd = os.dup(writer.fileno())
            writer.close()
        entry = _Open(Path(path), fd, [line if line.endswith(b"\n") else line + b"\n" for line in lines])
        with self._lock:
            self._open.append(entry)
        return SavedJournal(self, entry, sequence)

    def begin(self, path: Path, header: bytes, prepare: Callable[[], None],
              sequence: int | None = None) -> "SavedJournal":
        """A new game's journal, made by the thread: ``prepare`` (disk work that must come first),
        then the file with ``header`` as its first line. Nothing of it runs on the loop, so a card
        frozen or full at a game's start delays or pauses that game like any later line, and never
        holds the loop past its watchdog. Until the header is durable the game shows nothing."""
        entry = _Open(Path(path), None, [], prepare=prepare)
        entry.queue.append(header if header.endswith(b"\n") else header + b"\n")
        with self._lock:
            self._open.append(entry)
            self._lock.notify()
        return SavedJournal(self, entry, sequence)

    @property
    def pending(self) -> bool:
        """True while a line handed over is not yet durable: nothing may be shown meanwhile."""
        with self._lock:
            return self._busy or any(entry.queue for entry in self._open)

    def retry(self) -> None:
        """Try the lines that could not be written again (the loop's retry timer)."""
        with self._lock:
            self._retry = True
            self._lock.notify()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until nothing is pending or writing has failed; True if nothing is pending.
        For a harness on a fake clock, which steps the daemon only once its lines are durable."""
        with self._lock:
            self._lock.wait_for(lambda: self.fault is not None or not self._pending_locked(), timeout_s)
            return not self._pending_locked()

    def close(self, timeout_s: float = 5.0) -> None:
        """Write what is still queued (if the disk lets it, within ``timeout_s``), then stop."""
        with self._lock:
            self._stopping = True
            self._retry = True
            self._lock.notify()
        if self._thread is not None:
            self._thread.join(timeout_s)
        with self._lock:
            for entry in self._open:
                if entry.queue:
                    log.error("%s: %d journal lines could not be written before stopping: %s",
                              entry.path.name, len(entry.queue), self.fault)
                if entry.fd is not None:
                    os.close(entry.fd)
                    entry.fd = None
            self._open.clear()

    def _pending_locked(self) -> bool:
        return self._busy or any(entry.queue for entry in self._open)

    def _put(self, entry: _Open, text: bytes) -> None:
        if self.unsaved:
            entry.lines.append(text)
            return
        with self._lock:
            entry.queue.append(text)
            self._lock.notify()

    def _close(self, entry: _Open) -> None:
        with self._lock:
            entry.closing = True
            self._lock.notify()
        if self.unsaved:
            with self._lock:
                self._open.remove(entry)

    # --- the thread's side ----------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(self._has_work, WATCH_S)
                if self._stopping and (self.fault is not None or not self._pending_locked()) and not self._retry:
                    return
                stopping = self._stopping
                if self.fault is not None and not self._retry:
                    continue  # paused: wait for the loop's retry
                self._retry = False
                work = [(entry, list(entry.queue)) for entry in self._open]
                self._busy = any(lines for _, lines in work)
            changed = self._write_all(work)
            with self._lock:
                self._busy = False
                done = [e for e in self._open if e.closing and not e.queue]
                self._open = [e for e in self._open if e not in done]
                self._lock.notify_all()
            for entry in done:
                if entry.fd is not None:
                    os.close(entry.fd)
            if changed:
                self.wake()
            if stopping and (self.fault is not None or not self.pending):
                return

    def _has_work(self) -> bool:
        if self._retry or self._stopping:
            return True
        if self.fault is not None:
            return False
        return any(entry.queue or entry.closing for entry in self._open)

    def _write_all(self, work: list[tuple[_Open, list[bytes]]]) -> bool:
        """Write each journal's queued lines; True if the loop should hear of it."""
        was_fault = self.fault
        try:
            changed = False
            for entry, lines in work:
                if entry.prepare is not None:
                    self._make(entry)
                    lines = lines[1:]
                    changed = True
                elif not entry.closing:
                    changed = self._watch(entry) or changed
                if lines:
                    self._append(entry, lines)
                    changed = True
        except OSError as e:
            with self._lock:
                self.fault = e
            if was_fault is None or was_fault.errno != e.errno:
                log.error("cannot save the game's journal: %s: the game is paused until it can",
                          e.strerror or e)
            return True
        if was_fault is not None:
            with self._lock:
                self.fault = None
            log.warning("saving again: the journal is written, the game goes on")
            return True
        return changed

    def _append(self, entry: _Open, lines: list[bytes]) -> None:
        """Write and fsync ``lines`` at the end of the journal; on failure, cut off whatever part
        of them reached the file (the next try writes them whole) and raise."""
        good = os.fstat(entry.fd).st_size
        try:
            _write_whole(entry.fd, b"".join(lines))
            os.fsync(entry.fd)
        except OSError:
            try:
                os.ftruncate(entry.fd, good)
            except OSError:
                pass  # a torn tail is cut by the next resume, as after a power cut
            raise
        with self._lock:
            for _ in lines:
                entry.queue.popleft()
            entry.lines.extend(lines)

    def _make(self, entry: _Open) -> None:
        """Make a new game's journal: its ``prepare`` step, then the file holding the header
        (the first queued line), synced with its directory. Raises OSError with no file left
        behind (a full disk): the game pauses and this is tried again, ``prepare`` included."""
        entry.prepare()
        header = entry.queue[0]
        stem, n = entry.path.stem, 1
        while True:
            try:
                fd = _new_file(entry.path, header)
                break
            except FileExistsError:  # a game started in the same second: number this one
                n += 1
                entry.path = entry.path.with_name(f"{stem}-{n}.jsonl")
        with self._lock:
            entry.fd, entry.prepare = fd, None
            entry.queue.popleft()
            entry.lines.append(header)

    def _watch(self, entry: _Open) -> bool:
        """If the journal's file is no longer at its path (deleted, or its directory removed or
        renamed), make the directory again and rewrite the journal there from memory; True if
        it had to be. Raises OSError if that fails (the game pauses and it is retried)."""
        if entry.fd is not None:
            mine = os.fstat(entry.fd)
            try:
                there = os.stat(entry.path)
                if (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino) and mine.st_nlink > 0:
                    return False
            except FileNotFoundError:
                pass
            with self._lock:
                if entry.closing:  # closed meanwhile, then renamed (abandoned): not vanished
                    return False
            log.error("%s: the journal vanished (its file or directory was deleted or moved) with %d "
                      "lines written: rewriting it from memory", entry.path.name, len(entry.lines))
            os.close(entry.fd)
            entry.fd = None
        data = b"".join(entry.lines)
        try:
            fd = _new_file(entry.path, data)
        except FileExistsError:  # something else took its name: keep both
            entry.path = entry.path.with_name(entry.path.stem + "-rewritten.jsonl")
            fd = _new_file(entry.path, data)
        entry.fd = fd
        log.warning("%s: rewritten with its %d lines", entry.path, len(entry.lines))
        with self._lock:
            self.news.append("JOURNAL REWRITTEN")
        return True


def _write_whole(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (one ``os.write`` may take only part of it)."""
    written = 0
    while written < len(data):
        written += os.write(fd, data[written:])


def _new_file(path: Path, data: bytes) -> int:
    """Make ``path`` holding ``data``, fsync'd with its directory (made if gone); its fd, open
    to append. Never over an existing file (``FileExistsError``: the caller picks another
    name). On any other failure the file is removed again and the error raised, so no empty or
    partial journal is left behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, 0o644)
    try:
        _write_whole(fd, data)
        os.fsync(fd)
        _sync_directory(path.parent)
    except OSError:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
    return fd


def _sync_directory(directory: Path) -> None:
    """fsync a directory, so a file just made in it survives a power cut."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno != errno.EINVAL:
            raise
    finally:
        os.close(fd)


class SavedJournal:
    """One game's journal as the table sees it: ``write`` hands a line to the writer thread and
    returns at once (the daemon shows nothing until it is durable)."""

    def __init__(self, saving: Saving, entry: _Open, sequence: int | None = None) -> None:
        self._saving = saving
        self._entry = entry
        self.sequence = sequence
        """The game's number on this box (its header's ``sequence``), as :attr:`JournalWriter.sequence`."""
        self.lines = len(entry.lines) + len(entry.queue)
        """How many lines the journal holds, handed over ones included (a new game's header is
        still queued when its table starts): the number of the line written last, which an
        ``undo`` names (as :attr:`JournalWriter.lines`)."""

    @property
    def path(self) -> Path:
        return self._entry.path

    def write(self, line: dict[str, Any]) -> int:
        """Hand ``line`` over; the number of the line it will be in the file."""
        self._saving._put(self._entry, (sealed(line) + "\n").encode("utf-8"))
        self.lines += 1
        return self.lines

    def close(self) -> None:
        """No more lines: the thread writes what is queued and closes the file."""
        self._saving._close(self._entry)
