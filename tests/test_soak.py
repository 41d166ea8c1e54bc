"""Soak: thousands of random presses on mock pins at full speed, the daemon "killed" (dropped
without any clean-up, sometimes mid-write) and restarted at random points. Every journal must
replay to exactly the state the live daemon held."""

import asyncio
import os
import random
from dataclasses import replace
from pathlib import Path

from companion.daemon import Daemon
from companion.record.journal import replay
from companion.profile import Timing, load_profile

ROOT = Path(__file__).parent.parent


async def press_randomly(daemon: Daemon, rnd: random.Random, presses: int) -> None:
    """Drive the mock pins directly; with no debounce, presses can follow each other at once."""
    stop = asyncio.Event()
    runner = asyncio.ensure_future(daemon.run(stop))
    for _ in range(presses):
        station = rnd.randrange(3)
        key = rnd.choice(("ok", "ok", "ok", "left", "right", "right", "slap"))
        pin = daemon.box.pin(station, key)
        pin.drive_low()
        await asyncio.sleep(0)
        pin.drive_high()
        await asyncio.sleep(0)
    stop.set()
    await runner


def test_random_presses_with_kills_and_restarts_never_lose_an_action(tmp_path):
    profile = load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml")
    profile = replace(profile, timing=Timing(debounce_ms=0.0))
    rnd = random.Random(21)
    live_states = {}
    resumed = 0
    for life in range(8):
        daemon = Daemon(profile, tmp_path, seed=life)
        resumed += daemon.table.offer is not None  # offered; the random presses answer it
        asyncio.run(press_randomly(daemon, rnd, 400))
        daemon.saving.wait()  # what the loop would have waited for before showing the last state
        game = daemon.table.game
        if game is not None:
            live_states[game.journal.path.name] = game.match.state
            if life % 3 == 1:  # killed in the middle of writing a line
                with open(game.journal.path, "ab") as f:
                    f.write(b'{"type": "action", "action": "pl')
        daemon.box.close()  # only the mock pins are released, so the next life can use them,
        daemon.saving.close()  # and what a kill ends: the journal writer thread and the
        daemon._locks.release()  # state directory's locks, which the kernel lets go of
    journals = sorted(tmp_path.glob("*.jsonl"))
    assert resumed >= 3, "several lives should have started by resuming a game"
    checked = 0
    for path in journals:
        lines = path.read_bytes().splitlines()
        if not path.read_bytes().endswith(b"\n"):
            lines = lines[:-1]  # the torn line of the last life, which no restart has cut yet
        header, match = replay(lines)
        if path.name in live_states and match.outcome is None:
            assert match.state == live_states[path.name], path.name
            checked += 1
    assert checked >= 1
