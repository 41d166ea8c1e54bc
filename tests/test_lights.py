"""Station lights: lit for the race winner, blinking for a tie, off otherwise; on gpiozero's
mock pins, over the button board's LEDS message, and as a lamp in the simulator."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from companion.adapters.lights import StationLights
from companion.board.frames import Leds
from companion.arbiter.inputs import InputEvent
from companion.profile import ProfileError, load_profile, parse_profile
from companion.table import Table

from helpers import MS, Clock, tap, wait_until

ROOT = Path(__file__).parent.parent
GOOD = (ROOT / "tests" / "test_profile.py").read_text().split('GOOD = """\\\n')[1].split('"""')[0]


def test_a_station_led_is_a_checked_gpio_pin(tmp_path):
    text = GOOD.replace('display = { driver = "ssd1306" }', 'display = { driver = "ssd1306" }\nled = 20')
    assert parse_profile(__import__("tomllib").loads(text)).stations[0].led == 20
    clash = GOOD.replace('display = { driver = "ssd1306" }', 'display = { driver = "ssd1306" }\nled = 17')
    with pytest.raises(ProfileError) as e:
        parse_profile(__import__("tomllib").loads(clash))
    assert e.value.problems == ["stations[1].led: GPIO 17 is already used by stations[1].pins.left"]
    i2c = GOOD.replace('display = { driver = "ssd1306" }', 'display = { driver = "ssd1306" }\nled = 3')
    with pytest.raises(ProfileError) as e:
        parse_profile(__import__("tomllib").loads(i2c))
    assert "stations[1].led: GPIO 3 is reserved" in e.value.problems[0]


def test_mock_pins_follow_on_blink_and_off():
    factory = MockFactory()
    lights = StationLights({0: 20, 2: 21}, factory)
    a, c = factory.pin(20), factory.pin(21)
    lights.show(("on", "off", "off"))
    assert a.state == 1 and c.state == 0
    lights.show(("off", "off", "blink"))
    assert a.state == 0
    wait_until(lambda: c.state == 1)                    # it blinks (gpiozero's own thread)
    wait_until(lambda: c.state == 0)
    lights.show(("off", "off", "off"))
    assert c.state == 0
    lights.close()


def test_board_leds_are_one_mask_and_a_blink_is_resent():
    sent: list[Leds] = []
    lights = StationLights({}, None, {0: 0, 1: 4, 2: 8}, sent.append)
    lights.show(("on", "off", "blink"))
    assert sent[-1] == Leds(1 << 0 | 1 << 8)
    assert lights.next_blink_s() == 0.25
    lights.blink_step()
    assert sent[-1] == Leds(1 << 0)
    lights.show(("off", "on", "off"))
    assert sent[-1] == Leds(1 << 4) and lights.next_blink_s() is None


def triangle_to_race(stations: int):
    table = Table(("Ana", "Ben", "Cy", "Dee")[:stations], None, seed=3)
    clock = Clock()
    while table.lobby.game.name != "triangle":
        tap(table, 0, "right", clock.next())
    tap(table, 0, "ok", clock.next())
    if table.seating is not None:                       # Ben, Cy and Dee play; Ana watches
        for s in (1, 2, 3):
            tap(table, s, "slap", clock.next())
        tap(table, 1, "ok", clock.next())
    while table.game is None:
        tap(table, 1, "ok", clock.next())
    opens = table.game.opens_ns
    table.tick(opens, opens)
    return table, opens


def test_the_winner_is_lit_on_the_winners_station_and_a_tie_blinks():
    table, opens = triangle_to_race(4)
    assert table.lights() == ("off",) * 4
    table.handle(InputEvent(3, "slap", True, opens + 100 * MS))      # Dee, seat 3, slaps first
    table.handle(InputEvent(1, "slap", True, opens + 200 * MS))
    t = opens + 400 * MS
    table.tick(t, t)
    assert table.game.claimer == 2 and table.lights() == ("off", "off", "off", "on")
    table, opens = triangle_to_race(3)
    table.handle(InputEvent(0, "slap", True, opens + 100 * MS))
    table.handle(InputEvent(2, "slap", True, opens + 103 * MS))      # within the 10 ms tie window
    t = opens + 400 * MS
    table.tick(t, t)
    assert table.lights() == ("blink", "off", "blink")
    tap(table, 1, "ok", t / MS + 100)                                # the next round counts down
    assert table.lights() == ("off",) * 3


def test_the_simulator_draws_each_station_lamp(tmp_path):
    pytest.importorskip("pygame")
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    from companion.sim.app import Simulator, players_profile
    from companion.sim.look import LAMP_OFF, LAMP_ON

    sim = Simulator(players_profile(3), tmp_path, scale=1)
    try:
        window = sim.window
        sim.daemon.box.lights.show(("off", "on", "blink"))
        window.draw()

        def ring(station):
            lamp = window.layout.stations[station].lamp
            return tuple(window.surface.get_at((lamp.centerx, lamp.y + 2)))[:3]

        assert ring(0) == LAMP_OFF and ring(1) == LAMP_ON
        phases = {window.lamp_lit(2, now) for now in (0.1, 0.35)}
        assert phases == {True, False}
    finally:
        sim.close()


def test_the_daemon_lights_the_winners_led_on_mock_pins(tmp_path):
    from companion.daemon import Daemon

    daemon = Daemon(load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml"), tmp_path, seed=3)
    try:
        table, factory = daemon.table, daemon.box.pin_factory
        leds = [factory.pin(st.led) for st in daemon.profile.stations]
        clock = Clock()
        while table.lobby.game.name != "triangle":
            tap(table, 0, "right", clock.next())
        while table.game is None:
            tap(table, 0, "ok", clock.next())
        opens = table.game.opens_ns
        table.tick(opens, opens)
        table.handle(InputEvent(1, "slap", True, opens + 100 * MS))
        t = opens + 400 * MS
        table.tick(t, t)
        daemon.saving.wait()  # as the step does: nothing is shown before its line is on disk
        daemon._light(t)  # the step's last part (the whole step plays cues: it needs a loop)
        assert [pin.state for pin in leds] == [0, 1, 0]
    finally:
        daemon.close()


def test_the_daemon_turns_a_blinking_board_led_over_and_wakes_for_it(tmp_path):
    from companion.daemon import Daemon

    daemon = Daemon(load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml"), tmp_path)
    sent: list[Leds] = []
    daemon.box.lights.close()
    daemon.box.lights = StationLights({}, None, {0: 0, 1: 1, 2: 2}, sent.append)
    daemon.table.lights = lambda: ("blink", "off", "on")  # a tie's light, as a table would say
    try:
        t = 10**12
        daemon._light(t)
        assert sent == [Leds(0b101)]
        assert daemon._next_wake_s(t) <= 0.25
        daemon._light(t + 100 * MS)
        assert sent == [Leds(0b101)]                          # not due yet
        daemon._light(t + 250 * MS)
        assert sent[-1] == Leds(0b100)                        # the blink's dark half
        daemon._light(t + 500 * MS)
        assert sent[-1] == Leds(0b101)
    finally:
        daemon.close()
