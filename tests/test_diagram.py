"""The wiring picture and table made from a profile: every station key on its own header pin,
every display's route, the shared parts; the committed picture of the default build is current."""

from __future__ import annotations

import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

from companion.cli import main
from companion.diagram import HEADER, HEADER_PIN, wires, wiring_svg, wiring_table
from companion.profile import load_profile, parse_profile

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "hardware" / "profiles"
SVG = "{http://www.w3.org/2000/svg}"


def test_the_header_map_has_every_gpio_once():
    assert sorted(HEADER_PIN) == list(range(28))
    assert len(HEADER) == 40 and HEADER_PIN[2] == 3 and HEADER_PIN[18] == 12 and HEADER_PIN[21] == 40


def test_every_station_key_is_on_its_header_pin_in_table_and_picture():
    profile = load_profile(PROFILES / "mux-3.toml")
    table = wiring_table(profile)
    texts = [t.text for t in ET.fromstring(wiring_svg(profile)).iter(f"{SVG}text")]
    for i, st in enumerate(profile.stations):
        for key, gpio in st.pins.items():
            assert f"| {i + 1}: {st.name} | {key} button | GPIO {gpio} (pin {HEADER_PIN[gpio]}); other leg to GND |" in table
            assert f"GPIO {gpio}: {st.name} {key}" in texts
        assert f"TCA9548A (0x70) channel {i} (SD{i}/SC{i}), address 0x3C" in table
    assert "| buzzer | NPN base (through 1 kOhm) | GPIO 18 (pin 12) |" in table
    assert "GPIO 2: I2C-1 SDA" in texts and "GPIO 3: I2C-1 SCL" in texts


def test_board_stations_and_software_buses_are_drawn_too():
    profile = load_profile(PROFILES / "six-with-board.toml")
    rows = wires(profile)
    assert [w.to for w in rows if w.part == "4: P4" and w.what == "slap button"] == [
        "button board channel 0; other leg to GND"]
    assert [w.gpio for w in rows if w.part == "I2C"] == [2, 3, 23, 24, 7, 8]
    assert any(w.part == "button board" for w in rows)
    ET.fromstring(wiring_svg(profile))  # well-formed


def test_the_diagram_command_writes_both_and_the_committed_ones_are_current(tmp_path, capsys):
    assert main(["profile", "diagram", str(PROFILES / "mux-3.toml"), "--out", str(tmp_path)]) == 0
    for name in ("wiring.svg", "wiring.md"):
        assert (tmp_path / name).read_text() == (ROOT / "hardware" / "wiring" / name).read_text(), (
            f"hardware/wiring/{name} is stale: companion profile diagram hardware/profiles/mux-3.toml --out hardware/wiring")
    assert main(["profile", "diagram", str(tmp_path / "missing.toml"), "--out", str(tmp_path)]) == 2


def test_a_light_sensor_is_wired_on_its_header_pin():
    text = (PROFILES / "mux-3.toml").read_text(encoding="utf-8")
    for station, sensor in (("P1", 9), ("P2", 10), ("P3", 11)):
        text = text.replace(f'name = "{station}"\n', f'name = "{station}"\nlight_sensor = {sensor}\n')
    profile = parse_profile(tomllib.loads(text))
    table = wiring_table(profile)
    texts = [t.text for t in ET.fromstring(wiring_svg(profile)).iter(f"{SVG}text")]
    assert "| 1: P1 | light sensor | GPIO 9 (pin 21) from the comparator's output (high when lit)" in table
    assert "GPIO 10: P2 light sensor" in texts and "GPIO 11: P3 light sensor" in texts


def test_a_light_sensor_on_a_board_channel_is_wired_to_the_board():
    text = (PROFILES / "six-with-board.toml").read_text(encoding="utf-8")
    profile = parse_profile(tomllib.loads(text))
    sensors = {i: 24 + i for i in range(len(profile.stations))}
    for i, st in enumerate(profile.stations):
        text = text.replace(f'name = "{st.name}"\n', f'name = "{st.name}"\nlight_sensor = {{ channel = {sensors[i]} }}\n')
    profile = parse_profile(tomllib.loads(text))
    assert profile.light_channels() == {channel: i for i, channel in sensors.items()}
    table = wiring_table(profile)
    for i, st in enumerate(profile.stations):
        assert (f"| {i + 1}: {st.name} | light sensor | button board channel {sensors[i]} from the comparator's output "
                "(high when lit; in the board's SENSOR_CHANNELS); the phototransistor over the marker") in table
    assert not any(w.gpio for w in wires(profile) if w.what == "light sensor")  # nothing on the Pi's header
    ET.fromstring(wiring_svg(profile))
