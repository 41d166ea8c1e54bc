"""Hardware profiles: the shipped ones load, and every mistake is named by its field, all at once."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from companion.cli import main
from companion.profile import (
    DisplayProfile, Profile, ProfileError, StationProfile, Timing, load_profile, parse_profile,
)

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "hardware" / "profiles").glob("*.toml"))
DEMO = ROOT / "companion" / "demo" / "profile.toml"
BAD_SEVERAL = Path(__file__).parent / "profiles" / "bad-several.toml"

GOOD = """\
name = "Two on the bench"
backend = "mock"

[buzzer]
pin = 18

[[stations]]
name = "Ana"
pins = { slap = 4, left = 17, ok = 27, right = 22 }
display = { driver = "ssd1306" }

[[stations]]
name = "Ben"
pins = { slap = 5, left = 6, ok = 13, right = 19 }
display = { driver = "sh1106", port = 3, address = 0x3D }
"""


def write(tmp_path, text: str, name="box.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(tmp_path, text: str) -> list[str]:
    with pytest.raises(ProfileError) as e:
        load_profile(write(tmp_path, text))
    return e.value.problems


def stations_toml(count: int, first_pin: int = 4, skip=(18,)) -> str:
    pins = iter(p for p in range(first_pin, 28) if p not in skip)
    out = []
    for i in range(count):
        slap, left, ok, right = (next(pins) for _ in range(4))
        out.append(f"[[stations]]\npins = {{ slap = {slap}, left = {left}, ok = {ok}, right = {right} }}\n"
                   f"display = {{ mux_channel = {i} }}\n")
    return "\n".join(out)


# --- shipped profiles ------------------------------------------------------------------------

def test_shipped_profiles_are_there():
    assert {p.name for p in SHIPPED} >= {"gpio-3.toml", "mock-3.toml"}


@pytest.mark.parametrize("path", SHIPPED + [DEMO], ids=lambda p: p.name)
def test_shipped_profile_loads(path):
    profile = load_profile(path)
    assert isinstance(profile, Profile)
    assert profile.backend in ("pi", "mock")
    assert profile.buzzer_pin == 18
    pins = [pin for st in profile.stations for pin in st.pins.values()] + [profile.buzzer_pin]
    assert len(pins) == len(set(pins)), "every pin used once"


def test_gpio_3_profile_values():
    profile = load_profile(ROOT / "hardware" / "profiles" / "gpio-3.toml")
    assert profile.name == "Three stations on GPIO"
    assert profile.backend == "pi"
    assert profile.timing == Timing(5.0, 5.0, 30.0, "reader")
    assert profile.gpio_reader
    assert [s.name for s in profile.stations] == ["P1", "P2", "P3"]
    assert profile.stations[0].pins == {"slap": 4, "left": 17, "ok": 27, "right": 22}
    assert [(s.display.driver, s.display.port, s.display.address) for s in profile.stations] == [
        ("ssd1306", 1, 0x3C), ("ssd1306", 1, 0x3D), ("sh1106", 3, 0x3C)]
    # The third display's i2c-gpio bus uses GPIO 23 and 24: no button may sit there.
    assert not {23, 24} & {pin for s in profile.stations for pin in s.pins.values()}


def test_gpio_buttons_are_read_by_the_reader_on_a_pi_and_in_the_daemon_with_mock_pins(tmp_path):
    assert load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml").gpio_reader is False
    pi = (ROOT / "hardware" / "profiles" / "gpio-3.toml").read_text()
    mock = (ROOT / "hardware" / "profiles" / "mock-3.toml").read_text()
    path = tmp_path / "box.toml"
    for text, reader in ((pi.replace('gpio_watermark = "reader"', ""), True),
                         (pi.replace('gpio_watermark = "reader"', 'gpio_watermark = "bound"'), False),
                         (mock + '\n[timing]\ngpio_watermark = "reader"\n', True)):
        path.write_text(text)
        assert load_profile(path).gpio_reader is reader


def test_mock_3_profile_values():
    profile = load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml")
    assert profile.backend == "mock"
    assert [s.name for s in profile.stations] == ["Ana", "Ben", "Cy"]


def test_good_profile_values_and_defaults(tmp_path):
    profile = load_profile(write(tmp_path, GOOD))
    assert profile == Profile(
        name="Two on the bench", backend="mock", buzzer_pin=18,
        stations=(
            StationProfile("Ana", {"slap": 4, "left": 17, "ok": 27, "right": 22}, DisplayProfile()),
            StationProfile("Ben", {"slap": 5, "left": 6, "ok": 13, "right": 19},
                           DisplayProfile(driver="sh1106", port=3, address=0x3D)),
        ),
        timing=Timing(),
    )


def test_minimal_profile_defaults(tmp_path):
    profile = load_profile(write(tmp_path, stations_toml(2, skip=()), name="bare.toml"))
    assert (profile.name, profile.backend, profile.buzzer_pin) == ("bare", "pi", None)
    assert [s.name for s in profile.stations] == ["P1", "P2"]


@pytest.mark.parametrize("count", [2, 6])
def test_station_count_limits_are_allowed(tmp_path, count):
    assert len(load_profile(write(tmp_path, stations_toml(count, skip=()))).stations) == count


def test_timing_values_are_read_as_numbers(tmp_path):
    profile = load_profile(write(tmp_path, GOOD + "\n[timing]\ndebounce_ms = 0\nstuck_after_s = 2.5\n"
                                                  "gpio_latency_ms = 50\n"))
    assert profile.timing == Timing(debounce_ms=0.0, stuck_after_s=2.5, gpio_latency_ms=50.0)
    assert isinstance(profile.timing.debounce_ms, float)


# --- companion profile check -----------------------------------------------------------------

def test_cli_profile_check_shipped(capsys):
    code = main(["profile", "check", *map(str, SHIPPED)])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == len(SHIPPED)
    for path, line in zip(SHIPPED, lines):
        profile = load_profile(path)
        board = ", button board on /dev/ttyACM0" if profile.board else ""
        assert line == f"{path}: ok ({profile.name}, {len(profile.stations)} stations, backend {profile.backend}{board})"


def test_cli_profile_check_bad_exits_2_naming_every_field(capsys):
    good = SHIPPED[0]
    code = main(["profile", "check", str(BAD_SEVERAL), str(good)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out.startswith(f"{good}: ok (")
    assert err.splitlines() == [
        f"companion: {BAD_SEVERAL}:",
        "  colour: unknown field; known fields are name, backend, buzzer, stations, timing, displays, board, table_screen, gpio, web",
        "  timing.debounce_ms: must be a number from 0 to 50, not 100",
        "  buzzer.pin: must be a PWM-capable pin (12, 13, 18, 19), not 20",
        "  stations[1].pins.right: GPIO 3 is reserved for the displays' I2C bus (GPIO 2 and 3)",
        "  stations[2].pins.ok: GPIO 4 is already used by stations[1].pins.slap",
        "  stations[2].pins.right: missing: every station needs slap, left, ok and right",
        "  stations[2].display.driver: must be one of ssd1306, sh1106, ssd1309, ssd1315, not 'st7735'",
    ]


def test_cli_profile_check_missing_file(tmp_path, capsys):
    path = tmp_path / "nope.toml"
    assert main(["profile", "check", str(path)]) == 2
    assert capsys.readouterr().err == f"companion: {path}:\n  No such file or directory\n"


# --- bad profiles ----------------------------------------------------------------------------

def test_duplicate_pin_names_both_places(tmp_path):
    assert problems(tmp_path, GOOD.replace("slap = 5", "slap = 4")) == [
        "stations[2].pins.slap: GPIO 4 is already used by stations[1].pins.slap"]
    assert problems(tmp_path, GOOD.replace("ok = 27", "ok = 17")) == [
        "stations[1].pins.ok: GPIO 17 is already used by stations[1].pins.left"]


def test_pin_shared_with_the_buzzer(tmp_path):
    assert problems(tmp_path, GOOD.replace("pin = 18", "pin = 13")) == [
        "stations[2].pins.ok: GPIO 13 is already used by buzzer.pin"]


@pytest.mark.parametrize("pin", [2, 3])
def test_i2c_pins_are_reserved(tmp_path, pin):
    assert problems(tmp_path, GOOD.replace("left = 6", f"left = {pin}")) == [
        f"stations[2].pins.left: GPIO {pin} is reserved for the displays' I2C bus (GPIO 2 and 3)"]


@pytest.mark.parametrize("value", ["0", "1", "28", "-4", '"5"', "5.0", "true"])
def test_pin_out_of_range(tmp_path, value):
    shown = {'"5"': "'5'", "true": "True"}.get(value, value)
    assert problems(tmp_path, GOOD.replace("right = 19", f"right = {value}")) == [
        f"stations[2].pins.right: must be a GPIO number from 2 to 27, not {shown}"]


@pytest.mark.parametrize("pin", [4, 20, 26])
def test_buzzer_needs_a_pwm_pin(tmp_path, pin):
    assert problems(tmp_path, GOOD.replace("pin = 18", f"pin = {pin}")) == [
        f"buzzer.pin: must be a PWM-capable pin (12, 13, 18, 19), not {pin}",
        *(["stations[1].pins.slap: GPIO 4 is already used by buzzer.pin"] if pin == 4 else []),
    ]


@pytest.mark.parametrize("pin", [12, 19])
def test_buzzer_on_another_pwm_pin(tmp_path, pin):
    text = GOOD.replace("pin = 18", f"pin = {pin}").replace("right = 19", "right = 20")
    assert load_profile(write(tmp_path, text)).buzzer_pin == pin


@pytest.mark.parametrize("key", ["slap", "left", "ok", "right"])
def test_missing_key(tmp_path, key):
    pins = {"slap": 5, "left": 6, "ok": 13, "right": 19}
    del pins[key]
    inline = ", ".join(f"{k} = {v}" for k, v in pins.items())
    text = GOOD.replace("slap = 5, left = 6, ok = 13, right = 19", inline)
    assert problems(tmp_path, text) == [
        f"stations[2].pins.{key}: missing: every station needs slap, left, ok and right"]


def test_missing_pins_table(tmp_path):
    text = GOOD.replace("pins = { slap = 5, left = 6, ok = 13, right = 19 }\n", "")
    assert problems(tmp_path, text) == [
        f"stations[2].pins.{key}: missing: every station needs slap, left, ok and right"
        for key in ("slap", "left", "ok", "right")]


def test_missing_display(tmp_path):
    text = GOOD.replace('display = { driver = "ssd1306" }\n', "")
    assert problems(tmp_path, text) == ["stations[1].display: missing: every station needs a display"]


def test_unknown_display_driver_lists_allowed(tmp_path):
    text = GOOD.replace('driver = "ssd1306"', 'driver = "st7735"')
    assert problems(tmp_path, text) == [
        "stations[1].display.driver: must be one of ssd1306, sh1106, ssd1309, ssd1315, not 'st7735'"]


@pytest.mark.parametrize("field, value, message", [
    ("address", "0x78", "must be a whole number from 3 to 119, not 120"),
    ("port", "-1", "must be a whole number from 0 to 31, not -1"),
    ("rotate", "4", "must be 0 or 2 (upright or upside down; 1 and 3 would stand the panel on its side), not 4"),
    ("rotate", "1", "must be 0 or 2 (upright or upside down; 1 and 3 would stand the panel on its side), not 1"),
    ("height", "48.0", "must be 64 (every screen is drawn 128x64), not 48.0"),
    ("height", "32", "must be 64 (every screen is drawn 128x64), not 32"),
    ("width", "256", "must be 128 (every screen is drawn 128x64), not 256"),
    ("contrast", "9", "unknown field; known fields are driver, port, address, width, height, rotate, mux_channel"),
])
def test_bad_display_field(tmp_path, field, value, message):
    text = GOOD.replace('driver = "ssd1306" }', f'driver = "ssd1306", {field} = {value} }}')
    assert problems(tmp_path, text) == [f"stations[1].display.{field}: {message}"]


def test_unknown_top_level_field(tmp_path):
    assert problems(tmp_path, 'colour = "red"\n' + GOOD) == [
        "colour: unknown field; known fields are name, backend, buzzer, stations, timing, displays, board, table_screen, gpio, web"]


def test_unknown_station_field_and_bad_name(tmp_path):
    text = GOOD.replace('name = "Ben"', 'name = " "\nseat = 2')
    assert problems(tmp_path, text) == [
        "stations[2].seat: unknown field; known fields are name, pins, channels, display, led, "
        "light_sensor, buzzer_only, phone",
        "stations[2].name: must be a non-empty name, not ' '",
    ]


def test_a_name_longer_than_the_screens_show_is_refused(tmp_path):
    assert problems(tmp_path, GOOD.replace('name = "Ben"', 'name = "Bartholomew"')) == [
        "stations[2].name: must be at most 10 characters (the screens show it whole), "
        "not 'Bartholomew' (11)"]
    assert load_profile(write(tmp_path, GOOD.replace('name = "Ben"', 'name = "Maximilian"'))).stations[1].name == "Maximilian"


def test_unknown_backend(tmp_path):
    assert problems(tmp_path, GOOD.replace('"mock"', '"arduino"')) == [
        "backend: must be one of mock, pi, not 'arduino'"]


@pytest.mark.parametrize("stations", [
    "",  # no [[stations]] at all
    stations_toml(1),
    "stations = 3\n",
])
def test_wrong_number_of_stations(tmp_path, stations):
    text = 'name = "x"\nbackend = "mock"\n' + stations
    assert "stations: must be a list of 2 to 33 [[stations]] tables" in problems(tmp_path, text)


def test_eighteen_stations_only_the_count_is_wrong(tmp_path):
    text = 'backend = "mock"\n[[stations]]\npins = { slap = 4, left = 5, ok = 6, right = 7 }\ndisplay = {}\n' + \
        "\n".join("[[stations]]\nbuzzer_only = true\npins = { slap = 25 }\n" for _ in range(17))
    found = problems(tmp_path, text)
    # Every station is still checked: the shared slap pin is reported for stations 3 to 18.
    assert found[:-1] == [f"stations[{i}].pins.slap: GPIO 25 is already used by stations[2].pins.slap"
                          for i in range(3, 19)]
    assert found[-1] == ("stations: at most 17 stations are wired (GPIO or the button board); "
                         "more players join on phones (phone = true)")


def test_a_quiz_night_of_a_host_and_32_players_16_of_them_on_phones(tmp_path):
    host = ('backend = "mock"\n[web]\nenabled = true\n[[stations]]\nname = "Host"\n'
            'pins = { slap = 20, left = 21, ok = 22, right = 23 }\ndisplay = {}\n')
    wired = "".join(f"[[stations]]\nbuzzer_only = true\npins = {{ slap = {pin} }}\n" for pin in range(4, 20))
    phones = "".join(f"[[stations]]\nname = \"Ph{i}\"\nphone = true\nbuzzer_only = true\n" for i in range(16))
    profile = load_profile(write(tmp_path, host + wired + phones))
    assert len(profile.stations) == 33 and len(profile.phone_stations()) == 16


BEN = 'pins = { slap = 5, left = 6, ok = 13, right = 19 }\ndisplay = { driver = "sh1106", port = 3, address = 0x3D }'


def test_a_buzzer_only_seat_is_a_bare_slap_button_with_a_light(tmp_path):
    station = load_profile(write(tmp_path, GOOD.replace(BEN, "buzzer_only = true\npins = { slap = 5 }\nled = 6"))).stations[1]
    assert station.buzzer_only and station.pins == {"slap": 5} and station.led == 6


@pytest.mark.parametrize("seat, message", [
    ("buzzer_only = true\npins = { slap = 5, ok = 6 }",
     "stations[2].pins.ok: a buzzer-only seat has its slap button alone: remove this, or buzzer_only to wire "
     "a full station"),
    ("buzzer_only = true\npins = { ok = 6 }", "stations[2].pins.slap: missing: a buzzer-only seat needs slap"),
    ("buzzer_only = true\npins = { slap = 5 }\ndisplay = {}",
     "stations[2].display: a buzzer-only seat has no display: remove it, or buzzer_only"),
    ("buzzer_only = 1\npins = { slap = 5, left = 6, ok = 13, right = 19 }\ndisplay = {}",
     "stations[2].buzzer_only: must be true or false, not 1"),
])
def test_a_buzzer_only_seat_is_checked_with_clear_errors(tmp_path, seat, message):
    assert message in problems(tmp_path, GOOD.replace(BEN, seat))


def test_the_first_station_cannot_be_a_bare_buzzer(tmp_path):
    ana = 'pins = { slap = 4, left = 17, ok = 27, right = 22 }\ndisplay = { driver = "ssd1306" }'
    assert problems(tmp_path, GOOD.replace(ana, "buzzer_only = true\npins = { slap = 4 }")) == [
        "stations[1].buzzer_only: the first station needs a panel and buttons: it hosts a quiz when nobody "
        "else takes the host's seat, and walks the lobby"]


@pytest.mark.parametrize("key, value, message", [
    ("debounce_ms", "100", "must be a number from 0 to 50, not 100"),
    ("debounce_ms", "-1", "must be a number from 0 to 50, not -1"),
    ("stuck_after_s", "0.1", "must be a number from 0.5 to 60, not 0.1"),
    ("stuck_after_s", '"5"', "must be a number from 0.5 to 60, not '5'"),
    ("gpio_latency_ms", "true", "must be a number from 0 to 50, not True"),
    ("debounce", "5", "unknown field; known fields are debounce_ms, stuck_after_s, gpio_latency_ms, gpio_watermark"),
    ("gpio_watermark", '"guess"', "must be reader or bound (how races know every GPIO press has arrived), not 'guess'"),
])
def test_bad_timing_value(tmp_path, key, value, message):
    assert problems(tmp_path, GOOD + f"\n[timing]\n{key} = {value}\n") == [f"timing.{key}: {message}"]


def test_timing_not_a_table(tmp_path):
    assert problems(tmp_path, "timing = 5\n" + GOOD) == ["timing: must be a table"]


def test_not_toml(tmp_path):
    (problem,) = problems(tmp_path, GOOD + "\nname = \n")
    assert problem.startswith("not valid TOML: ")
    assert "line 17" in problem


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "Caf\xe9"\n')
    with pytest.raises(ProfileError) as e:
        load_profile(path)
    assert e.value.problems == ["line 1: not UTF-8 text (byte 12)"]


def test_several_problems_are_reported_at_once(tmp_path):
    text = ('colour = "red"\n' + GOOD
            .replace("pin = 18", "pin = 20")
            .replace("slap = 5", "slap = 4")
            .replace("left = 6", "left = 2")
            .replace('driver = "sh1106"', 'driver = "st7735"')
            + "\n[timing]\nstuck_after_s = 0\n")
    path = write(tmp_path, text)
    with pytest.raises(ProfileError) as e:
        load_profile(path)
    assert e.value.problems == [
        "colour: unknown field; known fields are name, backend, buzzer, stations, timing, displays, board, table_screen, gpio, web",
        "timing.stuck_after_s: must be a number from 0.5 to 60, not 0",
        "buzzer.pin: must be a PWM-capable pin (12, 13, 18, 19), not 20",
        "stations[2].pins.slap: GPIO 4 is already used by stations[1].pins.slap",
        "stations[2].pins.left: GPIO 2 is reserved for the displays' I2C bus (GPIO 2 and 3)",
        "stations[2].display.driver: must be one of ssd1306, sh1106, ssd1309, ssd1315, not 'st7735'",
    ]
    assert str(e.value) == f"{path}:\n" + "\n".join(f"  {p}" for p in e.value.problems)


def test_shipped_bad_profile_file_reports_all(tmp_path):
    with pytest.raises(ProfileError) as e:
        load_profile(BAD_SEVERAL)
    assert len(e.value.problems) == 7
    assert [p.split(":")[0] for p in e.value.problems] == [
        "colour", "timing.debounce_ms", "buzzer.pin", "stations[1].pins.right", "stations[2].pins.ok",
        "stations[2].pins.right", "stations[2].display.driver"]


def test_two_displays_at_the_same_spot_on_a_pi_are_refused(tmp_path):
    text = stations_toml(2, skip=()).replace("mux_channel = 1", "mux_channel = 0")
    with pytest.raises(ProfileError) as e:
        load_profile(write(tmp_path, text))
    assert e.value.problems == [
        "stations[2].display: same bus, address and mux channel as stations[1].display: "
        "give it another address, port or mux_channel"]


def test_displays_settings_are_checked(tmp_path):
    with pytest.raises(ProfileError) as e:
        load_profile(write(tmp_path, GOOD + "\n[displays]\ncontrast = 300\nmux_address = 0x20\nglow = 1\n"))
    assert e.value.problems == [
        "displays.glow: unknown field; known fields are mux_address, contrast, dim_contrast, dim_after_s, i2c_hz",
        "displays.mux_address: must be a whole number from 112 to 119, not 32",
        "displays.contrast: must be a whole number from 1 to 255, not 300",
    ]


def test_the_displays_bus_speed_defaults_to_400khz_and_is_checked(tmp_path):
    assert load_profile(write(tmp_path, GOOD)).displays.i2c_hz == 400_000
    assert load_profile(write(tmp_path, GOOD + "\n[displays]\ni2c_hz = 100_000\n")).displays.i2c_hz == 100_000
    with pytest.raises(ProfileError) as e:
        load_profile(write(tmp_path, GOOD + '\n[displays]\ni2c_hz = "fast"\n'))
    assert e.value.problems == ["displays.i2c_hz: must be a whole number from 10000 to 1000000, not 'fast'"]


# --- button board ----------------------------------------------------------------------------

ON_BOARD = GOOD.replace("pins = { slap = 5, left = 6, ok = 13, right = 19 }",
                        "channels = { slap = 8, left = 9, ok = 10, right = 11 }")
WITH_BOARD = ON_BOARD.replace("[buzzer]", '[board]\nport = "/dev/ttyACM0"\n\n[buzzer]')


def test_a_station_on_the_board_maps_channels(tmp_path):
    profile = load_profile(write(tmp_path, WITH_BOARD))
    assert profile.board.port == "/dev/ttyACM0"
    assert profile.stations[1].pins == {}
    assert profile.stations[1].channels == {"slap": 8, "left": 9, "ok": 10, "right": 11}
    assert profile.board_channels() == {8: (1, "slap"), 9: (1, "left"), 10: (1, "ok"), 11: (1, "right")}
    assert profile.stations[0].channels == {}


def test_channels_need_a_board(tmp_path):
    assert problems(tmp_path, ON_BOARD) == [
        "stations[2].channels: a station on board channels needs a [board] table with its port"]


def test_a_board_no_station_uses(tmp_path):
    text = GOOD.replace("[buzzer]", '[board]\nport = "/dev/ttyACM0"\n\n[buzzer]')
    assert problems(tmp_path, text) == ["board: no station uses the board: give a station channels instead of pins"]


def test_pins_or_channels_not_both(tmp_path):
    text = WITH_BOARD.replace("channels = {", "pins = { slap = 5, left = 6, ok = 13, right = 19 }\nchannels = {")
    assert problems(tmp_path, text) == ["stations[2]: give either pins (GPIO) or channels (button board), not both"]


@pytest.mark.parametrize("value", ["32", "-1", '"a"', "true"])
def test_channel_out_of_range(tmp_path, value):
    text = WITH_BOARD.replace("ok = 10", f"ok = {value}")
    assert problems(tmp_path, text) == [
        f"stations[2].channels.ok: must be a board channel from 0 to 31, not {load_value(value)!r}"]


def load_value(toml_value: str):
    return tomllib.loads(f"v = {toml_value}")["v"]


def test_a_channel_used_twice_names_both_places(tmp_path):
    text = WITH_BOARD.replace("right = 11", "right = 9")
    assert problems(tmp_path, text) == [
        "stations[2].channels.right: channel 9 is already used by stations[2].channels.left"]


def test_board_port_and_fields_are_checked(tmp_path):
    text = WITH_BOARD.replace('port = "/dev/ttyACM0"', "port = 3\nbaud = 115200")
    assert problems(tmp_path, text) == [
        "board.baud: unknown field; known fields are port",
        'board.port: must be the board\'s serial device, e.g. "/dev/ttyACM0", not 3',
    ]


def test_a_board_station_missing_a_key(tmp_path):
    text = WITH_BOARD.replace(", right = 11", "")
    assert problems(tmp_path, text) == [
        "stations[2].channels.right: missing: every station needs slap, left, ok and right"]


@pytest.mark.parametrize("driver", ["ssd1322", "ssd1351", "st7735"])
def test_drivers_the_box_cannot_drive_are_refused(tmp_path, driver):
    text = GOOD.replace('driver = "ssd1306"', f'driver = "{driver}"')
    assert problems(tmp_path, text) == [
        f"stations[1].display.driver: must be one of ssd1306, sh1106, ssd1309, ssd1315, not '{driver}'"]


def test_every_allowed_driver_opens_a_128x64_one_bit_panel_in_luma():
    from luma.core.interface.serial import noop
    from luma.oled import device as oled

    from companion.profile import DRIVERS

    for driver in DRIVERS:
        panel = getattr(oled, driver)(noop(), width=128, height=64, rotate=2)
        assert (panel.size, panel.mode) == ((128, 64), "1"), driver


PI_MUX = """name = "Mux and a direct panel"
backend = "pi"

[[stations]]
pins = { slap = 4, left = 17, ok = 27, right = 22 }
display = { mux_channel = 0 }

[[stations]]
pins = { slap = 5, left = 6, ok = 13, right = 19 }
display = { mux_channel = 1 }

[[stations]]
pins = { slap = 26, left = 16, ok = 20, right = 21 }
display = { %s }
"""


def test_a_direct_panel_at_the_multiplexers_address_is_refused(tmp_path):
    assert problems(tmp_path, PI_MUX % "address = 0x70") == [
        "stations[3].display.address: 0x70 is the multiplexer's address on bus 1 (displays.mux_address): "
        "give the display another address"]


def test_a_direct_panel_at_a_muxed_panels_address_is_refused(tmp_path):
    assert problems(tmp_path, PI_MUX % "address = 0x3C") == [
        "stations[3].display.address: 0x3C on bus 1 is also stations[1].display, behind the multiplexer, "
        "and both would answer: give this display another address or a mux_channel"]


def test_a_direct_panel_beside_the_multiplexer_at_another_address_is_fine(tmp_path):
    profile = load_profile(write(tmp_path, PI_MUX % "address = 0x3D"))
    assert [s.display.mux_channel for s in profile.stations] == [0, 1, None]
    assert load_profile(write(tmp_path, PI_MUX % "address = 0x70, port = 3")).stations[2].display.port == 3


def test_a_display_on_a_software_bus_reserves_its_pins_and_names_its_overlay(tmp_path):
    from companion.profile import boot_config, unknown_buses

    text = PI_MUX % "port = 3"
    profile = load_profile(write(tmp_path, text))
    assert boot_config(profile) == ["dtoverlay=i2c-gpio,bus=3,i2c_gpio_sda=23,i2c_gpio_scl=24"]
    assert unknown_buses(profile) == []
    assert problems(tmp_path, text.replace("slap = 26", "slap = 24")) == [
        "stations[3].pins.slap: GPIO 24 is the SCL of I2C bus 3, which a display uses (port = 3): wire this elsewhere"]
    assert unknown_buses(load_profile(write(tmp_path, PI_MUX % "port = 11"))) == [11]
    assert boot_config(load_profile(ROOT / "hardware" / "profiles" / "mux-3.toml")) == []


def test_profile_overlays_command_prints_the_config_lines(capsys):
    assert main(["profile", "overlays", str(ROOT / "hardware" / "profiles" / "six-with-board.toml")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "dtoverlay=i2c-gpio,bus=3,i2c_gpio_sda=23,i2c_gpio_scl=24",
        "dtoverlay=i2c-gpio,bus=4,i2c_gpio_sda=7,i2c_gpio_scl=8"]


def test_a_light_sensor_per_station_is_a_gpio_pin_of_its_own():
    text = GOOD.replace('name = "Ana"', 'name = "Ana"\nlight_sensor = 9').replace('name = "Ben"', 'name = "Ben"\nlight_sensor = 10')
    profile = parse_profile(tomllib.loads(text))
    assert [st.light_sensor for st in profile.stations] == [9, 10]


@pytest.mark.parametrize(("ana", "ben", "message"), [
    (9, None, "stations: light_sensor on stations[1] but not on stations[2]: races time players from their "
              "light only when every station has a sensor"),
    (9, 4, "stations[2].light_sensor: GPIO 4 is already used by stations[1].pins.slap"),
    (3, 10, "stations[1].light_sensor: GPIO 3 is reserved for the displays' I2C bus (GPIO 2 and 3)"),
    ('"GPIO9"', 10, "stations[1].light_sensor: must be a GPIO number from 2 to 27, not 'GPIO9'"),
])
def test_a_bad_light_sensor_is_named(tmp_path, ana, ben, message):
    text = GOOD.replace('name = "Ana"', f'name = "Ana"\nlight_sensor = {ana}')
    if ben is not None:
        text = text.replace('name = "Ben"', f'name = "Ben"\nlight_sensor = {ben}')
    assert message in problems(tmp_path, text)


# --- a light sensor on a button board channel ------------------------------------------------------

def sensors(text: str, ana: str | None, ben: str | None) -> str:
    """``text`` with ``light_sensor = ...`` under Ana and Ben (None: none)."""
    for name, sensor in (("Ana", ana), ("Ben", ben)):
        if sensor is not None:
            text = text.replace(f'name = "{name}"', f'name = "{name}"\nlight_sensor = {sensor}')
    return text


def test_a_light_sensor_on_a_board_channel_is_told_from_a_gpio_one():
    text = sensors(WITH_BOARD, "9", "{ channel = 12 }")
    profile = parse_profile(tomllib.loads(text))
    assert [(st.light_sensor, st.light_channel) for st in profile.stations] == [(9, None), (None, 12)]
    assert profile.light_channels() == {12: 1}
    assert 12 not in profile.board_channels()              # not a button: no station key


@pytest.mark.parametrize(("ana", "ben", "board", "message"), [
    ("9", "{ channel = 9 }", True,
     "stations[2].light_sensor.channel: channel 9 is already used by stations[2].channels.left"),
    ("{ channel = 12 }", "{ channel = 12 }", True,
     "stations[2].light_sensor.channel: channel 12 is already used by stations[1].light_sensor.channel"),
    ("9", "{ channel = 32 }", True, "stations[2].light_sensor.channel: must be a board channel from 0 to 31, not 32"),
    ("9", "{ channel = 0 }", True,
     "stations[2].light_sensor.channel: channel 0 cannot be a sensor: the board reads it at power-up, and low "
     "(a dark sensor) keeps the board at its REPL; use another channel"),
    ("9", '{ channel = "12" }', True,
     "stations[2].light_sensor.channel: must be a board channel from 0 to 31, not '12'"),
    ("9", "{ channel = 12, gpio = 10 }", True,
     "stations[2].light_sensor: a sensor is wired to one input: light_sensor = GPIO for a pin of the Pi, "
     "light_sensor = { channel = N } for a button board channel, not both"),
    ("9", "{ gpio = 10 }", True,
     "stations[2].light_sensor: a sensor on a GPIO is light_sensor = GPIO (a number), on a button board "
     "channel light_sensor = { channel = N }"),
    ("9", "{ chanel = 12 }", True,
     "stations[2].light_sensor.chanel: unknown field; known fields are channel"),
    ("9", "{ chanel = 12 }", True,
     "stations[2].light_sensor.channel: missing: the button board channel the sensor's output is wired to"),
    ("{ channel = 12 }", "10", False,
     "stations[1].light_sensor.channel: a sensor on a board channel needs a [board] table with its port"),
    ("{ channel = 12 }", None, True,
     "stations: light_sensor on stations[1] but not on stations[2]: races time players from their "
     "light only when every station has a sensor"),
])
def test_a_bad_board_light_sensor_is_named(tmp_path, ana, ben, board, message):
    assert message in problems(tmp_path, sensors(WITH_BOARD if board else GOOD, ana, ben))
