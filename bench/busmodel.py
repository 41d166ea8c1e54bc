"""A timing-faithful I2C bus with OLED panels on it, for tests and benchmarks (never the box).

Mock displays are instant, so nothing could see that one writer thread on one I2C bus shows
station 6 its screen a hundred milliseconds after station 1. :class:`TimedBus` is an smbus
double that the *real* luma device writes to (``i2c(bus=...)``, or through
:class:`~companion.adapters.mux.MuxChannel`): every transaction takes its wire time on a clock
(a fake one that jumps, or the real one, slept), and each panel behind it records when what it
shows changed.

The numbers, and where they come from:

- **9 bits per byte**: 8 data bits and the receiver's ACK (I2C-bus specification, NXP UM10204,
  section 3.1.6). A transaction is the address byte plus its payload.
- **START and STOP**: 2 more bit periods per transaction. UM10204 table 10 asks, in Fast-mode,
  0.6 us START hold + 0.6 us STOP setup + 1.3 us bus free between transactions = 2.5 us, one bit
  at 400 kHz (Standard-mode 4.0 + 4.0 + 4.7 us, 1.3 bits at 100 kHz); we round up to 2.
- **luma's transactions** (``luma/core/interface/serial.py``, ``i2c``): given a ``bus``, luma
  is "unmanaged" and sends data in ``write_i2c_block_data`` chunks of 32 bytes after the control
  byte 0x40, and commands as one block after 0x00. An SSD1306 frame (``ssd1306.display``) is one
  6-byte addressing command and 1,024 data bytes: 33 transactions, 1,096 bytes on the wire with
  addresses and control bytes. Through a TCA9548A every transaction is preceded by a channel
  select (``MuxChannel``: address + control byte), so a frame is 1,162 bytes in 66
  transactions: 26.5 ms at 400 kHz, 106 ms at 100 kHz.
- **What is visible** (SSD1306 datasheet, table 9-1; SH1106 datasheet, the same codes): 0xAE
  switches the panel off (dark, RAM kept), 0xAF on. A panel that is on shows RAM as it is
  written, so its content changes at the end of every data transaction while it is on; a panel
  switched on shows everything written while it was off at once, at the end of the 0xAF
  transaction. A command's argument bytes are parsed as arguments (a contrast of 0xAF is not a
  display-on).
- **The row scan** (:class:`Scan`): what a panel *took* is not yet light. A panel drives its
  rows one after another from its own free-running oscillator, not synchronized between panels
  (no sync pin on common modules). SSD1306 datasheet (Solomon Systech, rev 1.1), section 8.3:
  ``F_FRM = Fosc / (D x K x MUX)``, with D the clock divide ratio (0xD5 A[3:0] + 1), K the
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
- **Host time** per transaction (the kernel's ioctl and the controller's interrupts) is not
  known from a source we trust; it is 0 unless given (``host_ns``), and the reveal benchmark
  reports a case with 50 us to show how it moves the result.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

BITS_PER_BYTE = 9
START_STOP_BITS = 2
MUX_ADDRESS = 0x70
CONTROL_COMMAND, CONTROL_DATA = 0x00, 0x40
DISPLAY_OFF, DISPLAY_ON = 0xAE, 0xAF

ARGUMENTS = {
    "ssd1306": {0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0x81: 1, 0x8D: 1,
                0xA3: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1},
    "sh1106": {0x81: 1, 0x8D: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1},
}
"""How many argument bytes follow each command that takes any, per driver's datasheet (0x8D,
the SSD1306 charge pump, luma also sends to an SH1106)."""


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


def wire_ns(payload_bytes: int, hz: int) -> int:
    """One write transaction of ``payload_bytes`` after the address byte, START to STOP."""
    bits = (1 + payload_bytes) * BITS_PER_BYTE + START_STOP_BITS
    return round(bits * 1e9 / hz)


class FakeClock:
    """Time that only moves when the bus says a transfer took time."""

    def __init__(self, start_ns: int = 0) -> None:
        self.ns = start_ns

    def now_ns(self) -> int:
        return self.ns

    def wait_until(self, t_ns: int) -> None:
        self.ns = max(self.ns, t_ns)


class RealClock:
    """``time.monotonic_ns``; a transfer blocks its caller until its wire time has passed, as the
    kernel's I2C ioctl does (sleeping, so other threads run meanwhile)."""

    def now_ns(self) -> int:
        return time.monotonic_ns()

    def wait_until(self, t_ns: int) -> None:
        while (left := t_ns - time.monotonic_ns()) > 0:
            time.sleep(left / 1e9)


@dataclass
class Panel:
    """One OLED as seen from its pixels: on or off, and when what it showed changed."""

    driver: str
    on: bool = False
    changes: list[tuple[int, str]] = field(default_factory=list)
    """(t_ns, "on" | "off" | "data"): every visible change, in time order."""
    settings: dict[int, int] = field(default_factory=dict)
    """Command -> its last argument byte, for the commands that take one (0xD5 the clock,
    0xD9 the precharge): what the panel's scan runs at (:meth:`scan`)."""

    def shown_at(self, since_ns: int = 0) -> int | None:
        """When the panel last changed what it shows, at or after ``since_ns``, while on: the
        moment its current picture was complete."""
        times = [t for t, kind in self.changes if t >= since_ns and kind != "off"]
        return max(times, default=None) if self.on else None

    def commands(self, codes: list[int], t_ns: int) -> None:
        arguments = ARGUMENTS[self.driver]
        i = 0
        while i < len(codes):
            code = codes[i]
            if code in (DISPLAY_ON, DISPLAY_OFF) and self.on != (code == DISPLAY_ON):
                self.on = code == DISPLAY_ON
                self.changes.append((t_ns, "on" if self.on else "off"))
            if arguments.get(code, 0) == 1 and i + 1 < len(codes):
                self.settings[code] = codes[i + 1]
            i += 1 + arguments.get(code, 0)

    def scan(self, rnd: random.Random, mode: str = "continues") -> Scan:
        """This panel's row scan at the clock and precharge it was sent (the reset values,
        0x80 and 0x22, if none), Fosc and phase drawn as :meth:`Scan.drawn` does."""
        return Scan.drawn(rnd, self.driver, self.settings.get(0xD5, 0x80), self.settings.get(0xD9, 0x22), mode)

    def data(self, t_ns: int) -> None:
        if self.on:
            self.changes.append((t_ns, "data"))


class TimedBus:
    """An smbus double (``write_byte``, ``write_byte_data``, ``write_i2c_block_data``) at
    ``hz``, with ``driver`` panels at any address, behind a TCA9548A at ``mux_address`` if
    written to (a panel is then known by channel and address; a select of several channels
    reaches all of them, as the chip does)."""

    def __init__(self, hz: int = 400_000, clock: FakeClock | RealClock | None = None,
                 driver: str = "ssd1306", host_ns: int = 0, mux_address: int = MUX_ADDRESS) -> None:
        if driver not in ARGUMENTS:
            raise ValueError(f"driver must be one of {', '.join(ARGUMENTS)}, not {driver!r}")
        self.hz = hz
        self.clock = clock or FakeClock()
        self.driver = driver
        self.host_ns = host_ns
        self.mux_address = mux_address
        self.selected = 0
        self.panels: dict[tuple[int | None, int], Panel] = {}
        self.transactions = 0
        self.wire_bytes = 0
        self._free_at = 0

    def _transfer(self, payload_bytes: int) -> int:
        """Hold the bus for one transaction; return when its STOP was sent."""
        start = max(self.clock.now_ns(), self._free_at)
        end = start + self.host_ns + wire_ns(payload_bytes, self.hz)
        self.clock.wait_until(end)
        self._free_at = end
        self.transactions += 1
        self.wire_bytes += 1 + payload_bytes
        return end

    def panel(self, address: int, channel: int | None = None) -> Panel:
        return self.panels.setdefault((channel, address), Panel(self.driver))

    def _addressed(self, address: int) -> list[Panel]:
        if not self.selected:
            return [self.panel(address)]
        return [self.panel(address, ch) for ch in range(8) if self.selected >> ch & 1]

    def write_byte(self, address: int, value: int) -> None:
        self._transfer(1)
        if address == self.mux_address:
            self.selected = value

    def write_byte_data(self, address: int, register: int, value: int) -> None:
        self.write_i2c_block_data(address, register, [value])

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        end = self._transfer(1 + len(data))
        for panel in self._addressed(address):
            if register == CONTROL_COMMAND:
                panel.commands(list(data), end)
            elif register == CONTROL_DATA:
                panel.data(end)

    def close(self) -> None:
        """Nothing to release."""
