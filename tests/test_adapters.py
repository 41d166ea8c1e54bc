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

from helpers import PATIENCE_S, until

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

    from companion.adapters.i2cbus import BusFinder, check_bus_speed

    profile = load_profile(PROFILE)
    node = tmp_path / "bus" / "i2c" / "devices" / "i2c-1" / "of_node"
    node.mkdir(parents=True)
    (node / "clock-frequency").write_bytes((100_000).to_bytes(4, "big"))
    (warning,) = check_bus_speed(profile, BusFinder(tmp_path))
    assert "runs at 100000 Hz, the profile says 400000 Hz" in warning
    assert "dtparam=i2c_arm_baudrate=400000" in warning
    slow = replace(profile, displays=replace(profile.displays, i2c_hz=100_000))
    assert check_bus_speed(slow, BusFinder(tmp_path)) == []
    assert check_bus_speed(profile, BusFinder(tmp_path / "elsewhere")) == []   # the kernel does not say


def fds_on(path) -> int:
    """The process's descriptors open on ``path``: a count of every descriptor would take in
    whatever another test's thread in the same worker opens or closes meanwhile (232 against 231)."""
    import os

    opened = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            opened += os.readlink(f"/proc/self/fd/{fd}") == str(path)
        except OSError:  # closed meanwhile (another thread's)
            pass
    return opened


class DeadSMBus:
    """smbus2.SMBus with no panel on the wire: it opens a real file descriptor (as the kernel's
    /dev/i2c-N does) on :attr:`bus_file` and every transfer fails as an unanswered address does
    (EREMOTEIO)."""

    bus_file = None
    """The bus's own file (a test's temporary one), so that its descriptors can be counted."""

    def __init__(self, port):
        import os

        self.fd = os.open(DeadSMBus.bus_file or os.devnull, os.O_RDWR)

    def _transfer(self, *args):
        raise OSError(121, "Remote I/O error")

    write_i2c_block_data = write_byte_data = write_byte = i2c_rdwr = _transfer

    def close(self):
        import os

        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@pytest.mark.parametrize("mux_channel, times", [(None, 1000), (2, 300)], ids=["direct", "behind the mux"])
def test_reopening_a_dead_panel_a_thousand_times_leaks_no_fd_and_no_memory(monkeypatch, tmp_path, mux_channel, times):
    """The real luma ssd1306 opened over a dead bus, as the writer retries it: luma's exit hook
    (holding the device) and a direct panel's smbus descriptor must go with each failed try.
    Behind the mux (one shared bus, no descriptor per panel) 300 tries are plenty: a leaked
    device is about 340 kB, so even 300 leaks would be a thousand times the 100 kB allowed."""
    import functools
    import gc
    import tracemalloc

    import smbus2

    from companion.adapters.displays import Buses, open_device
    from companion.profile import DisplayProfile

    monkeypatch.setattr(smbus2, "SMBus", DeadSMBus)
    monkeypatch.setattr(DeadSMBus, "bus_file", tmp_path / "i2c-1")
    DeadSMBus.bus_file.touch()
    now = [0.0]
    buses = Buses()
    opener = functools.partial(open_device, DisplayProfile(port=1, mux_channel=mux_channel), "pi", buses)
    writer = DisplayWriter(openers=[opener], clock=lambda: now[0])
    frame = Image.new("1", (128, 64), 1)

    def retry(times):
        """Each time, the clock is moved to the retry first: moved after the last flush, it
        would let the writer try once more on its own before the count is read."""
        for _ in range(times):
            now[0] = writer.retry_at[0]
            writer.show(0, frame)
            assert writer.flush()

    def measure():
        gc.collect()
        return fds_on(DeadSMBus.bus_file), tracemalloc.get_traced_memory()[0]

    tracemalloc.start()
    try:
        retry(50)  # warm up: caches, the writer's first log lines
        fds, memory = measure()
        retry(times)
        fds_after, memory_after = measure()
    finally:
        tracemalloc.stop()
        writer.close()
        buses.close()
    assert writer.failures == [50 + times]
    assert fds_after == fds
    assert memory_after - memory < 100_000, f"{(memory_after - memory) / 1000:.0f} kB more after {times} reopens"


def test_a_panel_that_fails_after_opening_is_released_when_dropped(monkeypatch, tmp_path):
    import gc
    import os
    import weakref

    import smbus2

    from companion.adapters.displays import open_device
    from companion.profile import DisplayProfile

    bus_file = tmp_path / "i2c-1"
    bus_file.touch()

    class FlakySMBus(DeadSMBus):
        alive = True

        def __init__(self, port):
            self.fd = os.open(bus_file, os.O_RDWR)  # its own file: no other thread's descriptor counts


        def _transfer(self, *args):
            if not FlakySMBus.alive:
                super()._transfer()

        write_i2c_block_data = write_byte_data = i2c_rdwr = _transfer

    monkeypatch.setattr(smbus2, "SMBus", FlakySMBus)
    writer = DisplayWriter(openers=[lambda: open_device(DisplayProfile(), "pi")])
    writer.show(0, Image.new("1", (128, 64), 1))
    assert writer.flush() and writer.written == [1]
    assert fds_on(bus_file) == 1
    panel = weakref.ref(writer.devices[0])
    FlakySMBus.alive = False
    writer.show(0, Image.new("1", (128, 64), 0))
    assert writer.flush() and writer.down() == [0]
    gc.collect()
    assert fds_on(bus_file) == 0
    assert panel() is None, "nothing (luma's exit hook) holds the dropped panel"
    writer.close()


class RecordingSMBus(Bus):
    """smbus2.SMBus as the kernel's bus would be with panels on it: every transfer recorded
    (one shared record, as every display and the multiplexer sit on one wire)."""

    wire: list = []

    def __init__(self, port):
        self.sent = RecordingSMBus.wire

    @property
    def unplugged(self):
        return RecordingSMBus.down

    down = False
    write_byte = Bus._transfer

    def close(self):
        pass


CONTRAST = 0x81
INIT_CONTRAST = 0xCF
"""What luma's ssd1306 init sequence sets (luma.oled 3.16, ``ssd1306.__init__``): ours must follow it."""


def contrast_commands(wire, address=0x3C):
    """The SSD1306 contrast commands (0x81, level) sent on their own, in order."""
    return [args[2][1] for args in wire
            if len(args) == 3 and args[0] == address and args[1] == 0x00 and args[2][:1] == [CONTRAST]
            and len(args[2]) == 2]


def test_the_profile_contrast_reaches_every_panel_at_start(monkeypatch, tmp_path):
    import asyncio

    import smbus2

    from companion.daemon import Daemon

    monkeypatch.setattr(smbus2, "SMBus", RecordingSMBus)
    monkeypatch.setattr(RecordingSMBus, "wire", [])
    path = tmp_path / "box.toml"
    stations = "".join(f'[[stations]]\npins = {{ slap = {4 + i}, left = {9 + i}, ok = {14 + i}, right = {19 + i} }}\n'
                       f'display = {{ mux_channel = {i} }}\n' for i in range(3))
    path.write_text(f'backend = "pi"\n[displays]\ncontrast = 77\n{stations}')
    profile = load_profile(path)
    assert [s.display.mux_channel for s in profile.stations] == [0, 1, 2]
    daemon = Daemon(profile, pin_factory=MockFactory(pin_class=MockPWMPin))

    async def until_ready():
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        while not daemon.ready.is_set():
            await asyncio.sleep(0.01)
        stop.set()
        await runner

    try:
        asyncio.run(asyncio.wait_for(until_ready(), PATIENCE_S))
    finally:
        daemon.close()
    assert daemon.box.displays.down() == []
    assert contrast_commands(RecordingSMBus.wire) == [INIT_CONTRAST, 77] * 3


def test_contrast_is_sent_again_after_a_panel_is_reopened(monkeypatch):
    import smbus2

    from companion.adapters.displays import open_device
    from companion.profile import DisplayProfile

    monkeypatch.setattr(smbus2, "SMBus", RecordingSMBus)
    monkeypatch.setattr(RecordingSMBus, "wire", [])
    now = [0.0]
    writer = DisplayWriter(openers=[lambda: open_device(DisplayProfile(), "pi")], clock=lambda: now[0])
    writer.set_contrast(90)
    writer.show(0, Image.new("1", (128, 64), 1))
    assert writer.flush() and contrast_commands(RecordingSMBus.wire) == [INIT_CONTRAST, 90]
    monkeypatch.setattr(RecordingSMBus, "down", True)     # the panel lost power
    writer.show(0, Image.new("1", (128, 64), 0))
    assert writer.flush() and writer.down() == [0]
    monkeypatch.setattr(RecordingSMBus, "down", False)    # back, at its power-on contrast
    now[0] = writer.retry_at[0]
    writer.show(0, Image.new("1", (128, 64), 1))
    assert writer.flush() and writer.down() == []
    assert contrast_commands(RecordingSMBus.wire) == [INIT_CONTRAST, 90] * 2
    writer.close()


class SoftwarePWMPin(MockPWMPin):
    """MockPWMPin as lgpio's software PWM behaves (lgpio 0.2.2 ``tx_pwm``; gpiozero 2.0.1
    ``pins/lgpio.py`` stops it with ``tx_pwm(handle, pin, 0, 0)``): stopping the wave leaves the
    pin at the level it was at. The worst case, modelled here: high."""

    def _set_frequency(self, value):
        if value is None and self._frequency is not None:
            self._frequency = None
            self._change_state(1.0)  # the wave stopped mid-pulse
            return
        super()._set_frequency(value)


def test_the_buzzer_pin_is_low_after_every_cue_and_every_rest():
    import asyncio

    factory = MockFactory(pin_class=SoftwarePWMPin)
    buzzer = Buzzer(18, factory)
    pin = factory.pin(18)
    buzzer._sound("A5")
    assert pin.state == 0.5
    buzzer._sound(None)                      # a rest inside a melody
    assert pin.state == 0
    buzzer._sound("C6")

    async def play_a_cue_to_its_end():
        buzzer.play("tick")                  # one note, then the silence that ends it
        await until(lambda: pin.frequency is None)

    asyncio.run(play_a_cue_to_its_end())
    assert pin.frequency is None and pin.state == 0
    buzzer._sound("A5")
    buzzer.stop()                            # a cue cut short
    assert pin.state == 0
    buzzer.close()
    factory.reset()
