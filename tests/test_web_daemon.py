"""The web companion on a real daemon's loop, over real sockets on 127.0.0.1: phones join with the
room code, watch the table screen's public view, take a phone station, see its panel and press."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from bench.phoneclient import PhoneClient
from companion.daemon import Daemon
from companion.profile import ProfileError, load_profile
from companion.web.door import on_the_box_network

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


def on_a_running_box(tmp_path, play) -> None:
    """``await play(daemon, session)`` while the daemon of :func:`phone_profile` runs its loop."""
    daemon = Daemon(load_profile(phone_profile(tmp_path)), seed=3)

    async def scenario():
        await until(lambda: daemon.web.join_url)
        async with aiohttp.ClientSession() as session:
            await play(daemon, session)

    while_running(daemon, scenario)


def test_a_phone_takes_its_station_sees_its_panel_and_presses(tmp_path):
    async def play(daemon, session):
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

    on_a_running_box(tmp_path, play)


def test_a_wrong_room_code_is_refused_with_a_sentence(tmp_path):
    async def play(daemon, session):
        stranger = PhoneClient(session, base_url(daemon))
        assert await stranger.join("QQQQ" if daemon.web.room.code != "QQQQ" else "ZZZZ", "seat") is None
        assert "room code" in stranger.refused
        assert stranger.closed_code == 4003

    on_a_running_box(tmp_path, play)


def test_the_page_and_the_qr_code_of_the_join_address_are_served(tmp_path):
    async def play(daemon, session):
        async with session.get(base_url(daemon) + "/") as page:
            assert page.status == 200 and "<html" in await page.text()
        async with session.get(base_url(daemon) + "/qr.svg") as qr:
            assert qr.status == 200 and qr.content_type == "image/svg+xml" and "<svg" in await qr.text()
        async with session.get(base_url(daemon) + "/static/../../__init__.py") as outside:
            assert outside.status in (403, 404)

    on_a_running_box(tmp_path, play)


@pytest.mark.parametrize("peer,answered", [
    ("127.0.0.1", True), ("192.168.1.20", True), ("10.0.0.7", True), ("172.20.1.1", True), ("169.254.3.4", True),
    ("fe80::1", True), ("fd00::5", True), ("::ffff:192.168.1.2", True),
    ("8.8.8.8", False), ("2001:4860::8888", False), ("::ffff:8.8.8.8", False), ("", False), (None, False),
])
def test_only_peers_on_the_box_network_are_answered(peer, answered):
    assert on_the_box_network(peer) is answered


def test_a_profile_cannot_listen_beyond_the_box_network(tmp_path):
    for bind in ('"8.8.8.8"', '"0.0.0.0"', '"example.com"'):
        with pytest.raises(ProfileError, match="never listens beyond its own network"):
            load_profile(phone_profile(tmp_path, web=f"\n[web]\nenabled = true\nbind = {bind}\n"))
    assert load_profile(phone_profile(tmp_path, web='\n[web]\nenabled = true\nbind = "192.168.4.1"\n')).web.bind \
        == "192.168.4.1"
    with pytest.raises(ProfileError, match="needs the web companion"):
        load_profile(phone_profile(tmp_path, web=""))
