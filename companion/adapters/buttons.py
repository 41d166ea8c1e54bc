"""Station buttons on GPIO through gpiozero, reporting each edge with the pin's own timestamp.

``Button.when_pressed`` gets no time, so :class:`TimedPin` hooks ``_fire_events``, where
gpiozero hands over the pin-level edge ticks (with the lgpio factory: the kernel's
CLOCK_MONOTONIC line-event time, taken in the interrupt). ``bounce_time`` stays None because
lgpio's debounce reports the time the line settled, not the first edge; our own
:class:`~companion.arbiter.debounce.Debouncer` keeps the first edge. Buttons are active-low with the
Pi's internal pull-ups.

It builds on ``DigitalInputDevice`` rather than ``Button``: every gpiozero ``Button`` runs a
hold-detection thread that wakes ten times a second, which for 24 buttons would be the idle
box's main cost; stuck buttons are our debouncer's job.
"""

from __future__ import annotations

from typing import Callable

from gpiozero import DigitalInputDevice

from ..arbiter.inputs import KEYS, InputEvent
from ..profile import Profile

EdgeCallback = Callable[[InputEvent], None]


class TimedPin(DigitalInputDevice):
    """A GPIO input with the Pi's pull-up, active when low, that hands every change to
    :meth:`changed` with the pin's time of it (called in gpiozero's callback thread)."""

    def __init__(self, pin: int, pin_factory) -> None:
        super().__init__(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)

    def _fire_events(self, ticks, new_active) -> None:
        old = self._last_active
        super()._fire_events(ticks, new_active)
        if old is not None and old != new_active:
            self.changed(bool(new_active), round(ticks * 1e9))

    def changed(self, active: bool, t_ns: int) -> None:
        raise NotImplementedError


class StationButton(TimedPin):
    """One station key. ``on_edge`` runs in gpiozero's callback thread: it must only enqueue."""

    def __init__(self, pin: int, station: int, key: str, on_edge: EdgeCallback, pin_factory) -> None:
        self.station = station
        self.key = key
        self._on_edge = on_edge
        super().__init__(pin, pin_factory)

    def changed(self, active: bool, t_ns: int) -> None:
        self._on_edge(InputEvent(self.station, self.key, active, t_ns, "gpio"))


def station_buttons(profile: Profile, pin_factory, on_edge: EdgeCallback) -> list[StationButton]:
    """Every station key the profile wires to GPIO."""
    return [
        StationButton(st.pins[key], index, key, on_edge, pin_factory)
        for index, st in enumerate(profile.stations)
        for key in KEYS
        if key in st.pins
    ]
