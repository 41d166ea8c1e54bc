"""One function builds every adapter from a profile, with the pin factory passed in (never the
process-wide ``Device.pin_factory``)."""

from __future__ import annotations

from dataclasses import dataclass

from .adapters.buttons import EdgeCallback, StationButton, station_buttons
from .adapters.buzzer import Buzzer
from .adapters.displays import Buses, DisplayWriter, display_openers
from .profile import Profile


@dataclass
class Box:
    profile: Profile
    pin_factory: object
    buttons: list[StationButton]
    displays: DisplayWriter
    buzzer: Buzzer | None
    buses: Buses | None = None

    def pin(self, station: int, key: str):
        """The pin object behind a station key (in the mock backend, tests drive it)."""
        return self.pin_factory.pin(self.profile.stations[station].pins[key])

    def close(self) -> None:
        for button in self.buttons:
            button.close()
        if self.buzzer is not None:
            self.buzzer.close()
        self.displays.close()
        if self.buses is not None:
            self.buses.close()


def pin_factory_for(profile: Profile):
    if profile.backend == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    from gpiozero.pins.lgpio import LGPIOFactory

    return LGPIOFactory()


def build_box(profile: Profile, on_edge: EdgeCallback, pin_factory=None) -> Box:
    factory = pin_factory or pin_factory_for(profile)
    buttons = station_buttons(profile, factory, on_edge)
    buzzer = Buzzer(profile.buzzer_pin, factory) if profile.buzzer_pin is not None else None
    buses = Buses()
    return Box(profile, factory, buttons, DisplayWriter(openers=display_openers(profile, buses)), buzzer, buses)
