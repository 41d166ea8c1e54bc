"""What the panels were sent, read back from the kernel's i2c trace events in the guest.

The guest's I2C-1 (vm/kernel/companion_i2c_sim.c) has a TCA9548A at 0x70 and SSD1306 panels at
0x3C behind its channels. Every transfer appears in tracefs as an ``i2c_write`` event. Replaying
them in order: a one-byte write to 0x70 selects the channel mask; at 0x3C a control byte 0x00
starts commands (a COLUMNADDR, 0x21, starts a new frame window) and 0x40 starts display data,
which fills the frame; 1,024 bytes (128 x 64 pixels, 8 pages) make a frame.
"""

from __future__ import annotations

import re

MUX, PANEL = 0x70, 0x3C
FRAME_BYTES = 128 * 64 // 8
COLUMNADDR = 0x21
WRITE = re.compile(r"i2c_write: i2c-(\d+) #\d+ a=([0-9a-f]+) f=([0-9a-f]+) l=(\d+) \[([0-9a-f-]*)\]")


def writes(trace: str, bus: int = 1):
    """(address, bytes) of every write on the bus, in order."""
    for m in WRITE.finditer(trace):
        if int(m.group(1)) == bus:
            data = bytes(int(b, 16) for b in m.group(5).split("-") if b)
            yield int(m.group(2), 16), data


def frames(trace: str, bus: int = 1) -> dict[int, list[bytes]]:
    """Every complete frame each multiplexer channel's panel was sent, in order."""
    mask = 0
    filling: dict[int, bytearray] = {}
    out: dict[int, list[bytes]] = {}
    for address, data in writes(trace, bus):
        if address == MUX:
            mask = data[-1] if data else mask
            continue
        if address != PANEL or not data or mask.bit_count() != 1:
            continue
        channel = mask.bit_length() - 1
        control, payload = data[0], data[1:]
        if control == 0x00 and COLUMNADDR in payload:
            filling[channel] = bytearray()
        elif control == 0x40 and channel in filling:
            filling[channel] += payload
            if len(filling[channel]) == FRAME_BYTES:
                out.setdefault(channel, []).append(bytes(filling.pop(channel)))
    return out


def compare(expected: list[bytes], sent: dict[int, list[bytes]], channels: list[int]) -> list[str]:
    """What is wrong with the last frame each of ``channels`` was sent (empty: all as drawn)."""
    problems = []
    for station, channel in enumerate(channels):
        got = sent.get(channel)
        if not got:
            problems.append(f"panel {station + 1} (channel {channel}) was sent no complete frame")
        elif got[-1] != expected[station]:
            differ = sum(a != b for a, b in zip(got[-1], expected[station]))
            problems.append(f"panel {station + 1} (channel {channel}): its last frame differs from the "
                            f"drawn screen in {differ} of {FRAME_BYTES} bytes")
    return problems
