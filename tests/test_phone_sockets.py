"""Bare sockets against the real box process, held to 1,024 open files (``prlimit``: what a box
whose unit forgot ``LimitNOFILE`` has): thousands of connections that never say hello, from one
peer and from a hundred, never lock a phone out and never run the box out of descriptors. A real
watcher and a seated phone join and play meanwhile; the box's log never says ``EMFILE``."""

from __future__ import annotations

import asyncio
import errno
import resource
import socket

import aiohttp

from bench.phoneclient import PhoneClient
from companion.web.door import SOCKETS_PER_PEER

from boxprocess import running_box, session_from
from helpers import until
from test_phone_door import lobby_box

LIMIT = ("prlimit", "--nofile=1024:1024", "--")
ATTACKER_FILES = 12_000  # the test's own side holds 10,000 sockets and the phones' connections


def setup_module():
    """The attacker (this test process) needs more descriptors than a login shell's usual soft
    limit of 1,024: raise the soft limit to what the hard limit allows, and say so if it cannot."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < ATTACKER_FILES:
        raise RuntimeError(f"these tests need {ATTACKER_FILES} open files; the hard limit here is {hard}")
    if soft != resource.RLIM_INFINITY and soft < ATTACKER_FILES:
        resource.setrlimit(resource.RLIMIT_NOFILE, (ATTACKER_FILES, hard))


def bare_sockets(port: int, count: int, peers: list[str]) -> list[socket.socket]:
    """``count`` TCP connections to the box, spread over ``peers``, that never send a byte."""
    held = []
    for i in range(count):
        bare = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        bare.setblocking(False)
        bare.bind((peers[i % len(peers)], 0))
        code = bare.connect_ex(("127.0.0.1", port))
        assert code in (0, errno.EINPROGRESS), code
        held.append(bare)
    return held


async def bare_websockets(session: aiohttp.ClientSession, url: str, count: int) -> list:
    """``count`` WebSockets opened (those the box lets in held open, none saying hello)."""
    async def one():
        try:
            return await session.ws_connect(url + "/ws", timeout=aiohttp.ClientWSTimeout(ws_receive=30))
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
            return None

    opened = []
    for start in range(0, count, 200):
        opened += await asyncio.gather(*(one() for _ in range(start, min(count, start + 200))))
    return [s for s in opened if s is not None]


async def a_watcher_and_a_seat_play(box, session, token: str | None = None) -> str:
    """A watcher joins, and Zoe takes her seat (back, with ``token``) and presses; her token."""
    watcher, zoe = PhoneClient(session, box.url), PhoneClient(session, box.url)
    assert await watcher.join(box.room, "watch") is not None, watcher.refused
    welcome = await zoe.join(box.room, "seat", "Zoe", token=token)
    assert welcome is not None and welcome["seat"] == 2, zoe.refused
    await until(lambda: zoe.panel is not None and zoe.view is not None)
    await until(lambda: len(zoe.frames("ping")) >= 2)  # its clock synced: its keys take presses
    seq = await zoe.tap("right")
    await until(lambda: seq in zoe.got)
    await watcher.close()
    await zoe.close()
    return welcome["token"]


def test_3000_bare_websockets_from_one_peer_lock_no_phone_out(tmp_path):
    async def scenario():
        async with running_box(*lobby_box(tmp_path), prefix=LIMIT) as box, session_from("127.0.0.1") as ours, \
                session_from("127.0.0.2") as theirs:
            held = await bare_websockets(theirs, box.url, 3000)
            # how many the client saw open says nothing (those the box closed or aborted stay in
            # the list until read); the box's own word does: its per-peer share was full
            assert box.logged(f"more than {SOCKETS_PER_PEER} connections from one peer"), "the peer's share never filled"
            await a_watcher_and_a_seat_play(box, ours)
            for bare in held:
                await bare.close()
        assert not box.logged("Too many open files") and not box.logged("out of system resource")
        assert len(box.logged("refused 127.0.0.2")) <= 3

    asyncio.run(scenario())


def test_10000_bare_sockets_from_one_peer_or_a_hundred_never_run_the_box_out_of_descriptors(tmp_path):
    async def scenario():
        async with running_box(*lobby_box(tmp_path), prefix=LIMIT) as box, session_from("127.0.0.1") as ours:
            token = None
            for peers in (["127.0.0.2"], [f"127.0.1.{n}" for n in range(1, 101)]):
                held = bare_sockets(box.port(), 10_000, peers)
                try:
                    await asyncio.sleep(0.5)  # the box accepts them (and closes most) meanwhile
                    token = await a_watcher_and_a_seat_play(box, ours, token)
                finally:
                    for bare in held:
                        bare.close()
        assert not box.logged("Too many open files") and not box.logged("out of system resource"), \
            "".join(box.logged("open files"))[:2000]

    asyncio.run(scenario())
