"""Light sensors: when each station's panel really lit up, from a sensor over a marker on it.

A panel shows what it took at its own row scan, up to a frame after the display-on command the
box stamps (``bench/busmodel.py``, :class:`~bench.busmodel.Scan`). A station can have a sensor
(a phototransistor and a comparator, ``hardware/BUILD.md``) over a marker that every reveal
lights on its panel (:func:`marked`): the comparator's output rises when the marker lights, and
the kernel stamps that edge like a button's (gpiozero hands the pin's ticks to
``_fire_events``; with the lgpio factory the kernel's CLOCK_MONOTONIC line-event time).

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
from typing import Iterable

from gpiozero import DigitalInputDevice
from PIL import Image, ImageDraw

MARKER_ROWS = range(14, 38)
"""The rows of the reveals' stimulus: Triangle's 0, drawn three times its size in the band
(``companion/screens/triangle.py``: ``BAND_Y + 2``, three 8-row glyph heights), which also
covers the closest game's question (rows 14-25)."""
MARKER_COLUMNS = range(124, 128)
"""Four columns at the right edge (0.9 mm on a 0.96-inch panel), where no reveal draws."""
LIGHT_WAIT_NS = 30_000_000
"""How long after its stamped onset a station's light may come (its edge time): two of the
slowest frames a supported panel has even at luma's settings (12.7 ms, ``bench/busmodel.py``),
and some; an edge later than that is not this reveal's. The daemon waits this long after the
last stamp, plus the GPIO latency bound for the edge to reach it, before it reports a reveal."""
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


class LightSensor(DigitalInputDevice):
    """One station's sensor: active (high) while its marker is lit. Keeps its rising edges'
    kernel times; gpiozero calls ``_fire_events`` from its callback thread."""

    def __init__(self, pin: int, station: int, pin_factory) -> None:
        self.station = station
        self.edges: deque[int] = deque(maxlen=EDGES_KEPT)
        self._lock = threading.Lock()
        super().__init__(pin, pull_up=False, bounce_time=None, pin_factory=pin_factory)

    def _fire_events(self, ticks, new_active) -> None:
        old = self._last_active
        super()._fire_events(ticks, new_active)
        if new_active and old is not None and not old:
            with self._lock:
                self.edges.append(round(ticks * 1e9))

    def lit_after(self, since_ns: int, wait_ns: int = LIGHT_WAIT_NS) -> int | None:
        """The first time the marker lit at or after ``since_ns``, within ``wait_ns``."""
        with self._lock:
            return min((t for t in self.edges if since_ns <= t < since_ns + wait_ns), default=None)


class BoardLightSensor:
    """One station's sensor on a button board channel: the board stamps its rises and the
    daemon's loop adds them, on the daemon's clock, through :meth:`LightSensors.rise`."""

    def __init__(self, station: int) -> None:
        self.station = station
        self.edges: deque[int] = deque(maxlen=EDGES_KEPT)
        self._lock = threading.Lock()

    lit_after = LightSensor.lit_after

    def close(self) -> None:
        """Nothing to release: the board owns the input."""


class LightSensors:
    """Every station's sensor, by station index."""

    def __init__(self, sensors: Iterable[LightSensor | BoardLightSensor]) -> None:
        self.sensors = {s.station: s for s in sensors}

    def rise(self, station: int, t_ns: int) -> None:
        """``station``'s sensor saw its marker light at ``t_ns`` (the daemon's clock)."""
        sensor = self.sensors[station]
        with sensor._lock:
            sensor.edges.append(t_ns)

    def light_onsets(self, stamped: dict[int, int]) -> dict[int, int]:
        """Station -> its light onset, for every stamped station whose sensor saw it."""
        out = {}
        for station, since in stamped.items():
            sensor = self.sensors.get(station)
            lit = None if sensor is None else sensor.lit_after(since)
            if lit is not None:
                out[station] = lit
        return out

    def close(self) -> None:
        for sensor in self.sensors.values():
            sensor.close()


def light_sensors(pins: dict[int, int], pin_factory, on_board: Iterable[int] = ()) -> LightSensors:
    """The sensors of the stations that have one: station index -> GPIO pin, and the stations
    whose sensor is on a button board channel."""
    return LightSensors([*(LightSensor(pin, station, pin_factory) for station, pin in sorted(pins.items())),
                         *(BoardLightSensor(station) for station in sorted(on_board))])
