"""A button board made of software, speaking the board's protocol on a pseudo-terminal.

For tests and the simulator: the host opens it as it would open ``/dev/ttyACM0`` and cannot tell
the difference on the wire. It answers hellos and pings, sends edges in time order and
heartbeats when idle, exactly as ``firmware/PROTOCOL.md`` says. Its buttons are pressed by
calling :meth:`VirtualBoard.press` (already clean: a virtual contact does not bounce), and its
light sensors see their panels light by :meth:`VirtualBoard.light`.

Its clock runs off the host's monotonic clock, shifted and optionally drifting, so the host's
clock sync has real work to do. :meth:`unplug` closes the terminal as a pulled cable would, and
:meth:`replug` starts the board afresh (clock and sequence from zero, as a Pico powered by its
USB cable does) behind the same path, a symbolic link like udev's ``/dev/serial/by-id/`` names.
:meth:`stall` holds every frame back until :meth:`resume`, as a USB hiccup would.

It can also misbehave, for the tests of a hostile board: :meth:`repeat` sends an earlier frame
again, byte for byte; :meth:`inject` sends any message with the next sequence number, or any
other, whatever it claims (an edge 5 s old, a heartbeat from the future, a number 32,767 ahead).
:meth:`restart` starts the board afresh with its port still open (a soft reset: USB stays up), and
:meth:`chatter` sends a long run of heartbeats at once, as a board that has been up for minutes
has sent, so the host's sequence numbers have wrapped by the time a test gets there.
"""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from collections import deque
from collections.abc import Iterable
from pathlib import Path

from .frames import (PROTOCOL_VERSION, Deframer, Edge, Heartbeat, Hello, HelloPlease, Leds, Light, Message, Ping,
                     Pong, encode)


class VirtualBoard:
    def __init__(self, path: Path | str, channels: int = 12, heartbeat_us: int = 10_000,
                 drift_ppm: float = 0.0, board_id: bytes = b"virtual!") -> None:
        self.path = Path(path)
        self.channels = channels
        self.heartbeat_us = heartbeat_us
        self.drift_ppm = drift_ppm
        self.board_id = board_id
        self.leds = 0
        """The LEDs the host asked for."""
        self.deframer = Deframer()
        self._lock = threading.RLock()
        self._fds: tuple[int, int] | None = None  # pty master, slave
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="virtual board", daemon=True)
        self._backlog: list[bytes] | None = None  # frames held back while stalled
        self._sent: deque[bytes] = deque(maxlen=256)  # the latest frames, for repeat()
        self._boot()

    def _boot(self) -> None:
        self._boot_ns = time.monotonic_ns()
        self._seq = 0
        self._upto = 0
        self._reported_at: int | None = None
        self._mask = 0
        self._sent.clear()  # repeat() sends this start's frames

    def start(self) -> None:
        self._open()
        self._thread.start()

    def now_us(self) -> int:
        """The board's clock: microseconds since it started."""
        return int((time.monotonic_ns() - self._boot_ns) * (1 + self.drift_ppm * 1e-6)) // 1000

    def press(self, channel: int, pressed: bool = True, at_us: int | None = None) -> int:
        """A button edge on ``channel`` at board time ``at_us`` (default now); returns it.

        A board never reports an edge older than a watermark it has sent.
        """
        with self._lock:
            t_us = self._edge_time(channel, at_us)
            self._mask = self._mask | 1 << channel if pressed else self._mask & ~(1 << channel)
            self._report(t_us)
            self._emit(Edge(t_us, channel, int(pressed)))
            return t_us

    def light(self, channel: int, at_us: int | None = None) -> int:
        """The light sensor on ``channel`` sees its marker light at board time ``at_us`` (default
        now): one LIGHT frame, as the firmware sends for the first rise of a lit marker; returns it."""
        with self._lock:
            t_us = self._edge_time(channel, at_us)
            self._report(t_us)
            self._emit(Light(t_us, channel))
            return t_us

    def _edge_time(self, channel: int, at_us: int | None) -> int:
        """The board time of an input at ``at_us`` (default now), checked as the firmware keeps it."""
        if not 0 <= channel < self.channels:
            raise ValueError(f"channel must be from 0 to {self.channels - 1}, not {channel}")
        t_us = self.now_us() if at_us is None else at_us
        if t_us < self._upto:
            raise ValueError(f"edge at {t_us} us is before the board's watermark {self._upto} us")
        return t_us

    def noise(self, data: bytes) -> None:
        """Raw bytes on the line, as interference or a torn frame would put there."""
        with self._lock:
            self._write(data)

    def repeat(self, frames_back: int = 1) -> None:
        """Send the frame sent ``frames_back`` frames ago again, unchanged (sequence number and all)."""
        with self._lock:
            data = self._sent[-frames_back]
            self._send(data)

    def inject(self, message: Message, seq: int | None = None) -> None:
        """Send ``message`` as the next frame, unchecked: the board's state does not change. With
        ``seq``, the frame carries that sequence number instead, and the board's own count goes
        on as if it had not been sent."""
        with self._lock:
            if seq is None:
                self._emit(message)
            else:
                self._send(encode(seq, message))

    def chatter(self, frames: int) -> None:
        """Send ``frames`` heartbeats now, waiting for the host to read them (none is lost to a
        full port): minutes of an idle board's stream in a moment."""
        with self._lock:
            for _ in range(frames):
                self._report(self.now_us())
                data = encode(self._seq, Heartbeat(self._upto, self._mask, 0, 0))
                self._seq = (self._seq + 1) & 0xFFFF
                while data and self._fds is not None:
                    select.select([], [self._fds[0]], [], 1.0)
                    try:
                        data = data[os.write(self._fds[0], data):]
                    except BlockingIOError:
                        continue

    def restart(self, pressed_at_boot: Iterable[int] = ()) -> None:
        """The board starts afresh (clock and sequence from zero) while its port stays open, as
        a soft reset leaves USB up: its HELLO, then the channels in ``pressed_at_boot`` pressed."""
        with self._lock:
            self._boot()
            self._emit(self._hello())
            for channel in pressed_at_boot:
                self.press(channel)

    def stall(self) -> None:
        with self._lock:
            if self._backlog is None:
                self._backlog = []

    def resume(self) -> None:
        with self._lock:
            backlog, self._backlog = self._backlog or [], None
            for data in backlog:
                self._write(data)

    def unplug(self) -> None:
        with self._lock:
            self._close_pty()

    def replug(self, pressed_at_boot: Iterable[int] = ()) -> None:
        """Unplug and plug in again; the channels in ``pressed_at_boot`` are pressed as the board
        starts, before the host can open the port: their edges wait in it behind the HELLO."""
        with self._lock:
            self._close_pty()
            self._boot()
            self._open(pressed_at_boot)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        with self._lock:
            self._close_pty()

    def _open(self, pressed_at_boot: Iterable[int] = ()) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes are bytes
        os.set_blocking(master, False)
        self._fds = (master, slave)
        self.deframer.reset()
        self._backlog = None
        self._emit(self._hello())
        for channel in pressed_at_boot:
            self.press(channel)
        if self.path.is_symlink():
            self.path.unlink()
        self.path.symlink_to(os.ttyname(slave))

    def _close_pty(self) -> None:
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None
        if self.path.is_symlink():
            self.path.unlink()

    def _hello(self) -> Hello:
        return Hello(PROTOCOL_VERSION, self.channels, 0, self.heartbeat_us, self.board_id)

    def _report(self, t_us: int) -> None:
        self._upto = max(self._upto, t_us)
        self._reported_at = self.now_us()

    def _emit(self, message: Message) -> None:
        data = encode(self._seq, message)
        self._seq = (self._seq + 1) & 0xFFFF
        self._sent.append(data)
        self._send(data)

    def _send(self, data: bytes) -> None:
        if self._backlog is not None:
            self._backlog.append(data)
        else:
            self._write(data)

    def _write(self, data: bytes) -> None:
        if self._fds is None:
            return
        try:
            os.write(self._fds[0], data)
        except BlockingIOError:
            pass  # nobody is reading: a real board's USB buffer overflows the same way

    def _answer(self, message: Message) -> None:
        if isinstance(message, Ping):
            self._emit(Pong(message.token, self.now_us()))
        elif isinstance(message, HelloPlease):
            self._emit(self._hello())
        elif isinstance(message, Leds):
            self.leds = message.mask

    def _run(self) -> None:
        period_s = self.heartbeat_us / 1e6
        while not self._stop.is_set():
            with self._lock:
                master = self._fds[0] if self._fds else None
                due_s = (self._reported_at or 0) / 1e6 + period_s - self.now_us() / 1e6
            if master is None:
                self._stop.wait(period_s)
                continue
            try:
                ready, _, _ = select.select([master], [], [], max(0.0, due_s))
                data = os.read(master, 4096) if ready else b""
            except OSError:  # unplugged meanwhile, or no host has the port open
                self._stop.wait(period_s)
                data = b""
            with self._lock:
                if self._fds is None or self._fds[0] != master:
                    continue
                for frame in self.deframer.feed(data):
                    self._answer(frame.message)
                now = self.now_us()
                if self._reported_at is None or now - self._reported_at >= self.heartbeat_us:
                    self._report(now)
                    self._emit(Heartbeat(self._upto, self._mask, 0, sum(self.deframer.errors.values())))
