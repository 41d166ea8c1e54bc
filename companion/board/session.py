"""A button board's stream, from frames to station inputs on the host's clock.

The serial adapter's thread only decodes frames and hands them over (as the items below); this
class, owned by the daemon's loop, does the rest: it checks sequence numbers and the board's
hello, keeps the clock sync, converts board times to host times, maps channels to station keys,
and says how far the board has reported (its watermark). It reads no clock and does no I/O, so
tests drive it with chosen times.

Until the board's hello and the first ping exchange, frames are held, not guessed at (at most
:data:`MAX_HELD` of them: a board that never answers must not fill the memory; what is dropped is
counted in :attr:`BoardSession.held_dropped`).

Races wait for the board only while it can still deliver. It is *down*, and the players are told,
when it is absent at start, unplugged, speaks another protocol version, or has sent no watermark
(heartbeat or edge) for :data:`SILENT_AFTER_HEARTBEATS` heartbeat periods while its port stays
open (a Pico at its REPL, crashed firmware). While it is down, races no longer wait for it
(:class:`Live` ``False``: the daemon drops its watermark); its next watermark (a heartbeat or an
edge) makes it live again, and an edge is delivered with its own time even if it happened while
the board was down: a race decided without it finds it a late press and says so. After a replug
the board's heartbeat says which buttons are held; one let go while it was away is released, and
one held that the host never saw pressed (its frame was lost) is counted and logged as a missed
press, so nothing stays pressed and nothing is lost silently.

Every frame must earn its place; each rule has its counter:

- **Sequence** (:attr:`~BoardSession.out_of_step_frames`, :attr:`~BoardSession.lost_frames`):
  a frame carrying the expected 16-bit sequence number is taken. One that does not is held back,
  not believed: one bad frame (a repeat, a frame replayed from thousands back, a number jumped
  half the range ahead) must never make the board's own frames after it look old, since 16-bit
  arithmetic cannot tell "far ahead" from "behind". If the next frame is the expected one, the
  held frame is dropped and counted. If the next frame follows on from the held one, the board's
  count really moved: the gap is counted as lost frames and both are taken, a frame late. A board
  that restarts with its port still open says so: its HELLO with sequence 0
  (``firmware/PROTOCOL.md``) starts its count, its clock and its order afresh
  (:attr:`~BoardSession.board_restarts`) wherever the count had got to. Its other HELLOs
  (answers to the host's HELLO_PLEASE) have other numbers. Firmware flashed before the HELLO
  went first may answer a waiting ping before it: its clock, in that answer to one of the host's
  own pings, going back is a restart too.
- **Board order** (:attr:`~BoardSession.stale_frames`): the board sends edges and heartbeats in
  board-time order and a heartbeat promises that nothing older comes; an edge or heartbeat older
  than the board's own last watermark is stale and dropped (stamping it "now", or at its time
  behind a race already decided on that promise, would both be lies).
- **Host time, past** (also :attr:`~BoardSession.stale_frames`): converted times never go
  backwards. A time that maps before the last one given is lifted to it when the two are within
  the clock sync's uncertainty of each other (a refit moved the line); further back it cannot be
  placed honestly (a frame from before a restart) and is dropped.
- **Host time, future** (:attr:`~BoardSession.future_frames`): an edge cannot have happened after
  the host read it. A frame whose time maps after its reading by more than the sync's own
  uncertainty (:meth:`~companion.board.clocksync.ClockSync.uncertainty_ns`: half the ping band,
  about 0.5 ms at USB's 1 ms frames, plus 0.1 % of the distance from the last exchange) and
  :data:`FUTURE_MARGIN_NS` is dropped: one such frame must not move the board's clock floor, and
  every race, ahead.
"""

from __future__ import annotations

import logging
from collections import deque

from ..arbiter.inputs import InputEvent
from .clocksync import ClockSync
from .frames import PROTOCOL_VERSION, Edge, Heartbeat, Hello, Light
from .handover import (UNPLUGGED, WRONG_VERSION, Exchanged, LinkDown, LinkItem, LinkUp, Lit, Live, Notice,
                       Output, Received, Watermark)

log = logging.getLogger(__name__)


DEFAULT_HEARTBEAT_US = 10_000
"""The board's idle heartbeat period until its HELLO says otherwise (``firmware/PROTOCOL.md``)."""
SILENT_AFTER_HEARTBEATS = 50
"""A board that has sent no watermark for 50 heartbeat periods (0.5 s at the protocol's default
10 ms) is down. A live board sends one every period; 50 leaves room for a USB stall or a busy
host, and still lets a race go on half a second after a board died."""
FUTURE_MARGIN_NS = 1_000_000
"""How far past "read by the host, plus the sync's uncertainty" a frame may map and still count.
The uncertainty is exact for a linear clock; what the line misses is the crystal's rate
wandering within the sync's one-minute window (a few ppm with temperature: a few hundred
microseconds at most over that minute) and rounding. 1 ms covers both with room; a frame mapping
later than that is wrong, not early."""
MAX_HELD = 1000
"""Frames held while the board's hello or clock is unknown: 10 s of heartbeats. Older ones are
dropped (and counted in :attr:`BoardSession.held_dropped`)."""


SEQ_HALF = 0x8000
"""A sequence number (16 bits, wrapping) less than half the range ahead of the expected one is a
gap of lost frames; further ahead is really behind it."""


class BoardSession:
    """One board's inputs. ``channels`` maps a board channel to ``(station, key)``, ``sensors``
    a light sensor's channel to its station."""

    def __init__(self, channels: dict[int, tuple[int, str]], source: str = "board",
                 sensors: dict[int, int] | None = None) -> None:
        self.channels = channels
        self.sensors = sensors or {}
        self.source = source
        self.clock = ClockSync()
        self.hello: Hello | None = None
        self.lost_frames = 0
        """Frames the board sent that never arrived (sequence gaps)."""
        self.out_of_step_frames = 0
        """Frames dropped because their sequence number was not the next one and the frame after
        them did not follow on from it: a repeat, an old frame replayed, a number jumped ahead."""
        self.board_restarts = 0
        """HELLOs with sequence 0 while the port stayed open: the board started afresh."""
        self.stale_frames = 0
        """Frames dropped because they were older than the board's watermark (module docstring)."""
        self.future_frames = 0
        """Frames dropped because their time maps after the host read them (:data:`FUTURE_MARGIN_NS`)."""
        self.missed_presses = 0
        """Buttons a heartbeat showed held whose press never arrived: reported, not invented."""
        self.unmapped_edges = 0
        """Edges and light rises on channels the profile does not give that kind of input."""
        self.overflows = 0
        self.board_rx_errors = 0
        self.held_dropped = 0
        """Frames held for the hello or the first pong and dropped: too many of them, or the
        board turned out to speak another protocol version."""
        self.notice: str | None = None
        self.live = True
        """Whether races wait for the board (the daemon starts out waiting for it)."""
        self._heard_ns: int | None = None  # host time of the last watermark (None: from the next check)
        self._pressed: set[int] = set()  # channels held, as delivered
        self._held: deque[Received] = deque(maxlen=MAX_HELD)  # frames waiting for the hello and first clock sync
        self._next_seq: int | None = None
        self._out_of_step: Received | None = None  # a frame off the expected sequence, until the next says why
        self._pong_us: int | None = None  # the board's clock in its last answer to a ping
        self._board_upto_us: int | None = None  # the board's own watermark, in its time
        self._floor = -(1 << 63)  # converted times never go backwards...
        self._floor_uncertainty = 0  # ...and the last one given was this sure

    def handle(self, item: LinkItem) -> list[Output]:
        if isinstance(item, LinkUp):
            self._start_over()
            self._heard_ns = None
            return []
        if isinstance(item, LinkDown):
            log.warning("button board lost: %s", item.reason)
            return self._down(UNPLUGGED)
        if isinstance(item, Exchanged):
            if self._pong_us is not None and item.board_us < self._pong_us:
                self._restarted("its clock went back, answering a ping")
            self._pong_us = item.board_us
            self.clock.add(item.sent_ns, item.board_us, item.received_ns)
            return self._release_held()
        return self._received(item)

    def counters(self) -> str:
        """Every count of frames dropped or missed, for the log."""
        names = ("lost_frames", "out_of_step_frames", "stale_frames", "future_frames", "held_dropped",
                 "missed_presses", "board_restarts", "unmapped_edges", "overflows", "board_rx_errors")
        return ", ".join(f"{name.replace('_', ' ')} {getattr(self, name)}" for name in names)

    @property
    def reported_ns(self) -> int:
        """How far the board has reported, on the host's clock: everything it delivers from now
        on is placed at or after this (its latest watermark or input)."""
        return self._floor

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

    def _start_over(self) -> None:
        """A new connection or a restarted board: its clock, sequence and order start afresh.
        The host-time floor stays: nothing converted may land before what was already given."""
        self.clock.reset()
        self.hello = None
        self._held.clear()
        self._drop_out_of_step()  # nothing follows on from it now
        self._next_seq = None
        self._pong_us = None
        self._board_upto_us = None

    def _restarted(self, how: str) -> None:
        """The board started afresh with its port open (module docstring, Sequence)."""
        self.board_restarts += 1
        log.warning("button board restarted (%s)", how)
        self._start_over()

    def _down(self, text: str) -> list[Output]:
        out: list[Output] = [Live(self.source, False)] if self.live else []
        self.live = False
        return out + self._tell(text)

    def _received(self, received: Received) -> list[Output]:
        return [out for taken in self._in_step(received) for out in self._taken(taken)]

    def _taken(self, received: Received) -> list[Output]:
        message = received.frame.message
        if isinstance(message, Hello):
            return self._hello(message)
        wrong_version = self.hello is not None and self.hello.version != PROTOCOL_VERSION
        if wrong_version or not isinstance(message, (Edge, Heartbeat, Light)):
            return []  # a pong is the link's (an Exchanged item carries it)
        if self.hello is None or not self.clock.synced:
            if len(self._held) == MAX_HELD:
                self.held_dropped += 1
                _sparingly(self.held_dropped, "button board: %d frames dropped waiting for its hello or first pong")
            self._held.append(received)
            return []
        return self._message(received)

    def _in_step(self, received: Received) -> list[Received]:
        """The frames to take now that ``received`` came, in order (module docstring, Sequence):
        none while an out-of-step frame waits for the next to say whether the count moved."""
        frame = received.frame
        if isinstance(frame.message, Hello) and frame.seq == 0 and self._next_seq is not None:
            self._restarted("hello with sequence 0")
        if self._next_seq is None or frame.seq == self._next_seq:
            self._drop_out_of_step()
            self._next_seq = (frame.seq + 1) & 0xFFFF
            return [received]
        held = self._out_of_step
        if held is not None and frame.seq == (held.frame.seq + 1) & 0xFFFF:
            ahead = (held.frame.seq - self._next_seq) & 0xFFFF
            if ahead < SEQ_HALF:
                self.lost_frames += ahead
                log.warning("button board: %d frames lost", ahead)
            else:
                log.warning("button board: its sequence numbers went back %d and carried on from there: "
                            "counting from them", 0x10000 - ahead)
            self._out_of_step = None
            self._next_seq = (frame.seq + 1) & 0xFFFF
            return [held, received]
        self._drop_out_of_step()
        self._out_of_step = received
        return []

    def _drop_out_of_step(self) -> None:
        """The held out-of-step frame was not followed on from: one bad frame, dropped and counted."""
        held, self._out_of_step = self._out_of_step, None
        if held is not None:
            self.out_of_step_frames += 1
            _sparingly(self.out_of_step_frames, "button board: %d frames dropped, their sequence number was "
                                                "not the next one and the board's frames did not follow on "
                                                "from it (repeated, old or forged frames)")

    def _hello(self, hello: Hello) -> list[Output]:
        again = self.hello == hello  # a board answers its start-up HELLO and the host's request alike
        self.hello = hello
        if hello.version != PROTOCOL_VERSION:
            log.error("button board speaks protocol %d, this host %d", hello.version, PROTOCOL_VERSION)
            self.held_dropped += len(self._held)
            self._held.clear()
            return self._down(WRONG_VERSION.format(hello.version, PROTOCOL_VERSION))
        missing = sorted(c for c in (*self.channels, *self.sensors) if c >= hello.channels)
        if missing:
            log.error("button board has %d channels; the profile uses channels %s", hello.channels, missing)
        if not again:
            log.info("button board %s: %d channels", hello.board_id.hex(), hello.channels)
        return self._release_held()

    def _release_held(self) -> list[Output]:
        """Once the hello and the clock are known, the frames held for them, in order."""
        if self.hello is None or self.hello.version != PROTOCOL_VERSION or not self.clock.synced:
            return []
        held = list(self._held)
        self._held.clear()
        return [out for received in held for out in self._message(received)]

    def _message(self, received: Received) -> list[Output]:
        message = received.frame.message
        if isinstance(message, Light):
            return self._light(message, received.at_ns)
        if isinstance(message, Edge):
            t_ns = self._placed(message.t_us, received.at_ns)
            if t_ns is None:
                return []
            out = self._heard(received.at_ns)
            target = self.channels.get(message.channel)
            if target is None:
                self._unmapped(message.channel, "a button's edge", "a light sensor in the profile: list it in "
                               "SENSOR_CHANNELS in the board's config.py")
                return out + [Watermark(self.source, t_ns)]
            if message.pressed:
                self._pressed.add(message.channel)
            else:
                self._pressed.discard(message.channel)
            return out + [InputEvent(target[0], target[1], bool(message.pressed), t_ns, self.source)]
        if isinstance(message, Heartbeat):
            return self._heartbeat(message, received.at_ns)
        return []

    def _light(self, light: Light, at_ns: int) -> list[Output]:
        """A light sensor's rise: placed on the host's clock by the same rules as an edge, and a
        watermark like one (the board sends both in one time order)."""
        t_ns = self._placed(light.t_us, at_ns)
        if t_ns is None:
            return []
        out = self._heard(at_ns)
        station = self.sensors.get(light.channel)
        if station is None:
            self._unmapped(light.channel, "a light sensor's rise", "a button in the profile: remove it from "
                           "SENSOR_CHANNELS in the board's config.py")
            return out + [Watermark(self.source, t_ns)]
        return out + [Lit(station, t_ns), Watermark(self.source, t_ns)]

    def _unmapped(self, channel: int, what: str, mapped_as: str) -> None:
        """An input on a channel the profile gives no such input: counted, and said plainly when
        the profile wires that channel as the other kind (the board's config.py disagrees)."""
        self.unmapped_edges += 1
        if channel in self.channels or channel in self.sensors:
            _sparingly(self.unmapped_edges, f"button board: %d inputs not taken; the last, {what} on channel "
                                            f"{channel}, which is {mapped_as}")

    def _heartbeat(self, beat: Heartbeat, at_ns: int) -> list[Output]:
        if beat.overflows > self.overflows:
            log.warning("button board dropped %d edges (buffer full)", beat.overflows - self.overflows)
        self.overflows, self.board_rx_errors = beat.overflows, beat.rx_errors
        t_ns = self._placed(beat.upto_us, at_ns)
        if t_ns is None:
            return []
        out: list[Output] = []
        for channel in sorted(self._pressed):
            if not beat.pressed_mask >> channel & 1:  # let go while the board was away
                self._pressed.discard(channel)
                station, key = self.channels[channel]
                out.append(InputEvent(station, key, False, t_ns, self.source))
        for channel in sorted(self.channels):
            if beat.pressed_mask >> channel & 1 and channel not in self._pressed:
                self._pressed.add(channel)  # its release will be delivered as usual
                self.missed_presses += 1
                station, key = self.channels[channel]
                log.warning("button board: station %d %s is held but its press never arrived "
                            "(a frame lost around a replug?): not counted", station + 1, key)
        return out + self._heard(at_ns) + [Watermark(self.source, t_ns)]

    def _heard(self, at_ns: int) -> list[Output]:
        """A watermark read at host time ``at_ns``: the board is alive. A board that was down is
        live again: from its watermark on, races wait for it."""
        self._heard_ns = at_ns if self._heard_ns is None else max(self._heard_ns, at_ns)
        if self.live:
            return []
        self.live = True
        log.info("button board is back: races wait for it again")
        return [Live(self.source, True)] + self._tell(None)

    def _placed(self, board_us: int, at_ns: int) -> int | None:
        """Board time ``board_us`` of a frame read at ``at_ns``, on the host's clock, by the
        rules of the module docstring; None (and counted) for a frame that breaks one."""
        if self._board_upto_us is not None and board_us < self._board_upto_us:
            self.stale_frames += 1
            _sparingly(self.stale_frames, "button board: %d frames dropped, older than the board's own "
                                          f"watermark (last {(self._board_upto_us - board_us) / 1e6:.3f} s)")
            return None
        t_ns = self.clock.to_host_ns(board_us)
        uncertainty = self.clock.uncertainty_ns(board_us)
        if t_ns - uncertainty > at_ns + FUTURE_MARGIN_NS:
            self.future_frames += 1
            _sparingly(self.future_frames, "button board: %d frames dropped, stamped after they arrived "
                                           f"(last {(t_ns - at_ns) / 1e6:.1f} ms ahead, sync within "
                                           f"{uncertainty / 1e6:.2f} ms)")
            return None
        if t_ns + uncertainty < self._floor - self._floor_uncertainty:
            self.stale_frames += 1
            _sparingly(self.stale_frames, "button board: %d frames dropped, older than times already given "
                                          f"(last {(self._floor - t_ns) / 1e9:.3f} s)")
            return None
        self._board_upto_us = board_us
        if t_ns >= self._floor:
            self._floor, self._floor_uncertainty = t_ns, uncertainty
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
