"""The simulator's light sensors: its panels light as real ones would, from the scan model.

The simulator's panels are luma's dummy devices, which show a frame the instant they take it;
a real panel lights it at its own row scan, up to a frame later
(:mod:`companion.adapters.panelscan`). With light sensors (``light_sensor`` on a profile's
stations, or ``companion sim --light-sensors``) the simulator gives every station a sensor over
a modelled panel: each its own oscillator (Fosc drawn from the datasheet's range at the box's
panel clock) and phase, kept for the session as a real panel's runs on. Every reveal then hands
each station's rising edge, at its stamped onset plus that panel's modelled lag, to the box's
light sensors (:meth:`~companion.adapters.lightsensor.LightSensors.rise`, the path a real
sensor's edge takes), and the race times each player from their panel's light.

The model knows when a panel will light as soon as it took the display-on command, so the edge
is handed over then, with its modelled time: the race reads it after the light's wait, as it
reads a real sensor's.
"""

from __future__ import annotations

import random
from typing import Callable

from PIL import Image

from ..adapters.displays import DisplayWriter
from ..adapters.framepack import PANEL_CLOCK
from ..adapters.lightsensor import MARKER_ROWS, LightSensors
from ..adapters.panelscan import ScannedPanels
from ..profile import Profile


class ScanLitWriter(DisplayWriter):
    """A display writer whose panels light as the scan model draws them: each reveal's light,
    per station, goes to ``sensors``."""

    def __init__(self, devices: list, sensors: LightSensors, panels: ScannedPanels, **kwargs) -> None:
        super().__init__(devices, **kwargs)
        self.sensors = sensors
        self.panels = panels

    def reveal(self, frames: dict[int, Image.Image], on_shown: Callable[[dict[int, int]], None] | None = None) -> None:
        def shown(onsets: dict[int, int]) -> None:
            for station, t_ns in self.panels.light_ns(onsets, MARKER_ROWS).items():
                self.sensors.rise(station, t_ns)
            if on_shown is not None:
                on_shown(onsets)

        super().reveal(frames, shown)


def scanned_panels(profile: Profile, seed: int | None = None) -> ScannedPanels:
    """The profile's panels as the model draws them, at the box's panel clock (``seed``: the
    same panels every run)."""
    return ScannedPanels({i: st.display.driver for i, st in enumerate(profile.stations)}, PANEL_CLOCK,
                         random.Random(seed))
