"""The wall's pipe (a real socket pair) when the other side is behind: presses are never dropped
or reordered, a watermark never overtakes a press, states are sent as their latest, and the
sender is told to hold back once the presses queued reach the bound."""

from __future__ import annotations

import asyncio
import logging
import socket

from companion.web.pipe import EVENTS, Pipe

from helpers import until


def small_pair() -> tuple[socket.socket, socket.socket]:
    """A socket pair whose kernel buffers fill after a few kB, so the pipe's own queue is reached."""
    pair = socket.socketpair()
    for end in pair:
        end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return pair


def test_a_full_queue_holds_presses_back_and_sends_the_latest_of_each_state(caplog):
    async def play():
        loop = asyncio.get_running_loop()
        ours, theirs = small_pair()
        sender = Pipe(ours, loop, lambda message: None, lambda: None, "the referee")
        presses = 0
        while sender.has_room.is_set() and presses < 100_000:  # nobody reads the other end yet
            sender.seal(("mark", 2))  # as the server sends a press: its watermark goes after it
            sender.send(["press", 2, presses])
            for n in range(3):
                sender.send(["mark", 2, presses * 10 + n], key=("mark", 2))
            sender.send(["table", {"round": presses}], key="table")
            presses += 1
        assert not sender.has_room.is_set() and presses < 100_000
        held_at = presses
        got: list[list] = []
        Pipe(theirs, loop, got.append, lambda: None, "the phones' server")
        await until(lambda: ["press", 2, held_at - 1] in got)
        await until(lambda: ["table", {"round": held_at - 1}] in got)
        await sender.has_room.wait()
        return got, held_at, sender

    with caplog.at_level(logging.WARNING):
        got, held_at, sender = asyncio.run(play())
    assert held_at >= EVENTS
    assert [m[2] for m in got if m[0] == "press"] == list(range(held_at))  # every press, in order
    seen = -1
    for message in got:
        if message[0] == "press":
            seen = message[2]
        elif message[0] == "mark":
            assert message[2] // 10 == seen  # a watermark after its own press, never before a later one
    marks = [m[2] for m in got if m[0] == "mark"]
    assert marks == sorted(marks) and marks[-1] == (held_at - 1) * 10 + 2  # the latest always arrives
    tables = [m for m in got if m[0] == "table"]
    assert len(tables) < held_at and sender.replaced > 0  # views replaced while queued, not a backlog
    behind = [r.getMessage() for r in caplog.records if "is behind" in r.getMessage()]
    assert len(behind) == 2  # each said once: the states replaced, the presses held back
    assert any("none is lost" in line for line in behind)


def test_the_pipe_says_when_the_other_side_is_gone():
    async def play():
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        gone = asyncio.Event()
        Pipe(ours, loop, lambda message: None, gone.set, "the phones' server")
        theirs.sendall(b'["ready"]\n')
        theirs.close()
        await asyncio.wait_for(gone.wait(), 10)

    asyncio.run(play())
