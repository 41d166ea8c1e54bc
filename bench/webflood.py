"""A guests' flood against the wired races: 60 watchers with the right room code each send 55 frames
a second (inside every limit: 60 a second, 64 phones) while the real box process plays a
5-station quiz on mock pins; the same script without them in the same run. The figures are the
wired GPIO delivery (edge to the loop, the box's own ``GPIO delivery`` line at its end): p99, max
and edges beyond the bound, quiet and flooded.

``python -m bench.webflood [--quick] [--json]`` (and part of ``python -m bench.phones``).

**The slow core.** On this machine's x86 core the flood costs nothing measurable; a Pi core is
5-10x slower. So the box is held to 20 % of one core: a cgroup's CPU quota of 1 ms in every 5 ms
(cgroup v2 ``cpu.max`` "1000 5000"; on a cgroup v1 machine ``cpu.cfs_quota_us`` 1000 and
``cpu.cfs_period_us`` 5000). That needs root and a writable cgroup file system; without them
both runs are unthrottled and ``webflood_throttled`` says false (the figures then say little:
run it as root). The watchers run outside the quota, in this process.

**The unit's priorities.** The unit runs the box at ``SCHED_FIFO`` 20 and the web companion's
server, its child process, drops to ``SCHED_OTHER`` (:mod:`companion.web.wall`). As root, the box
is run the same way (``chrt -f 20``) and the cgroup gives real-time tasks the same 20 % (cgroup
v1 ``cpu.rt_runtime_us`` 1000 in ``cpu.rt_period_us`` 5000, a kernel with real-time group
scheduling): ``webflood_fifo`` says so. Without it both processes share the quota at normal
priority.

``webflood_delivery_max_ratio`` is the flooded max over the quiet max, the quiet max taken as
at least 5 ms (the done condition: within 2x); ``webflood_beyond_bound`` the flooded run's edges
past the bound (done: 0).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from .phoneclient import PhoneClient
from .phonedoor import Box, command, from_peer
from .process import ROOT

MOCK_5 = ROOT / "hardware" / "profiles" / "mock-5.toml"
WEB = '\n[web]\nenabled = true\nport = 0\nbind = "loopback"\n'
WATCHERS = 60
FRAMES_PER_S = 55
PER_PEER = 10
"""Watchers per loopback address: the door lets 32 connections in from one peer."""
QUIET_FLOOR_MS = 5.0
CGROUPS = Path("/sys/fs/cgroup")
QUOTA_US, PERIOD_US = 1000, 5000


def quiz_script(questions: int) -> str:
    """The host walks the lobby into the quiz; each question, 3 s apart: armed, the four players
    buzz 40-160 ms apart (the order turning round), the host says right."""
    lines = [f"{0.2 * (i + 1):.1f} 1 ok" for i in range(14)]
    for q in range(questions):
        t = 3.5 + 3.0 * q
        lines.append(f"{t:.2f} 1 slap")
        for n, station in enumerate([2, 3, 4, 5][q % 4:] + [2, 3, 4, 5][:q % 4]):
            lines.append(f"{t + 0.4 + 0.04 * n:.2f} {station} slap")
        lines.append(f"{t + 1.1:.2f} 1 ok")
    return "\n".join(lines) + "\n"


@contextmanager
def slow_core():
    """A cgroup holding what is put in it to 20 % of one core (None: cannot, not root or no cgroup
    file system to write)."""
    made = None
    try:
        if (CGROUPS / "cgroup.controllers").exists():  # v2
            made = CGROUPS / f"bench-webflood-{os.getpid()}"
            made.mkdir()
            (made / "cpu.max").write_text(f"{QUOTA_US} {PERIOD_US}")
        elif (CGROUPS / "cpu" / "cpu.cfs_quota_us").exists():  # v1
            made = CGROUPS / "cpu" / f"bench-webflood-{os.getpid()}"
            made.mkdir()
            (made / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (made / "cpu.cfs_quota_us").write_text(str(QUOTA_US))
            if (made / "cpu.rt_runtime_us").exists():  # real-time tasks: the same share (see above)
                (made / "cpu.rt_period_us").write_text(str(PERIOD_US))
                (made / "cpu.rt_runtime_us").write_text(str(QUOTA_US))
    except OSError:
        made = None
    try:
        yield made
    finally:
        if made is not None:
            for _ in range(50):  # the box has ended: its group empties a moment later
                try:
                    made.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


async def _flood(box: Box, stop: asyncio.Event) -> int:
    """The watchers join and send pongs (for no ping: the cheapest frame to take) until ``stop``."""
    sessions = [from_peer(f"127.0.4.{n + 1}") for n in range(WATCHERS // PER_PEER)]
    phones = [PhoneClient(sessions[i // PER_PEER], box.url) for i in range(WATCHERS)]
    try:
        for phone in phones:
            assert await phone.join(box.room, "watch") is not None, phone.refused

        async def send(phone: PhoneClient) -> int:
            sent, start = 0, time.monotonic()
            while not stop.is_set() and not phone.socket.closed:
                await phone.socket.send_str(json.dumps({"type": "pong", "id": 0, "t": phone.now_ms()}))
                sent += 1
                await asyncio.sleep(max(0.0, sent / FRAMES_PER_S - (time.monotonic() - start)))
            return sent

        return sum(await asyncio.gather(*(send(p) for p in phones)))
    finally:
        for phone in phones:
            await phone.close()
        for session in sessions:
            await session.close()


def unit_priority(cgroup: Path | None) -> tuple[str, ...]:
    """What runs the box at the unit's ``SCHED_FIFO`` 20: ``chrt``, as root, where the slow core
    also holds real-time tasks to its share (else nothing: normal priority)."""
    rt = None if cgroup is None else cgroup / "cpu.rt_runtime_us"
    if os.geteuid() != 0 or shutil.which("chrt") is None or rt is None or not rt.exists() \
            or int(rt.read_text()) != QUOTA_US:
        return ()
    return ("chrt", "-f", "20")


async def _run(tmp: Path, questions: int, flood: bool, cgroup: Path | None) -> dict:
    box = await Box().start(tmp, MOCK_5.read_text() + WEB, quiz_script(questions), ("--game", "quiz"), cgroup,
                            unit_priority(cgroup))
    stop = asyncio.Event()
    t0 = time.monotonic()
    throttled0 = _throttled(cgroup)
    flooding = asyncio.ensure_future(_flood(box, stop)) if flood else None
    await box.process.wait()
    stop.set()
    frames = await flooding if flooding is not None else 0
    throttled = _throttled(cgroup) - throttled0
    seconds = time.monotonic() - t0
    await box.stop()
    line = "".join(box.log)
    found = re.search(r"GPIO delivery: (\d+) edges, p99 ([\d.]+) ms, max ([\d.]+) ms.*?; (\d+) beyond the bound", line)
    if found is None:
        raise RuntimeError("the box did not say its GPIO delivery:\n" + line[-2000:])
    return {"edges": int(found[1]), "p99_ms": float(found[2]), "max_ms": float(found[3]),
            "beyond_bound": int(found[4]), "frames": frames, "frames_per_s": frames / seconds,
            "throttled": throttled}


def _throttled(cgroup: Path | None) -> int:
    """How many of the quota's periods the group has been held in (its ``cpu.stat``)."""
    if cgroup is None:
        return 0
    stat = dict(line.split() for line in (cgroup / "cpu.stat").read_text().splitlines() if line.count(" ") == 1)
    return int(stat.get("nr_throttled", 0))


def figures(quick: bool) -> dict:
    questions = 4 if quick else 18
    with tempfile.TemporaryDirectory() as tmp, slow_core() as cgroup:
        fifo = unit_priority(cgroup)
        runs = {}
        for name, flood in (("quiet", False), ("flood", True)):
            (Path(tmp) / name).mkdir()
            runs[name] = asyncio.run(_run(Path(tmp) / name, questions, flood, cgroup))
    quiet, flooded = runs["quiet"], runs["flood"]
    return {"webflood_throttled": cgroup is not None, "webflood_fifo": bool(fifo), "webflood_watchers": WATCHERS,
            "webflood_frames": flooded["frames"], "webflood_frames_per_s": round(flooded["frames_per_s"]),
            "webflood_quiet_edges": quiet["edges"], "webflood_edges": flooded["edges"],
            "webflood_quiet_delivery_p99_ms": quiet["p99_ms"], "webflood_quiet_delivery_max_ms": quiet["max_ms"],
            "webflood_delivery_p99_ms": flooded["p99_ms"], "webflood_delivery_max_ms": flooded["max_ms"],
            "webflood_delivery_max_ratio": round(flooded["max_ms"] / max(quiet["max_ms"], QUIET_FLOOR_MS), 2),
            "webflood_quiet_beyond_bound": quiet["beyond_bound"], "webflood_beyond_bound": flooded["beyond_bound"],
            "webflood_quiet_periods_throttled": quiet["throttled"], "webflood_periods_throttled": flooded["throttled"]}


def main(argv: list[str] | None = None) -> int:
    return command("python -m bench.webflood", __doc__, figures, argv)


if __name__ == "__main__":
    sys.exit(main())
