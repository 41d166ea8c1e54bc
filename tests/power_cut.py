"""Random kills of a real box process: does every saved line survive, and does the game resume
to the state an uninterrupted run reached at that line?

    python -m tests.power_cut [--kills N] [--game paytoplay|triangle] [--seed S] [--json]

A child process runs the daemon on a script of presses on a fake clock (every run writes the
same journal, byte for byte) and says ``SAVED n`` each time the journal writer thread has its
first n lines on disk (fsync'd). The parent first runs it to the end, to know the whole journal
and how long the game takes; then, N times, starts it afresh and SIGKILLs it at a random moment
of the game (not at chosen points: anywhere in a step, a write or an fsync), and checks:

- the journal's complete lines are the first lines of the whole journal, and there are at least
  as many as the child said were saved (a *lost* line is one said saved and missing);
- a box started again on the directory (the real start-up: lock, torn-line cut, replay) offers
  the game in the state the uninterrupted game had after those lines (or shows its result, for
  a game that was over), and the file is then those lines exactly.

It prints the figures (kills, lines, losses, time) and exits 1 if a line was lost or a resume
differs. ``tests/test_power_cut.py`` runs a few kills in the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

DEMO = ROOT / "companion" / "demo"
PACE_S = 0.0005
"""Real time the child spends per step of 5 ms on its fake clock (ten times faster than a real
game): what it writes does not depend on it, only how the kills spread over the game."""
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"


def child(profile_path: str, script: str, journal_dir: str, seed: str) -> None:
    """The box: the script on a fake clock, ``SAVED n`` as lines reach the disk, ``GO`` as the
    game's presses begin, ``DONE`` at the end."""
    import gpiozero.pins.mock

    from companion.daemon import Daemon
    from companion.profile import load_profile
    from companion.record.saving import Saving
    from companion.script import load_script
    from helpers import FakeClock, play_on_fake_clock

    append, make = Saving._append, Saving._make

    def saved_append(saving, entry, lines) -> None:
        append(saving, entry, lines)
        print(f"SAVED {len(entry.lines)}", flush=True)

    def saved_make(saving, entry) -> None:
        make(saving, entry)
        print(f"SAVED {len(entry.lines)}", flush=True)  # the header, written and fsync'd at the game's start

    Saving._append, Saving._make = saved_append, saved_make
    clock = FakeClock()
    gpiozero.pins.mock.monotonic = clock.monotonic
    profile = load_profile(profile_path)
    daemon = Daemon(profile, Path(journal_dir), seed=int(seed))
    step = daemon.step

    def paced_step(now_ns: int) -> None:
        step(now_ns)
        time.sleep(PACE_S)  # the game spread over real time, for the kills to land all over it

    daemon.step = paced_step
    print("GO", flush=True)
    asyncio.run(play_on_fake_clock(daemon, load_script(script, len(profile.stations)), clock))
    daemon.close()
    print("DONE", flush=True)


class Run:
    """One child process, its ``SAVED`` count read as it goes."""

    def __init__(self, profile: Path, script: Path, directory: Path, seed: int) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.power_cut", "--child", str(profile), str(script),
                                      str(directory), str(seed)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.saved = 0
        self.saved_at: list[float] = []
        """When each ``SAVED`` came, in seconds after ``GO``."""
        self.go = threading.Event()
        self.header = threading.Event()
        """Set once the game's header is on disk: the game has begun."""
        self._go_at = 0.0
        self.done = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            word, _, n = line.strip().partition(" ")
            if word == "SAVED":
                self.saved = max(self.saved, int(n))
                self.saved_at.append(time.monotonic() - self._go_at)
                self.header.set()
            elif word == "GO":
                self._go_at = time.monotonic()
                self.go.set()
            elif word == "DONE":
                self.done = True
        self.go.set()
        self.header.set()

    def finish(self) -> None:
        self.proc.wait()
        self._reader.join()
        self.proc.stdout.close()


def game_setup(game: str, scratch: Path) -> tuple[Path, Path, int]:
    if game == "paytoplay":
        return DEMO / "profile.toml", DEMO / "paytoplay.txt", 1
    from test_recovery import triangle_script

    return MOCK3, triangle_script(scratch / "triangle.txt"), 8


def restart_state(profile: Path, directory: Path):
    """Start a box on ``directory`` as after a power cut: what it offers (a match) or shows."""
    from companion.daemon import Daemon
    from companion.profile import load_profile

    daemon = Daemon(load_profile(profile), directory)
    try:
        offer = daemon.table.offer
        game = daemon.table.game
        return offer.match if offer is not None else game.match if game is not None else None
    finally:
        daemon.close()


def attack(kills: int, game: str, seed: int, scratch: Path) -> dict:
    from companion.record.journal import replay

    profile, script, game_seed = game_setup(game, scratch)
    whole = Run(profile, script, scratch / "whole", game_seed)
    whole.finish()
    assert whole.done, "the uninterrupted run did not finish"
    game_s = whole.saved_at[-1] - whole.saved_at[0]  # the game, from its header to its last line
    [journal] = (scratch / "whole").glob("*.jsonl")
    full = journal.read_bytes().splitlines(keepends=True)
    rnd = random.Random(seed)
    figures = {"game": game, "kills": 0, "lines_in_game": len(full), "lines_checked": 0, "lines_lost": 0,
               "torn_tails": 0, "resumes_checked": 0, "resumes_different": 0, "killed_before_a_game": 0,
               "finished_before_the_kill": 0, "game_s": round(game_s, 3)}
    started = time.monotonic()
    for n in range(kills):
        directory = scratch / f"kill{n}"
        run = Run(profile, script, directory, game_seed)
        run.header.wait()
        time.sleep(rnd.uniform(0, game_s * 1.05))  # a random moment of the game
        run.proc.send_signal(signal.SIGKILL)
        run.finish()
        figures["kills"] += 1
        figures["finished_before_the_kill"] += run.done
        found = list(directory.glob("*.jsonl"))
        if not found:
            figures["killed_before_a_game"] += 1
            continue
        data = found[0].read_bytes()
        lines = data.splitlines(keepends=True)
        if lines and not lines[-1].endswith(b"\n"):
            figures["torn_tails"] += 1
            lines.pop()
        figures["lines_checked"] += len(lines)
        if lines != full[:len(lines)]:
            raise SystemExit(f"kill {n}: the journal on disk is not the start of the uninterrupted one")
        figures["lines_lost"] += max(0, run.saved - len(lines))
        match = restart_state(profile, directory)
        expected = replay(full[:len(lines)])[1] if lines else None
        figures["resumes_checked"] += 1
        if expected is None:
            same = match is None
        elif match is None:  # only a game over whose result the players had left
            dismissed = directory / ".dismissed"
            same = (expected.outcome is not None and dismissed.exists()
                    and dismissed.read_text().strip() == found[0].name)
        else:
            same = match.state == expected.state
        figures["resumes_different"] += not same
        if lines and found[0].exists() and found[0].read_bytes() != b"".join(lines):
            raise SystemExit(f"kill {n}: the restart did not cut the journal to its complete lines")
    figures["seconds"] = round(time.monotonic() - started, 1)
    return figures


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(*argv[1:])
        return 0
    parser = argparse.ArgumentParser(prog="python -m tests.power_cut", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100, help="how many times to kill the box (default 100)")
    parser.add_argument("--game", choices=("paytoplay", "triangle"), default="paytoplay")
    parser.add_argument("--seed", type=int, default=1, help="seeds the kill moments")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="power-cut-") as scratch:
        figures = attack(args.kills, args.game, args.seed, Path(scratch))
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 1 if figures["lines_lost"] or figures["resumes_different"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
