"""hardware/BUILD.md is written by hand, so its wiring table and the pins it suggests for station
lights are checked against the default profile they describe: a maker wires from the document."""

from __future__ import annotations

import re
from pathlib import Path

from companion.diagram import pin_name
from companion.arbiter.inputs import KEYS
from companion.profile import I2C_PINS, load_profile

ROOT = Path(__file__).resolve().parent.parent
BUILD = (ROOT / "hardware" / "BUILD.md").read_text(encoding="utf-8")
DEFAULT = load_profile(ROOT / "hardware" / "profiles" / "mux-3.toml")


def wiring_rows() -> dict[int, list[str]]:
    """Station number -> the cells after it in BUILD.md's wiring table."""
    rows = {}
    for line in BUILD.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0].isdigit() and len(cells) == 6:
            rows[int(cells[0])] = cells[1:]
    return rows


def test_the_wiring_table_is_the_default_profile():
    rows = wiring_rows()
    assert sorted(rows) == list(range(1, len(DEFAULT.stations) + 1))
    for number, st in enumerate(DEFAULT.stations, start=1):
        channel = st.display.mux_channel
        assert rows[number] == [pin_name(st.pins[key]) for key in KEYS] + [f"TCA9548A SD{channel}/SC{channel}"]


def test_the_suggested_light_pins_are_free_in_the_default_build():
    used = {gpio for st in DEFAULT.stations for gpio in st.pins.values()} | {DEFAULT.buzzer_pin} | set(I2C_PINS)
    sentence = BUILD[BUILD.index("**Station lights**"):BUILD.index("**I2C on**")]
    gpios, pins = re.search(r"GPIO ([\d, and]+?) \(pins ([\d, and]+)\)", sentence).groups()
    suggested = [int(g) for g in re.findall(r"\d+", gpios)]
    assert len(suggested) == len(DEFAULT.stations) and not used & set(suggested)
    assert [pin_name(g) for g in suggested] == [f"GPIO {g} (pin {p})" for g, p in zip(suggested, re.findall(r"\d+", pins))]


def test_the_suggested_light_sensor_pins_are_free_beside_the_lights():
    used = {gpio for st in DEFAULT.stations for gpio in st.pins.values()} | {DEFAULT.buzzer_pin} | set(I2C_PINS)
    lights = BUILD[BUILD.index("**Station lights**"):BUILD.index("**Light sensors**")]
    leds = {int(g) for g in re.findall(r"\d+", re.search(r"GPIO ([\d, and]+?) \(pins", lights).group(1))}
    sentence = BUILD[BUILD.index("**Light sensors**"):BUILD.index("**I2C on**")]
    gpios, pins = re.search(r"GPIO ([\d, and]+?) \(pins\s+([\d, and]+)\)", sentence).groups()
    suggested = [int(g) for g in re.findall(r"\d+", gpios)]
    assert len(suggested) == len(DEFAULT.stations) and not (used | leds) & set(suggested)
    assert [pin_name(g) for g in suggested] == [f"GPIO {g} (pin {p})" for g, p in zip(suggested, re.findall(r"\d+", pins))]


def test_the_suggested_board_sensor_pins_are_free_on_the_default_board_and_become_the_channels_named():
    from firmware_standin import module

    config = module("config")
    sentence = BUILD[BUILD.index("**Light sensors on the button board**"):BUILD.index("**I2C on**")]
    pins = [int(g) for g in re.search(r"GP(\d+), GP(\d+) and GP(\d+) \(pins", sentence).groups()]
    assert not set(pins) & set(config.CHANNEL_PINS + config.LED_PINS)
    channels = [len(config.CHANNEL_PINS) + i for i in range(len(pins))]
    assert f"SENSOR_CHANNELS = ({', '.join(map(str, channels))})" in sentence
    assert f"`light_sensor = {{ channel = {channels[0]} }}`" in sentence
