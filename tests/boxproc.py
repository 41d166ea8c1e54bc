"""A real box process on its own event loop, its buttons pressed from stdin, to be attacked from
outside (a full disk, a frozen file system, a vanished directory, signals).

    python tests/boxproc.py PROFILE JOURNAL_DIR SEED

The daemon of PROFILE (mock pins, dummy displays) runs as the service does (``Daemon.serve``:
SIGTERM, SIGINT and SIGHUP stop it); its log lines go to stdout as ``LOG LEVEL message``. Once its
loop turns (and its GPIO reader process, if it has one, reads the buttons) it prints ``READY``. Commands, one a line on stdin, each answered on stdout:

- ``tap STATION KEY``: press a key (station from 1) for 80 ms; ``TAPPED T`` once it is released,
  ``T`` the monotonic ns it went down at (the press's truth, for a race timed against a phone).
- ``notice``: ``NOTICE text`` for the notice every screen shows now, ``NOTICE -`` for none.
- ``snap DIR``: every station's screen as shown now, as PNGs in DIR; ``SNAPPED``.
- ``quit``: stop; ``DONE`` once stopped.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

from companion.daemon import Daemon
from companion.profile import load_profile

HOLD_S = 0.08


class StdoutLog(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        say(f"LOG {record.levelname} {record.getMessage()}")


SAYING = threading.Lock()


def say(text: str) -> None:
    """One whole line: log records come from the box's threads too (the journal writer, the
    displays), and ``print`` writes a text and its newline apart, so two lines could run together."""
    with SAYING:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def command(daemon: Daemon, line: str) -> None:
    loop = asyncio.get_running_loop()
    words = line.split()
    if not words:
        return
    if words[0] == "tap":
        station, key = int(words[1]) - 1, words[2]
        down_ns = time.monotonic_ns()
        daemon.box.drive(station, key, True)

        def release() -> None:
            daemon.box.drive(station, key, False)
            loop.call_later(HOLD_S, say, f"TAPPED {down_ns}")

        loop.call_later(HOLD_S, release)
    elif words[0] == "notice":
        say(f"NOTICE {daemon.notice or '-'}")
    elif words[0] == "snap":
        daemon.snapshots(Path(words[1]))
        say("SNAPPED")
    elif words[0] == "quit":
        os.kill(os.getpid(), signal.SIGTERM)  # as systemd stops the service


async def main(argv: list[str]) -> None:
    profile_path, journal_dir, seed = argv
    logging.getLogger().addHandler(StdoutLog())
    logging.getLogger().setLevel(logging.INFO)
    daemon = Daemon(load_profile(profile_path), Path(journal_dir), seed=int(seed))
    loop = asyncio.get_running_loop()

    def read() -> None:
        line = sys.stdin.readline()
        if not line:  # the test is gone
            loop.remove_reader(sys.stdin.fileno())
            os.kill(os.getpid(), signal.SIGTERM)
            return
        command(daemon, line)

    def ready() -> None:
        """Once the loop turns and, with a GPIO reader process, that has claimed the buttons (its
        first watermark): a tap before that would be driven on pins nobody reads yet."""
        if daemon.gpio_session is not None and not daemon.gpio_session.reading:
            loop.call_later(0.02, ready)
        else:
            say("READY")

    loop.add_reader(sys.stdin.fileno(), read)
    loop.call_soon(ready)
    try:
        await daemon.serve()
    finally:
        daemon.close()
    say("DONE")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
