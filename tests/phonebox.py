"""A box with phone stations for tests: the real daemon on mock pins, its web companion listening
on 127.0.0.1, stepped on a fake clock that the server's pings, the phones' clocks and the pins all
read, so whole games play in a moment and every phone's true times are known. The server runs
behind the wall's real pipe, on this loop rather than in a process of its own (``here``), so that
it reads the same fake clock; tests/test_phone_wall.py runs it as the box does.

The phones are :class:`~bench.phoneclient.PhoneClient`\\ s over real WebSockets; their clock is the
fake clock moved by an offset of their own. Presses on wired stations drive their mock pins.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import gpiozero.pins.mock

from bench.phoneclient import PhoneClient
from companion.daemon import Daemon
from companion.profile import load_profile
from companion.web.pings import CALM_NS as PING_NS

from helpers import MS, PATIENCE_S, FakeClock, until

ROOT = Path(__file__).resolve().parent.parent
WEB = '\n[web]\nenabled = true\nport = 0\nbind = "loopback"\n'


def profile_with_phones(tmp_path: Path, wired: list[tuple[str, dict[str, int]]], phones: list[tuple[int, str, bool]],
                        extra: str = "") -> Path:
    """A mock profile: ``wired`` stations (name, pins; a buzzer when only ``slap``) with phone
    stations ``(index, name, buzzer)`` put in at their index."""
    stations: list[str] = []
    for name, pins in wired:
        wiring = ", ".join(f"{k} = {v}" for k, v in pins.items())
        body = f'name = "{name}"\npins = {{ {wiring} }}\n'
        body += "buzzer_only = true\n" if list(pins) == ["slap"] else 'display = { driver = "ssd1306" }\n'
        stations.append(body)
    for index, name, buzzer in sorted(phones):
        stations.insert(index, f'name = "{name}"\nphone = true\n' + ("buzzer_only = true\n" if buzzer else ""))
    text = 'name = "phones"\nbackend = "mock"\n' + "".join(f"\n[[stations]]\n{s}" for s in stations) + WEB + extra
    path = tmp_path / "phones.toml"
    path.write_text(text, encoding="utf-8")
    return path


FULL = [("slap", 4), ("left", 17), ("ok", 27), ("right", 22)], [("slap", 5), ("left", 6), ("ok", 13), ("right", 19)], \
    [("slap", 26), ("left", 16), ("ok", 20), ("right", 21)]
"""Three wired stations' pins, as mock-3.toml has them."""


def wired(*names: str) -> list[tuple[str, dict[str, int]]]:
    return [(name, dict(FULL[i])) for i, name in enumerate(names)]


class PhoneBox:
    """The daemon of ``profile`` on a fake clock, its web companion on this loop (``async with``)."""

    def __init__(self, profile: Path, journal_dir: Path | None, seed: int = 3, monkeypatch=None, **daemon) -> None:
        self.clock = FakeClock()
        if monkeypatch is not None:
            monkeypatch.setattr(gpiozero.pins.mock, "monotonic", self.clock.monotonic)
        self.daemon = Daemon(load_profile(profile), journal_dir, seed=seed, **daemon)
        self.daemon.web.now_ns = self.now_ns
        self.daemon.web.here = True
        self.daemon.box.displays.now_ns = self.now_ns  # the panels' onsets, on the same clock
        self.phones: list[PhoneClient] = []
        self._pinged_ns = self.clock.ns
        self.pinging = True
        """The server pings its phones as time passes (False: its loop is blocked, as a hung one's)."""
        self.presses_taken = 0
        """Phone presses the referee has taken from the wall's pipe (a phone's ``got`` says only
        that the server sent it on)."""
        take = self.daemon.phone_press

        def counted(*press) -> None:
            self.presses_taken += 1
            take(*press)

        self.daemon.phone_press = counted
        self._session: aiohttp.ClientSession | None = None

    def now_ns(self) -> int:
        return self.clock.ns

    async def __aenter__(self) -> "PhoneBox":
        await self.daemon._start_web()
        await asyncio.wait_for(self.daemon.web.serving.wait(), PATIENCE_S)
        self._session = aiohttp.ClientSession()
        self.step()
        return self

    async def __aexit__(self, *exc) -> None:
        for phone in self.phones:
            await phone.close()
        await self._session.close()
        await self.daemon._stop_web()
        self.daemon.close()

    @property
    def server(self):
        """The web companion behind the wall (its connections, its pings)."""
        return self.daemon.web.server.web

    @property
    def url(self) -> str:
        return self.daemon.web.join_url.split("/?")[0]

    @property
    def room(self) -> str:
        return self.daemon.web.room.code

    def phone(self, offset_ms: float = 1.7e12) -> PhoneClient:
        """A phone whose clock is the fake clock plus ``offset_ms``."""
        phone = PhoneClient(self._session, self.url, offset_ms, self.now_ns)
        self.phones.append(phone)
        return phone

    async def join(self, role: str = "seat", name: str | None = None, **kw) -> PhoneClient:
        phone = self.phone()
        assert await phone.join(self.room, role, name, **kw) is not None, phone.refused
        await self.synced(phone)
        return phone

    async def synced(self, phone: PhoneClient) -> None:
        """Until the box has the phone's clock (its first pong) and its panel painted."""
        seat = phone.welcome["seat"]
        if seat is not None:
            await until(lambda: any(p.seat is not None and p.seat.station == seat - 1 and p.clock.synced
                                    for p in self.server.phones))

    def step(self, ms: float = 0.0) -> None:
        """Time passes by ``ms``; the phones are pinged every 250 ms of it, as the box does, and
        the box steps."""
        self.clock.ns += round(ms * MS)
        if self.pinging and self.clock.ns - self._pinged_ns >= PING_NS:
            self._pinged_ns = self.clock.ns
            self.server.ping_all()
        self.daemon.step(self.clock.ns)

    async def settle(self) -> None:
        """Let every frame in flight arrive (the box's and the phones'), once the journal has
        saved what the box decided (nothing is shown before it is saved)."""
        if self.daemon.saving.pending:
            self.daemon.saving.wait(PATIENCE_S)
            self.step()
        for _ in range(20):
            await asyncio.sleep(0)
        await asyncio.sleep(0.002)

    async def tap(self, station: int, key: str = "slap", hold_ms: float = 60.0) -> None:
        """Press and release a wired station's key (0-based), stepping the box at each edge."""
        pin = self.daemon.box.pin(station, key)
        pin.drive_low()
        self.step()
        self.step(hold_ms)
        pin.drive_high()
        self.step()

    async def phone_tap(self, phone: PhoneClient, key: str = "slap", hold_ms: float = 60.0) -> None:
        """A touch on ``phone`` now (phone time), its release ``hold_ms`` later; stepped until the
        box has taken both."""
        t = phone.now_ms()
        taken = self.presses_taken
        seq = await phone.press(key, True, t)
        await phone.press(key, False, t + hold_ms)
        await until(lambda: seq in phone.got and self.presses_taken >= taken + 2)  # across the wall
        self.step()

    async def run_for(self, ms: float, every_ms: float = 5.0) -> None:
        """Time passes: the box stepped every ``every_ms`` and the phones heard between steps."""
        end = self.clock.ns + round(ms * MS)
        while self.clock.ns < end:
            self.step(every_ms)
            await asyncio.sleep(0)
