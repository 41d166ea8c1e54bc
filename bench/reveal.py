"""The reveal on a model of the real bus, the frame packing, and a race where only the displays
are unfair.

- **Reveal skew**: real luma SSD1306 devices (our :class:`~companion.adapters.framepack.FastSSD1306`)
  behind a TCA9548A on one :class:`~bench.busmodel.TimedBus`, written by the real
  :class:`~companion.adapters.displays.DisplayWriter`, on the model's fake clock: max minus min
  onset across the stations, for the synchronized reveal and for the baseline (each frame
  written as it comes, as the box did before). The model is deterministic, so each figure is
  one exact run, not a median; its numbers and sources are in ``bench/busmodel.py``.
- **Frame packing**: one 128x64 frame through ``display()`` onto luma's ``noop`` serial
  interface, so only the packing is timed: the CPU (and GIL) a frame costs before the wire,
  ours against luma's own device, medians.
- **Display fairness**: six players with the same reaction-time distribution race from a
  screen change; the only difference between stations is when their panels lit up, as
  measured on the model above. With the reveal, the real :class:`~companion.arbiter.race.Race` times
  each station from its own onset; the baseline opens the race for everyone when the table
  asked for the screens, and the stations written last lose.
"""

from __future__ import annotations

import math
import random
import statistics
import threading
import time

from luma.core.interface.serial import i2c, noop
from luma.oled.device import ssd1306
from PIL import Image

from companion.adapters.displays import DisplayWriter
from companion.adapters.framepack import FastSSD1306
from companion.adapters.mux import MuxChannel
from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race

from .busmodel import FakeClock, TimedBus

MS = 1_000_000
CASES = ((6, 400_000, 0), (3, 400_000, 0), (6, 100_000, 0), (3, 100_000, 0), (6, 400_000, 50_000))
"""(stations, bus Hz, host ns per transaction) of each reveal case reported."""
REACTION_MEAN_MS, REACTION_SD_MS = 300.0, 40.0
"""Simple visual reaction times of adults are about 200-300 ms with a spread of tens of ms
(Kosinski, "A literature review on reaction time", 2008); the same for every player here."""
WINDOW = 10 * MS


def case_name(stations: int, hz: int, host_ns: int) -> str:
    name = f"{stations} stations, {hz // 1000} kHz"
    return name + (f", {host_ns // 1000} us host per transaction" if host_ns else "")


def onsets(stations: int, hz: int = 400_000, synchronized: bool = True, host_ns: int = 0) -> tuple[list[int], int]:
    """Each station's onset after the screens were handed to the writer (ns), and how long the
    first panel to go dark stayed dark (0 when nothing went dark)."""
    bus = TimedBus(hz, FakeClock(), host_ns=host_ns)
    lock = threading.Lock()
    panels = [FastSSD1306(i2c(bus=MuxChannel(bus, ch, lock), address=0x3C)) for ch in range(stations)]
    writer = DisplayWriter(panels, now_ns=bus.clock.now_ns)
    try:
        frames = {i: Image.new("1", (128, 64), i % 2) for i in range(stations)}
        since = bus.clock.now_ns()
        if synchronized:
            writer.reveal(frames)
        else:
            for station, frame in frames.items():
                writer.show(station, frame)
        writer.flush()
    finally:
        writer.close()
    shown = [bus.panel(0x3C, ch).shown_at(since) - since for ch in range(stations)]
    dark = [t for ch in range(stations) for t, kind in bus.panel(0x3C, ch).changes if t >= since and kind == "off"]
    return shown, (max(shown) + since - min(dark)) if dark else 0


def skew_ms(shown: list[int]) -> float:
    return round((max(shown) - min(shown)) / MS, 3)


def reveal_skew() -> dict:
    by_case = {}
    for stations, hz, host_ns in CASES:
        revealed, dark = onsets(stations, hz, True, host_ns)
        sequential, _ = onsets(stations, hz, False, host_ns)
        by_case[case_name(stations, hz, host_ns)] = {
            "reveal": skew_ms(revealed), "sequential": skew_ms(sequential),
            "dark_ms": round(dark / MS, 1), "last_onset_ms": round(max(revealed) / MS, 1)}
    main = by_case[case_name(6, 400_000, 0)]
    return {"reveal_skew_ms": main["reveal"], "baseline_reveal_skew_ms": main["sequential"],
            "reveal_skew_ms_by_case": by_case}


def frame_pack_ms(repeats: int) -> dict:
    """Median ms of one 128x64 frame's ``display()`` onto luma's serial interface that sends
    nothing."""
    rnd = random.Random(3)
    image = Image.new("1", (128, 64))
    image.putdata([rnd.getrandbits(1) * 255 for _ in range(128 * 64)])
    out = {}
    for name, driver in (("ours", FastSSD1306), ("luma", ssd1306)):
        panel = driver(noop())
        times = []
        for _ in range(repeats):
            start = time.perf_counter_ns()
            panel.display(image)
            times.append(time.perf_counter_ns() - start)
        out[name] = round(statistics.median(times) / 1e6, 4)
    return out


def chi_square_uniform_p(counts: list[int]) -> float:
    """p-value that ``counts`` come from a uniform distribution (upper tail of chi-square with
    len - 1 degrees of freedom, in closed form for whole degrees)."""
    expected = sum(counts) / len(counts)
    half = sum((c - expected) ** 2 / expected for c in counts) / 2
    dof = len(counts) - 1
    if dof % 2 == 0:
        return math.exp(-half) * sum(half ** i / math.factorial(i) for i in range(dof // 2))
    tail = sum(half ** (i - 0.5) / math.gamma(i + 0.5) for i in range(1, (dof + 1) // 2))
    return math.erfc(math.sqrt(half)) + math.exp(-half) * tail


def wins(races: int, onsets_ns: list[int], revealed: bool, seed: int) -> list[int]:
    """How often each station wins (ties count for each) among players with the same reaction
    times, their panels lit at ``onsets_ns`` after the race opened."""
    rnd = random.Random(seed)
    counts = [0] * len(onsets_ns)
    stations = range(len(onsets_ns))
    for _ in range(races):
        race = Race(0, WINDOW, stations, revealed=revealed)
        if revealed:
            race.reveal(dict(enumerate(onsets_ns)))
        for s in stations:
            reaction = max(100.0, rnd.gauss(REACTION_MEAN_MS, REACTION_SD_MS))
            race.press(InputEvent(s, "slap", True, onsets_ns[s] + round(reaction * MS)))
        for s in race.decide(1 << 62).winners:
            counts[s] += 1
    return counts


def display_bias(races: int, seed: int = 4) -> dict:
    """Display-only unfairness on 6 stations at 400 kHz: the reveal against sequential writes."""
    revealed, _ = onsets(6, 400_000, True)
    sequential, _ = onsets(6, 400_000, False)
    fair = wins(races, revealed, True, seed)
    baseline = wins(races, sequential, False, seed)
    return {"display_bias_p": chi_square_uniform_p(fair), "baseline_display_bias_p": chi_square_uniform_p(baseline),
            "display_wins": fair, "baseline_display_wins": baseline}
