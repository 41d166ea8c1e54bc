"""The daemon's side of the GPIO reader (:mod:`companion.adapters.gpioreader`): the process, and
what its records mean for races.

:class:`GpioReader` starts the reader with one end of a socket pair, reads its records in a thread
of its own and hands them over through ``deliver`` (which must only enqueue, as for the button
board). A reader that exits (it could not claim its lines, it crashed, it was killed) is reported
and started again every ``retry_s``.

:class:`GpioSession`, owned by the daemon's loop, turns the records into station inputs and the
GPIO source's watermark, exactly as :class:`~companion.board.session.BoardSession` does for a
board: an explicit source. Every screen says "Buttons not responding" from the first heartbeat
the reader misses (:data:`MISSED_NS`), or at once when it exits, until its next watermark.
Races wait for that watermark meanwhile: a reader that stalled gets :data:`SILENT_NS` from its
last word, one that died and is started again :data:`START_NS` (its restart's time); only past
those do races go on without it. Presses made while a reader was dead were read by nobody and
are lost for good; so when its successor's first watermark comes, the session says how long the
buttons went unread (:class:`Unread`), which the game puts on its record
(:mod:`companion.arbiter.unread`). The light sensors' rising edges go to the light sensors' store
(:class:`~companion.adapters.lightsensor.LightSensors`), covered by the same watermark.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..arbiter.inputs import InputEvent
from ..board.handover import Live, Notice, Output, Watermark
from .gpioreader import DRIVE, EDGE, HEARTBEAT_NS, RECORD, WANT, WATERMARK

log = logging.getLogger(__name__)

SOURCE = "gpio"
NOT_RESPONDING = "Buttons not responding"
"""The players' notice for a reader that stalled or died (one screen line)."""
MISSED_NS = HEARTBEAT_NS * 3 // 2
"""A running reader silent this long has missed a heartbeat (100 ms,
:data:`~companion.adapters.gpioreader.HEARTBEAT_NS`, and half of one more for a busy machine):
the screens say the buttons are not responding."""
SILENT_NS = 500_000_000
"""A running reader silent this long is down, races no longer wait for it: five of its idle
heartbeats, the same half second a button board gets."""
START_NS = 5_000_000_000
"""A reader just started, or started again after it died, has this long from its predecessor's
last word for its first watermark (races wait for it meanwhile): a Python process's start on a
Pi Zero 2 takes about a second, more while the daemon itself starts, and a dead reader is started
again a second after it is found gone."""
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True, slots=True)
class ReaderEdge:
    pin: int
    level: int
    t_ns: int


@dataclass(frozen=True, slots=True)
class ReaderMark:
    """Every edge before ``t_ns`` has been delivered."""

    t_ns: int


@dataclass(frozen=True, slots=True)
class ReaderDown:
    reason: str


@dataclass(frozen=True, slots=True)
class Unread:
    """``source``'s buttons were read by nobody for ``for_ns`` (its reader died), up to now."""

    source: str
    for_ns: int


ReaderItem = ReaderEdge | ReaderMark | ReaderDown


class GpioReader:
    """The reader process for the buttons' ``pins`` and the light ``sensors``' (on ``chip``, by
    default the 40-pin header's). ``mock``: the reader's lines are gpiozero mock pins that
    :meth:`drive` changes (tests, benchmarks), with ``margin_ns`` standing in for the kernel's
    margin if given.

    A thread of this object starts the reader and waits for it to end. Its records are read by
    that thread, or, given the daemon's loop at :meth:`start`, by the loop itself: a watermark
    then reaches a race with one hand-off between threads fewer (each waits for the GIL, which
    the display writer holds while it packs a frame). ``deliver`` runs where they are read; a
    :class:`ReaderDown` is delivered from the thread, or in the loop with ``call_soon_threadsafe``."""

    def __init__(self, pins: list[int], deliver: Callable[[ReaderItem], None], mock: bool = False,
                 chip: str | None = None, margin_ns: int | None = None, retry_s: float = 1.0,
                 sensors: Sequence[int] = ()) -> None:
        self.pins = pins
        self.deliver = deliver
        self.retry_s = retry_s
        self.command = [sys.executable, "-m", "companion.adapters.gpioreader", "--pins", ",".join(map(str, pins)),
                        "--sensors", ",".join(map(str, sensors))]
        self.command += ([] if chip is None else ["--chip", chip]) + (["--mock"] if mock else [])
        self.command += [] if margin_ns is None else ["--margin-ns", str(margin_ns)]
        self.process: subprocess.Popen | None = None
        self.reporting_pid: int | None = None
        """The reader process's pid once it has sent a record, until it ends: past its start, when
        the daemon watches it for a spin (:mod:`companion.daemon.watching`)."""
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._wanted: int | None = None
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._in_loop: tuple[int, threading.Event] | None = None  # the fd the loop reads, and its end
        self._thread: threading.Thread | None = None

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Start the reader (again, once closed); with ``loop``, the records are read (and
        delivered) in that loop."""
        self._loop = loop
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="gpio reader", daemon=True)
        self._thread.start()

    def want(self, t_ns: int) -> None:
        """A race waits for the GPIO watermark to pass ``t_ns``: ask the reader for it."""
        if t_ns != self._wanted and self._send(RECORD.pack(WANT, 0, 0, t_ns)):
            self._wanted = t_ns

    def drive(self, pin: int, level: int) -> None:
        """Set a mock pin's level in the reader (``mock`` only)."""
        self._send(RECORD.pack(DRIVE, pin, level, 0))

    def _send(self, data: bytes) -> bool:
        with self._lock:
            if self._sock is None:
                return False
            try:
                self._sock.sendall(data)
            except OSError:
                return False
            return True

    def close(self) -> None:
        """Stop the reader (from the loop's thread, if the loop reads its records)."""
        self._stop.set()
        with self._lock:
            if self._sock is not None:
                self._sock.shutdown(socket.SHUT_RDWR)  # the reader sees its end close, and exits
            if self._in_loop is not None:
                self._detach()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        said = False  # one log line per run of failures, not one per retry
        while not self._stop.is_set():
            reason, served = self._serve()
            if self._stop.is_set():
                return
            if served or not said:
                log.error("GPIO reader %s; starting it again every %.1f s", reason, self.retry_s)
            said = True
            if self._loop is None:
                self.deliver(ReaderDown(reason))
            else:
                try:
                    self._loop.call_soon_threadsafe(self.deliver, ReaderDown(reason))
                except RuntimeError:  # the loop has stopped: nobody is left to tell
                    return
            self._stop.wait(self.retry_s)

    def _serve(self) -> tuple[str, bool]:
        """Start the reader and pass its records on until it ends: why it ended, and whether it
        sent anything before."""
        ours, theirs = socket.socketpair()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [PACKAGE_ROOT, os.environ.get("PYTHONPATH")])))
        try:
            process = subprocess.Popen(self.command + ["--fd", str(theirs.fileno())], pass_fds=(theirs.fileno(),),
                                       env=env, stdin=subprocess.DEVNULL)
        except OSError as e:
            ours.close()
            return f"could not start: {e}", False
        finally:
            theirs.close()
        with self._lock:
            self.process, self._sock, self._wanted = process, ours, None
        served = self._read(ours) if self._loop is None else self._read_in_loop(ours)
        with self._lock:
            self._sock = None
        self.reporting_pid = None
        ours.close()
        if self._stop.is_set():
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            return "closed", served
        process.kill()  # it closed its end without exiting (it should not): make sure
        return f"exited with status {process.wait()}", served

    def _read(self, sock: socket.socket) -> bool:
        """Deliver the reader's records until it closes its end; whether any came."""
        buffer, served = bytearray(), False
        try:
            while data := sock.recv(4096):
                served = True
                self._deliver_records(buffer, data)
        except OSError:
            pass
        return served

    def _read_in_loop(self, sock: socket.socket) -> bool:
        """:meth:`_read`, done by the loop (``add_reader``) while this thread waits for the end."""
        buffer, served, ended = bytearray(), [False], threading.Event()
        sock.setblocking(False)

        def readable() -> None:
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if data:
                served[0] = True
                self._deliver_records(buffer, data)
            else:
                with self._lock:
                    self._detach()

        def attach() -> None:
            with self._lock:
                if self._stop.is_set():
                    ended.set()
                    return
                self._loop.add_reader(sock.fileno(), readable)
                self._in_loop = (sock.fileno(), ended)

        try:
            self._loop.call_soon_threadsafe(attach)
        except RuntimeError:  # the loop has stopped
            return False
        ended.wait()
        return served[0]

    def _detach(self) -> None:
        """In the loop's thread, with the lock held: the loop stops reading the reader."""
        fd, ended = self._in_loop
        self._in_loop = None
        self._loop.remove_reader(fd)
        ended.set()

    def _deliver_records(self, buffer: bytearray, data: bytes) -> None:
        self.reporting_pid = self.process.pid
        buffer += data
        whole = len(buffer) - len(buffer) % RECORD.size
        for offset in range(0, whole, RECORD.size):
            kind, pin, level, t_ns = RECORD.unpack_from(buffer, offset)
            self.deliver(ReaderEdge(pin, level, t_ns) if kind == EDGE else ReaderMark(t_ns))
        del buffer[:whole]

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None


class ReaderWait:
    """A GPIO reader's records handled outside the daemon's loop, by ``session`` in the reader's
    thread: the self-test's light check, which runs once the loop has stopped. :meth:`past`
    waits for the reader's watermark, as a race does."""

    def __init__(self, reader: GpioReader, session: "GpioSession", timeout_s: float = START_NS / 1e9) -> None:
        """Start ``reader`` and return once it has claimed its lines (its first watermark), or
        after ``timeout_s``."""
        self.reader = reader
        self.session = session
        self._mark_ns = -(1 << 63)
        self._changed = threading.Condition()
        reader.deliver = self._deliver
        reader.start()
        with self._changed:
            self._changed.wait_for(lambda: self._mark_ns > -(1 << 63), timeout_s)

    def _deliver(self, item: ReaderItem) -> None:
        self.session.handle(item)
        if isinstance(item, ReaderMark):
            with self._changed:
                self._mark_ns = max(self._mark_ns, item.t_ns)
                self._changed.notify_all()

    def past(self, t_ns: int, timeout_s: float) -> bool:
        """Whether the reader has delivered every edge before ``t_ns`` within ``timeout_s``."""
        self.reader.want(t_ns)
        with self._changed:
            return self._changed.wait_for(lambda: self._mark_ns >= t_ns, timeout_s)

    def close(self) -> None:
        self.reader.close()


class GpioSession:
    """The GPIO source, from reader records to station inputs and watermarks. ``pins`` maps a GPIO
    number to ``(station, key)``; ``sensors`` a light sensor's GPIO to its station, whose rising
    edges go to ``light(station, t_ns)``."""

    def __init__(self, pins: dict[int, tuple[int, str]], sensors: dict[int, int] | None = None,
                 light: Callable[[int, int], None] | None = None) -> None:
        self.pins = pins
        self.sensors = sensors or {}
        self.light = light
        self.live = True
        """Whether races wait for the reader."""
        self.notice: str | None = None
        self.downs = 0
        """Times the reader was found stalled or gone."""
        self._heard_ns: int | None = None
        self._started = False  # a watermark came from the reader running now
        self._unread_from_ns: int | None = None  # the dead reader's last word, until its successor's first

    def handle(self, item: ReaderItem) -> list[Output | Unread]:
        if isinstance(item, ReaderDown):
            if self._started and self._heard_ns is not None:
                self._unread_from_ns = self._heard_ns
            self._started = False  # races wait START_NS from its last word for the next reader
            return self._not_responding()
        if isinstance(item, ReaderMark):
            out: list[Output | Unread] = []
            if self._unread_from_ns is not None:
                out.append(Unread(SOURCE, item.t_ns - self._unread_from_ns))
                self._unread_from_ns = None
            self._started = True
            self._heard_ns = item.t_ns if self._heard_ns is None else max(self._heard_ns, item.t_ns)
            if not self.live:
                self.live = True
                log.info("GPIO reader is back: races wait for it again")
                out.append(Live(SOURCE, True))
            return out + self._tell(None) + [Watermark(SOURCE, item.t_ns)]
        if item.pin in self.sensors:
            if item.level and self.light is not None:
                self.light(self.sensors[item.pin], item.t_ns)
            return []
        target = self.pins.get(item.pin)
        if target is None:
            return []
        return [InputEvent(target[0], target[1], item.level == 0, item.t_ns, SOURCE)]

    @property
    def reading(self) -> bool:
        """Whether the reader running now has sent its first watermark (it holds the lines)."""
        return self._started

    def check(self, now_ns: int) -> list[Output]:
        """Called by the daemon's loop on its clock: a reader that missed a heartbeat is told on
        the screens; one silent too long no longer holds races."""
        if self._heard_ns is None:
            self._heard_ns = now_ns
            return []
        silent_ns = now_ns - self._heard_ns
        out: list[Output] = []
        if self.notice is None and silent_ns >= self._missed_after_ns():
            out += self._not_responding()
        if self.live and silent_ns >= self._silent_after_ns():
            log.warning("GPIO reader silent for %.1f s: races no longer wait for it", silent_ns / 1e9)
            self.live = False
            out.insert(0, Live(SOURCE, False))
        return out

    def check_due_ns(self) -> int | None:
        """When :meth:`check` may next find something to say (None: nothing to check)."""
        if self._heard_ns is None:
            return None
        due = [self._heard_ns + after for after, pending in ((self._missed_after_ns(), self.notice is None),
                                                              (self._silent_after_ns(), self.live)) if pending]
        return min(due, default=None)

    def _missed_after_ns(self) -> int:
        return MISSED_NS if self._started else START_NS

    def _silent_after_ns(self) -> int:
        return SILENT_NS if self._started else START_NS

    def _not_responding(self) -> list[Output]:
        if self.notice is None:
            self.downs += 1
        return self._tell(NOT_RESPONDING)

    def _tell(self, text: str | None) -> list[Output]:
        if text == self.notice:
            return []
        self.notice = text
        return [Notice(text)]
