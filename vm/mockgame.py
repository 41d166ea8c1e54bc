"""The guest's game again on the host's mock pins, on a simulated clock, at the kernel's edge times.

``python -m vm.mockgame SCRIPT JOURNALS``, with the product tree and its tests on PYTHONPATH.
SCRIPT holds the presses as the guest's kernel timed them (vm/game.py writes it from the
kernel's own stamps, read from its trace), so both games see the same presses at the same instants; the simulated
clock (tests/helpers.py's, as tests/test_triangle_daemon.py plays it) leaves no host scheduling in
the mock game, so what differs can only come from the guest's path.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import gpiozero.pins.mock

from companion.daemon import Daemon
from companion.profile import load_profile
from companion.script import load_script
from helpers import FakeClock, play_on_fake_clock

from vm.game import MOCK_PROFILE, SEED


def main(tree: Path, script: Path, journals: Path) -> None:
    clock = FakeClock()
    gpiozero.pins.mock.monotonic = clock.monotonic
    profile = load_profile(tree / MOCK_PROFILE)
    daemon = Daemon(profile, journals, seed=SEED)
    try:
        asyncio.run(play_on_fake_clock(daemon, load_script(script, len(profile.stations)), clock))
    finally:
        daemon.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
