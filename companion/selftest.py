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
"""

from __future__ import annotations

import functools

from PIL import Image, ImageFont

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
