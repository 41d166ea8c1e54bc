"""The simulator's light sensors: panels that light as the scan model draws them (each its own
oscillator and phase, kept), their edges handed to the box's light sensors, and a race timed
from that light, on a fake clock and in the simulator itself."""

from __future__ import annotations

import asyncio
import os
import threading

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest  # noqa: E402

from companion.adapters.framepack import PANEL_CLOCK  # noqa: E402
from companion.adapters.lightsensor import LIGHT_WAIT_NS, MARKER_ROWS  # noqa: E402
from companion.adapters.panelscan import DOCUMENTED_FRAME_MAX_NS, ScannedPanels, fosc_range, frame_ns  # noqa: E402
from companion.arbiter.inputs import InputEvent  # noqa: E402
from companion.arbiter.race import Race  # noqa: E402
from companion.games.options import SCREEN_TIE_WINDOW_MS  # noqa: E402
from companion.profile import load_profile  # noqa: E402
from companion.sim.app import Simulator, players_profile  # noqa: E402
from companion.sim.light import ScanLitWriter, scanned_panels  # noqa: E402
from helpers import PATIENCE_S, sensed_mock_3  # noqa: E402
from test_reveal_daemon import count_to_zero, daemon_on_real_panels  # noqa: E402

MS = 1_000_000


def test_each_modelled_panel_keeps_its_oscillator_and_phase_and_lights_within_a_frame():
    import random

    panels = ScannedPanels({s: "ssd1306" for s in range(6)}, PANEL_CLOCK, random.Random(7))
    clock, precharge = PANEL_CLOCK["ssd1306"]
    low, _, high = fosc_range("ssd1306", clock)
    shortest, longest = frame_ns(high, clock, precharge), frame_ns(low, clock, precharge)
    scans = panels.scans
    assert all(shortest <= scan.frame_ns <= longest < DOCUMENTED_FRAME_MAX_NS for scan in scans.values())
    assert len({scan.frame_ns for scan in scans.values()}) == 6 and len({scan.phase_ns for scan in scans.values()}) == 6
    rnd = random.Random(8)
    for station, scan in scans.items():
        lags = []
        for _ in range(2000):
            onset = rnd.randrange(10**12)
            lag = panels.light_ns({station: onset}, MARKER_ROWS)[station] - onset
            assert 0 <= lag <= scan.frame_ns
            # the panel's phase is its own and stays: a whole number of its frames later, the same lag
            later = onset + 40 * round(scan.frame_ns)
            assert abs(panels.light_ns({station: later}, MARKER_ROWS)[station] - later - lag) <= 40
            lags.append(lag)
        # the scan is inside the marker's 24 of 64 rows at a random moment: lit within a row
        within_a_row = sum(lag <= scan.row_ns for lag in lags) / len(lags)
        assert within_a_row == pytest.approx(24 / 64, abs=0.05)
        # past the band: up to the 64 - 38 + 14 rows to its next start
        assert max(lags) == pytest.approx(40 * scan.row_ns, abs=scan.row_ns)


def test_the_simulator_times_a_race_from_its_modelled_light_on_a_fake_clock(tmp_path):
    """Triangle's reveal on luma panels on the bus model's fake clock, written by the
    simulator's writer: every panel lights at its stamp plus its modelled lag, the race is timed
    from that light, and the player whose panel lit later wins by 12 ms, where the stamps alone
    would call it a tie (their gap less than the 11 ms window once the lags are added)."""
    profile = load_profile(sensed_mock_3(tmp_path))
    made = {}

    def scan_lit(box, panels, now_ns):
        made["panels"] = scanned_panels(box.profile, seed=5)
        return ScanLitWriter(panels, box.light_sensors, made["panels"], now_ns=now_ns)

    daemon, bus = daemon_on_real_panels(tmp_path, profile, writer=scan_lit)
    seen = {}

    async def play():
        try:
            game, stamps = count_to_zero(daemon, bus)
            stamped = dict(enumerate(stamps))
            light = made["panels"].light_ns(stamped, MARKER_ROWS)
            daemon.step(bus.clock.ns)
            assert game.race.onsets is None                     # waiting for the light
            due = max(stamps) + LIGHT_WAIT_NS + round(profile.timing.gpio_latency_ms * MS)
            bus.clock.wait_until(due)
            daemon.step(due)
            assert game.race.stamped == stamped and game.race.light == light
            lags = {s: light[s] - stamps[s] for s in range(3)}
            late, early = max(lags, key=lags.get), min(lags, key=lags.get)
            assert lags[late] - lags[early] > 1 * MS             # this seed's panels: over a millisecond apart
            presses = {late: light[late] + 288 * MS, early: light[early] + 300 * MS}
            for station, t in presses.items():
                daemon._on_edge(InputEvent(station, "slap", True, t, "gpio"))
            daemon.step(due + 2000 * MS)
            seen.update(claimer=game.claimer, late=late, early=early, stamped=stamped, presses=presses)
        finally:
            daemon.close()

    asyncio.run(play())
    assert seen["claimer"] == seen["late"]
    by_stamps = Race(0, SCREEN_TIE_WINDOW_MS * MS, range(3), revealed=True)
    by_stamps.reveal(seen["stamped"])
    for station, t in seen["presses"].items():
        by_stamps.press(InputEvent(station, "slap", True, t, "gpio"))
    assert by_stamps.decide(1 << 62).winners == {seen["late"], seen["early"]}  # a tie, by the stamps


def test_the_simulator_with_light_sensors_lights_each_panel_at_its_modelled_time(tmp_path):
    sim = Simulator(players_profile(3), tmp_path / "games", seed=3, scale=1, light_sensors=True)
    try:
        box = sim.daemon.box
        assert box.screens_take_time and box.light_sensors is not None and box.light_sources == ()
        assert sim.daemon.timed_reveals
        shown, got = threading.Event(), {}
        frames = {s: sim.daemon.table.screen(s) for s in range(3)}
        box.displays.reveal(frames, lambda onsets: (got.update(onsets), shown.set()))
        assert shown.wait(PATIENCE_S)
        modelled = box.displays.panels.light_ns(got, MARKER_ROWS)
        assert box.light_sensors.light_onsets(got) == modelled
        assert all(0 <= modelled[s] - got[s] <= box.displays.panels.scans[s].frame_ns for s in range(3))
    finally:
        sim.close()
    # a profile whose stations have light sensors gets them in the simulator too
    sim = Simulator(load_profile(sensed_mock_3(tmp_path)), tmp_path / "games", seed=3, scale=1)
    try:
        assert isinstance(sim.daemon.box.displays, ScanLitWriter) and sim.daemon.timed_reveals
    finally:
        sim.close()
