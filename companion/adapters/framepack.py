"""Frames packed by Pillow into the panel's page format, instead of luma's per-pixel loop.

An SSD1306 or SH1106 keeps its picture in *pages*: 8 rows each, one byte per column, the top
row in bit 0 (SSD1306 datasheet, section 8.7 "Graphic Display Data RAM"). luma builds those
bytes in pure Python, a loop over all 8,192 pixels of a 128x64 frame (``luma/oled/device``,
``ssd1306.display`` and ``sh1106.display``): about 1.5 ms on an x86 desktop and 15-30 ms on a
Pi Zero 2 W, all of it holding the GIL while the buttons' callback thread waits. Pillow does the
same in C: transposed, each row of the image is one column of the panel, and the raw mode
``1;R`` packs 8 pixels per byte with the first (top) one in bit 0; the bytes then come out
column by column, so page ``p`` is every 8th byte starting at ``p``. ``python -m bench`` measures
both (``frame_pack_ms``); ``tests/test_framepack.py`` checks the bytes equal luma's own.

The subclasses send exactly what luma sends (same commands, same 32-byte chunks); only the
packing is ours, and the panel clock (:data:`PANEL_CLOCK`) sent after luma's init sequence.
Rotation is luma's own ``preprocess``.
"""

from __future__ import annotations

from luma.oled.device import sh1106, ssd1306
from PIL import Image


def pages(image: Image.Image) -> bytes:
    """A one-bit image (height a multiple of 8) as panel pages: ``width`` bytes per page, page
    after page, each byte a column of 8 pixels with the top one in bit 0."""
    height = image.size[1]
    columns = image.transpose(Image.Transpose.TRANSPOSE).tobytes("raw", "1;R")
    per_column = height // 8
    return b"".join(columns[page::per_column] for page in range(per_column))


PANEL_CLOCK = {"ssd1306": (0xF0, 0x22), "sh1106": (0xF0, 0x22)}
"""(0xD5, 0xD9) arguments each panel is sent after luma's init sequence: its fastest row scan.

The light of a screen change trails the panel's command by up to one frame of its free-running
scan (:class:`~companion.adapters.panelscan.Scan`), so a shorter frame is a fairer
race. A frame is D x K x 64 / Fosc (SSD1306 datasheet, section 8.3): 0xD5 0xF0 is divide ratio
1 (the least) and the highest oscillator setting; 0xD9 0x22 is the datasheet's reset precharge,
2 + 2 clocks a row (K = 54) instead of the 1 + 15 luma sends (K = 66). 0xD9 0x11 would save
another 2 of 54 clocks a row (4 %) for a dimmer, less even picture: not worth it. On an SSD1306
that is 6.3-7.7 ms a frame instead of luma's 10.4-12.7 ms, and never above 10.4 ms even if the
highest oscillator setting were no faster than the reset one (the only one the datasheet gives
in figures). luma already sends an SH1106 0xF0 and 0x22."""


class _PanelClock:
    """Sends the driver's :data:`PANEL_CLOCK` once luma's own init sequence is done."""

    driver: str

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        clock, precharge = PANEL_CLOCK[self.driver]
        self.command(0xD5, clock, 0xD9, precharge)


class FastSSD1306(_PanelClock, ssd1306):
    """luma's ssd1306, with the frame packed by :func:`pages`, at the fastest row scan."""

    driver = "ssd1306"

    def display(self, image: Image.Image) -> None:
        assert image.mode == self.mode and image.size == self.size
        image = self.preprocess(image)
        self.command(self._const.COLUMNADDR, self._colstart, self._colend - 1,
                     self._const.PAGEADDR, 0x00, self._pages - 1)
        self.data(pages(image))


class FastSH1106(_PanelClock, sh1106):
    """luma's sh1106, with the frame packed by :func:`pages`: one page-address command and one
    page of data at a time, as the SH1106 has no horizontal addressing mode."""

    driver = "sh1106"

    def display(self, image: Image.Image) -> None:
        assert image.mode == self.mode and image.size == self.size
        image = self.preprocess(image)
        packed = pages(image)
        for page in range(self._pages):
            self.command(0xB0 + page, self._page_address_offset, 0x10)
            self.data(packed[page * self._w:(page + 1) * self._w])


FAST = {"ssd1306": FastSSD1306, "sh1106": FastSH1106}
"""The drivers whose frames we pack ourselves; any other driver is luma's own."""
