"""The web companion's server: the page, its QR code and the phones' WebSocket, behind the wall.

aiohttp serves it on a loop of its own, in a process of its own at normal priority
(:mod:`.wall`, :mod:`.child`): a phone's frame is read, checked and handed to the box (the
referee, across the wall's pipe) there, so nothing a phone sends takes the referee's time; the
box hands back what to send (the table's public view, a seat's panel and its frame number) the
same way. Each connection is one phone: a watcher, or the holder of one phone station. A frame
that breaks the protocol (:mod:`.messages`) closes its connection with one log line, never more:
anyone on the box's network can connect.

Who may connect at all is decided before any frame is read: with ``bind = "lan"`` the server
listens on every interface but answers only peers on the box's own network (private, link-local
and loopback addresses), so a box whose router forwards its port still says nothing beyond it.
How many connections a peer may open, how long one may wait without a hello and how often a room
code may be tried is :mod:`.door`'s. Nothing is sent on a connection before its hello is
accepted: a socket that has not said the room code learns nothing, the code least of all.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

import segno
from aiohttp import WSCloseCode, WSMsgType, web

from .door import (BACKLOG, FrameBudget, Gate, Guesses, Tally, address_of, join_url, listening_socket, on_the_box_network,
                   peer_of, raise_descriptor_limit, sockets_allowed)
from .host import HostLine
from .messages import FRAME_BYTES, Hello, HostAct, Painted, Pong, Refused, read_frame
from .phoneclock import PhoneClock
from .pings import PingPlan, Pinging
from .room import PhoneSeat, Room, RoomError

STATIC = Path(__file__).with_name("static")
HELLO_S = 3.0
"""A page says hello as its socket opens; a phone waking from power save takes up to a second."""
SILENT_NS = 10_000_000_000
"""A phone that answers no ping for this long is dropped (its seat waits for it to come back)."""
FRAMES_PER_S = 60
"""The most frames a phone sends in a second of its own accord: presses (a thumb's ten taps a
second are 20), paints and the host's keys. A pong to a ping the box sent and still awaits is not
counted: the box asks for those (pairs every 75 ms in a race, and one from every phone on any
phone's press: a table of quick thumbs), and a seated phone must never be closed for answering."""
UNSYNCED = 32
"""Frames a phone may send before its first pong (a thumb on a button while the first ping flies)."""
CONNECTIONS = 64
"""Phones (watchers and phone stations together, hello accepted); a quiz night is 33 stations and a
few spectators. Sockets still to say hello are the gate's (:mod:`.door`), never counted here."""
CLOSE_REFUSED, CLOSE_REPLACED, CLOSE_SILENT = 4003, 4001, 4008


class Box(Protocol):
    """What the server asks of the box (the daemon's phones part)."""

    async def phone_joined(self, station: int, name: str | None) -> str:
        """Seat a phone (its name, if given, may become the station's); the station's name now."""
    def phone_left(self, station: int) -> None: ...
    def phone_press(self, station: int, key: str, down: bool, t_ns: int, error_ns: int) -> None: ...
    def phone_watermark(self, station: int, t_ns: int) -> None: ...
    def phone_painted(self, station: int, frame: int, t_ns: int, error_ns: int) -> None: ...
    def phone_view(self) -> dict[str, Any]: ...
    def phone_hosting(self, hosting: bool) -> None: ...
    def phone_host(self, act: str, turn: int, seat: int | None) -> None: ...
    def phone_host_page(self) -> dict[str, Any]: ...


@dataclass(eq=False)
class Phone:
    """One connection: a watcher, a phone holding ``seat``, or the quiz host's phone (``host``)."""

    socket: web.WebSocketResponse
    peer: str
    seat: PhoneSeat | None = None
    host: bool = False
    welcomed: bool = False
    """Its hello was accepted: only then is it sent anything."""
    clock: PhoneClock = field(default_factory=PhoneClock)
    pings: dict[int, int] = field(default_factory=dict)
    """Ping id -> when it was sent (box ns), until its pong."""
    next_ping: int = 0
    last_heard_ns: int = 0
    seqs: set[int] = field(default_factory=set)
    unsynced: list = field(default_factory=list)
    """Presses and painted reports sent before the first pong: taken once the clock is known."""
    frames_this_second: int = 0
    second: int = 0
    panel_sent: dict[int, int] = field(default_factory=dict)
    """Frame -> when it was sent, for the last few panels (a painted report must name one)."""
    closing: bool = False
    """Closed for its silence: its close handshake may take seconds, and meanwhile it is neither
    pinged nor closed (nor counted as refused) again at every round."""


class WebCompanion(HostLine, Pinging):
    """The server and its connections; :meth:`serve` (or :meth:`start`) on its loop, :meth:`close` at the end."""

    def __init__(self, box: Box, room: Room, now_ns: Callable[[], int] = time.monotonic_ns,
                 clock: Callable[[], PhoneClock] = PhoneClock, pings: PingPlan | None = None) -> None:
        self.box = box
        self.clock = clock
        """Each phone's clock (the benchmark's baseline arms give their own)."""
        self.pings = PingPlan() if pings is None else pings
        """When the phones are pinged (the benchmark's baseline arm gives the old schedule)."""
        self.room = room
        self.now_ns = now_ns
        self.phones: set[Phone] = set()
        self.holders: dict[int, Phone] = {}
        """Station -> the connection that holds it now."""
        self.join_url = ""
        self._runner: web.AppRunner | None = None
        self._pinger: asyncio.TimerHandle | None = None
        self._view: str | None = None
        self._panels: dict[int, tuple[int, dict[str, Any]]] = {}
        """Station -> its panel's latest frame number (as the box numbered it) and the panel."""
        self.referee_has_room = asyncio.Event()
        """Set while the referee takes presses: cleared, a seated phone's next frame waits in its
        socket (:mod:`.pipe`), never dropped."""
        self.referee_has_room.set()
        self._wanted_ns: int | None = None
        self._want_timer: asyncio.TimerHandle | None = None
        self._spreading: dict[Phone, asyncio.TimerHandle] = {}
        self.tally = Tally(now_ns)
        self.watchers_budget = FrameBudget()
        self.guesses = Guesses(now_ns)
        self.gate: Gate | None = None
        self._server: asyncio.AbstractServer | None = None
        self.app = web.Application(middlewares=[self._only_the_box_network])
        self.app.router.add_get("/", self._index)
        self.app.router.add_get("/qr.svg", self._qr)
        self.app.router.add_get("/ws", self._socket)
        self.app.router.add_static("/static/", STATIC, follow_symlinks=False)

    async def start(self, host: str | None, port: int, shown_host: str) -> str:
        """Listen on ``host`` (None: every interface) and ``port`` (0: any free one); return the
        join address, as the TV shows it."""
        listening = listening_socket(host, port)
        await self.serve(listening, join_url(shown_host, listening, self.room.code))
        return self.join_url

    async def serve(self, listening: socket.socket, url: str) -> None:
        """Serve the phones on ``listening`` (a bound, listening socket: the wall's, which outlives
        this server), the TV showing ``url``."""
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        self.gate = Gate(sockets_allowed(raise_descriptor_limit()), self.tally)
        http = self._runner.server
        self._server = await asyncio.get_running_loop().create_server(
            lambda: self.gate.protocol(http), sock=listening, backlog=BACKLOG)
        self.join_url = url
        self.pings.start(self.now_ns())
        self._plan_pings()

    async def close(self) -> None:
        self.stop_pinging()
        if self._server is not None:
            self._server.close()
        for phone in list(self.phones):
            await phone.socket.close(code=WSCloseCode.GOING_AWAY, message=b"the box is stopping")
        if self._runner is not None:
            await self._runner.cleanup()

    # What the box shows, pushed to the phones

    def show_table(self, view: dict[str, Any]) -> None:
        """The table screen's public view changed: every connection gets it."""
        text = json.dumps({"type": "table", "view": view})
        if text != self._view:
            self._view = text
            for phone in self.phones:
                if phone.welcomed:
                    self._send(phone, text)

    def show_panel(self, station: int, frame: int, panel: dict[str, Any]) -> None:
        """A phone station's panel changed, numbered ``frame`` by the box (a reveal is timed from
        the painting of its frame): its holder (only) gets it."""
        self._panels[station] = frame, panel
        phone = self.holders.get(station)
        if phone is not None:
            self._send_panel(phone, station)

    def _send_panel(self, phone: Phone, station: int) -> None:
        frame, panel = self._panels[station]
        phone.panel_sent[frame] = self.now_ns()
        for old in [f for f in phone.panel_sent if f < frame - 16]:
            del phone.panel_sent[old]
        self._send(phone, json.dumps({"type": "panel", "frame": frame, **panel}))

    @staticmethod
    def _send(phone: Phone, text: str) -> None:
        if not phone.socket.closed:
            asyncio.ensure_future(_quietly(phone.socket.send_str(text)))

    # HTTP

    @web.middleware
    async def _only_the_box_network(self, request: web.Request, handler):
        if not on_the_box_network(request.remote):
            self.tally.refused(peer_of(request.remote), "not on the box's network")
            raise web.HTTPForbidden(text="This box answers only its own network.")
        return await handler(request)

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers=_NO_CACHE)

    async def _qr(self, request: web.Request) -> web.Response:
        """The join address with the room code, for the box's own screens only (a browser on the
        box showing the TV): a peer that gets it needs no code."""
        address = address_of(request.remote)
        if address is None or not address.is_loopback:
            self.tally.refused(peer_of(request.remote), "the QR code is for the box's own screens")
            raise web.HTTPForbidden(text="The QR code is on the TV.")
        out = io.BytesIO()
        segno.make(self.join_url, error="m").save(out, kind="svg", scale=8, border=2, xmldecl=False)
        return web.Response(body=out.getvalue(), content_type="image/svg+xml", headers=_NO_CACHE)

    # The WebSocket

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        socket = web.WebSocketResponse(max_msg_size=FRAME_BYTES, heartbeat=None, autoping=True)
        await socket.prepare(request)
        phone = Phone(socket, peer_of(request.remote), clock=self.clock(), last_heard_ns=self.now_ns())
        self.phones.add(phone)
        try:
            await self._converse(phone, request.transport)
        except Refused as e:
            self.tally.refused(phone.peer, f"closed: {e}")
            await socket.close(code=WSCloseCode.MESSAGE_TOO_BIG if "over" in str(e) and "bytes" in str(e)
                               else WSCloseCode.POLICY_VIOLATION, message=b"protocol")
        finally:
            self._leave(phone)
        return socket

    async def _converse(self, phone: Phone, transport) -> None:
        try:
            first = await asyncio.wait_for(self._next(phone), HELLO_S)
        except asyncio.TimeoutError:
            self.tally.refused(phone.peer, f"closed: no hello within {HELLO_S:g} s")
            await phone.socket.close(code=CLOSE_SILENT, message=b"no hello")
            return
        if first is None:
            return
        if not isinstance(first, Hello):
            raise Refused(f"the first frame must be hello, not {type(first).__name__.lower()}")
        if not await self._welcome(phone, first):
            return
        if self.gate is not None:
            self.gate.became_phone(transport)
        while (message := await self._next(phone)) is not None:
            self._take(phone, message)

    async def _next(self, phone: Phone):
        """The next frame, checked (None: the connection closed)."""
        if phone.seat is None and not phone.host:
            await self.watchers_budget.take()
        else:
            await self.referee_has_room.wait()
        message = await phone.socket.receive()
        if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
            return None
        if message.type == WSMsgType.ERROR:
            exception = phone.socket.exception()
            raise Refused(f"a frame over {FRAME_BYTES} bytes" if "size" in str(exception).lower()
                          else f"a broken frame ({type(exception).__name__})")
        if message.type != WSMsgType.TEXT:
            raise Refused("a binary frame (JSON text frames only)")
        now = self.now_ns()
        frame = read_frame(message.data)
        second = now // 1_000_000_000
        if second != phone.second:
            phone.second, phone.frames_this_second = second, 0
        if not (isinstance(frame, Pong) and frame.id in phone.pings):  # the box's own asking is not the phone's
            phone.frames_this_second += 1
        if phone.frames_this_second > FRAMES_PER_S and not (phone.seat is None and not phone.host
                                                            and self.watchers_budget.binding()):
            raise Refused(f"more than {FRAMES_PER_S} frames in a second")
        phone.last_heard_ns = now
        return frame

    async def _welcome(self, phone: Phone, hello: Hello) -> bool:
        try:
            if sum(p.welcomed for p in self.phones) >= CONNECTIONS:
                raise RoomError("The box has as many phones as it can take.")
            seat, token = self.room.let_in(hello, phone.peer, self.guesses)
        except RoomError as e:
            await self._refuse(phone, str(e))
            return False
        keys: list[str] = []
        name = None
        if hello.role == "host":
            self._host_joined(phone)
        if seat is not None:  # the box seats it (and takes its name) before it is told anything
            name = await self.box.phone_joined(seat.station, hello.name)
            old = self.holders.get(seat.station)
            self.holders[seat.station] = phone
            if old is not None:
                old.seat = None  # it no longer holds the seat: its leaving says nothing
                self._replaced(old)
            keys = ["slap"] if seat.buzzer else ["slap", "left", "ok", "right"]
        phone.seat = seat
        phone.welcomed = True
        role = "host" if phone.host else "watch" if seat is None else ("buzzer" if seat.buzzer else "seat")
        await phone.socket.send_str(json.dumps({
            "type": "welcome", "role": role,
            "seat": None if seat is None else seat.station + 1, "token": token, "room": self.room.code,
            "name": name, "keys": keys}))
        await phone.socket.send_str(json.dumps({"type": "table", "view": self.box.phone_view()}))  # to it alone: the others
        # are sent a changed view (its name, say) when the box next shows one
        if seat is not None and seat.station in self._panels:
            self._send_panel(phone, seat.station)
        if phone.host:
            self.show_host(self.box.phone_host_page())
        self._ping(phone)
        return True

    @staticmethod
    def _replaced(old: Phone) -> None:
        """A seat (or the host's role) taken back on another page: the old one is closed."""
        asyncio.ensure_future(_quietly(old.socket.close(code=CLOSE_REPLACED, message=b"seat taken back")))

    async def _refuse(self, phone: Phone, reason: str) -> None:
        self.tally.refused(phone.peer, reason)
        await _quietly(phone.socket.send_str(json.dumps({"type": "refused", "reason": reason})))
        await phone.socket.close(code=CLOSE_REFUSED, message=b"refused")

    def _take(self, phone: Phone, message) -> None:
        now = self.now_ns()
        if isinstance(message, Hello):
            raise Refused("a second hello")
        if isinstance(message, Pong):
            sent = phone.pings.pop(message.id, None)
            if sent is None:
                return  # a pong for a ping forgotten (a duplicate): nothing to learn
            try:
                phone.clock.exchange(sent, message.t_ms, now, message.lag_ms, message.res_ms)
            except ValueError:
                raise Refused("a pong whose time went backwards") from None
            waiting, phone.unsynced = phone.unsynced, []
            for held in waiting:  # presses made before the first exchange, in the order sent
                self._take(phone, held)
            if phone.seat is not None and phone.clock.watermark_ns is not None:
                self.box.phone_watermark(phone.seat.station, phone.clock.watermark_ns)
            self.ponged(phone, message.id)
            return
        if isinstance(message, HostAct):
            self._take_host(phone, message)
            return
        if phone.seat is None:
            raise Refused(f"a {type(message).__name__.lower()} from a watcher")
        if not phone.clock.synced:  # its time means nothing yet: kept until the first pong
            if len(phone.unsynced) >= UNSYNCED:
                raise Refused(f"more than {UNSYNCED} frames before the first pong")
            phone.unsynced.append(message)
            return
        if isinstance(message, Painted):
            if message.frame in phone.panel_sent:
                self.box.phone_painted(phone.seat.station, message.frame, *phone.clock.painted(message.t_ms))
            return
        if message.key not in (("slap",) if phone.seat.buzzer else ("slap", "left", "ok", "right")):
            raise Refused(f"a press of {message.key}, which a buzzer does not have")
        if message.seq in phone.seqs:
            return
        phone.seqs.add(message.seq)
        phone.clock.handled(message.lag_ms, now)
        self.box.phone_press(phone.seat.station, message.key, message.down, *phone.clock.touched(message.t_ms))
        self._send(phone, json.dumps({"type": "got", "seq": message.seq}))
        if message.down:  # a race may wait on every phone's watermark: ask for it now, not at the next tick
            self.ping_all(paired=False)  # for the watermark: single, so a thumb's taps stay within FRAMES_PER_S

    def _leave(self, phone: Phone) -> None:
        self.phones.discard(phone)
        self.forget_pings(phone)
        self._host_left(phone)
        if phone.seat is not None and self.holders.get(phone.seat.station) is phone:
            del self.holders[phone.seat.station]
            self.box.phone_left(phone.seat.station)

    # Pings: sync and heartbeat

    def ping_all(self, paired: bool = True) -> None:
        """Ping every phone at once (a phone silent for :data:`SILENT_NS` is closed instead);
        ``paired``: a seated phone's pong brings a second (:mod:`.pings`)."""
        for phone in self.pingable():
            self._ping(phone, paired)

    def pingable(self) -> list[Phone]:
        """The welcomed phones still open; one silent for :data:`SILENT_NS` is closed instead."""
        now, out = self.now_ns(), []
        for phone in list(self.phones):
            if phone.closing:
                continue
            if now - phone.last_heard_ns > SILENT_NS:
                phone.closing = True
                self.tally.refused(phone.peer, f"closed: silent for {SILENT_NS / 1e9:g} s")
                asyncio.ensure_future(_quietly(phone.socket.close(code=CLOSE_SILENT, message=b"silent")))
            elif phone.welcomed and not phone.socket.closed:
                out.append(phone)
        return out
_NO_CACHE = {"Cache-Control": "no-store"}


async def _quietly(awaitable) -> None:
    """Send or close on a connection that may be gone: a phone that vanished is not an error."""
    try:
        await awaitable
    except (ConnectionError, RuntimeError, asyncio.CancelledError):
        pass


def panel_png(image) -> str:
    """A station's panel (a PIL image) as the base64 PNG the protocol sends."""
    out = io.BytesIO()
    image.convert("1").save(out, format="PNG", optimize=True)
    return base64.b64encode(out.getvalue()).decode("ascii")
