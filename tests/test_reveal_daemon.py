"""A reveal through the real daemon, on luma panels behind a multiplexer on a timing-faithful
bus (``bench/busmodel.py``): Triangle's 0 (and the closest game's question) is written to dark
panels and shown at once, the "go" sounds at the flip, and the race times each station from its
panel's onset."""

import asyncio
import threading
from pathlib import Path

from luma.core.interface.serial import i2c

from bench.busmodel import FakeClock, TimedBus
from companion.adapters.displays import DisplayWriter
from companion.adapters.framepack import FastSSD1306
from companion.adapters.mux import MuxChannel
from companion.daemon import Daemon
from companion.games import get
from companion.arbiter.inputs import InputEvent
from companion.profile import load_profile
from companion.table.lobby import StartGame
from companion.wiring import build_box

PROFILE = Path(__file__).parent.parent / "hardware" / "profiles" / "mock-3.toml"
MS = 1_000_000


def daemon_on_real_panels(tmp_path):
    """A daemon of mock-3 whose three panels are luma devices behind a mux on a timed bus: (the
    daemon, the bus)."""
    profile = load_profile(PROFILE)
    bus = TimedBus(400_000, FakeClock(10**12))
    lock = threading.Lock()

    def real_panels(on_edge):
        box = build_box(profile, on_edge)
        box.displays.close()
        panels = [FastSSD1306(i2c(bus=MuxChannel(bus, ch, lock), address=0x3C)) for ch in range(3)]
        box.displays = DisplayWriter(panels, now_ns=bus.clock.now_ns)
        box.screens_take_time = True
        return box

    return Daemon(profile, tmp_path, seed=1, adapters=real_panels), bus


def test_triangle_s_zero_is_revealed_at_once_and_a_slap_before_its_panel_lit_is_a_false_start(tmp_path):
    daemon, bus = daemon_on_real_panels(tmp_path)

    async def play():
        played = daemon.box.buzzer.played
        try:
            t = bus.clock.ns
            daemon.table.start(StartGame(get("triangle"), {}), t)
            game = daemon.table.game
            daemon.step(t)
            for n in (1, 2, 3):
                assert daemon.box.displays.flush()
                t = game.round_start_ns + n * game.step_ns
                bus.clock.wait_until(t)
                daemon.step(t)
            assert game.count == 0 and played[-1] == "tick"      # no "go" before the screens
            opens = game.opens_ns
            daemon._on_edge(InputEvent(2, "slap", True, opens + 10 * MS, "gpio"))  # panels dark
            assert daemon.box.displays.flush()
            daemon.step(bus.clock.ns)
            assert played[-1] == "go"
            onsets = [bus.panel(0x3C, ch).shown_at(opens) for ch in range(3)]
            assert game.race.onsets == dict(enumerate(onsets))
            assert min(onsets) - opens > 3 * 26 * MS                # three frames written first
            assert max(onsets) - min(onsets) < 1 * MS
            # Cy's slap in the dark does not count, and his panel says why once it shows the race
            assert game.race.early(2) == "false_start" and game.view(2).status == "Too early!"
            assert game.view(0).status == "Slap to speak!"
            for station, reaction in ((0, 300), (1, 285)):
                daemon._on_edge(InputEvent(station, "slap", True, onsets[station] + reaction * MS, "gpio"))
            daemon.step(max(onsets) + 2000 * MS)
            assert game.claimer == 1
            assert [(p.station, p.delta_ns) for p in game.result.order] == [(1, 0), (0, 15 * MS)]
            assert [p.station for p in game.result.false_starts] == [2]
        finally:
            daemon.close()

    asyncio.run(play())


def test_the_closest_question_is_revealed_and_an_answer_before_its_panel_lit_puts_nobody_out(tmp_path):
    from companion.table.closest import ANSWER_KEYS

    daemon, bus = daemon_on_real_panels(tmp_path)

    async def play():
        try:
            t = bus.clock.ns
            daemon.table.start(StartGame(get("closest"), {}), t)
            game = daemon.table.game
            opens = game.race.opens_at_ns
            right = ANSWER_KEYS[game.answers.index(17 * 34)]
            wrong = next(k for k in ANSWER_KEYS if k != right)
            daemon._on_edge(InputEvent(2, wrong, True, opens + 10 * MS, "gpio"))     # panels dark
            daemon._on_edge(InputEvent(2, wrong, False, opens + 40 * MS, "gpio"))
            daemon.step(t)
            assert daemon.box.displays.flush()
            daemon.step(bus.clock.ns)
            onsets = [bus.panel(0x3C, ch).shown_at(opens) for ch in range(3)]
            assert game.race.onsets == dict(enumerate(onsets)) and min(onsets) > opens + 40 * MS
            assert not game.out and "wrong" not in daemon.box.buzzer.played
            assert game.view(2).prompt == "Too early!" and game.view(0).prompt == "First right answer"
            daemon._on_edge(InputEvent(2, right, True, onsets[2] + 400 * MS, "gpio"))
            daemon.step(onsets[2] + 2000 * MS)
            assert game.state.starter == 2                     # Cy's answer once he saw it counts
        finally:
            daemon.close()

    asyncio.run(play())
