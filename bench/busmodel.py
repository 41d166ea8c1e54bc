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
- **The row scan**: what a panel *took* is not yet light; the scan model (the datasheet's
  frame, each panel's Fosc and phase, what 0xAF does to the scan) is in the package,
  :mod:`companion.adapters.panelscan` (:class:`Scan`), where the simulator's light sensors use it.
- **Host time** per transaction (the kernel's ioctl and the controller's interrupts) is not
  known from a source we trust; it is 0 unless given (``host_ns``), and the reveal benchmark
  reports a case with 50 us to show how it moves the result.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from companion.adapters.panelscan import Scan

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
