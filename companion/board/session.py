"""A button board's stream, from frames to station inputs on the host's clock.

The serial adapter's thread only decodes frames and hands them over (as the items below); this
class, owned by the daemon's loop, does the rest: it checks sequence numbers and the board's
hello, keeps the clock sync, converts board times to host times, maps channels to station keys,
and says how far the board has reported (its watermark). It reads no clock and does no I/O, so
tests drive it with chosen times.

Until the first ping exchange the board's clock is unknown, so frames are held, not guessed at.
While the board is unplugged its watermark stays where it was: any race waits for it, and the
players are told. After a replug the board's heartbeat says which buttons are held; one let go
while it was away is released, so nothing stays pressed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ..inputs import InputEvent
from .clocksync import ClockSync
from .frames import PROTOCOL_VERSION, Edge, Frame, Heartbeat, Hello

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Received:
    """A checked frame, and the host time just after the bytes that ended it were read."""

    frame: Frame
    at_ns: int


@dataclass(frozen=True, slots=True)
class Exchanged:
    """A ping answered: host times around it and the board's clock when it read the ping."""

    sent_ns: int
    board_us: int
    received_ns: int


@dataclass(frozen=True, slots=True)
class LinkUp:
    """The port opened (again)."""


@dataclass(frozen=True, slots=True)
class LinkDown:
    """The port failed or vanished (unplugged)."""

    reason: str


LinkItem = Received | Exchanged | LinkUp | LinkDown


@dataclass(frozen=True, slots=True)
class Watermark:
    """The board has delivered every input with an edge before ``t_ns`` (host time)."""

    source: str
    t_ns: int


@dataclass(frozen=True, slots=True)
class Notice:
    """What players should be told about the board; ``None`` clears it."""

    text: str | None


Output = InputEvent | Watermark | Notice

UNPLUGGED = "Board unplugged"
WRONG_VERSION = "Board firmware v{0}: needs v{1}"


SEQ_HALF = 0x8000
"""A sequence number (16 bits, wrapping) less than half the range ahead of the expected one is a
gap of lost frames; further ahead is really behind it."""


class BoardSession:
    """One board's inputs. ``channels`` maps a board channel to ``(station, key)``."""

    def __init__(self, channels: dict[int, tuple[int, str]], source: str = "board") -> None:
        self.channels = channels
        self.source = source
        self.clock = ClockSync()
        self.hello: Hello | None = None
        self.lost_frames = 0
        self.backward_seqs = 0
        """Frames whose sequence number was behind the expected one."""
        self.unmapped_edges = 0
        self.overflows = 0
        self.board_rx_errors = 0
        self.notice: str | None = None
        self._pressed: set[int] = set()  # channels held, as delivered
        self._held: list[Frame] = []  # frames waiting for the first clock sync
        self._next_seq: int | None = None
        self._floor = -(1 << 63)  # converted times never go backwards

    def handle(self, item: LinkItem) -> list[Output]:
        if isinstance(item, LinkUp):
            self.clock.reset()
            self.hello = None
            self._held.clear()
            self._next_seq = None
            return []
        if isinstance(item, LinkDown):
            log.warning("button board lost: %s", item.reason)
            return self._tell(UNPLUGGED)
        if isinstance(item, Exchanged):
            self.clock.add(item.sent_ns, item.board_us, item.received_ns)
            held, self._held = self._held, []
            return [out for frame in held for out in self._message(frame)]
        return self._received(item.frame)

    def _received(self, frame: Frame) -> list[Output]:
        if self._next_seq is not None and frame.seq != self._next_seq:
            gap = (frame.seq - self._next_seq) & 0xFFFF
            if gap < SEQ_HALF:
                self.lost_frames += gap
                log.warning("button board: %d frames lost", gap)
            else:  # behind what came already: the board restarted, or a frame came twice
                self.backward_seqs += 1
                log.warning("button board: sequence number went back by %d (a restarted board or a "
                            "repeated frame), not counted as lost frames", 0x10000 - gap)
        self._next_seq = (frame.seq + 1) & 0xFFFF
        message = frame.message
        if isinstance(message, Hello):
            return self._hello(message)
        if self.hello is None or self.hello.version != PROTOCOL_VERSION:
            return []
        if not self.clock.synced:
            self._held.append(frame)
            return []
        return self._message(frame)

    def _hello(self, hello: Hello) -> list[Output]:
        self.hello = hello
        if hello.version != PROTOCOL_VERSION:
            log.error("button board speaks protocol %d, this host %d", hello.version, PROTOCOL_VERSION)
            return self._tell(WRONG_VERSION.format(hello.version, PROTOCOL_VERSION))
        missing = sorted(c for c in self.channels if c >= hello.channels)
        if missing:
            log.error("button board has %d channels; the profile uses channels %s", hello.channels, missing)
        log.info("button board %s: %d channels", hello.board_id.hex(), hello.channels)
        return self._tell(None)

    def _message(self, frame: Frame) -> list[Output]:
        message = frame.message
        if isinstance(message, Edge):
            t_ns = self._host_ns(message.t_us)
            target = self.channels.get(message.channel)
            if target is None:
                self.unmapped_edges += 1
                return [Watermark(self.source, t_ns)]
            if message.pressed:
                self._pressed.add(message.channel)
            else:
                self._pressed.discard(message.channel)
            return [InputEvent(target[0], target[1], bool(message.pressed), t_ns, self.source)]
        if isinstance(message, Heartbeat):
            return self._heartbeat(message)
        return []

    def _heartbeat(self, beat: Heartbeat) -> list[Output]:
        if beat.overflows > self.overflows:
            log.warning("button board dropped %d edges (buffer full)", beat.overflows - self.overflows)
        self.overflows, self.board_rx_errors = beat.overflows, beat.rx_errors
        t_ns = self._host_ns(beat.upto_us)
        out: list[Output] = []
        for channel in sorted(self._pressed):
            if not beat.pressed_mask >> channel & 1:  # let go while the board was away
                self._pressed.discard(channel)
                station, key = self.channels[channel]
                out.append(InputEvent(station, key, False, t_ns, self.source))
        out.append(Watermark(self.source, t_ns))
        return out

    def _host_ns(self, board_us: int) -> int:
        """Board time to host time, never before a time already given (a refit of the clock
        may move the line by microseconds; the board's order must survive that)."""
        self._floor = max(self._floor, self.clock.to_host_ns(board_us))
        return self._floor

    def _tell(self, text: str | None) -> list[Output]:
        if text == self.notice:
            return []
        self.notice = text
        return [Notice(text)]
