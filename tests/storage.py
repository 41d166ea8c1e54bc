"""Helpers for the storage fault tests: a small real ext4 file system on a loop device (to fill,
freeze and remount read-only), and a real box process (tests/boxproc.py) driven from a test."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers import PATIENCE_S

ROOT = Path(__file__).parent.parent
BOXPROC = ROOT / "tests" / "boxproc.py"
DEMO_PROFILE = ROOT / "companion" / "demo" / "profile.toml"
DEMO_SCRIPT = ROOT / "companion" / "demo" / "paytoplay.txt"
POLL_S = 0.05
"""How often a test asks the box again while it waits for a condition (never a deadline)."""


def demo_taps() -> list[tuple[int, str]]:
    """The demo's Pay-to-Play game as taps (station from 1, key): six ``ok`` through the lobby,
    then the seed's worked game."""
    taps = []
    for line in DEMO_SCRIPT.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            taps.append((int(words[1]), words[2]))
    return taps


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True)


def small_disk(tmp_path: Path, megabytes: int = 8) -> Path:
    """A fresh ext4 file system of ``megabytes`` on a loop device, mounted; skips the test when
    this machine cannot (not root, no loop device, no mkfs.ext4)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a loop device (the CI runs as root)")
    if shutil.which("mkfs.ext4") is None or not os.path.exists("/dev/loop-control"):
        pytest.skip("needs mkfs.ext4 and loop devices")
    image = tmp_path / "disk.img"
    with open(image, "wb") as f:
        f.truncate(megabytes << 20)
    made = run("mkfs.ext4", "-q", "-F", "-m", "0", "-b", "1024", str(image))
    if made.returncode != 0:
        pytest.skip(f"mkfs.ext4 failed: {made.stderr.strip()}")
    mount = tmp_path / "mnt"
    mount.mkdir()
    mounted = run("mount", "-o", "loop", str(image), str(mount))
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a loop device here: {mounted.stderr.strip()}")
    return mount


def release_disk(mount: Path) -> None:
    """Thaw (if frozen) and unmount a :func:`small_disk`, whatever the test left it as."""
    if shutil.which("fsfreeze") is not None:
        run("fsfreeze", "--unfreeze", str(mount))
    run("umount", "-l", str(mount))


@contextlib.contextmanager
def frozen(mount: Path):
    """``mount`` frozen (fsfreeze: every write to it blocks) for the block, thawed after; skips
    the test where the file system cannot be frozen here."""
    if shutil.which("fsfreeze") is None:
        pytest.skip("needs fsfreeze (util-linux)")
    done = run("fsfreeze", "--freeze", str(mount))
    if done.returncode != 0:
        pytest.skip(f"cannot freeze a file system here: {done.stderr.strip()}")
    try:
        yield
    finally:
        run("fsfreeze", "--unfreeze", str(mount))


def fill(mount: Path) -> Path:
    """Fill the file system to its last block (ENOSPC for anyone); returns the filler to remove."""
    filler = mount / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (1 << 16, 1 << 10, 1):
            while True:
                try:
                    os.write(fd, b"\0" * size)
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
                    break
        os.fsync(fd)
    finally:
        os.close(fd)
    return filler


class BoxProcess:
    """tests/boxproc.py running on ``journal_dir``: commands in, lines out (see its docstring)."""

    def __init__(self, journal_dir: Path, profile: Path = DEMO_PROFILE, seed: int = 1,
                 env: dict[str, str] | None = None) -> None:
        environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        self.proc = subprocess.Popen([sys.executable, str(BOXPROC), str(profile), str(journal_dir), str(seed)],
                                     cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environ)
        self.said: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.expect("READY")

    def _read(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def expect(self, start: str) -> str:
        """The next line the box says that starts with ``start`` (every line is kept in :attr:`said`)."""
        end = time.monotonic() + PATIENCE_S
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"the box did not say {start!r} in {PATIENCE_S} s; it said: "
                                     + "\n".join(self.said[-20:])) from None
            if line is None:
                raise AssertionError(f"the box ended (code {self.proc.wait()}) before saying {start!r}: "
                                     + "\n".join(self.said[-20:]))
            self.said.append(line)
            if line.startswith(start):
                return line

    def send(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def tap(self, station: int, key: str) -> None:
        self.send(f"tap {station} {key}")
        self.expect("TAPPED")

    def notice(self) -> str:
        self.send("notice")
        return self.expect("NOTICE ")[len("NOTICE "):]

    def until_notice(self, wanted) -> str:
        """Ask for the notice until ``wanted(notice)`` holds; the notice then."""
        end = time.monotonic() + PATIENCE_S
        while True:
            notice = self.notice()
            if wanted(notice):
                return notice
            assert time.monotonic() < end, (f"the notice stayed {notice!r} for {PATIENCE_S} s; the box said: "
                                            + "\n".join(line for line in self.said[-40:] if line.startswith("LOG")))
            time.sleep(POLL_S)

    def snap(self, directory: Path) -> list[Path]:
        self.send(f"snap {directory}")
        self.expect("SNAPPED")
        return sorted(directory.glob("station-*.png"))

    def logged(self, text: str) -> bool:
        return any(line.startswith("LOG ") and text in line for line in self.said)

    def until_logged(self, text: str) -> None:
        """Wait for a log line holding ``text`` (one a thread of the box may still be writing)."""
        while not self.logged(text):
            self.expect("LOG ")

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except (BrokenPipeError, OSError):
                pass
        try:
            code = self.proc.wait(timeout=PATIENCE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self._reader.join(PATIENCE_S)
        while (line := self._lines.get_nowait() if not self._lines.empty() else None) is not None:
            self.said.append(line)
        self.proc.stdin.close()
        self.proc.stdout.close()
        return code


def until_saved(box: BoxProcess, directory: Path, lines: int) -> list[dict]:
    """Wait (asking the box, as :meth:`BoxProcess.until_notice` does) until the newest journal in
    ``directory`` holds ``lines`` lines: the writer thread saves them a little after the taps."""
    box.until_notice(lambda text: any(directory.glob("*.jsonl")) and len(journal_lines(directory)) >= lines)
    return journal_lines(directory)


def journal_lines(directory: Path) -> list[dict]:
    """The newest journal's lines in ``directory``, without ``t`` and ``crc``."""
    [path] = sorted(directory.glob("*.jsonl"))[-1:]
    return [{k: v for k, v in json.loads(line).items() if k not in ("t", "crc")}
            for line in path.read_text().splitlines()]
