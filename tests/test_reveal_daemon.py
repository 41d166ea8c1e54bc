"""A reveal through the real daemon, on luma panels behind a multiplexer on a timing-faithful
bus (``bench/busmodel.py``): Triangle's 0 is written to dark panels and shown at once, the "go"
sounds at the flip, and the race times each station from its panel's onset."""

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
from companion.inputs import InputEvent
from companion.profile import load_profile
from companion.table.lobby import StartGame
from companion.wiring import build_box

PROFILE = Path(__file__).parent.parent / "hardware" / "profiles" / "mock-3.toml"
MS = 1_000_000


def test_triangle_s_zero_is_revealed_at_once_and_a_slap_before_its_panel_lit_is_a_false_start(tmp_path):
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

    async def play():
        daemon = Daemon(profile, tmp_path, seed=1, adapters=real_panels)
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
            for station, reaction in ((0, 300), (1, 290)):
                daemon._on_edge(InputEvent(station, "slap", True, onsets[station] + reaction * MS, "gpio"))
            daemon.step(max(onsets) + 2000 * MS)
            assert game.claimer == 1
            assert [(p.station, p.delta_ns) for p in game.result.order] == [(1, 0), (0, 10 * MS)]
            assert [p.station for p in game.result.false_starts] == [2]
        finally:
            daemon.close()

    asyncio.run(play())
