"""Decision latency: from a button's edge on a mock pin to the buzzer pin sounding "decided",
through the real daemon loop (inbox, debounce, watermark, race, cue, TonalBuzzer), minus the
tie window the race must wait for by design. It includes the GPIO latency bound the race also
waits for (``timing.gpio_latency_ms``, 30 ms by default: the mock profile keeps the default).

The referee is a bare race (:class:`RaceProbe`) rather than a game, so no countdown or menu sits
between the measured press and its decision; everything the daemon does on the way is real.
"""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path

from PIL import Image

from companion.daemon import Daemon
from companion.profile import load_profile
from companion.arbiter.race import Race

ROOT = Path(__file__).resolve().parent.parent
WINDOW_NS = 10_000_000


class RaceProbe:
    """A referee that runs one race after another and cues "decided" on each verdict."""

    def __init__(self, stations: int) -> None:
        self.stations = stations
        self.cues: list[str] = []
        self.version = 0
        self.decided = asyncio.Event()
        self.race = Race(0, WINDOW_NS, range(stations))

    def handle(self, event) -> None:
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
    await asyncio.sleep(0.2)
    for i in range(races):
        slap = daemon.box.pin(i % probe.stations, "slap")
        probe.decided.clear()
        buzzer.clear_states()
        cleared = buzzer._last_change  # states after this are (seconds since the previous, state)
        slap.drive_low()
        edge = slap._last_change  # the mock pin's edge time: what the kernel would stamp
        await asyncio.wait_for(probe.decided.wait(), 2)
        at = cleared
        for change in buzzer.states[1:]:
            at += change.timestamp
            if change.state:
                latencies.append((at - edge) * 1000 - WINDOW_NS / 1e6)
                break
        slap.drive_high()
        await asyncio.sleep(0.03)
    stop.set()
    await runner
    return latencies


def decision_latency(races: int) -> dict[str, float]:
    profile = load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml")
    probe = RaceProbe(len(profile.stations))
    daemon = Daemon(profile, referee=probe)
    try:
        latencies = asyncio.run(_measure(daemon, probe, races))
    finally:
        daemon.close()
    latencies.sort()
    return {"decision_latency_p50_ms": statistics.median(latencies),
            "decision_latency_p99_ms": latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))],
            "decision_races": len(latencies)}
