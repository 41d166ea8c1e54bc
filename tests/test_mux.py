"""TCA9548A userspace multiplexing, checked at the smbus seam under a real luma ssd1306."""

import threading

import pytest
from luma.core.interface.serial import i2c
from luma.oled.device import ssd1306
from PIL import Image

from companion.adapters.mux import MuxChannel


class RecordingBus:
    """An smbus double: records every transaction, as a logic analyser on SDA/SCL would."""

    def __init__(self):
        self.log = []

    def write_byte(self, address, value):
        self.log.append(("select", address, value))

    def write_i2c_block_data(self, address, register, data):
        self.log.append(("block", address, register, len(data)))

    def write_byte_data(self, address, register, value):
        self.log.append(("byte", address, register, value))


def test_every_transaction_is_preceded_by_its_channel_select_even_the_init():
    bus = RecordingBus()
    lock = threading.Lock()
    panels = [ssd1306(i2c(bus=MuxChannel(bus, ch, lock), address=0x3C)) for ch in (0, 5)]
    init = list(bus.log)
    assert init, "the constructors sent their init sequences"
    for select, transfer in zip(init[::2], init[1::2]):
        assert select[0] == "select" and select[1] == 0x70
        assert transfer[0] == "block" and transfer[1] == 0x3C
    channels = [s[2] for s in init[::2]]
    half = len(channels) // 2
    assert set(channels[:half]) == {1 << 0} and set(channels[half:]) == {1 << 5}

    bus.log.clear()
    panels[1].display(Image.new("1", (128, 64), 1))
    assert len(bus.log) > 2
    assert all(entry == ("select", 0x70, 1 << 5) for entry in bus.log[::2])
    assert sum(e[3] for e in bus.log[1::2] if e[0] == "block" and e[2] == 0x40) == 128 * 64 // 8


def test_a_channel_outside_the_multiplexer_is_refused():
    with pytest.raises(ValueError, match="channels 0 to 7, not 8"):
        MuxChannel(RecordingBus(), 8, threading.Lock())
