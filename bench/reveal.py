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
- **Light**: what the players see is the light, not the command. Each panel of the model gets
  its own row scan (:class:`~companion.adapters.panelscan.Scan`: Fosc from the datasheet's range, a random
  phase, 0xAF assumed to leave the scan running; the stimulus Triangle's 0, rows 14-37, the
  rows of the light sensors' marker): ``light_skew_ms`` is the spread of the light
  onsets of 6 panels at 400 kHz over many reveals (p50/p99), beside the command skew above; and
  ``light_model_misjudged_rate`` the share of two-player races, true reaction times 1-30 ms
  apart, whose verdict names the slower player alone, each station timed from its stamped
  onset as the race does. The box's settings (the panel clock of
  :data:`companion.adapters.framepack.PANEL_CLOCK`, the default tie window of screen-revealed
  races) against luma's clock and the old 10 ms window, in the same run; and with a light
  sensor per station (each timed from its light). Every case draws the same panels' phases and
  the same players from one seed: the figures are exact for the model, and comparable.
"""

from __future__ import annotations

import functools
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
from companion.adapters.lightsensor import MARKER_ROWS
from companion.games.options import SCREEN_TIE_WINDOW_MS
from companion.adapters.mux import MuxChannel
from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race

from companion.adapters.panelscan import Scan

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


TOP_ROWS = range(0, 24)
"""The stimulus drawn at the top of the panel instead, where a scan restarted by 0xAF starts."""
OLD_TIE_WINDOW_MS = 10
"""Every game's tie window before the light model: the baseline."""
CLOCKS = {"box": FastSSD1306, "luma": ssd1306}
"""The box's panels against luma's own."""


@functools.cache
def panel_clock(which: str) -> tuple[int, int]:
    """The (0xD5, 0xD9) arguments a panel of :data:`CLOCKS` ``which`` ends up with, as its
    device sends them on the bus model."""
    bus = TimedBus()
    CLOCKS[which](i2c(bus=bus, address=0x3C))
    settings = bus.panel(0x3C).settings
    return settings[0xD5], settings[0xD9]


def light_onsets(stamped: list[int], scans: list[Scan], rows: range = MARKER_ROWS) -> list[int]:
    """Each panel's light onset: its scan's first start of a stimulus row after its 0xAF."""
    return [scan.light_ns(t, rows) for t, scan in zip(stamped, scans)]


def box_scans(rnd: random.Random, panels: int, which: str, mode: str = "continues") -> list[Scan]:
    """``panels`` SSD1306 panels off the shelf at the clock of :data:`CLOCKS` ``which``."""
    clock, precharge = panel_clock(which)
    return [Scan.drawn(rnd, "ssd1306", clock, precharge, mode) for _ in range(panels)]


def percentiles_ms(values: list[int]) -> dict:
    """``{"p50", "p99"}`` of ``values`` (ns) in ms."""
    ordered = sorted(values)
    return {name: round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] / MS, 3)
            for name, q in (("p50", 0.5), ("p99", 0.99))}


def light_skew(reveals: int, which: str = "box", mode: str = "continues", rows: range = MARKER_ROWS,
               seed: int = 5) -> dict:
    """Light-onset spread of 6 panels at 400 kHz over ``reveals`` reveals, each a new box."""
    rnd = random.Random(seed)
    stamped, _ = onsets(6, 400_000, True)
    skews = []
    for _ in range(reveals):
        light = light_onsets(stamped, box_scans(rnd, 6, which, mode), rows)
        skews.append(max(light) - min(light))
    return percentiles_ms(skews)


def light_misjudged(races: int, which: str, window_ms: float, sensor: bool = False,
                    rows: range = MARKER_ROWS, seed: int = 6) -> dict:
    """Two players (two of 6 panels) whose true reaction times differ by 1-30 ms, each timed
    from its stamped onset (with ``sensor``, from its light onset). ``misjudged``: the verdict
    is not the one the rules give on the true reaction times (a tie within the window, else the
    faster player); ``wrong_winner``: it names the slower player alone; ``ties``: it is a tie."""
    rnd = random.Random(seed)
    stamped, _ = onsets(6, 400_000, True)
    window = round(window_ms * MS)
    misjudged = wrong = ties = 0
    for _ in range(races):
        pair = rnd.sample(range(6), 2)
        shown = [stamped[s] for s in pair]
        light = light_onsets(shown, box_scans(rnd, 2, which), rows)
        fast = round(max(100.0, rnd.gauss(REACTION_MEAN_MS, REACTION_SD_MS)) * MS)
        reactions = [fast, fast + round(rnd.uniform(1, 30) * MS)]
        if rnd.random() < 0.5:
            reactions.reverse()
        race = Race(0, window, (0, 1), revealed=True)
        race.reveal(dict(enumerate(light if sensor else shown)))
        for s in (0, 1):
            race.press(InputEvent(s, "slap", True, light[s] + reactions[s]))
        winners = race.decide(1 << 62).winners
        faster = 0 if reactions[0] < reactions[1] else 1
        truth = {0, 1} if abs(reactions[0] - reactions[1]) < window else {faster}
        misjudged += winners != truth
        wrong += winners == {1 - faster}
        ties += len(winners) > 1
    return {"misjudged": misjudged / races, "wrong_winner": wrong / races, "ties": ties / races}


def light(reveals: int, races: int) -> dict:
    """The light keys of ``python -m bench``: the box's panel clock and tie window against
    luma's clock and the old window, all on the same model."""
    window = SCREEN_TIE_WINDOW_MS
    box = light_misjudged(races, "box", window)
    baseline = light_misjudged(races, "luma", OLD_TIE_WINDOW_MS)
    old_window = light_misjudged(races, "box", OLD_TIE_WINDOW_MS)
    sensed = light_misjudged(races, "box", window, sensor=True)
    dot = range(30, 31)  # a stimulus one row high: the longest wait for the scan
    dot_box = light_misjudged(races, "box", window, rows=dot)
    dot_baseline = light_misjudged(races, "luma", OLD_TIE_WINDOW_MS, rows=dot)
    return {
        "light_skew_ms": light_skew(reveals, "box"),
        "baseline_light_skew_ms": light_skew(reveals, "luma"),
        "light_skew_ms_by_case": {
            "scan restarts at 0xAF": light_skew(reveals, "box", "restarts"),
            "scan restarts at 0xAF, stimulus at the top": light_skew(reveals, "box", "restarts", TOP_ROWS),
            "stimulus at the top (scan continues)": light_skew(reveals, "box", rows=TOP_ROWS)},
        "light_model_races": races, "light_tie_window_ms": window,
        "light_model_misjudged_rate": box["misjudged"], "baseline_light_model_misjudged_rate": baseline["misjudged"],
        "light_model_wrong_winner_rate": box["wrong_winner"],
        "baseline_light_model_wrong_winner_rate": baseline["wrong_winner"],
        "light_model_tie_rate": box["ties"], "baseline_light_model_tie_rate": baseline["ties"],
        "light_model_misjudged_rate_with_sensors": sensed["misjudged"],
        "light_model_misjudged_rate_old_window": old_window["misjudged"],
        "light_model_wrong_winner_rate_one_row_stimulus": dot_box["wrong_winner"],
        "baseline_light_model_wrong_winner_rate_one_row_stimulus": dot_baseline["wrong_winner"],
    }
