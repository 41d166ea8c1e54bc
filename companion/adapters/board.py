"""A button board on a serial port (USB CDC), in a thread of its own that survives unplugging.

The thread reads bytes, notes the host time as soon as they arrive, decodes frames (bad ones are
counted in :attr:`BoardLink.errors` and dropped), pings the board for clock sync, and hands
everything over through ``deliver`` as :mod:`companion.board.session` items. It decides nothing:
the daemon's loop does, so ``deliver`` must only enqueue (``loop.call_soon_threadsafe``).

When the port fails (the cable is pulled, the board restarts) the thread says so, closes it,
and tries to open it again every ``retry_s`` until closed.

The port is opened without discarding what is already waiting in it. pyserial's ``open()`` on
POSIX flushes the input (``tcflush(TCIFLUSH)``, pyserial 3.5 ``serialposix.py``): the board's
HELLO and any press it sent between appearing and being opened would be thrown away, around every
replug. Those frames are the board's first ones; the session checks them like any other.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

import serial

from ..board.frames import Deframer, HelloPlease, Message, Ping, Pong, encode
from ..board.handover import Exchanged, LinkDown, LinkItem, LinkUp, Received

log = logging.getLogger(__name__)

PING_INTERVAL_S = 0.1
FIRST_PINGS = 10
"""Pings sent quickly after connecting, so the board's clock is known within a few ms."""
FIRST_PING_INTERVAL_S = 0.02
MAX_PINGS_OUT = 32


class KeptInputSerial(serial.Serial):
    """A serial port whose opening keeps the bytes already received (pyserial flushes them)."""

    def _reset_input_buffer(self) -> None:
        if self.is_open:  # a flush asked for; during open() the port is not open yet
            super()._reset_input_buffer()


class BoardLink:
    """The serial side of one button board; ``deliver`` runs in the link's thread."""

    def __init__(self, port: str, deliver: Callable[[LinkItem], None], retry_s: float = 0.5) -> None:
        self.port = port
        self.deliver = deliver
        self.retry_s = retry_s
        self.deframer = Deframer()
        self._serial: serial.Serial | None = None
        self._write_lock = threading.Lock()
        self._seq = 0
        self._pings: dict[int, int] = {}  # token -> host time sent
        self._token = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"board {port}", daemon=True)

    @property
    def errors(self):
        """Bad frames received, by kind (``crc``, ``cobs``, ...)."""
        return self.deframer.errors

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)

    def send(self, message: Message) -> bool:
        """Send one message if the board is there; False if it is not."""
        with self._write_lock:
            port = self._serial
            if port is None:
                return False
            try:
                if isinstance(message, Ping):
                    if len(self._pings) >= MAX_PINGS_OUT:  # a board that stopped answering
                        del self._pings[next(iter(self._pings))]
                    self._pings[message.token] = time.monotonic_ns()
                port.write(encode(self._seq, message))
            except (serial.SerialException, OSError):
                return False
            self._seq = (self._seq + 1) & 0xFFFF
            return True

    def _run(self) -> None:
        said = False  # one log line per absence, not one per retry
        while not self._stop.is_set():
            try:
                port = KeptInputSerial(self.port, timeout=FIRST_PING_INTERVAL_S, write_timeout=0.5)
            except (serial.SerialException, OSError, ValueError) as e:
                if not said:
                    log.warning("button board: cannot open %s (%s); trying every %.1f s", self.port, e, self.retry_s)
                    said = True
                self._stop.wait(self.retry_s)
                continue
            said = False
            log.info("button board on %s", self.port)
            self.deframer.reset()
            with self._write_lock:
                self._serial, self._seq = port, 0
                self._pings.clear()
            self.deliver(LinkUp())
            reason = self._serve(port)
            with self._write_lock:
                self._serial = None
            port.close()
            if reason is not None:
                self.deliver(LinkDown(reason))
                self._stop.wait(self.retry_s)

    def _serve(self, port: serial.Serial) -> str | None:
        """Read until the port fails (the reason) or the link is closed (None)."""
        self.send(HelloPlease())
        pings = 0
        next_ping = time.monotonic()
        while not self._stop.is_set():
            if time.monotonic() >= next_ping:
                self._token = (self._token + 1) & 0xFFFFFFFF
                self.send(Ping(self._token))
                pings += 1
                next_ping += FIRST_PING_INTERVAL_S if pings < FIRST_PINGS else PING_INTERVAL_S
            try:
                data = port.read(port.in_waiting or 1)  # returns as soon as a byte is there
            except (serial.SerialException, OSError) as e:
                return str(e) or type(e).__name__
            at_ns = time.monotonic_ns()
            bad = sum(self.errors.values())
            frames = self.deframer.feed(data) if data else []
            now_bad = sum(self.errors.values())
            if now_bad > bad and now_bad & (now_bad - 1) == 0:  # 1, 2, 4, 8...: noise cannot flood the log
                log.warning("button board on %s: %d bad frames dropped %s", self.port, now_bad, dict(self.errors))
            for frame in frames:
                message = frame.message
                if isinstance(message, Pong):
                    with self._write_lock:
                        sent_ns = self._pings.pop(message.token, None)
                    if sent_ns is not None:
                        self.deliver(Exchanged(sent_ns, message.t_us, at_ns))
                self.deliver(Received(frame, at_ns))
        return None
