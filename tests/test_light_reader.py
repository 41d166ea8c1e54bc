"""Light sensors read by the GPIO reader process: it owns the sensors' lines beside the buttons',
sends their rising edges with their time, and the daemon's race times each player from them
once the reader's watermark has passed the light's wait; and the profile's gpiochip."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.adapters.gpiolink import GpioReader, ReaderEdge, ReaderMark
from companion.adapters.gpioreader import line_request
from companion.adapters.lightsensor import LIGHT_WAIT_NS
from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race
from companion.daemon import Daemon
from companion.profile import ProfileError, load_profile, parse_profile
from companion.wiring import NoGpio, build_box
from helpers import LIGHT_SENSORS, MS, PATIENCE_S, sensed_mock_3, until, while_running
from test_board_link import RaceProbe
from test_gpio_reader import Items

ROOT = Path(__file__).resolve().parent.parent
SENSORS = dict(enumerate(LIGHT_SENSORS))


def sensed_profile(tmp_path: Path, extra: str = "", backend: str = "mock"):
    """mock-3 with a light sensor on every station, its GPIO read by the reader (on the ``pi``
    backend each display on its own multiplexer channel)."""
    path = sensed_mock_3(tmp_path, '\n[timing]\ngpio_watermark = "reader"\n' + extra)
    text = path.read_text(encoding="utf-8").replace('backend = "mock"', f'backend = "{backend}"')
    for station in range(3):
        text = text.replace("address = 0x3C }", f"address = 0x3C, mux_channel = {station} }}", 1)
    path.write_text(text, encoding="utf-8")
    return load_profile(path)


def test_the_line_request_asks_rising_edges_only_of_the_sensors_all_lines_pulled_up():
    request = line_request([4, 17], [9, 10])
    assert list(request.offsets[:request.num_lines]) == [4, 17, 9, 10]
    input_, rising, falling, pull_up = 1 << 2, 1 << 4, 1 << 5, 1 << 8     # include/uapi/linux/gpio.h
    assert request.config.flags == input_ | rising | falling | pull_up  # the buttons
    assert request.config.num_attrs == 1
    sensors = request.config.attrs[0]
    assert (sensors.attr.id, sensors.attr.value) == (1, input_ | rising | pull_up)  # GPIO_V2_LINE_ATTR_ID_FLAGS
    assert sensors.mask == 0b1100                                        # lines 2 and 3 of the request
    alone = line_request([], [9])
    assert alone.config.flags == input_ | rising | pull_up and alone.config.num_attrs == 0


def test_the_reader_process_sends_a_sensor_s_rising_edges_alone():
    items = Items()
    reader = GpioReader([4], items.queue.put, mock=True, sensors=[9])
    reader.start()
    try:
        items.next(ReaderMark)
        reader.drive(9, 0)      # the marker goes dark: no record
        before = time.monotonic_ns()
        reader.drive(9, 1)      # and lights
        edge = items.next(ReaderEdge)
        assert (edge.pin, edge.level) == (9, 1) and edge.t_ns >= before
        reader.drive(4, 0)      # a button's edges come both ways, after it
        edge = items.next(ReaderEdge)
        assert (edge.pin, edge.level) == (4, 0)
        sensor_falls = [item for _, item in items.seen if isinstance(item, ReaderEdge) and (item.pin, item.level) == (9, 0)]
        assert not sensor_falls
    finally:
        reader.close()


class RevealProbe(RaceProbe):
    """A race opened by a reveal: the daemon hands it each station's stamped and light onsets."""

    def __init__(self, race: Race) -> None:
        super().__init__(race)
        self.revealed_at: tuple[int, dict, dict | None] | None = None

    def stuck(self, station, key):
        pass

    def revealed(self, reveal, onsets, light, errors=None):
        self.revealed_at = (time.monotonic_ns(), onsets, light)
        self.race.reveal(onsets, light)


def test_the_reader_s_sensor_edges_time_a_race_and_change_its_verdict(tmp_path):
    """Ben's panel lights at once, Ana's 10 ms or more later (driven through the reader's mock
    pins, stamped by the reader as the kernel would): timed from her light she reacted faster, timed
    from the stamps she would lose. The race is revealed once the reader's watermark has passed
    the light's wait, no bound assumed."""
    profile = sensed_profile(tmp_path)
    daemon = Daemon(profile)
    assert daemon.box.gpio_reader is not None and daemon.box.light_sensors is not None
    seen: dict[int, list[int]] = {s: [] for s in SENSORS}
    rise = daemon.box.light_sensors.rise
    daemon.box.light_sensors.rise = lambda station, t_ns: (seen[station].append(t_ns), rise(station, t_ns))
    daemon.gpio_session.light = daemon.box.light_sensors.rise
    reader = daemon.box.gpio_reader

    async def lights_up() -> tuple[int, int, int]:
        """Every sensor dark, Ben's and Cy's lit, then Ana's at least 10 ms after Ben's: their
        edge times, as the reader stamped them (tried again if a busy machine made the gap as
        long as the light's wait)."""
        while True:
            for pin in SENSORS.values():
                reader.drive(pin, 0)
            count = {s: len(seen[s]) for s in SENSORS}
            reader.drive(SENSORS[1], 1)
            reader.drive(SENSORS[2], 1)
            await until(lambda: all(len(seen[s]) > count[s] for s in (1, 2)))
            ben = seen[1][-1]
            await until(lambda: time.monotonic_ns() >= ben + 10 * MS)
            reader.drive(SENSORS[0], 1)
            await until(lambda: len(seen[0]) > count[0])
            if seen[0][-1] - ben < LIGHT_WAIT_NS - 5 * MS:
                return seen[0][-1], ben, seen[2][-1]

    async def scenario():
        await until(lambda: daemon.gpio_session._heard_ns is not None and "gpio" in daemon.watermarks
                    and daemon.watermarks.low(time.monotonic_ns()) > 0)
        probe = daemon.table = RevealProbe(Race(time.monotonic_ns() - 1000 * MS, 3 * MS, range(3), revealed=True))
        ana, ben, cy = await lights_up()
        stamp = min(ana, ben, cy) - 1 * MS                     # every panel took its display-on then
        daemon._on_shown(1, [], {0: stamp, 1: stamp, 2: stamp})
        await until(lambda: probe.revealed_at is not None)
        presses = {0: ana + 290 * MS, 1: ben + 296 * MS}       # Ana 290 ms after her light, Ben 296
        for station, t in presses.items():
            daemon._on_edge(InputEvent(station, "slap", True, t, "gpio"))
        await until(lambda: probe.result is not None)
        return probe, stamp, (ana, ben, cy)

    probe, stamp, light = while_running(daemon, scenario)
    revealed_ns, stamped, onsets = probe.revealed_at
    assert onsets == dict(enumerate(light))                   # each station's first edge after its stamp
    assert revealed_ns >= stamp + LIGHT_WAIT_NS              # after the wait, by the reader's watermark
    assert probe.race.light == dict(enumerate(light)) and probe.race.stamped == stamped
    assert probe.result.winners == {0}
    by_stamps = Race(0, 3 * MS, range(3), revealed=True)
    by_stamps.reveal(stamped)
    for station, t in ((0, light[0] + 290 * MS), (1, light[1] + 296 * MS)):
        by_stamps.press(InputEvent(station, "slap", True, t, "gpio"))
    assert by_stamps.decide(1 << 62).winners == {1}          # what the stamps alone would say


def test_a_reveal_waits_for_the_reader_s_watermark_not_for_a_bound():
    """On a fake clock: the light is read only once the GPIO reader has reported past the last
    stamp plus the light's wait, however late that is; with the fallback, the bound's time."""
    from companion.arbiter.watermark import Watermarks

    marks = Watermarks()
    marks.add_source("gpio", in_order=False)
    marks.add_source("keyboard", 20 * MS)
    target = 1_000 * MS + LIGHT_WAIT_NS
    assert marks.reaches_at(target, ["gpio"]) is None          # only the reader's report gets there
    marks.report("gpio", target - 1)
    assert marks.low(target + 500 * MS, ["gpio"]) < target
    marks.report("gpio", target)
    assert marks.low(target, ["gpio"]) == target and marks.low(target, None) < target
    bound = Watermarks()
    bound.add_source("gpio", 30 * MS)
    assert bound.reaches_at(target, ["gpio"]) == target + 30 * MS
    assert bound.low(target, []) == target                     # no source: the wait alone


def test_the_gpio_chip_is_a_device_path_in_the_profile(tmp_path):
    base = {"backend": "pi", "stations": [{"pins": {"slap": 4 + i * 5, "left": 5 + i * 5, "ok": 6 + i * 5,
                                                    "right": 7 + i * 5}, "display": {"address": 0x3C + i}}
                                          for i in range(2)]}
    assert parse_profile(base).gpio_chip is None
    assert parse_profile({**base, "gpio": {"chip": "/dev/gpiochip4"}}).gpio_chip == "/dev/gpiochip4"
    for bad in ("gpiochip0", "", 4, "/dev/", "/dev/gpio\nchip0"):
        with pytest.raises(ProfileError) as e:
            parse_profile({**base, "gpio": {"chip": bad}})
        assert e.value.problems == [f'gpio.chip: must be the GPIO chip\'s device, e.g. "/dev/gpiochip0", not {bad!r}']
    with pytest.raises(ProfileError) as e:
        parse_profile({**base, "gpio": {"chip": "/dev/gpiochip0", "line": 3}})
    assert e.value.problems == ["gpio.line: unknown field; known fields are chip"]


def test_a_missing_gpio_chip_is_said_at_start_and_by_the_reader(tmp_path):
    profile = sensed_profile(tmp_path, '\n[gpio]\nchip = "/dev/gpiochip-not-here"\n', backend="pi")
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    with pytest.raises(NoGpio) as e:
        build_box(profile, lambda event: None, MockFactory(pin_class=MockPWMPin))
    assert str(e.value).startswith("gpio.chip: /dev/gpiochip-not-here does not exist: check gpio.chip in the profile")
    # the command: a clear message and status 2, no traceback
    run = subprocess.run([sys.executable, "-m", "companion", "run", "--profile", str(tmp_path / "sensed.toml"),
                          "--journal-dir", str(tmp_path / "j")], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=PATIENCE_S)
    assert "Traceback" not in run.stderr and run.returncode == 2
    assert "gpio.chip: /dev/gpiochip-not-here does not exist: check gpio.chip in the profile" in run.stderr
    # the reader, if the chip goes away while the box runs
    ours, theirs = socket.socketpair()
    with ours, theirs:
        reader = subprocess.run([sys.executable, "-m", "companion.adapters.gpioreader", "--fd", str(theirs.fileno()),
                                 "--pins", "4", "--chip", "/dev/gpiochip-not-here"], capture_output=True, text=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=PATIENCE_S,
                                pass_fds=(theirs.fileno(),))
    assert reader.returncode == 1 and "Traceback" not in reader.stderr
    assert reader.stderr.startswith("gpio reader: /dev/gpiochip-not-here does not exist: check gpio.chip")
