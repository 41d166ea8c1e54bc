"""A button board's stream, from frames to station inputs on the host's clock.

The serial adapter's thread only decodes frames and hands them over (as the items below); this
class, owned by the daemon's loop, does the rest: it checks sequence numbers and the board's
hello, keeps the clock sync, converts board times to host times, maps channels to station keys,
and says how far the board has reported (its watermark). It reads no clock and does no I/O, so
tests drive it with chosen times.

Until the first ping exchange the board's clock is unknown, so frames are held, not guessed at
(at most :data:`MAX_HELD` of them: a board that never answers a ping must not fill the memory).

Races wait for the board only while it can still deliver. It is *down*, and the players are told,
when it is absent at start, unplugged, speaks another protocol version, or has sent no watermark
(heartbeat or edge) for :data:`SILENT_AFTER_HEARTBEATS` heartbeat periods while its port stays
open (a Pico at its REPL, crashed firmware). While it is down, races no longer wait for it
(:class:`Live` ``False``: the daemon drops its watermark) and its presses are dropped and counted;
its first watermark after coming back makes it live again. A frame stamped later than the clock
sync allows (after the host read it, beyond :data:`FUTURE_SLACK_NS`) is counted and dropped:
one such frame must not move the board's clock floor, and every race, 20 minutes ahead. After a replug the board's
heartbeat says which buttons are held; one let go while it was away is released, so nothing stays
pressed.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass

from ..arbiter.inputs import InputEvent
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


@dataclass(frozen=True, slots=True)
class Live:
    """Whether races wait for ``source``: False while the board is down, True once it is back
    (before its first :class:`Watermark`)."""

    source: str
    live: bool


Output = InputEvent | Watermark | Notice | Live

UNPLUGGED = "Board not connected"
"""The players' notice for a board that is absent, unplugged or silent (one screen line)."""
WRONG_VERSION = "Board firmware v{0}: needs v{1}"

DEFAULT_HEARTBEAT_US = 10_000
"""The board's idle heartbeat period until its HELLO says otherwise (``firmware/PROTOCOL.md``)."""
SILENT_AFTER_HEARTBEATS = 50
"""A board that has sent no watermark for 50 heartbeat periods (0.5 s at the protocol's default
10 ms) is down. A live board sends one every period; 50 leaves room for a USB stall or a busy
host, and still lets a race go on half a second after a board died."""
FUTURE_SLACK_NS = 50_000_000
"""A frame whose board time maps more than 50 ms after the host read it cannot be right: the
sync's line is within a USB round trip (about 1 ms) of the truth and a second of drift at the
largest believed crystal error (0.1 %) adds 1 ms more; 50 ms is far beyond both."""
MAX_HELD = 1000
"""Frames held while the board's clock is unknown: 10 s of heartbeats. Older ones are dropped
(and counted in :attr:`BoardSession.held_dropped`)."""


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
        self.held_dropped = 0
        """Frames dropped because the clock stayed unknown too long (a board that never pongs)."""
        self.absurd_frames = 0
        """Frames dropped because their time cannot be right (see :data:`FUTURE_SLACK_NS`)."""
        self.presses_while_down = 0
        """Presses dropped because they came while races were not waiting for the board."""
        self.notice: str | None = None
        self.live = True
        """Whether races wait for the board (the daemon starts out waiting for it)."""
        self._heard_ns: int | None = None  # host time of the last watermark (None: from the next check)
        self._pressed: set[int] = set()  # channels held, as delivered
        self._held: deque[Received] = deque(maxlen=MAX_HELD)  # frames waiting for the first clock sync
        self._next_seq: int | None = None
        self._floor = -(1 << 63)  # converted times never go backwards

    def handle(self, item: LinkItem) -> list[Output]:
        if isinstance(item, LinkUp):
            self.clock.reset()
            self.hello = None
            self._held.clear()
            self._next_seq = None
            self._heard_ns = None
            return []
        if isinstance(item, LinkDown):
            log.warning("button board lost: %s", item.reason)
            return self._down(UNPLUGGED)
        if isinstance(item, Exchanged):
            self.clock.add(item.sent_ns, item.board_us, item.received_ns)
            held = list(self._held)
            self._held.clear()
            return [out for received in held for out in self._message(received)]
        return self._received(item)

    def silent_after_ns(self) -> int:
        heartbeat_us = self.hello.heartbeat_us if self.hello is not None and self.hello.heartbeat_us else DEFAULT_HEARTBEAT_US
        return SILENT_AFTER_HEARTBEATS * heartbeat_us * 1000

    def check(self, now_ns: int) -> list[Output]:
        """Called by the daemon's loop on its clock: a live board silent too long goes down."""
        if not self.live:
            return []
        if self._heard_ns is None:
            self._heard_ns = now_ns
        elif now_ns - self._heard_ns >= self.silent_after_ns():
            log.warning("button board silent for %.1f s: races no longer wait for it",
                        (now_ns - self._heard_ns) / 1e9)
            return self._down(UNPLUGGED)
        return []

    def check_due_ns(self) -> int | None:
        """When :meth:`check` may next find the board silent (None: nothing to check)."""
        if not self.live or self._heard_ns is None:
            return None
        return self._heard_ns + self.silent_after_ns()

    def _down(self, text: str) -> list[Output]:
        out: list[Output] = [Live(self.source, False)] if self.live else []
        self.live = False
        return out + self._tell(text)

    def _received(self, received: Received) -> list[Output]:
        frame = received.frame
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
            if len(self._held) == MAX_HELD:
                self.held_dropped += 1
                _sparingly(self.held_dropped, "button board: %d frames dropped waiting for its first pong")
            self._held.append(received)
            return []
        return self._message(received)

    def _hello(self, hello: Hello) -> list[Output]:
        self.hello = hello
        if hello.version != PROTOCOL_VERSION:
            log.error("button board speaks protocol %d, this host %d", hello.version, PROTOCOL_VERSION)
            return self._down(WRONG_VERSION.format(hello.version, PROTOCOL_VERSION))
        missing = sorted(c for c in self.channels if c >= hello.channels)
        if missing:
            log.error("button board has %d channels; the profile uses channels %s", hello.channels, missing)
        log.info("button board %s: %d channels", hello.board_id.hex(), hello.channels)
        return []

    def _message(self, received: Received) -> list[Output]:
        message = received.frame.message
        if isinstance(message, Edge):
            t_ns = self._host_ns(message.t_us, received.at_ns)
            if t_ns is None:
                return []
            if self.live:
                self._heard(received.at_ns)
            target = self.channels.get(message.channel)
            if target is None:
                self.unmapped_edges += 1
                return [Watermark(self.source, t_ns)] if self.live else []
            if message.pressed and not self.live:
                self.presses_while_down += 1
                return []
            if message.pressed:
                self._pressed.add(message.channel)
            else:
                self._pressed.discard(message.channel)
            return [InputEvent(target[0], target[1], bool(message.pressed), t_ns, self.source)]
        if isinstance(message, Heartbeat):
            return self._heartbeat(message, received.at_ns)
        return []

    def _heartbeat(self, beat: Heartbeat, at_ns: int) -> list[Output]:
        if beat.overflows > self.overflows:
            log.warning("button board dropped %d edges (buffer full)", beat.overflows - self.overflows)
        self.overflows, self.board_rx_errors = beat.overflows, beat.rx_errors
        t_ns = self._host_ns(beat.upto_us, at_ns)
        if t_ns is None:
            return []
        out: list[Output] = []
        for channel in sorted(self._pressed):
            if not beat.pressed_mask >> channel & 1:  # let go while the board was away
                self._pressed.discard(channel)
                station, key = self.channels[channel]
                out.append(InputEvent(station, key, False, t_ns, self.source))
        return out + self._heard(at_ns) + [Watermark(self.source, t_ns)]

    def _heard(self, at_ns: int) -> list[Output]:
        """A watermark read at host time ``at_ns``: the board is alive. A heartbeat also makes a
        board that was down live again: from its watermark on, races wait for it and its presses
        count."""
        self._heard_ns = at_ns if self._heard_ns is None else max(self._heard_ns, at_ns)
        if self.live:
            return []
        self.live = True
        log.info("button board is back: races wait for it again")
        return [Live(self.source, True)] + self._tell(None)

    def _host_ns(self, board_us: int, at_ns: int) -> int | None:
        """Board time to host time, never before a time already given (a refit of the clock
        may move the line by microseconds; the board's order must survive that). None (the
        frame counted in :attr:`absurd_frames`) if it maps after the host read it."""
        t_ns = self.clock.to_host_ns(board_us)
        if t_ns > at_ns + FUTURE_SLACK_NS:
            self.absurd_frames += 1
            _sparingly(self.absurd_frames, "button board: %d frames dropped, stamped after they arrived "
                                           f"(last {(t_ns - at_ns) / 1e9:.1f} s ahead)")
            return None
        self._floor = max(self._floor, t_ns)
        return self._floor

    def _tell(self, text: str | None) -> list[Output]:
        if text == self.notice:
            return []
        self.notice = text
        return [Notice(text)]


def _sparingly(count: int, message: str) -> None:
    """Log ``message % count`` at counts 1, 2, 4, 8...: a flood cannot flood the log."""
    if count & (count - 1) == 0:
        log.warning(message, count)
