"""The phones' door attacked, against the real box process: how fast a room code can be guessed,
what 10,000 connections leave in the box's memory, what 10,000 bare sockets do to a phone that
joins meanwhile, and what the box's CPU pays per 1,000 phone frames.

``python -m bench.phonedoor [--quick] [--json]``. The box is ``companion run`` on mock pins with
a phone seat and ``[web]`` on loopback (three wired stations of ``mock-3.toml``, a phone fourth),
held to 1,024 open files by ``prlimit`` where it exists (a unit with no ``LimitNOFILE``). Each
attacker is an aiohttp client or bare TCP sockets from loopback addresses of their own (127.0.0.0/8
is all this machine's; to the box, 127.0.0.2 is another peer).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import aiohttp

from companion.web.room import CODE_LENGTH, CODE_LETTERS

from .phoneclient import PhoneClient
from .process import COMPANION, ROOT, _children_cpu_seconds, _cpu_seconds, _rss_mb

MOCK_3 = ROOT / "hardware" / "profiles" / "mock-3.toml"
PROFILE = '\n[[stations]]\nname = "Zoe"\nphone = true\n\n[web]\nenabled = true\nport = 0\nbind = "loopback"\n'
WAIT = "600 1 left\n"
"""The script: nothing pressed while the attacks run (the box sits in its lobby)."""


class Box:
    """The box process, its join address and room code from its log."""

    async def start(self, tmp: Path, profile_text: str = "", script_text: str = WAIT, args: tuple[str, ...] = (),
                    cgroup: Path | None = None, prefix: tuple[str, ...] = ()) -> "Box":
        """``companion run`` on ``profile_text`` (mock-3 with a phone seat) playing ``script_text``;
        in ``cgroup`` (its ``cgroup.procs``) if given, before it serves anything; run by ``prefix``
        (``chrt``, say) if given."""
        profile = tmp / "phones.toml"
        profile.write_text(profile_text or MOCK_3.read_text() + PROFILE)
        script = tmp / "script.txt"
        script.write_text(script_text)
        limit = ["prlimit", "--nofile=1024:1024", "--"] if shutil.which("prlimit") else []
        self.process = await asyncio.create_subprocess_exec(
            *limit, *prefix, *COMPANION, "run", "--profile", str(profile), "--script", str(script), "--journal-dir",
            str(tmp / "games"), *args, stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL, cwd=ROOT)
        if cgroup is not None:
            (cgroup / "cgroup.procs").write_text(str(self.process.pid))
        self.log: list[str] = []
        while not (found := re.search(r"join at (http://\S+)/\?room=\S+ \(room (\w+)\)", "".join(self.log))):
            line = await self.process.stderr.readline()
            if not line:
                raise RuntimeError("the box ended before it served phones:\n" + "".join(self.log))
            self.log.append(line.decode(errors="replace"))
        self.url, self.room = found.groups()
        self._reader = asyncio.ensure_future(self._read())
        return self

    async def _read(self) -> None:
        async for line in self.process.stderr:
            self.log.append(line.decode(errors="replace"))

    def pid(self) -> int:
        """The box's own process (prlimit execs it: the same process)."""
        return self.process.pid

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.terminate()
        await self.process.wait()
        await self._reader

    def said(self, text: str) -> int:
        return sum(text in line for line in self.log)


def from_peer(address: str, limit: int = 0) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0), limit=limit))


async def _hello(session: aiohttp.ClientSession, url: str, room: str) -> str:
    """One connection, one hello as a watcher: what the box answered first."""
    async with session.ws_connect(url + "/ws") as ws:
        await ws.send_str(json.dumps({"type": "hello", "room": room, "role": "watch"}))
        answer = await _answer(ws)
        return answer if answer in ("welcome", "closed") else "refused"


async def _answer(ws) -> str:
    """The refusal's reason (or the welcome's type) among what the box sends first: a box before
    its door sent pings and views to a socket before its hello was answered."""
    async for message in ws:
        frame = json.loads(message.data)
        if frame["type"] in ("refused", "welcome"):
            return frame.get("reason", frame["type"])
    return "closed"


async def brute_force(box: Box, seconds: float) -> dict:
    """One peer tries wrong codes as fast as it can: how many were compared, how many refused
    unchecked, per second; and the time to try every code at the rate compared."""
    wrong = "".join(CODE_LETTERS[(CODE_LETTERS.index(c) + 1) % len(CODE_LETTERS)] for c in box.room)
    compared = unchecked = 0
    async with from_peer("127.0.0.2") as session:
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            async with session.ws_connect(box.url + "/ws") as ws:
                await ws.send_str(json.dumps({"type": "hello", "room": wrong, "role": "watch"}))
                reason = await _answer(ws)
            compared += "not this box's" in reason
            unchecked += "try again" in reason
        elapsed = time.monotonic() - start
    codes = len(CODE_LETTERS) ** CODE_LENGTH
    return {"door_guesses_tried_per_s": (compared + unchecked) / elapsed, "door_guesses_compared": compared,
            "door_guesses_compared_per_s": compared / elapsed, "door_guess_seconds": elapsed,
            "door_codes": codes, "door_days_to_cover_at_budget": codes / 2.0 / 86400}


async def many_connections(box: Box, count: int) -> dict:
    """``count`` phones join as watchers and leave, 50 at a time from 50 peers (the box before its
    door took 64 connections in all): the box's memory before, just after, and 5 s after."""
    before = _rss_mb(box.pid())
    sessions = [from_peer(f"127.0.2.{n}") for n in range(1, 51)]
    try:
        for start in range(0, count, 50):
            answers = await asyncio.gather(*(_hello(s, box.url, box.room) for s in sessions))
            assert answers.count("welcome") == len(answers), answers
    finally:
        for s in sessions:
            await s.close()
    after = _rss_mb(box.pid())
    await asyncio.sleep(5)
    return {"door_connections": count, "door_rss_before_mb": before, "door_rss_after_mb": after,
            "door_rss_settled_mb": _rss_mb(box.pid())}


async def bare_sockets(box: Box, count: int) -> dict:
    """``count`` TCP connections from one peer that never send a byte, held while a watcher and a
    seat join: how long each took, and whether the box's log ever said EMFILE."""
    port = int(box.url.rsplit(":", 1)[1])
    held = []
    for _ in range(count):
        bare = socket.socket()
        bare.setblocking(False)
        bare.bind(("127.0.0.2", 0))
        bare.connect_ex(("127.0.0.1", port))
        held.append(bare)
    try:
        await asyncio.sleep(0.5)
        async with from_peer("127.0.0.1") as session:
            start = time.monotonic()
            watcher, seat = PhoneClient(session, box.url), PhoneClient(session, box.url)
            joined = [await _joins(watcher.join(box.room, "watch")), await _joins(seat.join(box.room, "seat"))]
            join_ms = (time.monotonic() - start) * 1000
            await watcher.close()
            await seat.close()
    finally:
        for bare in held:
            bare.close()
    return {"door_bare_sockets": count, "door_bare_phones_joined": sum(joined), "door_bare_join_ms": join_ms,
            "door_bare_emfile_lines": box.said("Too many open files") + box.said("out of system resource")}


async def _joins(joining) -> bool:
    """Whether a phone joined within 30 s (a box out of descriptors may never answer)."""
    try:
        return await asyncio.wait_for(joining, 30) is not None
    except (asyncio.TimeoutError, aiohttp.ClientError, OSError):
        return False


async def frames_cpu(box: Box, watchers: int, per_s: int, seconds: float) -> dict:
    """``watchers`` phones each send ``per_s`` pongs a second for ``seconds``: the CPU per 1,000
    frames of the referee (the box's own process) and of the web companion's server (its child
    process, behind the wall; none before the wall, all in the referee), each beside its CPU idle
    for as long just before."""
    def cpu() -> tuple[float, float]:
        return _cpu_seconds(box.pid()), _children_cpu_seconds(box.pid())

    async with from_peer("127.0.3.1") as session:
        phones = [PhoneClient(session, box.url) for _ in range(watchers)]
        for phone in phones:
            assert await phone.join(box.room, "watch") is not None, phone.refused
        start = cpu()
        await asyncio.sleep(seconds)
        idle = [b - a for a, b in zip(start, cpu())]

        async def send(phone: PhoneClient) -> int:
            sent, start = 0, time.monotonic()
            while (elapsed := time.monotonic() - start) < seconds:
                await phone.socket.send_str(json.dumps({"type": "pong", "id": 0, "t": phone.now_ms()}))
                sent += 1
                await asyncio.sleep(max(0.0, sent / per_s - elapsed))
            return sent

        start = cpu()
        sent = sum(await asyncio.gather(*(send(p) for p in phones)))
        busy = [b - a for a, b in zip(start, cpu())]
        for phone in phones:
            await phone.close()
    return {"web_frames": sent, "web_cpu_ms_per_1000_frames": 1000 * (busy[0] - idle[0]) / sent * 1000,
            "web_server_cpu_ms_per_1000_frames": 1000 * (busy[1] - idle[1]) / sent * 1000,
            "web_idle_cpu_ms": idle[0] * 1000, "web_busy_cpu_ms": busy[0] * 1000,
            "web_server_idle_cpu_ms": idle[1] * 1000, "web_server_busy_cpu_ms": busy[1] * 1000}


async def _figures(quick: bool) -> dict:
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, attack in (("guess", lambda b: brute_force(b, 3 if quick else 10)),
                             ("memory", lambda b: many_connections(b, 2_000 if quick else 10_000)),
                             ("bare", lambda b: bare_sockets(b, 10_000)),
                             ("frames", lambda b: frames_cpu(b, 8, 45, 3 if quick else 10))):
            (Path(tmp) / name).mkdir()
            box = await Box().start(Path(tmp) / name)
            try:
                out.update(await attack(box))
            finally:
                await box.stop()
    return out


def figures(quick: bool) -> dict:
    return asyncio.run(_figures(quick))


def command(prog: str, doc: str, make: Callable[[bool], dict], argv: list[str] | None = None) -> int:
    """``prog [--quick] [--json]``: the figures ``make`` measures, as JSON or one a line."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = make(args.quick)
    print(json.dumps(out, indent=2) if args.json else "\n".join(f"{k}: {v:,.2f}" if isinstance(v, float)
                                                              else f"{k}: {v}" for k, v in out.items()))
    return 0


def main(argv: list[str] | None = None) -> int:
    return command("python -m bench.phonedoor", __doc__, figures, argv)


if __name__ == "__main__":
    sys.exit(main())
