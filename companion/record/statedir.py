"""The state directory, where the journals live: who holds it, whether it can be written, and
whether what is written there survives a power cut.

One box program per state directory: two (two simulator windows on a laptop sharing
``~/.local/state/companion/games``) would both resume the same game and interleave their lines.
The first holds an exclusive lock (``fcntl.flock``) for its whole life; the kernel lets go of it
when the process ends, however it ends, so a crash never leaves a stale lock. A second is refused
with :class:`StateInUse`, naming the holder.

The lock is taken twice, because a folder can be deleted or moved from under a running box.
:func:`hold_beside` locks a file beside the directory, in its parent (``.games.lock`` for
``games``): deleting the folder and making it again leaves that file alone, so a second box on the
folder made again is still refused. :func:`hold` locks :data:`LOCK` inside it: a folder moved
away mid-game takes that lock with it, still held, so no box can open the moved copy while the
first one plays on (and the copy left there is set aside, :mod:`companion.record.saving`). A
lock is taken again, in the folder made again, before each game and whenever the folder is
rewritten; a lock already held is never let go before the box stops.

A read-only directory (Raspberry Pi OS remounts the root read-only after an SD card error) is
found at start: the box then plays without saving and says so. A directory on a file system
kept in RAM (tmpfs, or the overlay file system raspi-config offers to protect the card, whose
writes go to RAM) loses every journal at a power cut: the box warns at start.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import sys
import threading
import time
from pathlib import Path

log = logging.getLogger(__name__)

LOCK = ".lock"
"""The lock file in the journal directory; it also says who holds it (JSON: pid, command, since)."""
IN_RAM = ("tmpfs", "ramfs")
"""File systems kept in memory: their files are gone after a power cut."""


class StateInUse(OSError):
    """Another box program holds the state directory. An OSError, so the commands that open a
    state directory report it as they report any other (exit 2)."""


def hold(directory: Path) -> int | None:
    """Take the lock inside ``directory`` for this process's life: the lock file's descriptor
    (keep it open; closing it lets go). None if no lock file can be made there (a read-only
    directory, where nothing can be written either, or a full disk): logged. :class:`StateInUse`
    if another process holds it."""
    return _lock(directory / LOCK, directory)


def beside(directory: Path) -> Path:
    """The lock file beside ``directory``, in its parent: ``.games.lock`` for ``games``."""
    return directory.parent / f".{directory.name}.lock"


def hold_beside(directory: Path) -> int | None:
    """Take the lock beside ``directory`` (:func:`beside`), which survives the directory being
    deleted and made again; as :func:`hold` otherwise."""
    return _lock(beside(directory), directory)


def still_held(fd: int, path: Path) -> bool:
    """Whether the lock file open as ``fd`` is still the one at ``path`` (not deleted, not
    replaced by a folder made again or moved in)."""
    try:
        there, mine = os.stat(path, follow_symlinks=False), os.fstat(fd)
    except OSError:
        return False
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


def _lock(path: Path, directory: Path) -> int | None:
    flags = os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | flags, 0o644)
    except OSError as e:
        try:
            fd = os.open(path, os.O_RDONLY | flags)  # a lock can be taken on a file opened to read
        except OSError:
            log.warning("%s: no lock file (%s): another box program on this directory is not kept out",
                        directory, e.strerror or e)
            return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        holder = _holder(fd)
        os.close(fd)
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise
        raise StateInUse(errno.EBUSY, f"in use by another companion program ({holder}): one program "
                                      "per state directory; stop it first or give this one another "
                                      "--journal-dir") from None
    me = {"pid": os.getpid(), "command": " ".join(sys.argv) or sys.executable,
          "since": time.strftime("%Y-%m-%d %H:%M:%S")}
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(me) + "\n").encode(), 0)
    except OSError:
        pass  # read-only or full: the lock holds all the same, only the holder's name is missing
    return fd


def _holder(fd: int) -> str:
    """Who holds the lock, as its file says: ``pid 123, companion run ..., since ...``."""
    try:
        found = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return f"pid {found['pid']}, {found['command']}, since {found['since']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that did not say who it is"


class FolderLocks:
    """The locks one box holds on its journal folder (module docstring): taken at its start,
    taken again wherever they are no longer its own (before each game, after the folder was made
    again), all let go when it stops. Used from the loop and the journal writer thread alike."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._fds: list[int] = []
        self._unlockable: set[Path] = set()  # no lock file could be made there: said once
        self._guard = threading.Lock()

    def take(self) -> None:
        """Take each lock not held at its place now; :class:`StateInUse` if another program
        holds one (it took the folder made again first). Locks held already are kept, even
        those of a folder deleted or moved away."""
        with self._guard:
            for path, take in ((beside(self.directory), hold_beside), (self.directory / LOCK, hold)):
                if path in self._unlockable or any(still_held(fd, path) for fd in self._fds):
                    continue
                if take is hold and not self.directory.is_dir():
                    continue  # a folder deleted: its lock is taken once it is made again
                fd = take(self.directory)
                if fd is None:
                    self._unlockable.add(path)
                else:
                    self._fds.append(fd)

    def release(self) -> None:
        with self._guard:
            for fd in self._fds:
                os.close(fd)
            self._fds.clear()


def read_only(directory: Path) -> bool:
    """True if nothing can be written in ``directory`` (a read-only file system or no permission)."""
    return directory.is_dir() and not os.access(directory, os.W_OK)


def in_ram(directory: Path) -> str | None:
    """The file system ``directory`` is on, if it is kept in RAM (tmpfs, ramfs, or an overlay
    whose upper layer is one, as raspi-config's overlay file system): None if it is on a disk or
    cannot be told. Read from ``/proc/self/mountinfo``, matched by device number."""
    try:
        mounts = _mounts()
        kind, options = mounts.get(os.stat(directory).st_dev, (None, ""))
    except OSError:
        return None
    if kind in IN_RAM:
        return kind
    if kind == "overlay":
        upper = next((o[len("upperdir="):] for o in options.split(",") if o.startswith("upperdir=")), None)
        try:
            below = mounts.get(os.stat(upper).st_dev, (None, ""))[0] if upper else None
        except OSError:
            below = None
        if below in IN_RAM:
            return f"overlay on {below}"
    return None


def _mounts() -> dict[int, tuple[str, str]]:
    """Each mounted file system's type and super options, by device number."""
    found = {}
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) < 3 or len(tail) < 3:
                continue
            major, _, minor = fields[2].partition(":")
            found[os.makedev(int(major), int(minor))] = (tail[0], tail[2])
    return found
