"""The door: who may open a connection, how long one may stand there without a hello, how often a
guest may try a room code, and the one log line a misbehaving peer earns.

Anyone on the box's network can connect, thousands of times, so every limit here is counted per
peer (an IPv4 address; an IPv6 /64, which one device can fill with addresses) and in all:

- **Sockets** (:class:`Gate`): at most :data:`SOCKETS_PER_PEER` open connections per peer, and in
  all at most what the box's descriptors allow less :data:`RESERVED_FDS` kept for its own files
  (journals, logs, displays), so an accept never meets ``EMFILE``. A connection beyond a peer's
  share is closed as it is accepted; beyond the total, the oldest connection that is not yet a
  phone (no hello accepted: a bare socket, an idle HTTP connection) is closed to make room, so
  bare sockets never lock a real phone out.
- **Room codes** (:class:`Guesses`): :data:`FREE_TRIES` wrong codes per peer, then each further
  try waits twice as long as the last (1 s, 2 s, ... :data:`LONGEST_WAIT_S`); a try while waiting
  is refused without the code being compared. Across all peers, wrong codes are budgeted at
  :data:`WRONG_PER_S` (a burst of :data:`WRONG_BURST`): once it is spent, a peer that has already
  been wrong is refused unchecked until it refills; a phone that never was is still checked.
- **Frames** (:class:`FrameBudget`): watchers together have :data:`WATCHER_FRAMES_PER_S` frames
  read a second; past it a watcher's next frame waits in its socket for the next second.
- **Log lines** (:class:`Tally`): a peer's first refusal in a minute is logged with its reason,
  the rest counted and said in one line when the minute is over.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import resource
import socket
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable

log = logging.getLogger(__name__)

SOCKETS_PER_PEER = 32
"""A phone uses one WebSocket and the browser a few connections for the page; a test or a bench on
loopback runs up to 8 phones from one address. An attacker's bare sockets stop here."""
SOCKETS_MOST = 1024
"""The most connections in all, if the descriptors allow that many: 64 phones and their pages."""
RESERVED_FDS = 256
"""Descriptors never given to a connection: the journal and its folder, logs, displays, the GPIO
reader's pipe, the button board's port, a game's deck and word files, with room to spare."""
BACKLOG = 32
"""Connections asyncio accepts in one turn of the loop (its ``backlog``, 100 by default): each
is a descriptor until the gate has closed it, a few turns later."""
IN_FLIGHT = 8 * BACKLOG
"""Descriptors of connections accepted but not yet closed by the gate: a flood keeps the loop
accepting :data:`BACKLOG` a turn while those of the turns before are closed (at 100 a turn and
no such allowance, 10,000 bare sockets met EMFILE under a limit of 1,024)."""
DESCRIPTORS_WANTED = 8192
"""The soft limit on open files the box raises itself to (up to the hard limit; the unit's
``LimitNOFILE``)."""
FREE_TRIES = 5
"""Wrong room codes a peer may send before it waits (a player mistyping twice, on two phones)."""
LONGEST_WAIT_S = 60.0
WRONG_PER_S = 2.0
WRONG_BURST = 50
PEERS_KEPT = 4096
"""Peers whose wrong codes are remembered; beyond it, the one forgotten longest ago goes."""
WINDOW_NS = 60_000_000_000


def address_of(peer: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """A peer's address (an IPv4 address mapped into IPv6 as itself); None if it is none."""
    try:
        address = ipaddress.ip_address((peer or "").split("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def on_the_box_network(peer: str | None) -> bool:
    """Whether a peer's address is on the box's own network: private, link-local or loopback."""
    address = address_of(peer)
    return address is not None and (address.is_private or address.is_link_local or address.is_loopback)


def peer_of(address: str | None) -> str:
    """Who a connection is, for counting: its IPv4 address, or its IPv6 address's /64."""
    ip = address_of(address)
    if ip is None:
        return address or "?"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class Tally:
    """Refusals logged once per peer per minute: the first with its reason, the rest counted."""

    PEERS = 1024

    def __init__(self, now_ns: Callable[[], int]) -> None:
        self.now_ns = now_ns
        self._since = now_ns()
        self._counts: dict[str, int] = {}
        self._others = 0

    def refused(self, peer: str, reason: str) -> None:
        now = self.now_ns()
        if now - self._since >= WINDOW_NS:
            self.flush(now)
        if peer in self._counts:
            self._counts[peer] += 1
        elif len(self._counts) >= self.PEERS:
            self._others += 1
        else:
            self._counts[peer] = 0
            log.warning("web: refused %s: %s", peer, reason)

    def flush(self, now: int) -> None:
        """Say how many refusals were not logged since the last flush."""
        seconds = (now - self._since) / 1e9
        for peer, more in self._counts.items():
            if more:
                log.warning("web: refused %s %d more times in %.0f s", peer, more, seconds)
        if self._others:
            log.warning("web: refused %d more times in %.0f s from peers not named", self._others, seconds)
        self._since, self._counts, self._others = now, {}, 0


@dataclass
class _Wrong:
    tries: int = 0
    wait_until_ns: int = 0


class Guesses:
    """Wrong room codes (and seat tokens), per peer and in all, with their back-off."""

    def __init__(self, now_ns: Callable[[], int]) -> None:
        self.now_ns = now_ns
        self._peers: OrderedDict[str, _Wrong] = OrderedDict()
        self._budget = float(WRONG_BURST)
        self._budget_ns = now_ns()

    def wait_s(self, peer: str) -> float:
        """How long ``peer`` must wait before its next code is compared (0: now)."""
        now = self.now_ns()
        self._budget = min(WRONG_BURST, self._budget + (now - self._budget_ns) / 1e9 * WRONG_PER_S)
        self._budget_ns = now
        wrong = self._peers.get(peer)
        if wrong is None:
            return 0.0
        if wrong.wait_until_ns > now:
            return (wrong.wait_until_ns - now) / 1e9
        return 0.0 if self._budget >= 1 else (1 - self._budget) / WRONG_PER_S

    def wrong(self, peer: str) -> None:
        """``peer`` sent a wrong code: counted, and past its free tries it waits."""
        wrong = self._peers.pop(peer, None) or _Wrong()
        self._peers[peer] = wrong  # the most recent last: the oldest is forgotten first
        while len(self._peers) > PEERS_KEPT:
            self._peers.popitem(last=False)
        wrong.tries += 1
        self._budget -= 1
        if wrong.tries >= FREE_TRIES:
            wait = min(LONGEST_WAIT_S, 2.0 ** (wrong.tries - FREE_TRIES))
            wrong.wait_until_ns = self.now_ns() + round(wait * 1e9)

    def right(self, peer: str) -> None:
        """``peer`` got in: its mistakes are forgiven."""
        self._peers.pop(peer, None)


WATCHER_FRAMES_PER_S = 400
"""The frames all watchers together may have read in a second (64 watchers' pongs, 4 a second, are
256). Sixty watchers sending 55 a second each (inside each one's limit of 60) held the box to 20 %
of a core (``python -m bench.webflood``) and its wired GPIO delivery went from 0.2 to 18.5 ms at
most: every frame read is paid for by the loop that decides races."""


class FrameBudget:
    """Frames read a second, in all (on the real clock: it budgets the box's CPU). Past it the
    next frame waits for the next second, left in its socket: TCP holds its sender back, and a
    watcher loses nothing by a late pong (it has no watermark). Phone stations' frames are never
    held: each has its own limit, and a race waits for their pongs."""

    def __init__(self, per_s: int = WATCHER_FRAMES_PER_S) -> None:
        self.per_s = per_s
        self._second = 0
        self._taken = 0
        self._held_second = -2
        """The last second in which a frame waited for the next."""

    def binding(self) -> bool:
        """Whether frames have waited this second or the last: then the budget, not a phone's own
        limit, says how fast each is read (frames held are read in a burst the second after)."""
        return time.monotonic_ns() // 1_000_000_000 - self._held_second <= 1

    async def take(self) -> None:
        """Wait while this second's frames are spent, then count one."""
        while True:
            second = time.monotonic_ns() // 1_000_000_000
            if second != self._second:
                self._second, self._taken = second, 0
            if self._taken < self.per_s:
                self._taken += 1
                return
            self._held_second = second
            await asyncio.sleep(1 - time.monotonic() % 1 + 0.001)


def raise_descriptor_limit(wanted: int = DESCRIPTORS_WANTED) -> int:
    """Raise the soft limit on open files towards ``wanted`` (as far as the hard limit lets); the
    soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as e:
            log.warning("web: the limit on open files stays %d (%s)", soft, e)
    return soft


def sockets_allowed(soft_limit: int) -> int:
    """The most connections in all: the descriptors left once the box's own are reserved."""
    try:
        open_now = len(os.listdir("/proc/self/fd"))
    except OSError:
        open_now = 64
    return max(16, min(SOCKETS_MOST, soft_limit - open_now - RESERVED_FDS - IN_FLIGHT))


@dataclass(eq=False)
class Visit:
    """One open connection: who, and whether it has become a phone (its hello accepted)."""

    peer: str
    transport: asyncio.Transport
    phone: bool = False


@dataclass
class Gate:
    """Counts connections as they are accepted and closes those beyond the limits."""

    most: int
    tally: Tally
    visits: OrderedDict[asyncio.Transport, Visit] = field(default_factory=OrderedDict)
    """Every open connection, the oldest first."""
    by_peer: dict[str, int] = field(default_factory=dict)

    def protocol(self, make: Callable[[], asyncio.Protocol]) -> asyncio.Protocol:
        """The protocol for one accepted connection: the server's, once the gate lets it in."""
        return _Gated(self, make)

    def let_in(self, transport: asyncio.Transport) -> Visit | None:
        peername = transport.get_extra_info("peername")
        peer = peer_of(peername[0] if peername else None)
        if self.by_peer.get(peer, 0) >= SOCKETS_PER_PEER:
            self.tally.refused(peer, f"more than {SOCKETS_PER_PEER} connections from one peer")
            return None
        if len(self.visits) >= self.most:
            oldest = next((v for v in self.visits.values() if not v.phone), None)
            if oldest is None:
                self.tally.refused(peer, f"the box has {self.most} connections, every one a phone")
                return None
            self.tally.refused(oldest.peer, f"the box has {self.most} connections: its oldest that is no phone closed")
            self.leave(oldest.transport)
            oldest.transport.abort()
        visit = Visit(peer, transport)
        self.visits[transport] = visit
        self.by_peer[peer] = self.by_peer.get(peer, 0) + 1
        return visit

    def leave(self, transport: asyncio.Transport) -> None:
        visit = self.visits.pop(transport, None)
        if visit is not None:
            left = self.by_peer[visit.peer] - 1
            if left:
                self.by_peer[visit.peer] = left
            else:
                del self.by_peer[visit.peer]

    def became_phone(self, transport: asyncio.Transport | None) -> None:
        visit = self.visits.get(transport) if transport is not None else None
        if visit is not None:
            visit.phone = True


class _Gated(asyncio.Protocol):
    """The server's protocol behind the gate: made only for a connection let in."""

    def __init__(self, gate: Gate, make: Callable[[], asyncio.Protocol]) -> None:
        self.gate = gate
        self.make = make
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport) -> None:
        if self.gate.let_in(transport) is None:
            transport.abort()
            return
        self.transport = transport
        self.inner = self.make()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self):
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc) -> None:
        if self.inner is not None:
            self.gate.leave(self.transport)
            self.inner.connection_lost(exc)


def listening_socket(host: str | None, port: int) -> socket.socket:
    """A TCP socket listening on ``host`` (None: every interface) and ``port`` (0: any free one)."""
    family = socket.AF_INET6 if host is not None and ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host or "", port))
        listening.listen(BACKLOG)
    except OSError:
        listening.close()
        raise
    return listening


def join_url(shown_host: str, listening: socket.socket, code: str) -> str:
    """The join address the TV shows: ``shown_host``, the socket's port, the room code."""
    return f"http://{shown_host}:{listening.getsockname()[1]}/?room={code}"
