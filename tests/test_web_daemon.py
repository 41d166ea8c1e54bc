"""The web companion on a real daemon's loop, over real sockets on 127.0.0.1: phones join with the
room code, watch the table screen's public view, take a phone station, see its panel and press."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from bench.phoneclient import PhoneClient
from companion.daemon import Daemon
from companion.profile import load_profile

from helpers import until, while_running

ROOT = Path(__file__).resolve().parent.parent
MOCK_3 = ROOT / "hardware" / "profiles" / "mock-3.toml"
WEB = '\n[web]\nenabled = true\nport = 0\nbind = "loopback"\n'
ZOE = '\n[[stations]]\nname = "Zoe"\nphone = true\n'


def phone_profile(tmp_path: Path, stations: str = ZOE, web: str = WEB) -> Path:
    """mock-3 with ``stations`` added (a phone station, Zoe) and the web companion on loopback."""
    path = tmp_path / "phones.toml"
    path.write_text(MOCK_3.read_text(encoding="utf-8") + stations + web, encoding="utf-8")
    return path


def base_url(daemon: Daemon) -> str:
    return daemon.web.join_url.split("/?")[0]


def test_a_phone_takes_its_station_sees_its_panel_and_presses(tmp_path):
    daemon = Daemon(load_profile(phone_profile(tmp_path)), seed=3)

    async def scenario():
        await until(lambda: daemon.web.join_url)
        async with aiohttp.ClientSession() as session:
            zoe = PhoneClient(session, base_url(daemon))
            welcome = await zoe.join(daemon.web.room.code.lower(), "seat", name="Zia")
            assert welcome["seat"] == 4 and welcome["keys"] == ["slap", "left", "ok", "right"]
            assert welcome["token"] and welcome["room"] == daemon.web.room.code
            await until(lambda: zoe.panel is not None and zoe.view is not None)
            assert zoe.panel_image().size == (128, 64)
            await until(lambda: daemon.table.names[3] == "Zia")  # the lobby takes the phone's name
            await until(lambda: "Zia" in zoe.view["names"])
            await until(lambda: daemon.watermarks.low(0, ["phone4"]) > -(1 << 62))  # its pongs are its watermark
            seq = await zoe.tap("right")
            await until(lambda: seq in zoe.got)
            await until(lambda: daemon.table.lobby.index == 1)  # the phone turned the game menu
            await zoe.close()

    while_running(daemon, scenario)


def test_a_wrong_room_code_is_refused_with_a_sentence(tmp_path):
    daemon = Daemon(load_profile(phone_profile(tmp_path)), seed=3)

    async def scenario():
        await until(lambda: daemon.web.join_url)
        async with aiohttp.ClientSession() as session:
            stranger = PhoneClient(session, base_url(daemon))
            assert await stranger.join("QQQQ" if daemon.web.room.code != "QQQQ" else "ZZZZ", "seat") is None
            assert "room code" in stranger.refused
            assert stranger.closed_code == 4003

    while_running(daemon, scenario)
