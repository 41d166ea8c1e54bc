"""Decision latency: from a button's edge on a mock pin to the buzzer pin sounding "decided",
through the real daemon loop (inbox, debounce, watermark, race, cue, TonalBuzzer), minus the
tie window the race must wait for by design, while a thread packs luma frames as fast as it can
(the load of ``python -m bench.handoff``: the display writer holding the daemon's GIL).

Two ways of knowing every GPIO press has arrived, in the same run:

- the GPIO reader (``timing.gpio_watermark = "reader"``, a Pi's default): a real child process
  owns the pins (gpiozero mock pins there, driven through its test channel) and reports its
  watermark; the mock pins pretend the kernel's 1 ms margin, so the figure includes what a Pi
  adds to it. What is modelled: the kernel's stamp-to-queue time (within the margin) and a Pi's
  slower CPU; what is measured: both processes, the socket, the daemon's loop under load.
- the fallback bound (``"bound"``): the pins in the daemon's process, races waiting
  ``timing.gpio_latency_ms`` (30 ms) past the tie window.

The referee is a bare race (:class:`RaceProbe`) rather than a game, so no countdown or menu sits
between the measured press and its decision; everything the daemon does on the way is real.

As deployed: the measuring thread takes the unit's ``CPUSchedulingPolicy=``/``Priority=``
(systemd/companion.service) before the daemon is made, so its threads and the reader process
inherit it as the service's do, and both ways are measured beside :data:`LOAD` busy processes at
normal priority, what a box's other work (or a shared machine's) does to it. ``python -m
bench.latency [--races N] [--load N]`` runs this alone.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from PIL import Image

from companion.daemon import Daemon
from companion.profile import load_profile
from companion.arbiter.race import Race

from .handoff import _pack_frames

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "companion.service"
LOAD = 4
"""Busy processes beside the measurement (each a core's worth of Python at normal priority)."""
WINDOW_NS = 10_000_000
DECISION_PATIENCE_S = 30.0
"""How long one race may take to be decided before the run fails: a hang, not a slow machine
(a decision takes milliseconds; a busy machine's worst is well under a second)."""


class RaceProbe:
    """A referee that runs one race after another and cues "decided" on each verdict."""

    def __init__(self, stations: int) -> None:
        self.stations = stations
        self.cues: list[str] = []
        self.version = 0
        self.decided = asyncio.Event()
        self.race = Race(0, WINDOW_NS, range(stations))
        self.first_ns: int | None = None
        """The edge time of the race's first press."""

    def handle(self, event) -> None:
        if event.pressed and self.first_ns is None:
            self.first_ns = event.t_ns
        self.race.press(event)

    def stuck(self, station, key) -> None:
        pass

    def tick(self, now_ns: int, watermark_ns: int) -> None:
        if self.race.decide(watermark_ns) is not None:
            self.cues.append("decided")
            self.race = Race(now_ns, WINDOW_NS, range(self.stations))
            self.decided.set()

    def wakeup_ns(self) -> int | None:
        return self.race.decision_due_ns

    def screen(self, station: int) -> Image.Image:
        return Image.new("1", (128, 64))


async def _measure(daemon: Daemon, probe: RaceProbe, races: int) -> list[float]:
    stop = asyncio.Event()
    runner = asyncio.ensure_future(daemon.run(stop))
    buzzer = daemon.box.pin_factory.pin(daemon.profile.buzzer_pin)
    latencies = []
    if daemon.gpio_session is not None:  # the reader process has started and reported
        while daemon.gpio_session.check_due_ns() is None:
            await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)
    for i in range(races):
        station = i % probe.stations
        probe.decided.clear()
        probe.first_ns = None
        buzzer.clear_states()
        cleared = buzzer._last_change  # states after this are (seconds since the previous, state)
        daemon.box.drive(station, "slap", True)
        await asyncio.wait_for(probe.decided.wait(), DECISION_PATIENCE_S)
        at = cleared
        for change in buzzer.states[1:]:
            at += change.timestamp
            if change.state:  # from the edge's own time: what the kernel would stamp
                latencies.append(at * 1000 - probe.first_ns / 1e6 - WINDOW_NS / 1e6)
                break
        daemon.box.drive(station, "slap", False)
        await asyncio.sleep(0.03)
    stop.set()
    await runner
    return latencies


def _latencies(races: int, watermark: str) -> list[float]:
    """Decision latencies (ms past the tie window) with ``timing.gpio_watermark = watermark``,
    while a thread packs frames."""
    profile = load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml")
    profile = dataclasses.replace(profile, timing=dataclasses.replace(profile.timing, gpio_watermark=watermark))
    probe = RaceProbe(len(profile.stations))
    daemon = Daemon(profile, referee=probe)
    stop, frames = threading.Event(), [0]
    load = threading.Thread(target=_pack_frames, args=(stop, frames), name="frame packer", daemon=True)
    daemon.counted_work[load.name] = lambda: frames[0]  # busy by design: a spin only if it packs nothing
    load.start()
    try:
        latencies = asyncio.run(_measure(daemon, probe, races))
    finally:
        stop.set()
        load.join()
        daemon.close()
    return sorted(latencies)


POLICIES = {"fifo": os.SCHED_FIFO, "rr": os.SCHED_RR, "other": os.SCHED_OTHER, "batch": os.SCHED_BATCH,
            "idle": os.SCHED_IDLE}


def unit_scheduling(unit: Path = UNIT) -> tuple[str, int]:
    """The unit's ``CPUSchedulingPolicy=`` and ``CPUSchedulingPriority=`` ("other", 0 without)."""
    text = unit.read_text()
    policy = re.search(r"^CPUSchedulingPolicy=(\w+)$", text, re.MULTILINE)
    priority = re.search(r"^CPUSchedulingPriority=(\d+)$", text, re.MULTILINE)
    return (policy.group(1) if policy else "other"), (int(priority.group(1)) if priority else 0)


@contextmanager
def as_deployed() -> Iterator[str]:
    """This thread, and every thread and process it starts in the block, at the unit's scheduling
    policy and priority; yields which (or why not: it needs root or CAP_SYS_NICE here)."""
    policy, priority = unit_scheduling()
    before = os.sched_getscheduler(0), os.sched_getparam(0)
    try:
        os.sched_setscheduler(0, POLICIES[policy], os.sched_param(priority))
        said = f"{policy} {priority}, as the unit"
    except PermissionError:
        said = f"normal priority: {policy} {priority} refused here (run as root)"
    try:
        yield said
    finally:
        os.sched_setscheduler(0, *before)


@contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` busy loops at normal priority while the block runs."""
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for proc in spinning:
            proc.kill()
            proc.wait()


def decision_latency(races: int, load: int = LOAD) -> dict:
    """With the GPIO reader, and with the fallback bound as the baseline, in one run: both at the
    unit's priority, beside ``load`` busy processes (started first: they stay at normal priority)."""
    out: dict = {"decision_races": races, "decision_load": load}
    with busy(load), as_deployed() as priority:
        out["decision_priority"] = priority
        for prefix, watermark in (("", "reader"), ("baseline_", "bound")):
            latencies = _latencies(races, watermark)
            out[f"{prefix}decision_latency_p50_ms"] = statistics.median(latencies)
            out[f"{prefix}decision_latency_p99_ms"] = latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))]
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.latency", description="Decision latency alone, as deployed.")
    parser.add_argument("--races", type=int, default=1000, help="races per way (default 1000)")
    parser.add_argument("--load", type=int, default=LOAD, help=f"busy processes beside it (default {LOAD})")
    args = parser.parse_args()
    print(json.dumps(decision_latency(args.races, args.load)))
