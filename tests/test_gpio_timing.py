"""Buttons on gpiozero's mock pins through the daemon: first-edge times, no pin-order bias,
stuck buttons. The daemon is stepped by hand (no loop running), on the pins' own clock."""

from dataclasses import replace
from pathlib import Path

import gpiozero.pins.mock
import pytest
from PIL import Image

from companion.daemon import Daemon
from companion.profile import Timing, load_profile
from companion.arbiter.race import Race

from helpers import MS, FakeClock

ROOT = Path(__file__).parent.parent
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"
WINDOW_NS = 10_000_000


class RaceReferee:
    """The smallest referee: one race on every station's slap, open from the start."""

    def __init__(self, stations: int) -> None:
        self.race = Race(0, WINDOW_NS, range(stations))
        self.handled = []
        self.result = None
        self.cues, self.version = [], 0

    def handle(self, event):
        self.handled.append(event)
        self.race.press(event)

    def tick(self, now_ns, watermark_ns):
        self.result = self.result or self.race.decide(watermark_ns)

    def stuck(self, station, key):
        self.handled.append(("stuck", station, key))

    def wakeup_ns(self):
        return None

    def screen(self, station):
        return Image.new("1", (128, 64))


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    """The pins' clock, simulated: edges are exactly as far apart as a test says."""
    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    return clock


@pytest.fixture
def daemon_with(request):
    made = []

    def make(timing=Timing()):
        profile = replace(load_profile(MOCK3), timing=timing)
        referee = RaceReferee(len(profile.stations))
        daemon = Daemon(profile, referee=referee)
        made.append(daemon)
        return daemon, referee

    yield make
    for daemon in made:
        daemon.close()


def test_contact_bounce_keeps_the_first_edge_time(daemon_with, clock):
    daemon, referee = daemon_with()
    pin = daemon.box.pin(0, "slap")
    pin.drive_low()
    first = pin._last_change
    for _ in range(3):        # bounce, all within the 5 ms debounce window
        clock.ns += MS // 2
        pin.drive_high()
        clock.ns += MS // 2
        pin.drive_low()
    daemon.step(clock.ns)
    presses = [e for e in referee.handled if e.pressed]
    assert len(presses) == 1
    assert presses[0].t_ns == round(first * 1e9)


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_two_pins_driven_in_one_call_tie_whatever_the_pin_order(daemon_with, clock, order):
    daemon, referee = daemon_with()
    pins = [daemon.box.pin(s, "slap") for s in (0, 1)]  # GPIO 4 and 5
    for pin in (pins if order == "ascending" else pins[::-1]):
        pin.drive_low()
    bound_ns = round(Timing().gpio_latency_ms * 1e6)  # a race waits for GPIO presses still on their way
    later = clock.ns + WINDOW_NS + bound_ns + 5_000_000
    daemon.step(later)
    assert referee.result is not None
    assert referee.result.winners == frozenset({0, 1}) and referee.result.tie


def test_a_button_held_down_is_reported_stuck_and_cleared_on_release(daemon_with):
    daemon, referee = daemon_with(Timing(stuck_after_s=1.0))
    pin = daemon.box.pin(2, "ok")
    pin.drive_low()
    pressed_ns = round(pin._last_change * 1e9)
    daemon.step(pressed_ns + 900_000_000)
    assert ("stuck", 2, "ok") not in referee.handled
    daemon.step(pressed_ns + 1_000_000_001)
    assert ("stuck", 2, "ok") in referee.handled
