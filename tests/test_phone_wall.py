"""The wall between the phones and the referee, through the real box process (``companion run``):
the phones' server is a child process at normal priority, a guests' flood is paid for there and
not by the referee, and a server killed is started again, its phones taking their seats back."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
from pathlib import Path

from bench.phoneclient import PhoneClient

from boxprocess import running_box, session_from
from helpers import PATIENCE_S, until
from phonebox import PhoneBox, profile_with_phones, wired

WAIT = "600 1 left\n"
"""The script: the box sits in its lobby while the phones do what the test says."""


def box_profile(tmp_path: Path) -> Path:
    return profile_with_phones(tmp_path, [("Host", {"slap": 4, "left": 17, "ok": 27, "right": 22})],
                               [(1, "Zoe", True)])


def children(pid: int) -> list[int]:
    """``pid``'s child processes (each of its threads' ``children`` in /proc)."""
    return [int(c) for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]


def cpu_ns(pid: int) -> int:
    """The CPU time of every thread of ``pid`` so far, in ns (the kernel's schedstat: exact, not
    in clock ticks)."""
    return sum(int((task / "schedstat").read_text().split()[0]) for task in Path(f"/proc/{pid}/task").iterdir())


def test_the_phones_server_is_a_child_process_at_normal_priority(tmp_path):
    async def play():
        script = tmp_path / "wait.txt"
        script.write_text(WAIT)
        # the box as the unit runs it: SCHED_FIFO 20, where this machine lets us (root)
        prefix = ("chrt", "-f", "20") if os.geteuid() == 0 else ()
        async with running_box(box_profile(tmp_path), script, tmp_path / "games", prefix=prefix) as box:
            await until(lambda: box.logged("phones: join at") and children(box.process.pid))
            [server] = children(box.process.pid)
            assert "companion.web.child" in Path(f"/proc/{server}/cmdline").read_text()
            assert os.sched_getscheduler(server) == os.SCHED_OTHER
            if prefix:
                assert os.sched_getscheduler(box.process.pid) == os.SCHED_FIFO

    asyncio.run(play())


def test_a_flood_of_frames_is_paid_for_by_the_phones_server_not_by_the_referee(tmp_path):
    """Watchers with the room code send pongs (the cheapest frame to take) as fast as the door
    lets them: the referee's own CPU over the flood is a small part of the server's."""
    async def play():
        script = tmp_path / "wait.txt"
        script.write_text(WAIT)
        async with running_box(box_profile(tmp_path), script, tmp_path / "games") as box, \
                session_from("127.0.5.1") as session:
            await until(lambda: children(box.process.pid))
            [server] = children(box.process.pid)
            watchers = [PhoneClient(session, box.url) for _ in range(8)]
            for watcher in watchers:
                assert await watcher.join(box.room, "watch") is not None, watcher.refused
            referee0, server0 = cpu_ns(box.process.pid), cpu_ns(server)

            async def flood(watcher: PhoneClient) -> None:
                for _ in range(300):
                    await watcher.socket.send_str(json.dumps({"type": "pong", "id": 0, "t": watcher.now_ms()}))
                    await asyncio.sleep(0.02)

            await asyncio.gather(*(flood(w) for w in watchers))
            # every frame read: a ping after them all is answered by the last watcher's pong
            last = watchers[-1]
            pings = len(last.frames("ping"))
            await until(lambda: len(last.frames("ping")) > pings + 1)
            referee, served = cpu_ns(box.process.pid) - referee0, cpu_ns(server) - server0
            for watcher in watchers:
                await watcher.close()
        return referee, served

    referee, served = asyncio.run(play())
    assert served > 0
    assert referee < served / 4, (referee, served)


def test_a_phones_server_hung_is_killed_and_started_again_and_its_phones_take_their_seats_back(tmp_path):
    """The server stopped (SIGSTOP): alive, its pipe and its phones' connections open, answering
    nothing. The referee's heartbeat finds it hung, kills it and starts another (as it does one
    that dies: test_while_the_phones_server_is_down...); Zoe's page rejoins with its token and plays."""
    async def play():
        script = tmp_path / "wait.txt"
        script.write_text(WAIT)
        async with running_box(box_profile(tmp_path), script, tmp_path / "games") as box, \
                session_from("127.0.5.2") as session:
            zoe = PhoneClient(session, box.url)
            welcome = await zoe.join(box.room, "buzzer", "Zoe")
            assert welcome["seat"] == 2
            await until(lambda: box.logged("station 2 taken by a phone") and children(box.process.pid))
            [server] = children(box.process.pid)
            os.kill(server, signal.SIGSTOP)
            await until(lambda: box.logged("phones' server ended"))
            await until(lambda: zoe.closed_code is not None)  # its connection went with the server
            await until(lambda: box.logged("phones' server is back"))
            [again] = children(box.process.pid)
            assert again != server
            back = PhoneClient(session, box.url)  # the page rejoins with the token it kept
            assert (await back.join(box.room, "buzzer", token=welcome["token"]))["seat"] == 2
            stranger = PhoneClient(session, box.url)
            assert await stranger.join(box.room, "buzzer") is None  # the seat is still Zoe's
            assert "taken" in stranger.refused
            seq = await back.tap()
            await until(lambda: seq in back.got)
            await back.close()
        return box.log

    log = "".join(asyncio.run(play()))
    assert log.count("is hung (stopped, or its loop blocked)") == 1
    assert "wired stations play on" in log
    assert log.count("station 2 taken by a phone") == 2
    assert "Traceback" not in log


def test_while_the_phones_server_is_down_every_screen_says_so_and_its_phones_are_not_waited_for(
        tmp_path, monkeypatch, caplog):
    """The server behind the same pipe on the test's loop (its fake clock): it ends, the phone
    stations' phones have left, every screen says the phones are restarting; it is started again
    after its back-off, the notice goes and the phone takes its seat back; ending again soon
    after, it waits twice as long."""
    async def play():
        profile = profile_with_phones(tmp_path, wired("Ann"), [(1, "Zoe", True)])
        async with PhoneBox(profile, None, monkeypatch=monkeypatch) as box:
            zoe = await box.join("buzzer", "Zoe")
            box.step()
            assert box.daemon.notice is None and "phone2" in box.daemon.watermarks
            box.daemon.web.running.cancel()  # the server ends, as if killed
            await until(lambda: not box.daemon.web.serving.is_set())
            box.step()
            assert box.daemon.notice == "phones restarting"
            assert not box.daemon.web.holders and "phone2" not in box.daemon.watermarks
            await asyncio.wait_for(box.daemon.web.serving.wait(), PATIENCE_S)  # back after its back-off
            box.step()
            assert box.daemon.notice is None
            back = box.phone()
            assert (await back.join(box.room, "buzzer", token=zoe.welcome["token"]))["seat"] == 2
            await box.synced(back)
            assert box.daemon.web.holders == {1}
            box.daemon.web.running.cancel()
            await until(lambda: not box.daemon.web.serving.is_set())

    with caplog.at_level(logging.INFO):
        asyncio.run(play())
    ended = [r.getMessage() for r in caplog.records if "phones' server ended" in r.getMessage()]
    assert len(ended) == 2 and ended[0].endswith("again in 1 s") and ended[1].endswith("again in 2 s")


def test_a_phones_server_that_cannot_start_ends_so_the_wall_starts_another(tmp_path):
    """The phones' server process told to start with claims not in their form (room.hold raises):
    it logs why and ends, so its pipe closes and the wall starts another with its back-off. On
    main the failure was an unretrieved task's exception, and the process went on answering the
    referee's heartbeats while it served no phone, for ever."""
    import json
    import socket
    import subprocess
    import sys

    from boxprocess import ROOT

    ours, theirs = socket.socketpair()
    listening = socket.create_server(("127.0.0.1", 0))
    child = subprocess.Popen([sys.executable, "-m", "companion.web.child", "--pipe", str(theirs.fileno()),
                              "--listen", str(listening.fileno())], cwd=ROOT,
                             pass_fds=(theirs.fileno(), listening.fileno()), stderr=subprocess.PIPE, text=True)
    theirs.close()
    try:
        start = {"code": "ABCDEF", "pin": "1234", "seats": [[2, True]], "claims": None, "held": [1, 2],
                 "join_url": "http://127.0.0.1/?room=ABCDEF", "panels": []}
        ours.sendall(json.dumps(["beat", 1]).encode() + b"\n" + json.dumps(["start", start]).encode() + b"\n")
        ours.settimeout(PATIENCE_S)
        heard = b""
        while chunk := ours.recv(65536):  # until the pipe closes
            heard += chunk
        child.wait(PATIENCE_S)
        said = child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
        ours.close()
        listening.close()
    assert json.loads(heard.splitlines()[0]) == ["beat", 1]  # it ran, and answered the referee
    assert b'"ready"' not in heard
    assert "phones: the server could not start" in said and "not the seats' claims" in said, said
