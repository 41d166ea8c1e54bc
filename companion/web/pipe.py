"""The wall's pipe: one end of a socket pair between the referee and the phones' server, on a loop.

Each message is one line of JSON (a list: its kind, then its fields). Neither side ever blocks on
the other: a send only queues, and the queue is written out when the socket takes it. What is a
state rather than an event (the table's view, a station's panel, a phone's watermark) is sent
under a *key*: a newer value replaces the one still queued under the same key, in its place, so
a side that falls behind is sent the latest of each, never a backlog. Events (a press) are never
replaced or dropped; there are at most :data:`EVENTS` of them queued, and :attr:`Pipe.has_room`
says when the sender must hold the next one back (the phones' server then leaves a seated phone's
frames in its socket: TCP holds the phone back, nothing is lost).
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections import deque
from typing import Any, Callable, Hashable

log = logging.getLogger(__name__)

EVENTS = 256
"""Events queued at most (presses: 33 phone stations' fingers for several seconds)."""
LINE_BYTES = 1 << 20
"""The longest message read (a panel's PNG is a few kB, a table view less)."""
CHUNK = 1 << 16


class Pipe:
    """One end: ``on_message(list)`` for each message read, ``on_closed()`` once the other end
    (``other``, named in the log) has gone or sent something unreadable."""

    def __init__(self, sock: socket.socket, loop: asyncio.AbstractEventLoop,
                 on_message: Callable[[list], None], on_closed: Callable[[], None], other: str) -> None:
        sock.setblocking(False)
        self.sock = sock
        self.loop = loop
        self.on_message = on_message
        self.on_closed = on_closed
        self.closed = False
        self.other = other
        self.replaced = 0
        """Values replaced while still queued (the other side was behind)."""
        self.held_back = 0
        """Times the events queued reached :data:`EVENTS`."""
        self.has_room = asyncio.Event()
        """Set while fewer than :data:`EVENTS` events wait to be written."""
        self.has_room.set()
        self._queue: deque[list] = deque()
        """Entries [key, line] in the order sent; a keyed entry is updated in place."""
        self._keyed: dict[Hashable, list] = {}
        self._events = 0
        self._wire = bytearray()
        """Lines taken from the queue, being written."""
        self._read = bytearray()
        self._writing = False
        loop.add_reader(sock.fileno(), self._readable)

    def send(self, message: list[Any], key: Hashable | None = None) -> None:
        """Queue ``message``; under ``key``, replacing what is still queued under it."""
        if self.closed:
            return
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        entry = self._keyed.get(key) if key is not None else None
        if entry is not None:
            entry[1] = line
            self.replaced += 1
            if self.replaced == 1:
                log.warning("phones: %s is behind: it is sent the latest of each view, panel and watermark, not "
                            "every one (said once)", self.other)
        else:
            entry = [key, line]
            self._queue.append(entry)
            if key is None:
                self._events += 1
                if self._events >= EVENTS:
                    self.has_room.clear()
                    self.held_back += 1
                    if self.held_back == 1:
                        log.warning("phones: %s is behind: %d presses wait for it, and the seated phones' next "
                                    "frames wait in their sockets until it takes them (none is lost; said once)",
                                    self.other, EVENTS)
            else:
                self._keyed[key] = entry
        self._flush()

    def seal(self, key: Hashable) -> None:
        """What is sent under ``key`` from now on goes after everything queued now (a phone's
        watermark after its press: it must never overtake one)."""
        self._keyed.pop(key, None)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.loop.remove_reader(self.sock.fileno())
            if self._writing:
                self.loop.remove_writer(self.sock.fileno())
            self.sock.close()

    def _flush(self) -> None:
        while self._queue and len(self._wire) < CHUNK:
            entry = self._queue.popleft()
            key = entry[0]
            if key is None:
                self._events -= 1
            elif self._keyed.get(key) is entry:  # not sealed meanwhile
                del self._keyed[key]
            self._wire += entry[1]
        if self._events < EVENTS:
            self.has_room.set()
        while self._wire:
            try:
                sent = self.sock.send(self._wire)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self._gone()
                return
            del self._wire[:sent]
            if not self._wire:
                self._flush()
                return
        if self._wire and not self._writing:
            self._writing = True
            self.loop.add_writer(self.sock.fileno(), self._writable)

    def _writable(self) -> None:
        self._writing = False
        self.loop.remove_writer(self.sock.fileno())
        self._flush()

    def _readable(self) -> None:
        try:
            data = self.sock.recv(CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._gone()
            return
        self._read += data
        *lines, rest = self._read.split(b"\n")
        self._read = bytearray(rest)
        if len(self._read) > LINE_BYTES:
            log.error("phones: a message over %d bytes across the wall: the other side is not ours", LINE_BYTES)
            self._gone()
            return
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                log.error("phones: a message across the wall that is not JSON: %r", bytes(line[:80]))
                self._gone()
                return
            self.on_message(message)
            if self.closed:
                return

    def _gone(self) -> None:
        if not self.closed:
            self.close()
            self.on_closed()
