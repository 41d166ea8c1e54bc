"""A reveal through the real daemon, on luma panels behind a multiplexer on a timing-faithful
bus (``bench/busmodel.py``): Triangle's 0 (and the closest game's question) is written to dark
panels and shown at once, the "go" sounds at the flip, and the race times each station from its
panel's onset."""

import asyncio
import threading
from pathlib import Path

import pytest

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


def plain_writer(box, panels, now_ns):
    return DisplayWriter(panels, now_ns=now_ns)


def daemon_on_real_panels(tmp_path, profile=None, revealed=None, writer=plain_writer):
    """A daemon of ``profile`` (mock-3) whose three panels are luma devices behind a mux on a
    timed bus, written by ``writer(box, panels, now_ns)`` (a display writer stamping on the
    bus's clock), every reveal's frames appended to ``revealed`` if given: (the daemon, the bus)."""
    profile = profile or load_profile(PROFILE)
    bus = TimedBus(400_000, FakeClock(10**12))
    lock = threading.Lock()

    def real_panels(on_edge):
        box = build_box(profile, on_edge)
        box.displays.close()
        panels = [FastSSD1306(i2c(bus=MuxChannel(bus, ch, lock), address=0x3C)) for ch in range(3)]
        box.displays = writer(box, panels, bus.clock.now_ns)
        if revealed is not None:
            reveal = box.displays.reveal
            box.displays.reveal = lambda frames, on_shown: (revealed.append(frames), reveal(frames, on_shown))
        box.screens_take_time = True
        return box

    return Daemon(profile, tmp_path, seed=1, adapters=real_panels), bus


def count_down(daemon, bus):
    """Triangle started and counted down to 0, its reveal handed to the writer: the game."""
    t = bus.clock.ns
    daemon.table.start(StartGame(get("triangle"), {}), t)
    game = daemon.table.game
    daemon.step(t)
    for n in (1, 2, 3):
        assert daemon.box.displays.flush()
        t = game.round_start_ns + n * game.step_ns
        bus.clock.wait_until(t)
        daemon.step(t)
    return game


def test_triangle_s_zero_is_revealed_at_once_and_a_slap_before_its_panel_lit_is_a_false_start(tmp_path):
    daemon, bus = daemon_on_real_panels(tmp_path)

    async def play():
        played = daemon.box.buzzer.played
        try:
            game = count_down(daemon, bus)
            assert game.count == 0 and played[-1] == "tick"      # no "go" before the screens
            opens = game.opens_ns
            daemon._on_edge(InputEvent(2, "slap", True, opens + 10 * MS, "gpio"))  # panels dark
            assert daemon.box.displays.flush()
            onsets = [bus.panel(0x3C, ch).shown_at(opens) for ch in range(3)]  # before the next frames
            daemon.step(bus.clock.ns)
            assert played[-1] == "go"
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
            # read before the next step, whose frames (the prompts) the writer may have sent by then
            onsets = [bus.panel(0x3C, ch).shown_at(opens) for ch in range(3)]
            daemon.step(bus.clock.ns)
            assert game.race.onsets == dict(enumerate(onsets)) and min(onsets) > opens + 40 * MS
            assert not game.out and "wrong" not in daemon.box.buzzer.played
            assert game.view(2).prompt == "Too early!" and game.view(0).prompt == "First right answer"
            daemon._on_edge(InputEvent(2, right, True, onsets[2] + 400 * MS, "gpio"))
            daemon.step(onsets[2] + 2000 * MS)
            assert game.state.starter == 2                     # Cy's answer once he saw it counts
        finally:
            daemon.close()

    asyncio.run(play())


def daemon_with_light_sensors(tmp_path):
    """:func:`daemon_on_real_panels` with a light sensor on every station (GPIO 9, 10, 11 on the
    box's mock pins): (the daemon, the bus, the frames of every reveal)."""
    from helpers import sensed_mock_3

    profile = load_profile(sensed_mock_3(tmp_path))
    assert [st.light_sensor for st in profile.stations] == [9, 10, 11]
    revealed = []
    return (*daemon_on_real_panels(tmp_path, profile, revealed), revealed)


def count_to_zero(daemon, bus):
    """:func:`count_down`, and the reveal shown: (the game, each panel's stamp)."""
    game = count_down(daemon, bus)
    assert daemon.box.displays.flush()
    return game, [bus.panel(0x3C, ch).shown_at(game.opens_ns) for ch in range(3)]


def test_with_light_sensors_triangle_times_each_player_from_their_panel_s_light(tmp_path):
    """Every station has a sensor (mock pins, driven at the light time the scan model gives each
    panel): the reveal frames carry the marker, the race waits for the sensors, times each player
    from their light, and the journal keeps both onsets."""
    from companion.adapters.lightsensor import LIGHT_WAIT_NS, MARKER_COLUMNS, MARKER_ROWS
    from helpers import journal_objects
    from test_light import ScanDrivenSensors

    daemon, bus, revealed = daemon_with_light_sensors(tmp_path)
    sensed = ScanDrivenSensors(bus, {0: 9, 1: 10, 2: 11}, seed=4, factory=daemon.box.pin_factory,
                               sensors=daemon.box.light_sensors)
    seen = {}

    async def play():
        played = daemon.box.buzzer.played
        try:
            game, stamps = count_to_zero(daemon, bus)
            seen["opens"], seen["stamps"] = game.opens_ns, stamps
            daemon.step(bus.clock.ns)
            assert played[-1] == "go"                        # at the flip
            assert game.race.onsets is None                  # the race waits for the light
            assert all(frame.getpixel((MARKER_COLUMNS.start, MARKER_ROWS.start)) for frame in revealed[-1].values())
            sensed.wait(dict(enumerate(stamps)))
            seen["light"] = light = sensed.modelled[-1]
            due = max(stamps) + LIGHT_WAIT_NS + round(daemon.profile.timing.gpio_latency_ms * MS)
            daemon.step(due - 1)
            assert game.race.onsets is None
            daemon.step(due)
            assert game.race.stamped == dict(enumerate(stamps))
            assert all(abs(game.race.onsets[s] - light[s]) < 1000 for s in range(3))
            for station, reaction in ((0, 285), (1, 300)):
                daemon._on_edge(InputEvent(station, "slap", True, game.race.onsets[station] + reaction * MS, "gpio"))
            daemon.step(due + 2000 * MS)
            assert game.claimer == 0
        finally:
            daemon.close()

    asyncio.run(play())
    [journal] = tmp_path.glob("*.jsonl")
    [claim] = [x for x in journal_objects(journal) if x.get("action") == "claim"]
    assert claim["reaction_ms"] == [285.0, 300.0, None]
    assert claim["onset_ms"] == [pytest.approx((t - seen["opens"]) / MS, abs=1e-6) for t in seen["stamps"]]
    assert claim["light_ms"] == [pytest.approx((seen["light"][s] - seen["opens"]) / MS, abs=1e-3) for s in range(3)]


def test_a_sensor_that_sees_nothing_times_the_race_from_stamps_and_is_named(tmp_path, caplog):
    from companion.adapters.lightsensor import LIGHT_WAIT_NS
    from helpers import journal_objects
    from test_light import ScanDrivenSensors

    daemon, bus, _ = daemon_with_light_sensors(tmp_path)
    sensed = ScanDrivenSensors(bus, {0: 9, 1: 10, 2: 11}, seed=4, blind=(2,), factory=daemon.box.pin_factory,
                               sensors=daemon.box.light_sensors)

    async def play():
        try:
            game, stamps = count_to_zero(daemon, bus)
            daemon.step(bus.clock.ns)
            sensed.wait(dict(enumerate(stamps)))
            due = max(stamps) + LIGHT_WAIT_NS + round(daemon.profile.timing.gpio_latency_ms * MS)
            with caplog.at_level("WARNING", logger="companion.daemon"):
                daemon.step(due)
            assert game.race.light is None and game.race.onsets == dict(enumerate(stamps))
            for station, reaction in ((0, 285), (1, 300)):
                daemon._on_edge(InputEvent(station, "slap", True, stamps[station] + reaction * MS, "gpio"))
            daemon.step(due + 2000 * MS)
            assert game.claimer == 0
        finally:
            daemon.close()

    asyncio.run(play())
    assert [r.getMessage() for r in caplog.records if "light sensor" in r.getMessage()] == [
        "station 3: its light sensor saw nothing of the reveal; races are timed from the displays' commands "
        "until it does (companion selftest checks the sensors)"]
    [journal] = tmp_path.glob("*.jsonl")
    [claim] = [x for x in journal_objects(journal) if x.get("action") == "claim"]
    assert "light_ms" not in claim and claim["reaction_ms"] == [285.0, 300.0, None]
