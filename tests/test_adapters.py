"""Adapters against the libraries' own doubles: gpiozero MockFactory pins, luma devices."""

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from luma.core.device import dummy
from luma.core.interface.serial import i2c
from luma.oled.device import ssd1306
from PIL import Image

from companion.adapters.buttons import station_buttons
from companion.adapters.buzzer import Buzzer
from companion.adapters.displays import DisplayWriter
from companion.cues import CUES, steps
from companion.profile import load_profile

PROFILE = Path(__file__).parent.parent / "hardware" / "profiles" / "mock-3.toml"


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


def test_buttons_report_the_pin_edge_time_active_low(factory):
    profile = load_profile(PROFILE)
    events = []
    buttons = station_buttons(profile, factory, events.append)
    assert len(buttons) == 12
    pin = factory.pin(profile.stations[1].pins["slap"])
    assert pin.state == 1                     # pulled up: released
    pin.drive_low()
    pressed_at = pin._last_change             # the mock pin's own edge timestamp
    pin.drive_high()
    assert [(e.station, e.key, e.pressed) for e in events] == [(1, "slap", True), (1, "slap", False)]
    assert events[0].t_ns == round(pressed_at * 1e9)
    assert events[1].t_ns > events[0].t_ns
    for b in buttons:
        b.close()


def test_contact_bounce_reaches_us_unfiltered_with_each_edge_time(factory):
    """bounce_time is None: the first edge keeps its own time (our debouncer filters later)."""
    profile = load_profile(PROFILE)
    events = []
    buttons = station_buttons(profile, factory, events.append)
    pin = factory.pin(profile.stations[0].pins["ok"])
    for _ in range(3):
        pin.drive_low()
        pin.drive_high()
    assert [e.pressed for e in events] == [True, False] * 3
    assert all(b.pin.bounce is None for b in buttons)
    for b in buttons:
        b.close()


def test_cues_are_melodies_within_the_buzzer_range():
    buzzer_range = {f"{n}{o}" for o in range(3, 8) for n in "ABCDEFG"}
    for name, melody in CUES.items():
        assert all(note is None or note in buzzer_range for note, _ in melody), name
        schedule = steps(name)
        assert schedule[-1][1] is None
        assert schedule[-1][0] == pytest.approx(sum(s for _, s in melody))


def test_buzzer_sounds_a_note_on_the_pwm_pin(factory):
    buzzer = Buzzer(18, factory)
    pin = factory.pin(18)
    buzzer._sound("A5")
    assert pin.frequency == pytest.approx(880.0)
    assert pin.state == 0.5
    buzzer._sound(None)
    assert pin.state == 0
    buzzer._sound("A7")                        # the top of the two-octave range
    assert pin.frequency == pytest.approx(3520.0)
    buzzer.close()


class Bus:
    """An smbus double at the bus seam: records what luma sends; unplugged, every transfer fails."""

    def __init__(self):
        self.sent = []
        self.unplugged = False

    def _transfer(self, *args):
        if self.unplugged:
            raise OSError(121, "Remote I/O error")
        self.sent.append(args)

    write_i2c_block_data = write_byte_data = i2c_rdwr = _transfer


def test_display_writer_keeps_the_newest_frame_per_display():
    panels = [dummy(width=128, height=64, mode="1") for _ in range(2)]
    writer = DisplayWriter(panels)
    frames = [Image.new("1", (128, 64), i % 2) for i in range(50)]
    for frame in frames:
        writer.show(0, frame)
    writer.show(1, frames[1])
    assert writer.flush()
    assert panels[0].image.tobytes() == frames[-1].tobytes()
    assert panels[1].image.tobytes() == frames[1].tobytes()
    assert 1 <= writer.written[0] <= 50
    writer.close()


def test_a_failing_display_is_counted_and_the_others_go_on():
    buses = [Bus(), Bus()]
    panels = [ssd1306(i2c(bus=bus, address=0x3C)) for bus in buses]
    buses[0].unplugged = True
    sent_before = len(buses[1].sent)
    writer = DisplayWriter(panels)
    writer.show(0, Image.new("1", (128, 64), 1))
    writer.show(1, Image.new("1", (128, 64), 1))
    assert writer.flush()
    assert writer.failures == [1, 0]
    assert writer.written == [0, 1]
    assert len(buses[1].sent) > sent_before, "the good display's frame went out on its bus"
    writer.close()


def test_display_writer_says_ready_once_every_display_has_a_frame():
    panels = [dummy(width=128, height=64, mode="1") for _ in range(3)]
    calls = []
    writer = DisplayWriter(panels, on_ready=lambda: calls.append(list(writer.written)))
    writer.show(0, Image.new("1", (128, 64), 1))
    writer.show(0, Image.new("1", (128, 64), 0))
    writer.show(1, Image.new("1", (128, 64), 1))
    assert writer.flush()
    assert calls == []                     # display 3 has shown nothing yet
    writer.show(2, Image.new("1", (128, 64), 1))
    writer.show(1, Image.new("1", (128, 64), 0))
    assert writer.flush()
    assert len(calls) == 1 and all(calls[0])
    writer.close()


def test_a_display_that_fails_is_retried_with_a_growing_pause_and_reopened():
    from luma.core.error import DeviceNotFoundError

    bus = Bus()
    now = [100.0]
    opened = []

    def open_panel():
        panel = ssd1306(i2c(bus=bus, address=0x3C))  # sends the init sequence: fails if unplugged
        opened.append(panel)
        return panel

    bus.unplugged = True
    writer = DisplayWriter(openers=[open_panel], clock=lambda: now[0])
    writer.show(0, Image.new("1", (128, 64), 1))
    assert writer.flush()
    assert writer.failures == [1] and writer.down() == [0] and writer.retry_at == [101.0]
    now[0] = 101.0
    writer.show(0, Image.new("1", (128, 64), 0))     # still unplugged: the pause doubles
    assert writer.flush()
    assert writer.failures == [2] and writer.retry_at == [103.0]
    bus.unplugged = False
    writer.show(0, Image.new("1", (128, 64), 1))     # not due yet: waits
    assert writer.flush() and writer.written == [0]
    now[0] = 103.0
    writer.set_contrast(40)                          # wakes the writer: the retry is due
    assert writer.flush()
    assert writer.written == [1] and writer.down() == [] and len(opened) == 1
    assert writer.contrast_level == 40
    writer.close()


def test_a_bus_slower_than_the_profile_says_is_reported_with_the_fix(tmp_path):
    from dataclasses import replace

    from companion.adapters.displays import check_bus_speed

    profile = load_profile(PROFILE)
    node = tmp_path / "i2c-1" / "of_node"
    node.mkdir(parents=True)
    (node / "clock-frequency").write_bytes((100_000).to_bytes(4, "big"))
    (warning,) = check_bus_speed(profile, tmp_path)
    assert "runs at 100000 Hz, the profile says 400000 Hz" in warning
    assert "dtparam=i2c_arm_baudrate=400000" in warning
    slow = replace(profile, displays=replace(profile.displays, i2c_hz=100_000))
    assert check_bus_speed(slow, tmp_path) == []
    assert check_bus_speed(profile, tmp_path / "elsewhere") == []   # the kernel does not say
