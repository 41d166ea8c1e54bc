"""The real box process with phones: ``companion run`` with a [web] profile and a script, its log
read as it runs, the join address and room code taken from it; phones are aiohttp clients, from
any loopback address (127.0.0.0/8 is all this machine's: 127.0.0.2 is another peer to the box).
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp

from helpers import PATIENCE_S, until

ROOT = Path(__file__).resolve().parent.parent


class BoxProcess:
    """One running box: its process, its log so far, where phones join and the room code."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.log: list[str] = []
        self.url = ""
        self.room = ""

    async def started(self) -> None:
        await until(lambda: any("phones: join at" in line for line in self.log) or self.process.returncode is not None)
        found = re.search(r"join at (http://\S+)/\?room=\S+ \(room (\w+)\)", "".join(self.log))
        assert found, "".join(self.log)
        self.url, self.room = found.groups()

    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def logged(self, text: str) -> list[str]:
        return [line for line in self.log if text in line]

    def kill(self) -> None:
        """A power cut: SIGKILL, nothing flushed or closed."""
        self.process.send_signal(signal.SIGKILL)


@asynccontextmanager
async def running_box(profile: Path, script: Path, journals: Path, *args: str, prefix: tuple[str, ...] = ()):
    """The box of ``profile`` playing ``script`` (``prefix``: what runs it, e.g. ``prlimit``)."""
    process = await asyncio.create_subprocess_exec(
        *prefix, sys.executable, "-m", "companion", "run", "--profile", str(profile), "--script", str(script),
        "--journal-dir", str(journals), *args, stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        cwd=ROOT, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    box = BoxProcess(process)

    async def read_log():
        async for line in process.stderr:
            box.log.append(line.decode(errors="replace"))

    reader = asyncio.ensure_future(read_log())
    try:
        await box.started()
        yield box
    finally:
        if process.returncode is None:
            process.terminate()
        await asyncio.wait_for(process.wait(), PATIENCE_S)
        await reader


def session_from(address: str = "127.0.0.1") -> aiohttp.ClientSession:
    """A client whose connections come from ``address`` (a peer of its own to the box)."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0), limit=0))
