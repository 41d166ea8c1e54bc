"""The self-test a maker runs after wiring a box: every button, every display, the buzzer.

Each display shows its station's number in large type (so a display on the wrong multiplexer
channel is obvious) and four boxes, one per button, that fill when that button is pressed. The
last press is named with its edge time since the station's previous edge, which also shows
contact bounce the debouncer let through. On start the buzzer plays every cue once, its name on
every display. It speaks the daemon's referee interface, so it runs on the real loop and pins.

With ``frame_every_ns`` it also loads the box the way a game at its busiest does, and harder:
every display gets a new frame that often (a counter in the corner), more than the I2C bus can
write, so the display writer packs frames without pause while the maker presses buttons. The
buttons' delivery delays measured meanwhile (:class:`~companion.arbiter.delivery.DeliveryWatch`) are
reported; with the fallback ``timing.gpio_watermark = "bound"`` they say whether the profile's GPIO
latency bound covers this box (with the GPIO reader, races wait for its watermark: no bound).

On a box with light sensors (``light_sensor`` on every station), :func:`measure_light` then
reveals a marked frame on every panel many times, as a race does (reading a board's sensors
through :class:`BoardLight`), and :func:`light_report` tells
the maker each panel's lag from its stamped onset to its light, the light skew between panels,
and the tie window the box supports (:mod:`companion.adapters.lightsensor`).
"""

from __future__ import annotations

import functools
import math
import threading
import time
from dataclasses import dataclass
from typing import Callable

from PIL import Image, ImageFont

from .adapters.board import BoardLink
from .adapters.lightsensor import LIGHT_WAIT_NS, LightSensors, marked
from .board.handover import LinkItem, Lit
from .board.session import BoardSession
from .cues import CUES, steps
from .arbiter.inputs import KEYS, InputEvent
from .screens.canvas import CHAR_W, HEIGHT, LINE_H, WIDTH, blank, fit, text
from .table.stuck import StuckButtons

NS = 1_000_000_000


LOAD_FRAME_NS = 20_000_000
"""A new frame on every display every 20 ms: more than an SSD1306 takes on a 400 kHz bus (about
25 ms a frame), so the writer never rests."""


@functools.cache
def _big_font() -> ImageFont.FreeTypeFont:
    """Loaded once: under load every screen is drawn 50 times a second."""
    return ImageFont.load_default(size=40)


class SelfTest:
    def __init__(self, names: tuple[str, ...], frame_every_ns: int | None = None) -> None:
        self.names = names
        self.stations = len(names)
        self.pressed: set[tuple[int, str]] = set()
        self.last: dict[int, str] = {}
        self._previous_ns: dict[int, int] = {}
        self.stuck_buttons = StuckButtons()
        self.cues: list[str] = []
        self.version = 0
        self._tour = list(CUES)
        self._tour_at: int | None = None
        self.playing: str | None = None
        self.frame_every_ns = frame_every_ns
        self.frames = 0
        self._frame_at: int | None = None

    @property
    def complete(self) -> bool:
        return len(self.pressed) == self.stations * len(KEYS)

    def missing(self) -> list[tuple[int, str]]:
        return [(s, k) for s in range(self.stations) for k in KEYS if (s, k) not in self.pressed]

    def handle(self, event: InputEvent) -> None:
        if event.station >= self.stations:
            return
        self.version += 1
        self.stuck_buttons.seen(event)
        if not event.pressed:
            return
        self.pressed.add((event.station, event.key))
        previous = self._previous_ns.get(event.station)
        gap = "" if previous is None else f" +{(event.t_ns - previous) / 1e6:.1f}ms"
        self._previous_ns[event.station] = event.t_ns
        self.last[event.station] = f"{event.key}{gap}"
        self.cues.append("tick")

    def lights(self) -> tuple[str, ...]:
        """A station's light comes on once every one of its buttons has been pressed: the maker
        sees the station pass, and that its LED works."""
        return tuple("on" if all((s, k) in self.pressed for k in KEYS) else "off"
                     for s in range(self.stations))

    def stuck(self, station: int, key: str) -> bool:
        self.stuck_buttons.report(station, key)
        self.version += 1
        return True

    def tick(self, now_ns: int, watermark_ns: int) -> None:
        """Play the cue tour: each cue, then the next once it has finished; under load, a new
        frame every ``frame_every_ns``."""
        if self.frame_every_ns is not None and (self._frame_at is None or now_ns >= self._frame_at):
            self.frames += 1
            self.version += 1
            self._frame_at = now_ns + self.frame_every_ns
        if self._tour_at is not None and now_ns < self._tour_at:
            return
        self.playing = self._tour.pop(0) if self._tour else None
        self._tour_at = now_ns + round((steps(self.playing)[-1][0] + 0.3) * NS) if self.playing else None
        if self.playing:
            self.cues.append(self.playing)
        self.version += 1

    def wakeup_ns(self) -> int | None:
        return min((t for t in (self._tour_at, self._frame_at) if t is not None), default=None)

    def screen(self, station: int) -> Image.Image:
        image, draw = blank()
        big = _big_font()
        draw.text((2, 4), str(station + 1), font=big, fill=1)
        text(draw, 40, 0, fit(self.names[station], (WIDTH - 40) // CHAR_W))
        for i, key in enumerate(KEYS):
            x, y = 40 + i * 22, LINE_H + 4
            done = (station, key) in self.pressed
            draw.rectangle((x, y, x + 18, y + 12), outline=1, fill=1 if done else 0)
            text(draw, x + 6, y + 1, key[0].upper(), invert=done)
        status = self.last.get(station, "press every button")
        text(draw, 40, 2 * LINE_H + 8, fit(status, (WIDTH - 40) // CHAR_W))
        if self.frame_every_ns is not None:
            text(draw, 2, HEIGHT - LINE_H, f"{self.frames % 1000:03d}")
        if self.playing:
            text(draw, 40, HEIGHT - LINE_H, fit(f"cue: {self.playing}", (WIDTH - 40) // CHAR_W))
        elif self.complete:
            text(draw, 40, HEIGHT - LINE_H, "ALL BUTTONS OK", invert=True)
        return self.stuck_buttons.mark(station, image)

    def report(self, dead_displays: list[int] = ()) -> str:
        """What a maker reads at the end: every button that never reported a press, every display
        that failed (by station index) and was still failing."""
        lines = [f"station {s + 1} ({self.names[s]}): display not working (check its wiring and address)"
                 for s in dead_displays]
        if self.complete and not lines:
            return f"all {self.stations * len(KEYS)} buttons pressed; every display shown; {len(CUES)} cues played"
        lines += [f"station {s + 1} ({self.names[s]}): {k} never pressed" for s, k in self.missing()]
        return "\n".join(lines)


LIGHT_REVEALS = 200
"""Reveals :func:`measure_light` makes: each panel's lag is a fresh draw of its scan's phase, so
200 see its range to within a percent of a frame."""
SCAN_RESTARTS_BELOW_NS = 1_000_000
"""A panel whose lag never varies by more than this restarts its scan at display-on: its light
follows its command by a fixed delay (the rows above the marker), where a scan that runs on
gives lags spread over a whole frame (6-13 ms)."""


@dataclass(frozen=True)
class LightSample:
    """One reveal: every station's stamped onset, and its light onset where its sensor saw it."""

    stamped: dict[int, int]
    light: dict[int, int]


def bound_wait(stamped: dict[int, int]) -> None:
    """Until the light's wait after a reveal stamped at ``stamped`` has passed, and as long again
    for a sensor's edge read in this process through gpiozero (the fallback) to reach the box."""
    time.sleep(max(0.0, (max(stamped.values()) + 2 * LIGHT_WAIT_NS - time.monotonic_ns()) / 1e9))


def measure_light(writer, sensors: LightSensors, stations: int, reveals: int = LIGHT_REVEALS,
                  wait: Callable[[dict[int, int]], None] | None = None) -> list[LightSample]:
    """Reveal a marked frame (the station's number) on every panel ``reveals`` times through the
    display ``writer``, as a race does, and read every sensor. ``wait(stamped)`` returns once the
    sensors have had their time to see the reveal (by default :func:`bound_wait`; a test drives
    its mock sensors there instead)."""
    wait = wait or bound_wait
    samples = []
    for n in range(reveals):
        shown = threading.Event()
        got: dict[int, int] = {}

        def on_shown(onsets: dict[int, int]) -> None:
            got.update(onsets)
            shown.set()

        frames = {}
        for station in range(stations):
            image, draw = blank()
            draw.text((2, 4), str(station + 1), font=_big_font(), fill=1)
            text(draw, 40, 0, f"light {n + 1}/{reveals}")
            frames[station] = marked(image)
        writer.reveal(frames, on_shown)
        if not shown.wait(5.0):
            break  # a display that never shows: the report says which sensors saw nothing
        wait(dict(got))
        samples.append(LightSample(dict(got), sensors.light_onsets(got)))
    return samples


BOARD_SILENT_S = 0.5
"""How long :meth:`BoardLight.wait` waits for a board that does not report: as long as the daemon
gives a silent board (50 heartbeats of 10 ms, :mod:`companion.board.session`)."""


class BoardLight:
    """The button board's light sensors while :func:`measure_light` runs. The daemon's loop that
    read the board has stopped by then, so this reads it on a link of its own (to ``port``, with
    the daemon's ``session``), hands every rise to the ``sensors``, and waits after a reveal until
    the board has reported past its light window, as a race does."""

    def __init__(self, port: str, session: BoardSession, sensors: LightSensors) -> None:
        self.session = session
        self.sensors = sensors
        self._heard = threading.Condition()
        self.link = BoardLink(port, self._deliver)
        self.link.start()

    def _deliver(self, item: LinkItem) -> None:
        """In the link's thread, the only one using the session now."""
        with self._heard:
            for out in self.session.handle(item):
                if isinstance(out, Lit):
                    self.sensors.rise(out.station, out.t_ns)
            self._heard.notify_all()

    def wait(self, stamped: dict[int, int]) -> None:
        """Until the board has sent every rise of the reveal stamped at ``stamped`` (or been
        silent for :data:`BOARD_SILENT_S`)."""
        seen_by = max(stamped.values()) + LIGHT_WAIT_NS
        with self._heard:
            self._heard.wait_for(lambda: self.session.reported_ns >= seen_by, timeout=BOARD_SILENT_S)

    def close(self) -> None:
        self.link.close()


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.2f} ms"


def _pick(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(frozen=True)
class LightReport:
    """What :func:`light_report` found: ``lags`` per station (light minus stamped onset, ns),
    ``skews`` per complete reveal (latest light minus earliest, ns) and ``window_ms``, the tie
    window the box supports when races are timed from stamps (None if a sensor saw nothing)."""

    lags: dict[int, list[int]]
    skews: list[int]
    window_ms: int | None
    text: str


def light_report(samples: list[LightSample], names: tuple[str, ...], window_ms: int) -> LightReport:
    """Each panel's lag from its stamped onset to its light, the light skew, and the tie window
    this box supports: races timed from stamps need a window above the largest difference
    between two panels' lags; races timed from the sensors only the sensors' own (the same
    parts on every station over the same marker: well under a millisecond, not measured here).
    ``window_ms`` is the games' default."""
    stations = range(len(names))
    lags = {s: [x.light[s] - x.stamped[s] for x in samples if s in x.light and s in x.stamped] for s in stations}
    complete = [x for x in samples if all(s in x.light for s in stations)]
    skews = [max(x.light.values()) - min(x.light.values()) for x in complete]
    lines = [f"light: {len(samples)} reveals"]
    for s in stations:
        seen = lags[s]
        if not seen:
            lines.append(f"station {s + 1} ({names[s]}): its light sensor saw nothing (check its wiring, "
                         "that it sits over the marker at the panel's right edge, and its threshold)")
            continue
        scan = "restarts at display-on" if max(seen) - min(seen) < SCAN_RESTARTS_BELOW_NS else "runs on"
        lines.append(f"station {s + 1} ({names[s]}): lag p50 {_ms(_pick(seen, 0.5))}, p99 {_ms(_pick(seen, 0.99))}, "
                     f"range {_ms(min(seen))}-{_ms(max(seen))} in {len(seen)} reveals (scan {scan})")
    if any(not lags[s] for s in stations) or not complete:
        return LightReport(lags, skews, None, "\n".join(lines))
    lines.append(f"light skew between panels: p50 {_ms(_pick(skews, 0.5))}, p99 {_ms(_pick(skews, 0.99))}, "
                 f"max {_ms(max(skews))}")
    # Two panels' lags can differ by up to the widest spread of lags seen (across reveals too).
    every = [lag for s in stations for lag in lags[s]]
    supported = math.floor((max(every) - min(every)) / 1e6) + 1
    verdict = "covers it" if window_ms >= supported else "is too small: races closer than that are decided by the screens"
    lines.append(f"tie window this box supports, timed from stamps: {supported} ms or more "
                 f"(the games' default, {window_ms} ms, {verdict}); races timed from these sensors, as they "
                 "are when every station has one, need only cover the sensors' own differences (matched "
                 "parts over the same marker: well under 1 ms)")
    return LightReport(lags, skews, supported, "\n".join(lines))
