"""The row scan of an OLED panel: when a change it took becomes light, from the datasheet.

Players see a screen change when the panel's own scan lights it, not when the box sent it. The
model is here, in the package, because the simulator's light sensors and the tests time races
from it; ``bench/busmodel.py`` puts it behind its I2C bus model for the benchmarks.

What a panel *took* is not yet light. A panel drives its rows one after another from its own
free-running oscillator, not synchronized between panels (no sync pin on common modules).
SSD1306 datasheet (Solomon Systech, rev 1.1), section 8.3: ``F_FRM = Fosc / (D x K x MUX)``,
with D the clock divide ratio (0xD5 A[3:0] + 1), K the
display clocks per row (phase 1 + phase 2 of the 0xD9 precharge, + the BANK0 pulse width of
50 clocks) and MUX the multiplex ratio (0xA8 + 1: 64). Fosc is 333 / 370 / 407 kHz min / typ /
max (AC characteristics table, at the reset setting 0xD5 A[7:4] = 1000b, VDD 2.8 V, 25 C); the
datasheet gives it as a range, not a value, so each panel of the model draws its own Fosc
uniformly from it (the datasheet gives no distribution) and its own phase uniformly from a
frame. luma sends 0xD5 0x80 (D 1, Fosc 1000b) and 0xD9 0xF1 (phase 1 = 1, phase 2 = 15 clocks,
K = 66): **11.4 ms a frame typ, 10.4 to 12.7 ms** (87.6 Hz typ). (The figure of about 105
frames a second often quoted is the reset precharge, 0xD9 0x22, K = 54.)

The datasheet says only that Fosc *rises* with 0xD5 A[7:4]; its value at 1111b is not given.
The SH1106/SH1107 datasheets (Sino Wealth, "Set Display Clock Divide Ratio/Oscillator
Frequency") give the same command as 5 % steps of their reset frequency (0101b; 1111b is
+50 %); the model applies those 5 % steps to the SSD1306 from its own reset setting (1111b:
+35 %), **an assumption: check on a real panel** (``companion selftest`` with a light sensor
measures the frame period). Bounds that must hold use only the documented range: a faster
setting is never slower than 1000b (:data:`DOCUMENTED_FRAME_MAX_NS`). The SH1106's own
reset Fosc is not confirmed from a source here; the model gives it the SSD1306's range (luma
sends it 0xD5 0xF0: +50 %, and 0xD9 0x22).

A change becomes light when the scan next *starts* a row that shows it (a row being driven
keeps the data it latched): the stimulus's rows (``rows``, a band of RAM rows from the display
start line, the order the row counter walks them) decide how long that takes. OLED pixels
switch in microseconds (not modelled).

**What 0xAF does to the scan is not in the datasheet.** :class:`Scan` models both: ``"continues"``
(the oscillator and row counter run on while the panel is off, so the phase at 0xAF is
random) and ``"restarts"`` (display-on starts the scan at row 0). Every figure assumes
``"continues"``, the worse of the two; ``"restarts"`` is reported beside it. A light sensor
tells them apart (:mod:`companion.adapters.lightsensor`): a panel whose stamped-to-light lag
never varies by more than a few rows restarts its scan.

:class:`ScannedPanels` is a box's panels as the model draws them: each its own Fosc and phase,
fixed for the panel (its oscillator runs on), so each reveal's light comes at the next start of
the stimulus's rows after the panel's stamped onset.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

FOSC_HZ = (333_000, 370_000, 407_000)
"""SSD1306 Fosc min / typ / max at 0xD5 A[7:4] = 1000b (datasheet rev 1.1, AC characteristics)."""
FOSC_RESET_SETTING = {"ssd1306": 0b1000, "sh1106": 0b0101}
"""0xD5 A[7:4] at reset, where :data:`FOSC_HZ` holds (SH1106: assumed, see the module doc)."""
FOSC_STEP = 0.05
"""Fosc per step of 0xD5 A[7:4] (SH1106/SH1107 datasheets' table; assumed for the SSD1306)."""
BANK0_CLOCKS = 50
MUX_ROWS = 64
LUMA_SETTINGS = {"ssd1306": (0x80, 0xF1), "sh1106": (0xF0, 0x22)}
"""(0xD5, 0xD9) arguments luma.oled 3.16 sends in each device's init sequence."""
SCAN_MODES = ("continues", "restarts")


def frame_ns(fosc_hz: float, clock: int, precharge: int, mux: int = MUX_ROWS) -> float:
    """One frame (ns) from the datasheet formula: D x K x MUX / Fosc."""
    divide = (clock & 0x0F) + 1
    per_row = (precharge & 0x0F) + (precharge >> 4) + BANK0_CLOCKS
    return divide * per_row * mux * 1e9 / fosc_hz


def fosc_range(driver: str, clock: int) -> tuple[float, float, float]:
    """(min, typ, max) Fosc at 0xD5 argument ``clock``: the documented range moved by 5 % a
    step from the reset setting (the steps are an assumption; see the module doc)."""
    steps = (clock >> 4) - FOSC_RESET_SETTING.get(driver, 0b1000)
    return tuple(f * (1 + FOSC_STEP * steps) for f in FOSC_HZ)


DOCUMENTED_FRAME_MAX_NS = frame_ns(FOSC_HZ[0], 0x80, 0x22)
"""The longest frame an SSD1306 can have at 0xD5 A[7:4] >= 1000b, D 1 and 0xD9 0x22, from the
documented Fosc range alone (10.38 ms): no assumption about faster settings. The light onsets
of two such panels can differ by less than this after their stamps are taken into account."""


def scan_driver(driver: str) -> str:
    """The datasheet a profile's display driver scans by: the SH1106's, or the SSD1306's (the
    SSD1309 and SSD1315 are SSD1306s to luma)."""
    return "sh1106" if driver == "sh1106" else "ssd1306"


@dataclass(frozen=True)
class Scan:
    """One panel's row scan: its frame (ns), its phase (when row 0 starts, ns, modulo a frame)
    and what 0xAF does to it (:data:`SCAN_MODES`)."""

    frame_ns: float
    phase_ns: float = 0.0
    mode: str = "continues"

    @property
    def row_ns(self) -> float:
        return self.frame_ns / MUX_ROWS

    def light_ns(self, taken_ns: int, rows: range, display_on: bool = True) -> int:
        """When a change the panel took at ``taken_ns`` (the end of its 0xAF transaction when
        ``display_on``) first lights a pixel in ``rows``: the next start of one of them."""
        if display_on and self.mode == "restarts":
            return taken_ns + round(rows.start * self.row_ns)
        into = (taken_ns - self.phase_ns) % self.frame_ns
        next_row = math.ceil(into / self.row_ns - 1e-9)
        if next_row < rows.stop:
            return taken_ns + round(max(next_row, rows.start) * self.row_ns - into)
        return taken_ns + round(self.frame_ns - into + rows.start * self.row_ns)

    @classmethod
    def drawn(cls, rnd: random.Random, driver: str = "ssd1306", clock: int | None = None,
              precharge: int | None = None, mode: str = "continues") -> "Scan":
        """A panel off the shelf: Fosc uniform in the datasheet's range, phase uniform."""
        if mode not in SCAN_MODES:
            raise ValueError(f"mode must be one of {', '.join(SCAN_MODES)}, not {mode!r}")
        luma_clock, luma_precharge = LUMA_SETTINGS[driver]
        low, _, high = fosc_range(driver, luma_clock if clock is None else clock)
        frame = frame_ns(rnd.uniform(low, high), luma_clock if clock is None else clock,
                         luma_precharge if precharge is None else precharge)
        return cls(frame, rnd.uniform(0, frame), mode)


class ScannedPanels:
    """A box's panels as the model draws them, at the box's panel clock (``settings``: driver ->
    (0xD5, 0xD9), :data:`~companion.adapters.framepack.PANEL_CLOCK`): one :class:`Scan` per
    station, its Fosc and phase drawn once from ``rnd`` and kept, as a real panel's oscillator
    runs on between reveals."""

    def __init__(self, drivers: dict[int, str], settings: dict[str, tuple[int, int]], rnd: random.Random,
                 mode: str = "continues") -> None:
        self.scans = {station: Scan.drawn(rnd, scan_driver(driver), *settings[scan_driver(driver)], mode=mode)
                      for station, driver in sorted(drivers.items())}

    def light_ns(self, onsets: dict[int, int], rows: range) -> dict[int, int]:
        """Each station's light onset of a reveal its panel took at ``onsets`` (stamped): the
        next start of one of ``rows`` on that panel's scan."""
        return {station: self.scans[station].light_ns(t, rows)
                for station, t in onsets.items() if station in self.scans}
