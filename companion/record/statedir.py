"""The state directory, where the journals live: who holds it, whether it can be written, and
whether what is written there survives a power cut.

One box program per state directory: two (two simulator windows on a laptop sharing
``~/.local/state/companion/games``) would both resume the same game and interleave their lines.
The first holds an exclusive lock (``fcntl.flock`` on :data:`LOCK` in the directory) for its
whole life; the kernel lets go of it when the process ends, however it ends, so a crash never
leaves a stale lock. A second is refused with :class:`StateInUse`, naming the holder.

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
    """Take ``directory``'s lock for this process's life: the lock file's descriptor (keep it
    open; closing it lets go). None if no lock file can be made there (a read-only directory,
    where nothing can be written either, or a full disk): logged. :class:`StateInUse` if another
    process holds it."""
    path = directory / LOCK
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
