"""Scripts drive the daemon from their first instant: a press at 0 s reaches the table."""

import asyncio
import time
from pathlib import Path

from companion.daemon import Daemon
from companion.profile import load_profile
from companion.script import parse_script

MOCK_3 = Path(__file__).parent.parent / "hardware" / "profiles" / "mock-3.toml"


def test_a_press_at_the_very_start_of_a_script_is_taken(tmp_path):
    daemon = Daemon(load_profile(MOCK_3), tmp_path, seed=1)
    try:
        asyncio.run(daemon.play_script(parse_script("0 1 right", 3), speed=1, tail_s=0.01))
    finally:
        daemon.close()
    assert daemon.table.lobby.index == 1


def test_a_busy_loop_delays_a_script_but_never_squeezes_its_presses(tmp_path):
    daemon = Daemon(load_profile(MOCK_3), tmp_path, seed=1)
    seen = []
    handle = daemon.table.handle

    def slow_handle(event):
        if not seen:
            time.sleep(0.05)  # the loop is busy while the next presses fall due
        seen.append(event)
        handle(event)

    daemon.table.handle = slow_handle
    script = "0 1 right 0.006\n0.01 1 right 0.006\n0.02 1 right 0.006"
    try:
        asyncio.run(daemon.play_script(parse_script(script, 3), speed=1, tail_s=0.05))
    finally:
        daemon.close()
    presses = [e.t_ns for e in seen if e.pressed]
    assert len(presses) == 3
    assert all(b - a >= 10_000_000 for a, b in zip(presses, presses[1:]))
