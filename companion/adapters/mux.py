"""Several identical OLEDs at one I2C address, behind a TCA9548A multiplexer (userspace).

Each display gets a :class:`MuxChannel`, an smbus-like object luma accepts as its ``bus``, that
selects its channel on the multiplexer before *every* transaction, including the init sequence
a luma constructor sends. Re-selecting each time (rather than remembering the last channel)
survives a multiplexer that reset on a power dip. One lock per physical bus keeps the select and
the transfer together. (With the kernel's ``i2c-mux`` overlay instead, each channel is its own
``/dev/i2c-N`` and no wrapper is needed: give each display its ``port``.)
"""

from __future__ import annotations

import threading

MUX_ADDRESS = 0x70


class MuxChannel:
    def __init__(self, bus, channel: int, lock: threading.Lock, mux_address: int = MUX_ADDRESS) -> None:
        if not 0 <= channel <= 7:
            raise ValueError(f"a TCA9548A has channels 0 to 7, not {channel}")
        self.bus = bus
        self.channel = channel
        self.lock = lock
        self.mux_address = mux_address

    def _select(self) -> None:
        self.bus.write_byte(self.mux_address, 1 << self.channel)

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        with self.lock:
            self._select()
            self.bus.write_i2c_block_data(address, register, data)

    def write_byte_data(self, address: int, register: int, value: int) -> None:
        with self.lock:
            self._select()
            self.bus.write_byte_data(address, register, value)

    def close(self) -> None:
        """The physical bus is shared by every channel; its owner closes it."""
