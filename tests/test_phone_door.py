"""The phones' door, attacked through the real box process (``companion run`` with a [web] profile),
from other peers on loopback (127.0.0.2, 127.0.0.3: other addresses to the box): a socket that says
no hello learns nothing and is closed within seconds; the QR code goes to the box's own screens
only; a brute force of the room code is stopped; hostile frames (non-ASCII codes and tokens,
duplicate keys, unknown fields) are refused with one log line and no traceback."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest

from bench.phoneclient import PhoneClient
from companion.daemon.phones import lan_address
from companion.web.door import FREE_TRIES

from boxprocess import running_box, session_from
from helpers import until
from phonebox import profile_with_phones

TURNS = "".join(f"{0.5 * (i + 1):.1f} 1 right\n" for i in range(120))
SCRIPT = f"# station 1 turns the lobby's game menu twice a second (the view changes), then waits\n{TURNS}300 1 ok\n"


def lobby_box(tmp_path, bind: str = "loopback"):
    profile = profile_with_phones(tmp_path, [("Host", {"slap": 4, "left": 17, "ok": 27, "right": 22})],
                                  [(1, "Zoe", False)])
    profile.write_text(profile.read_text().replace('bind = "loopback"', f'bind = "{bind}"'))
    script = tmp_path / "lobby.txt"
    script.write_text(SCRIPT)
    return profile, script, tmp_path / "games"


async def hello(session: aiohttp.ClientSession, url: str, text: str) -> tuple[list[dict], int | None]:
    """One connection that sends ``text`` first: every frame the box sent it, and its close code."""
    async with session.ws_connect(url + "/ws") as socket:
        await socket.send_str(text)
        frames = [json.loads(m.data) async for m in socket if m.type == aiohttp.WSMsgType.TEXT]
        return frames, socket.close_code


def test_a_socket_that_says_no_hello_is_sent_nothing_and_closed_within_seconds(tmp_path):
    async def scenario():
        async with running_box(*lobby_box(tmp_path)) as box, session_from("127.0.0.1") as ours, \
                session_from("127.0.0.2") as theirs:
            watcher = PhoneClient(ours, box.url)
            assert await watcher.join(box.room, "watch") is not None
            opened = time.monotonic()
            async with theirs.ws_connect(box.url + "/ws") as bare:
                sent = [m async for m in bare if m.type == aiohttp.WSMsgType.TEXT]
            assert sent == [] and bare.close_code == 4008  # no view, no ping, no room code: closed unheard
            assert time.monotonic() - opened < 8
            await until(lambda: len(watcher.frames("table")) >= 3)  # the view did change meanwhile
            assert box.room in json.dumps(watcher.view)
            frames, code = await hello(theirs, box.url, json.dumps({"type": "hello", "room": "BCDFGH", "role": "watch"}))
            assert [f["type"] for f in frames] == ["refused"] and code == 4003
            assert box.room not in json.dumps(frames)
            await watcher.close()

    asyncio.run(scenario())


def test_the_qr_code_of_the_join_address_is_for_the_box_own_screens_only(tmp_path):
    if lan_address() == "127.0.0.1":
        pytest.skip("this machine has no network address but loopback")

    async def scenario():
        async with running_box(*lobby_box(tmp_path, "lan")) as box, aiohttp.ClientSession() as session:
            assert not box.url.startswith("http://127.")
            async with session.get(box.url + "/qr.svg") as peer:
                assert peer.status == 403 and box.room not in await peer.text()
            async with session.get(box.url + "/") as page:
                assert page.status == 200  # the page itself is for everyone on the network
            async with session.get(f"http://127.0.0.1:{box.port()}/qr.svg") as own:
                assert own.status == 200 and "<svg" in await own.text()

    asyncio.run(scenario())


def test_a_brute_force_of_the_room_code_is_stopped_and_another_peer_still_joins(tmp_path):
    async def scenario():
        async with running_box(*lobby_box(tmp_path)) as box, session_from("127.0.0.1") as ours, \
                session_from("127.0.0.2") as theirs:
            wrong = [c for c in ("BCDFGH", "JKLMNP", "QRSTUV") if c != box.room][0]
            compared = waiting = 0
            started = time.monotonic()
            while compared < FREE_TRIES + 2:  # the free tries, then one after a 1 s wait, one after 2 s
                frames, _ = await hello(theirs, box.url, json.dumps({"type": "hello", "room": wrong, "role": "watch"}))
                reason = frames[0]["reason"]
                compared += "not this box's" in reason
                waiting += "try again" in reason
            took_s = time.monotonic() - started
            print(f"codes compared from one peer: {compared} in {took_s:.1f} s, {waiting} refused unchecked")
            assert took_s >= 1 + 2 and waiting > 10  # a slower machine only takes longer
            frames, _ = await hello(theirs, box.url, json.dumps({"type": "hello", "room": box.room, "role": "watch"}))
            assert "try again" in frames[0]["reason"]  # the right code, unchecked while the peer waits 4 s
            phone = PhoneClient(ours, box.url)
            assert (await phone.join(box.room, "seat", "Zoe"))["seat"] == 2  # another peer is not held up
            await phone.close()
            assert len(box.logged("refused 127.0.0.2")) <= 2  # one line for all of them, one to count them

    asyncio.run(scenario())


HOSTILE = [{"type": "hello", "room": "ÄÖÜÉÈÀ", "role": "watch"},
           {"type": "hello", "room": "ＡＢＣＤＥＦ", "role": "watch"},
           {"type": "hello", "room": "ABCDEF", "role": "seat", "token": "é" * 32},
           {"type": "hello", "room": "ABCDEF", "role": "seat", "token": "\udcff" * 8}]


def test_hostile_hellos_are_refused_cleanly_with_one_log_line_and_no_traceback(tmp_path):
    async def scenario():
        async with running_box(*lobby_box(tmp_path)) as box, session_from("127.0.0.3") as theirs:
            right = json.dumps({"type": "hello", "room": box.room, "role": "watch"})
            texts = [json.dumps(h) for h in HOSTILE] + [
                right[:-1] + ', "room": "BCDFGH"}',  # the right code, and a wrong one after it
                right[:-1] + ', "admin": true}',  # a field the protocol does not have
            ]
            for _ in range(40):
                for text in texts:
                    frames, code = await hello(theirs, box.url, text)
                    assert frames == [] and code == 1008, (text, frames, code)
            frames, _ = await hello(theirs, box.url, right)
            assert frames[0]["type"] == "welcome"  # the box goes on serving, this peer too
        assert not box.logged("Traceback") and not box.logged("Error handling request")
        assert 1 <= len(box.logged("refused 127.0.0.3")) <= 2, box.logged("127.0.0.3")

    asyncio.run(scenario())
