"""The light of a reveal: the panels' row scan as the bus model draws it from the datasheet, the
panel clock the box sends, light sensors timing races, and the selftest's light report, with the
sensors (gpiozero mock pins) driven at the light times the scan model gives."""

from __future__ import annotations

import random
import threading

import gpiozero.pins.mock
import pytest
from gpiozero.pins.mock import MockFactory
from luma.core.interface.serial import i2c
from luma.oled.device import ssd1306
from PIL import Image

from bench.busmodel import FakeClock, TimedBus
from companion.adapters.panelscan import DOCUMENTED_FRAME_MAX_NS, Scan, fosc_range, frame_ns
from companion.adapters.displays import DisplayWriter
from companion.adapters.framepack import FastSH1106, FastSSD1306
from companion.adapters.lightsensor import LIGHT_WAIT_NS, MARKER_COLUMNS, MARKER_ROWS, light_sensors, marked
from companion.adapters.mux import MuxChannel
from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race
from companion.games.options import SCREEN_TIE_WINDOW_MS
from companion.selftest import light_report, measure_light

MS = 1_000_000


def test_a_frame_is_d_times_k_times_mux_over_fosc_as_the_ssd1306_datasheet_says():
    # luma's 0xD5 0x80 (D = 1) and 0xD9 0xF1 (1 + 15 clocks, + 50 of BANK0: K = 66), 64 rows
    assert frame_ns(370_000, 0x80, 0xF1) == pytest.approx(64 * 66 / 370_000 * 1e9)       # 11.42 ms
    assert frame_ns(333_000, 0x80, 0xF1) / MS == pytest.approx(12.68, abs=0.01)
    assert frame_ns(370_000, 0x83, 0xF1) == pytest.approx(4 * frame_ns(370_000, 0x80, 0xF1))
    assert frame_ns(370_000, 0x80, 0x22) / MS == pytest.approx(9.34, abs=0.01)           # K = 54
    assert DOCUMENTED_FRAME_MAX_NS / MS == pytest.approx(10.38, abs=0.01)
    # the highest oscillator setting: +35 % over the reset one (5 % a step: an assumption)
    assert fosc_range("ssd1306", 0xF0)[1] == pytest.approx(370_000 * 1.35)
    assert fosc_range("ssd1306", 0x80) == (333_000, 370_000, 407_000)


@pytest.mark.parametrize(("device", "clock", "precharge"), [
    (ssd1306, 0x80, 0xF1),             # luma's own
    (FastSSD1306, 0xF0, 0x22),         # the box's: fastest oscillator, divide by 1, reset precharge
    (FastSH1106, 0xF0, 0x22),
])
def test_the_box_sends_its_panels_the_fastest_scan_after_luma_s_init(device, clock, precharge):
    bus = TimedBus(driver="sh1106" if device is FastSH1106 else "ssd1306")
    device(i2c(bus=bus, address=0x3C))
    panel = bus.panel(0x3C)
    assert (panel.settings[0xD5], panel.settings[0xD9]) == (clock, precharge)
    if device is FastSSD1306:
        rnd = random.Random(1)
        frames = [panel.scan(rnd).frame_ns for _ in range(200)]
        assert 6.2 * MS < min(frames) and max(frames) < 7.7 * MS < DOCUMENTED_FRAME_MAX_NS


def test_the_default_tie_window_of_revealed_races_covers_a_whole_frame():
    assert SCREEN_TIE_WINDOW_MS * MS > DOCUMENTED_FRAME_MAX_NS


def test_a_change_lights_when_the_scan_next_starts_one_of_its_rows():
    scan = Scan(frame_ns=64 * MS, phase_ns=0)                 # 1 ms a row, row 0 at 0
    rows = range(14, 38)
    assert scan.light_ns(round(20.5 * MS), rows) == 21 * MS  # the scan is inside the band
    assert scan.light_ns(10 * MS, rows) == 14 * MS           # ahead of it: wait for row 14
    assert scan.light_ns(round(40.2 * MS), rows) == 78 * MS  # past it: the next frame's row 14
    shifted = Scan(frame_ns=64 * MS, phase_ns=5 * MS)
    assert shifted.light_ns(10 * MS, rows) == 19 * MS
    restarts = Scan(frame_ns=64 * MS, phase_ns=0, mode="restarts")
    assert restarts.light_ns(round(40.2 * MS), rows) == round(54.2 * MS)


def test_the_light_comes_within_a_frame_of_the_command_whatever_the_phase():
    rnd = random.Random(2)
    for _ in range(2000):
        scan = Scan.drawn(rnd, clock=0xF0, precharge=0x22)
        taken = rnd.randrange(10**9)
        rows = range(rnd.randrange(64), 64)
        lag = scan.light_ns(taken, rows) - taken
        assert 0 <= lag <= scan.frame_ns


def test_a_later_light_onset_changes_the_verdict_the_stamps_would_give():
    # Both panels took 0xAF at 0; Ana's lit 8 ms later than Ben's. Ana reacted faster to her light.
    def race(light):
        r = Race(0, 3 * MS, (0, 1), revealed=True)
        r.reveal({0: 0, 1: 0}, light)
        r.press(InputEvent(0, "slap", True, 300 * MS))       # 292 ms after her light
        r.press(InputEvent(1, "slap", True, 296 * MS))       # 296 ms after his
        return r, r.decide(1 << 62)

    by_stamps, result = race(None)
    assert result.winners == {1}
    by_light, result = race({0: 8 * MS, 1: 0})
    assert result.winners == {0} and by_light.reaction_ns(0) == 292 * MS
    assert by_light.stamped == {0: 0, 1: 0} and by_light.light == {0: 8 * MS, 1: 0}
    # a station without a light onset: every station is timed from its stamp again
    partial, result = race({0: 8 * MS})
    assert result.winners == {1} and partial.light is None


def test_the_marker_is_a_bar_beside_the_stimulus_rows():
    frame = marked(Image.new("1", (128, 64)))
    lit = {(x, y) for x in range(128) for y in range(64) if frame.getpixel((x, y))}
    assert lit == {(x, y) for x in MARKER_COLUMNS for y in MARKER_ROWS}


class ScanDrivenSensors:
    """Light sensors on gpiozero mock pins, driven at the light time the scan model gives each
    panel after its display-on (the kernel's edge time is the modelled one)."""

    def __init__(self, bus: TimedBus, pins: dict[int, int], seed: int = 3, blind: tuple[int, ...] = (),
                 factory: MockFactory | None = None, sensors=None) -> None:
        """``factory`` and ``sensors``: a box's own, else new ones on ``pins``."""
        self.factory = factory or MockFactory()
        self.sensors = sensors or light_sensors(pins, self.factory)
        self.pins = pins
        self.bus = bus
        self.rnd = random.Random(seed)
        self.scans = {s: bus.panel(0x3C, s).scan(self.rnd) for s in pins}
        self.blind = blind
        self.modelled: list[dict[int, int]] = []

    def wait(self, stamped: dict[int, int]) -> None:
        """The sensors see the reveal stamped at ``stamped``: dark, then lit at the modelled time."""
        lit = {}
        for station, pin in self.pins.items():
            scan = self.scans[station]
            scan = Scan(scan.frame_ns, self.rnd.uniform(0, scan.frame_ns))  # the phase of this reveal
            lit[station] = scan.light_ns(stamped[station], MARKER_ROWS)
            if station in self.blind:
                continue
            mock = self.factory.pin(pin)
            self._at(stamped[station] - 1, mock.drive_low)
            self._at(lit[station], mock.drive_high)
        self.modelled.append(lit)
        self.bus.clock.wait_until(max(stamped.values()) + LIGHT_WAIT_NS)

    @staticmethod
    def _at(t_ns: int, drive) -> None:
        original = gpiozero.pins.mock.monotonic
        gpiozero.pins.mock.monotonic = lambda: t_ns / 1e9
        try:
            drive()
        finally:
            gpiozero.pins.mock.monotonic = original


def model_box(stations: int = 3):
    bus = TimedBus(400_000, FakeClock(10**12))
    lock = threading.Lock()
    panels = [FastSSD1306(i2c(bus=MuxChannel(bus, ch, lock), address=0x3C)) for ch in range(stations)]
    return bus, DisplayWriter(panels, now_ns=bus.clock.now_ns)


def test_the_selftest_measures_each_panel_s_lag_and_the_tie_window_the_box_supports():
    bus, writer = model_box()
    sensed = ScanDrivenSensors(bus, {0: 9, 1: 10, 2: 11})
    try:
        samples = measure_light(writer, sensed.sensors, 3, reveals=60, wait=sensed.wait)
    finally:
        writer.close()
        sensed.sensors.close()
    assert len(samples) == 60
    for sample, modelled in zip(samples, sensed.modelled):
        assert sample.light.keys() == modelled.keys()
        assert all(abs(sample.light[s] - t) < 1000 for s, t in modelled.items())  # gpiozero ticks: float s
    last_on = [max(t for t, kind in bus.panel(0x3C, ch).changes if kind == "on") for ch in range(3)]
    assert samples[-1].stamped == dict(enumerate(last_on))   # stamped as each 0xAF ended
    report = light_report(samples, ("Ana", "Ben", "Cy"), SCREEN_TIE_WINDOW_MS)
    frames = [sensed.scans[s].frame_ns for s in range(3)]
    for s in range(3):
        assert 0 <= min(report.lags[s]) and max(report.lags[s]) < frames[s]
    every = [lag for lags in report.lags.values() for lag in lags]
    assert report.window_ms == (max(every) - min(every)) // MS + 1
    assert report.window_ms <= SCREEN_TIE_WINDOW_MS       # the box's clock: the default covers it
    assert "covers it" in report.text and "Cy" in report.text and "scan runs on" in report.text
    assert len(report.skews) == 60 and max(report.skews) < max(frames) + MS


def test_the_selftest_names_a_sensor_that_saw_nothing():
    bus, writer = model_box()
    sensed = ScanDrivenSensors(bus, {0: 9, 1: 10, 2: 11}, blind=(1,))
    try:
        samples = measure_light(writer, sensed.sensors, 3, reveals=5, wait=sensed.wait)
    finally:
        writer.close()
        sensed.sensors.close()
    report = light_report(samples, ("Ana", "Ben", "Cy"), SCREEN_TIE_WINDOW_MS)
    assert report.window_ms is None
    assert "station 2 (Ben): its light sensor saw nothing" in report.text


def test_replay_json_gives_both_onsets_and_reads_old_lines_as_before():
    from companion.record.journal import race_json

    timed = {"type": "action", "action": "claim", "player": 1, "onset_ms": [160.2, 160.3, 160.4],
             "light_ms": [163.9, 166.0, 161.1], "reaction_ms": [296.3, 279.3, None], "t": 4.46}
    out = race_json(timed, 3)
    assert out["onset_ms"] == [160.2, 160.3, 160.4] and out["light_ms"] == [163.9, 166.0, 161.1]
    old = {k: v for k, v in timed.items() if k != "light_ms"}
    assert "light_ms" not in race_json(old, 3) and race_json(old, 3)["reaction_ms"] == [296.3, 279.3, None]
