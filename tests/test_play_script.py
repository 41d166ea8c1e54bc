"""Scripts drive the daemon from their first instant: a press at 0 s reaches the table."""

import asyncio
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
