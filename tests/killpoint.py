"""A real box process that freezes at a chosen point of its game's journal, to be killed there.

    python tests/killpoint.py PROFILE SCRIPT JOURNAL_DIR SEED [LINES [EDGES [torn]]]

The daemon of PROFILE plays SCRIPT on gpiozero's mock pins on a fake clock (every edge at its
script time, whatever the machine's speed), so every run makes the same journal. Without LINES it
plays to the end and prints ``DONE``. With LINES it freezes at a point chosen by journal
progress: as soon as the journal's LINES-th line is fsync'd by the journal writer thread (within
the step that wrote it), or,
given EDGES, after the step in which EDGES more button edges have reached the table, which can
lie mid-race (a slap in, the race undecided) or mid-menu (a cursor moved, nothing confirmed).
With ``torn`` it freezes instead with only half of line LINES on disk, as a power cut mid-write
leaves it. Frozen, it prints ``FROZEN <lines on disk> <race|->``
(``race``: a slap waits for its race's decision) and waits on stdin for its kill.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import gpiozero.pins.mock

from companion.daemon import Daemon
from companion.record.saving import Saving, SavedJournal
from companion.profile import load_profile
from companion.script import load_script

from helpers import FakeClock, play_on_fake_clock


def freeze(lines: int, daemon: Daemon) -> None:
    game = daemon.table.game
    racing = getattr(game, "racing", False) and game.race.decision_due_ns is not None
    print(f"FROZEN {lines} {'race' if racing else '-'}", flush=True)
    sys.stdin.read()  # until killed (or the test is gone and stdin closes)
    os._exit(1)


def main(argv: list[str]) -> None:
    profile_path, script, journal_dir, seed = argv[:4]
    stop_lines = int(argv[4]) if len(argv) > 4 else None
    stop_edges = int(argv[5]) if len(argv) > 5 else 0
    torn = argv[6:] == ["torn"]
    clock = FakeClock()
    gpiozero.pins.mock.monotonic = clock.monotonic
    profile = load_profile(profile_path)
    daemon = Daemon(profile, Path(journal_dir), seed=int(seed))
    written = 0
    edges_after = 0

    def counting(write):
        """``write`` (a new game's journal begun with its header, or a game line handed to the
        journal writer thread), counted: at line LINES, once the thread has it on disk, freeze."""

        def counted_write(writer, line, *rest):
            nonlocal written
            made = write(writer, line, *rest)
            if isinstance(made, SavedJournal):  # a new game's journal, its header handed over
                writer = made
            written += 1
            if written != stop_lines:
                return made
            daemon.saving.wait()
            if torn:
                size = writer.path.stat().st_size
                length = len(writer.path.read_bytes().splitlines(keepends=True)[-1])
                os.truncate(writer.path, size - length // 2)
                freeze(written - 1, daemon)
            if stop_edges == 0:
                freeze(written, daemon)  # at once, even mid-step (the header and the first deal)
            return made

        return counted_write

    SavedJournal.write = counting(SavedJournal.write)
    Saving.begin = counting(Saving.begin)
    handle = daemon.table.handle

    def counted_handle(event) -> None:
        nonlocal edges_after
        before = written
        handle(event)
        if stop_lines is not None and before >= stop_lines:
            edges_after += 1

    daemon.table.handle = counted_handle
    step = daemon.step

    def step_then_maybe_freeze(now_ns: int) -> None:
        step(now_ns)
        if stop_edges and written >= stop_lines and edges_after >= stop_edges:
            freeze(written, daemon)

    daemon.step = step_then_maybe_freeze
    asyncio.run(play_on_fake_clock(daemon, load_script(script, len(profile.stations)), clock))
    daemon.close()
    print("DONE", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
