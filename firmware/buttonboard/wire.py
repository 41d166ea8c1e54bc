"""Frames on the wire, board side (see ../PROTOCOL.md): COBS around type, seq, payload and a
CRC-16, ended by a zero byte.

MicroPython code that also runs under CPython, so the tests hold it to the shared vectors
(../vectors.json) that the host's decoder is held to as well.
"""

import struct

VERSION = 1
MAX_FRAME = 64

HELLO = 0x01
EDGE = 0x02
HEARTBEAT = 0x03
PONG = 0x04
LIGHT = 0x05
PING = 0x81
HELLO_PLEASE = 0x82
LEDS = 0x83

LAYOUTS = {
    HELLO: "<BBII8s",  # version, channels, debounce_us, heartbeat_us, board_id
    EDGE: "<QBB",  # t_us, channel, pressed
    HEARTBEAT: "<QIII",  # upto_us, pressed_mask, overflows, rx_errors
    PONG: "<IQ",  # token, t_us
    LIGHT: "<QB",  # t_us, channel
    PING: "<I",  # token
    HELLO_PLEASE: "<",
    LEDS: "<I",  # mask
}


def crc16(data):
    """CRC-16/CCITT-FALSE, bit by bit: small, and fast enough for a few hundred frames a second."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def cobs_encode(data):
    """``data`` without zero bytes: each block says how far it is to the next zero."""
    out = bytearray(b"\x01")
    code_at = 0
    for byte in data:
        if byte:
            out.append(byte)
            out[code_at] += 1
            if out[code_at] == 0xFF:
                code_at = len(out)
                out.append(1)
        else:
            code_at = len(out)
            out.append(1)
    if data and data[-1] and code_at == len(out) - 1:
        return out[:-1]  # the data ended with a full block: no empty block after it (no .pop in MicroPython)
    return out


def cobs_decode(data):
    """The decoded bytes, or None if ``data`` is not valid COBS."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            return None
        for j in range(i + 1, end):
            if data[j] == 0:
                return None
            out.append(data[j])
        if code < 0xFF and end < n:
            out.append(0)
        i = end
    return out


def frame(kind, seq, *fields):
    """The wire bytes of one frame, zero delimiter included."""
    body = struct.pack("<BH", kind, seq & 0xFFFF) + struct.pack(LAYOUTS[kind], *fields)
    out = cobs_encode(body + struct.pack("<H", crc16(body)))
    out.append(0)
    return bytes(out)


def unframe(packet):
    """``(kind, seq, fields)`` from the bytes between two zeros, or None if anything is wrong."""
    if len(packet) > MAX_FRAME:
        return None
    data = cobs_decode(packet)
    if data is None or len(data) < 5:
        return None
    body = data[:-2]
    if struct.unpack("<H", data[-2:])[0] != crc16(body):
        return None
    kind, seq = struct.unpack("<BH", body[:3])
    layout = LAYOUTS.get(kind)
    if layout is None or len(body) - 3 != struct.calcsize(layout):
        return None
    return kind, seq, struct.unpack(layout, body[3:])


class Reader:
    """Collects bytes from the host into frames; bad frames are counted in ``errors``."""

    def __init__(self):
        self.errors = 0
        self._packet = bytearray()
        self._overlong = False

    def feed(self, data):
        frames = []
        for byte in data:
            if byte:
                if len(self._packet) < MAX_FRAME:
                    self._packet.append(byte)
                else:
                    self._overlong = True
                continue
            if self._packet or self._overlong:
                got = None if self._overlong else unframe(self._packet)
                if got is None:
                    self.errors += 1
                else:
                    frames.append(got)
            self._packet = bytearray()
            self._overlong = False
        return frames
