"""The button board's wire format, host side: frames in and out (``firmware/PROTOCOL.md``).

A frame is ``type, seq, payload, crc`` made free of zero bytes with COBS and ended by one zero
byte. A zero can only be a frame's end, so a reader that lost its place (a torn write, a cable
pulled mid-frame) is back in step at the next zero, and the CRC catches the rest. Everything
that can be wrong with a frame raises :class:`FrameError` naming what; :class:`Deframer` counts
those and drops the frame, because a bad frame must never stop the box.

The firmware has its own MicroPython encoder (``firmware/buttonboard/wire.py``); both are held
to the shared test vectors in ``firmware/vectors.json``.
"""

from __future__ import annotations

import binascii
import struct
from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

PROTOCOL_VERSION = 1
MAX_FRAME = 64
"""The longest encoded frame (COBS bytes before the zero); longer is garbage, not a frame."""
HEADER = struct.Struct("<BH")  # type, seq
CRC = struct.Struct("<H")


class FrameError(ValueError):
    """A frame that cannot be trusted; ``kind`` is what was wrong, for the counters."""

    KINDS = ("cobs", "too_long", "crc", "short", "unknown_type", "length")

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Message:
    """A message body; subclasses declare their type code and payload layout."""

    code: ClassVar[int]
    layout: ClassVar[struct.Struct]

    def payload(self) -> bytes:
        return self.layout.pack(*(getattr(self, f) for f in self.__slots__))


@dataclass(frozen=True, slots=True)
class Hello(Message):
    """The board says who it is: sent at start-up and whenever the host asks."""

    code: ClassVar[int] = 0x01
    layout: ClassVar[struct.Struct] = struct.Struct("<BBII8s")
    version: int
    channels: int
    debounce_us: int
    heartbeat_us: int
    board_id: bytes


@dataclass(frozen=True, slots=True)
class Edge(Message):
    """A debounced edge of one channel at board time ``t_us``; ``pressed`` is contact closed."""

    code: ClassVar[int] = 0x02
    layout: ClassVar[struct.Struct] = struct.Struct("<QBB")
    t_us: int
    channel: int
    pressed: int


@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    """Every edge before ``upto_us`` has been sent. ``pressed_mask`` has bit ``c`` set while
    channel ``c`` is held; ``overflows`` counts edges the board's buffer had to drop and
    ``rx_errors`` the host frames it could not read, both since the board started."""

    code: ClassVar[int] = 0x03
    layout: ClassVar[struct.Struct] = struct.Struct("<QIII")
    upto_us: int
    pressed_mask: int
    overflows: int
    rx_errors: int


@dataclass(frozen=True, slots=True)
class Pong(Message):
    """The answer to :class:`Ping` ``token``: the board's clock when it read the ping."""

    code: ClassVar[int] = 0x04
    layout: ClassVar[struct.Struct] = struct.Struct("<IQ")
    token: int
    t_us: int


@dataclass(frozen=True, slots=True)
class Light(Message):
    """A light sensor on ``channel`` saw its panel's marker light at board time ``t_us``: the
    first rise after a quiet gap (the board sends no more of the flashes that follow)."""

    code: ClassVar[int] = 0x05
    layout: ClassVar[struct.Struct] = struct.Struct("<QB")
    t_us: int
    channel: int


@dataclass(frozen=True, slots=True)
class Ping(Message):
    """Host to board: please answer with your clock (clock sync)."""

    code: ClassVar[int] = 0x81
    layout: ClassVar[struct.Struct] = struct.Struct("<I")
    token: int


@dataclass(frozen=True, slots=True)
class HelloPlease(Message):
    """Host to board: please send :class:`Hello`."""

    code: ClassVar[int] = 0x82
    layout: ClassVar[struct.Struct] = struct.Struct("<")


@dataclass(frozen=True, slots=True)
class Leds(Message):
    """Host to board: light the station LEDs whose bits are set."""

    code: ClassVar[int] = 0x83
    layout: ClassVar[struct.Struct] = struct.Struct("<I")
    mask: int


MESSAGES: dict[int, type[Message]] = {m.code: m for m in (Hello, Edge, Heartbeat, Pong, Light, Ping, HelloPlease,
                                                           Leds)}


@dataclass(frozen=True, slots=True)
class Frame:
    seq: int
    message: Message


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF): ``crc16(b"123456789") == 0x29B1``."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` without zero bytes, one byte longer (plus one
    per 254 bytes without a zero). Each block's first byte says how far the next zero was."""
    out, block = bytearray(), bytearray()
    for byte in data:
        if byte:
            block.append(byte)
            if len(block) == 254:
                out += b"\xff" + block
                block.clear()
        else:
            out += bytes([len(block) + 1]) + block
            block.clear()
    if block or not data or data[-1] == 0:  # not when the data ended with a full block
        out += bytes([len(block) + 1]) + block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data):
        code = data[i]
        if code == 0:
            raise FrameError("cobs", f"zero byte at {i}")
        end = i + code
        if end > len(data):
            raise FrameError("cobs", f"block at {i} runs {end - len(data)} bytes past the end")
        block = data[i + 1:end]
        if 0 in block:
            raise FrameError("cobs", f"zero byte inside block at {i}")
        out += block
        if code < 0xFF and end < len(data):
            out.append(0)
        i = end
    return bytes(out)


def encode(seq: int, message: Message) -> bytes:
    """One frame on the wire, zero delimiter included."""
    body = HEADER.pack(message.code, seq & 0xFFFF) + message.payload()
    return cobs_encode(body + CRC.pack(crc16(body))) + b"\0"


def decode(packet: bytes) -> Frame:
    """The frame in ``packet`` (the bytes between two zeros), checked completely."""
    if len(packet) > MAX_FRAME:
        raise FrameError("too_long", f"{len(packet)} bytes, at most {MAX_FRAME}")
    data = cobs_decode(packet)
    if len(data) < HEADER.size + CRC.size:
        raise FrameError("short", f"{len(data)} bytes, a frame has at least {HEADER.size + CRC.size}")
    body, (crc,) = data[:-CRC.size], CRC.unpack(data[-CRC.size:])
    if crc16(body) != crc:
        raise FrameError("crc", f"checksum {crc:#06x}, the bytes give {crc16(body):#06x}")
    code, seq = HEADER.unpack_from(body)
    kind = MESSAGES.get(code)
    if kind is None:
        raise FrameError("unknown_type", f"type {code:#04x}")
    payload = body[HEADER.size:]
    if len(payload) != kind.layout.size:
        raise FrameError("length", f"{kind.__name__} payload of {len(payload)} bytes, not {kind.layout.size}")
    return Frame(seq, kind(*kind.layout.unpack(payload)))


class Deframer:
    """Splits a byte stream at zeros and decodes each frame; bad ones are counted by kind in
    :attr:`errors` and dropped. Before the first zero of a connection the reader may have come in
    mid-frame, so a bad first packet is dropped uncounted.

    Garbage with no zero in it (a hostile or noisy line) runs into the next real frame: the two
    arrive as one bad packet. The real frame is its tail, so a bad packet is counted and then its
    tails, up to :data:`MAX_FRAME` bytes, are tried from the longest: one that decodes completely,
    CRC and all, is the frame that was run into, and is kept (it still has to pass the session's
    sequence and time rules, like any frame). For the same reason an unfinished packet keeps its
    last bytes, not its first."""

    def __init__(self) -> None:
        self.errors: Counter[str] = Counter()
        self._buffer = bytearray()
        self._synced = False

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        *packets, rest = self._buffer.split(b"\0")
        self._buffer = rest[-(MAX_FRAME + 1):]  # enough to know an overlong frame is one, and its tail
        frames = []
        for packet in packets:
            first, self._synced = not self._synced, True
            if not packet:
                continue
            try:
                frames.append(decode(bytes(packet)))
            except FrameError as e:
                if not first:
                    self.errors[e.kind] += 1
                frames += _frame_at_end(bytes(packet))
        return frames

    def reset(self) -> None:
        """A new connection: forget any partial frame."""
        self._buffer.clear()
        self._synced = False


def _frame_at_end(packet: bytes) -> list[Frame]:
    """The whole frame a bad packet ends with, if any (the longest tail that decodes)."""
    for start in range(max(1, len(packet) - MAX_FRAME), len(packet) - HEADER.size - CRC.size):
        try:
            return [decode(packet[start:])]
        except FrameError:
            continue
    return []
