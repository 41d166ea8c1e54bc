"""A phone without a browser: aiohttp's WebSocket client speaking the page's side of
``docs/PHONE-PROTOCOL.md``, for the tests and the phone benchmarks.

It answers every ping at once with its own clock (the box's monotonic clock moved by
``offset_ms``, so a test knows the truth of every time it sends) and its clock's step, as the
page does (``step_ms``: its stamps are floored to it, as a browser coarsens its clock; None: the
step is not said, as an older page), reports each panel painted as
soon as it arrives, keeps what the box sent it, and presses keys with the touch's own time.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import math
import time
from typing import Any, Callable

import aiohttp
from PIL import Image


class PhoneClient:
    """One phone's connection to a box at ``url`` (``http://host:port``)."""

    def __init__(self, session: aiohttp.ClientSession, url: str, offset_ms: float = 1.7e12,
                 clock_ns: Callable[[], int] = time.monotonic_ns, step_ms: float | None = 0.001) -> None:
        self.session = session
        self.step_ms = step_ms
        self.url = url.rstrip("/")
        self.offset_ms = offset_ms
        self.clock_ns = clock_ns
        self.socket: aiohttp.ClientWebSocketResponse | None = None
        self.welcome: dict[str, Any] | None = None
        self.refused: str | None = None
        self.received: list[dict[str, Any]] = []
        """Every frame the box sent, in order."""
        self.view: dict[str, Any] | None = None
        self.panel: dict[str, Any] | None = None
        self.host_page: dict[str, Any] | None = None
        """The host's page last sent (the host's phone only)."""
        self.got: set[int] = set()
        self.closed_code: int | None = None
        self.answering = True
        """False: pings go unanswered (a phone asleep)."""
        self._seq = 0
        self._reader: asyncio.Task | None = None

    def now_ms(self) -> float:
        """The phone's clock: ``performance.timeOrigin + performance.now()``, in its steps."""
        return self.coarse(self.clock_ns() / 1e6 + self.offset_ms)

    def coarse(self, phone_ms: float) -> float:
        """A true phone time as the page's clock shows it: floored to its step."""
        if self.step_ms is None or self.step_ms <= 0.001:
            return phone_ms
        return math.floor(phone_ms / self.step_ms) * self.step_ms

    async def join(self, room: str, role: str = "seat", name: str | None = None, token: str | None = None,
                   seat: int | None = None, pin: str | None = None) -> dict[str, Any] | None:
        """Connect and say hello (``pin``: the host's, role ``host``); the welcome (None if
        refused: :attr:`refused` says why)."""
        self.socket = await self.session.ws_connect(f"{self.url}/ws", autoping=True)
        hello = {"type": "hello", "room": room, "role": role}
        hello.update({k: v for k, v in (("name", name), ("token", token), ("seat", seat), ("pin", pin)) if v is not None})
        await self.socket.send_str(json.dumps(hello))
        first = await self.socket.receive()
        if first.type != aiohttp.WSMsgType.TEXT:
            self.closed_code = self.socket.close_code
            return None
        frame = json.loads(first.data)
        self.received.append(frame)
        if frame["type"] == "refused":
            self.refused = frame["reason"]
            await self.socket.receive()  # the close
            self.closed_code = self.socket.close_code
            return None
        self.welcome = frame
        self._reader = asyncio.ensure_future(self._read())
        return frame

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            frame = json.loads(message.data)
            self.received.append(frame)
            kind = frame["type"]
            if kind == "ping" and self.answering:
                pong = {"type": "pong", "id": frame["id"], "t": self.now_ms()}
                if self.step_ms is not None:
                    pong["res"] = self.step_ms
                await self.socket.send_str(json.dumps(pong))
            elif kind == "table":
                self.view = frame["view"]
            elif kind == "host":
                self.host_page = frame["page"]
            elif kind == "panel":
                self.panel = frame
                await self.socket.send_str(json.dumps({"type": "painted", "frame": frame["frame"], "t": self.now_ms()}))
            elif kind == "got":
                self.got.add(frame["seq"])
        self.closed_code = self.socket.close_code

    async def press(self, key: str = "slap", down: bool = True, t_ms: float | None = None) -> int:
        """A touch (its time: now, or ``t_ms`` on the phone's clock); its ``seq``."""
        self._seq += 1
        await self.socket.send_str(json.dumps({"type": "press", "key": key, "down": down,
                                               "t": self.now_ms() if t_ms is None else t_ms, "seq": self._seq}))
        return self._seq

    async def host(self, act: str, seat: int | None = None, turn: int | None = None) -> int:
        """A key of the host's phone on the page it was sent last (or of ``turn``); its ``seq``."""
        self._seq += 1
        frame = {"type": "host", "act": act, "turn": self.host_page["turn"] if turn is None else turn, "seq": self._seq}
        if seat is not None:
            frame["seat"] = seat
        await self.socket.send_str(json.dumps(frame))
        return self._seq

    async def tap(self, key: str = "slap") -> int:
        """Down and up, 60 ms apart on the phone's clock (a finger's tap); the down's ``seq``."""
        t = self.now_ms()
        seq = await self.press(key, True, t)
        await self.press(key, False, t + 60)
        return seq

    def panel_image(self) -> Image.Image:
        """The panel last sent, as the picture it is."""
        return Image.open(io.BytesIO(base64.b64decode(self.panel["png"])))

    def frames(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.received if f["type"] == kind]

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
