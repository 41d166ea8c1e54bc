"""Light sensors: when each station's panel really lit up, from a sensor over a marker on it.

A panel shows what it took at its own row scan, up to a frame after the display-on command the
box stamps (:class:`~companion.adapters.panelscan.Scan`). A station can have a sensor
(a phototransistor and a comparator, ``hardware/BUILD.md``) over a marker that every reveal
lights on its panel (:func:`marked`): the comparator's output rises when the marker lights.

:class:`LightSensors` keeps every station's rising edges, whoever reads them: on a Pi the GPIO
reader process owns the sensors' lines and sends their kernel-stamped rising edges
(:mod:`companion.adapters.gpioreader`); with the fallback ``timing.gpio_watermark = "bound"``
gpiozero pins in the daemon feed it (:func:`light_sensors`); the simulator feeds it from its
scan model. Each calls :meth:`LightSensors.rise`.

The bias is the pull-up, for the reader's lines and gpiozero's alike: the LM393's output only
pulls down (open collector) and its 10 kOhm pull-up makes the high; the Pi's own pull-up, in
parallel, costs nothing and still gives a rising edge (in microseconds) if that resistor is
missing. A pull-down would fight the 10 kOhm (a high of 2.5-2.8 V instead of 3.3 V), and no
bias would leave an unplugged sensor's line floating, whose noise could pass for a panel's light.

The marker is a bar at the panel's right edge, as tall as the rows a reveal's stimulus covers
(:data:`MARKER_ROWS`), not a dot in a corner: while the scan runs on, it reaches a corner's rows
at another moment than the stimulus's, so a corner would time the wrong rows. The bar's first
lit row is the stimulus's first lit row.

The panel is dark from the reveal's display-off until its display-on, so the first rising edge
after a station's stamped onset, within :data:`LIGHT_WAIT_NS`, is its light onset.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Callable

from PIL import Image, ImageDraw

from .buttons import TimedPin

MARKER_ROWS = range(14, 38)
"""The rows of the reveals' stimulus: Triangle's 0, drawn three times its size in the band
(``companion/screens/triangle.py``: ``BAND_Y + 2``, three 8-row glyph heights), which also
covers the closest game's question (rows 14-25)."""
MARKER_COLUMNS = range(124, 128)
"""Four columns at the right edge (0.9 mm on a 0.96-inch panel), where no reveal draws."""
LIGHT_WAIT_NS = 30_000_000
"""How long after its stamped onset a station's light may come (its edge time): two of the
slowest frames a supported panel has even at luma's settings (12.7 ms, :mod:`~companion.adapters.panelscan`),
and some; an edge later than that is not this reveal's. The daemon reports a reveal once the
sensors' source has delivered every edge up to this long after the last stamp: the GPIO reader's
watermark, or with the fallback the GPIO latency bound later."""
EDGES_KEPT = 512
"""Rising edges kept per sensor: the marker flashes once a frame while it is shown (a panel lights
a row only while its scan drives it), so a reveal's first edge must not be pushed out by the
flashes of the frames after it before the box reads it: 512 frames are 3 s at the fastest
clock. Read later than that, the station has no light onset and the race falls back to stamps."""


def marked(frame: Image.Image) -> Image.Image:
    """``frame`` with the light marker drawn: the reveal frame of a station with a sensor."""
    out = frame.copy()
    ImageDraw.Draw(out).rectangle((MARKER_COLUMNS.start, MARKER_ROWS.start,
                                   MARKER_COLUMNS.stop - 1, MARKER_ROWS.stop - 1), fill=1)
    return out


class LightSensors:
    """Every station's light sensor, as the rising edges it saw (kernel time, ns): fed by any
    source through :meth:`rise`, from any thread."""

    def __init__(self) -> None:
        self._edges: dict[int, deque[int]] = {}
        self._lock = threading.Lock()
        self._pins: list[SensorPin] = []

    def rise(self, station: int, t_ns: int) -> None:
        """Station ``station``'s sensor went high at ``t_ns``: its marker lit."""
        with self._lock:
            self._edges.setdefault(station, deque(maxlen=EDGES_KEPT)).append(t_ns)

    def edges(self, station: int) -> tuple[int, ...]:
        """The rising edges kept of ``station``'s sensor, in the order they came."""
        with self._lock:
            return tuple(self._edges.get(station, ()))

    def lit_after(self, station: int, since_ns: int, wait_ns: int = LIGHT_WAIT_NS) -> int | None:
        """The first time ``station``'s marker lit at or after ``since_ns``, within ``wait_ns``."""
        return min((t for t in self.edges(station) if since_ns <= t < since_ns + wait_ns), default=None)

    def light_onsets(self, stamped: dict[int, int]) -> dict[int, int]:
        """Station -> its light onset, for every stamped station whose sensor saw it."""
        out = {}
        for station, since in stamped.items():
            lit = self.lit_after(station, since)
            if lit is not None:
                out[station] = lit
        return out

    def read_pins(self, pins: dict[int, int], pin_factory) -> None:
        """Read the sensors on ``pins`` (station index -> GPIO) in this process, through
        gpiozero: the fallback, ``timing.gpio_watermark = "bound"``."""
        self._pins += [SensorPin(pin, station, self.rise, pin_factory) for station, pin in sorted(pins.items())]

    def close(self) -> None:
        for pin in self._pins:
            pin.close()


class SensorPin(TimedPin):
    """A sensor read in this process through gpiozero (the fallback): its rising edges, stamped
    with the pin's ticks (the kernel's line-event time with lgpio), go to ``rise``. Pulled up
    (see the module doc), so gpiozero calls the line active when low: a rising edge is the
    pin going inactive."""

    def __init__(self, pin: int, station: int, rise: Callable[[int, int], None], pin_factory) -> None:
        self.station = station
        self._rise = rise
        super().__init__(pin, pin_factory)

    def changed(self, active: bool, t_ns: int) -> None:
        if not active:
            self._rise(self.station, t_ns)


def light_sensors(pins: dict[int, int], pin_factory) -> LightSensors:
    """The sensors read in this process (the fallback), station index -> GPIO pin: gpiozero
    pins feeding the store."""
    store = LightSensors()
    store.read_pins(pins, pin_factory)
    return store
