"""Our Pillow frame packing against luma's own, byte for byte, at the smbus seam."""

import random

import pytest
from luma.core.interface.serial import i2c
from luma.oled.device import sh1106, ssd1306
from PIL import Image

from companion.adapters.framepack import FastSH1106, FastSSD1306, pages


class RecordingBus:
    """An smbus double: every transaction luma sends, in order."""

    def __init__(self):
        self.log = []

    def write_i2c_block_data(self, address, register, data):
        self.log.append((address, register, tuple(data)))


def noise(rnd: random.Random, size=(128, 64)) -> Image.Image:
    image = Image.new("1", size)
    image.putdata([rnd.getrandbits(1) * 255 for _ in range(size[0] * size[1])])
    return image


def sent(driver, image, rotate, height=64):
    bus = RecordingBus()
    size = (128, height) if rotate % 2 == 0 else (height, 128)
    panel = driver(i2c(bus=bus, address=0x3C), width=128, height=height, rotate=rotate)
    assert panel.size == size
    bus.log.clear()
    panel.display(image)
    return bus.log


@pytest.mark.parametrize(("ours", "luma"), [(FastSSD1306, ssd1306), (FastSH1106, sh1106)])
@pytest.mark.parametrize("rotate", [0, 1, 2, 3])
def test_our_frames_are_byte_for_byte_luma_s(ours, luma, rotate):
    rnd = random.Random(rotate)
    for _ in range(3):
        image = noise(rnd, (128, 64) if rotate % 2 == 0 else (64, 128))
        expected = sent(luma, image, rotate)
        assert sent(ours, image, rotate) == expected
        assert sum(len(data) for _, register, data in expected if register == 0x40) == 1024


@pytest.mark.parametrize(("ours", "luma"), [(FastSSD1306, ssd1306), (FastSH1106, sh1106)])
def test_a_128x32_panel_too(ours, luma):
    image = noise(random.Random(7), (128, 32))
    assert sent(ours, image, 0, height=32) == sent(luma, image, 0, height=32)


def test_a_page_byte_is_a_column_of_eight_pixels_top_in_bit_zero():
    image = Image.new("1", (128, 64))
    image.putpixel((0, 0), 1)      # page 0, column 0, bit 0
    image.putpixel((5, 15), 1)     # page 1, column 5, bit 7
    image.putpixel((127, 63), 1)   # page 7, column 127, bit 7
    packed = pages(image)
    assert len(packed) == 1024
    assert {i: b for i, b in enumerate(packed) if b} == {0: 0x01, 128 + 5: 0x80, 1023: 0x80}


@pytest.mark.parametrize(("driver", "expected"), [("ssd1306", FastSSD1306), ("sh1106", FastSH1106), ("ssd1309", None)])
def test_the_box_opens_its_panels_with_our_packing_where_we_have_it(driver, expected):
    import threading

    from luma.oled import device as oled

    from bench.busmodel import TimedBus
    from companion.adapters.displays import Buses, open_device
    from companion.profile import DisplayProfile

    class ModelBuses(Buses):
        """The bus model instead of /dev/i2c-N."""

        def get(self, port):
            self.locks.setdefault(port, threading.Lock())
            return self._buses.setdefault(port, TimedBus())

    panel = open_device(DisplayProfile(driver=driver, mux_channel=3), "pi", ModelBuses())
    assert type(panel) is (expected or getattr(oled, driver))
