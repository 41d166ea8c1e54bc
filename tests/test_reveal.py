"""The reveal on a timing-faithful bus: real luma panels behind a TCA9548A on one I2C bus, every
transaction charged its wire time on a fake clock (``bench/busmodel.py``)."""

import threading

import pytest
from luma.core.interface.serial import i2c
from luma.oled.device import ssd1306
from PIL import Image

from bench.busmodel import FakeClock, TimedBus, wire_ns
from companion.adapters.displays import DisplayWriter
from companion.adapters.framepack import FAST
from companion.adapters.mux import MuxChannel

MS = 1_000_000


def box(stations: int, hz: int = 400_000, driver: str = "ssd1306"):
    """``stations`` panels on channels 0.. of one multiplexer, and a writer stamping on the bus's clock."""
    bus = TimedBus(hz, FakeClock(), driver)
    lock = threading.Lock()
    panels = [FAST[driver](i2c(bus=MuxChannel(bus, ch, lock), address=0x3C)) for ch in range(stations)]
    return bus, DisplayWriter(panels, now_ns=bus.clock.now_ns)


def frames(stations: int) -> dict[int, Image.Image]:
    return {i: Image.new("1", (128, 64), i % 2) for i in range(stations)}


def onsets(bus: TimedBus, since_ns: int) -> list[int]:
    return [panel.shown_at(since_ns) for _, panel in sorted(bus.panels.items())]


def test_a_frame_through_the_multiplexer_is_1162_bytes_in_66_transactions():
    bus, writer = box(1)
    before = (bus.transactions, bus.wire_bytes, bus.clock.ns)
    writer.show(0, Image.new("1", (128, 64), 1))
    assert writer.flush()
    assert (bus.transactions - before[0], bus.wire_bytes - before[1]) == (66, 1162)
    # 1,162 bytes x 9 bits + 2 bits a transaction, at 400 kHz
    assert bus.clock.ns - before[2] == pytest.approx((1162 * 9 + 66 * 2) * 2500, abs=66)
    writer.close()


def test_written_one_after_another_the_sixth_station_sees_its_screen_130ms_after_the_first():
    bus, writer = box(6)
    since = bus.clock.ns
    for station, image in frames(6).items():
        writer.show(station, image)
    assert writer.flush()
    shown = onsets(bus, since)
    assert max(shown) - min(shown) > 125 * MS
    assert shown == sorted(shown)               # the writer's order is the order players see
    writer.close()


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_revealed_every_panel_lights_up_within_a_millisecond_and_says_when(driver):
    bus, writer = box(6, driver=driver)
    since = bus.clock.ns
    reported = []
    writer.reveal(frames(6), reported.append)
    assert writer.flush()
    shown = onsets(bus, since)
    assert max(shown) - min(shown) < 1 * MS
    assert reported == [dict(enumerate(shown))]  # the writer's stamps are the panels' onsets
    assert all(bus.panels[(ch, 0x3C)].on for ch in range(6))
    writer.close()


def test_a_panel_switched_on_shows_its_new_frame_only_at_the_display_on_command():
    bus, writer = box(2)
    since = bus.clock.ns
    writer.reveal(frames(2))
    assert writer.flush()
    for station in range(2):
        changes = [kind for t, kind in bus.panels[(station, 0x3C)].changes if t > since]
        assert changes == ["off", "on"]         # dark while written: nothing partial is seen
    dark = [t for ch in range(2) for t, kind in bus.panels[(ch, 0x3C)].changes if t > since and kind == "off"]
    assert max(dark) - min(dark) < 1 * MS       # and all went dark together: nobody warned earlier
    writer.close()


def test_at_100khz_each_further_panel_lights_one_select_and_one_display_on_later():
    bus, writer = box(6, hz=100_000)
    since = bus.clock.ns
    writer.reveal(frames(6))
    assert writer.flush()
    shown = onsets(bus, since)
    # five more (select + display-on) pairs after the first panel's
    assert max(shown) - min(shown) == 5 * (wire_ns(1, 100_000) + wire_ns(2, 100_000))
    writer.close()


def test_a_panel_that_fails_during_the_reveal_is_given_the_latest_onset_of_the_others():
    class Unplugging(TimedBus):
        unplugged = None

        def write_i2c_block_data(self, address, register, data):
            if self.selected == self.unplugged:
                raise OSError(121, "Remote I/O error")
            super().write_i2c_block_data(address, register, data)

    bus = Unplugging(400_000, FakeClock())
    lock = threading.Lock()
    panels = [ssd1306(i2c(bus=MuxChannel(bus, ch, lock), address=0x3C)) for ch in range(3)]
    writer = DisplayWriter(panels, now_ns=bus.clock.now_ns)
    bus.unplugged = 1 << 2
    reported = []
    writer.reveal(frames(3), reported.append)
    assert writer.flush()
    (got,) = reported
    assert got[2] == max(got[0], got[1]) > min(got[0], got[1])
    assert writer.failures == [0, 0, 1]
    writer.close()


def test_a_newer_frame_for_a_station_joins_the_reveal_waiting_for_the_writer():
    class Held(TimedBus):
        """Holds the writer inside a transfer until let go: the writer is busy."""

        def __init__(self):
            super().__init__(400_000, FakeClock())
            self.hold = False
            self.held = threading.Event()
            self.go = threading.Event()

        def write_i2c_block_data(self, address, register, data):
            if self.hold:
                self.held.set()
                assert self.go.wait(10)
            super().write_i2c_block_data(address, register, data)

    bus = Held()
    lock = threading.Lock()
    panels = [ssd1306(i2c(bus=MuxChannel(bus, ch, lock), address=0x3C)) for ch in range(2)]
    writer = DisplayWriter(panels, now_ns=bus.clock.now_ns)
    bus.hold = True
    writer.show(0, Image.new("1", (128, 64), 1))
    assert bus.held.wait(10)                      # the writer is busy with station 1's frame
    reported = []
    writer.reveal(frames(2), reported.append)
    writer.show(1, Image.new("1", (128, 64), 1))  # newer than the reveal's: written in it
    bus.hold = False
    bus.go.set()
    assert writer.flush()
    assert writer.written == [2, 1]               # station 2: one frame, the reveal's
    assert len(reported) == 1 and set(reported[0]) == {0, 1}
    writer.close()


def test_on_the_real_clock_a_transfer_blocks_its_caller_for_at_least_its_wire_time():
    import time

    from bench.busmodel import RealClock

    bus = TimedBus(100_000, RealClock())
    panel = ssd1306(i2c(bus=bus, address=0x3C))
    start = time.monotonic_ns()
    panel.display(Image.new("1", (128, 64), 1))
    # without a multiplexer: the addressing command (control byte + 6) and 32 chunks of 32 bytes
    assert time.monotonic_ns() - start >= wire_ns(7, 100_000) + 32 * wire_ns(33, 100_000)
    assert bus.panel(0x3C).shown_at(start) <= time.monotonic_ns()
