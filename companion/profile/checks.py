"""Reading a hardware profile: a TOML file from a maker's hands, checked completely on load.

Separate from the profile's data (:mod:`.box`) because this is where untrusted input meets the
box: every problem is found at once and reported naming its field, and pins, channels and bus
addresses claimed twice are caught here, never on the Pi at start.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

from ..arbiter.inputs import KEYS
from ..untrusted import PROFILE_BYTES, Unreadable, read_toml
from .box import (BACKENDS, BOARD_CHANNELS, BOARD_LEDS, BoardProfile, DRIVERS, DisplayProfile,
                  Displays, GPIO_RANGE, I2C_GPIO_BUSES, I2C_PINS, MAX_NAME, MAX_STATIONS, MAX_WIRED,
                  MIN_STATIONS, NAME_FITS, PANEL_SIZE, PWM_PINS, Profile, ProfileError, ROTATIONS,
                  StationProfile, TableScreenProfile, Timing, WEB_BINDS, WebProfile)

class _Checker:
    """Collects problems instead of stopping at the first, so a maker fixes them in one pass."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def fail(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def table(self, data: dict, where: str, key: str, known: tuple[str, ...]) -> dict:
        value = data.get(key, {})
        path = f"{where}.{key}" if where else key
        if not isinstance(value, dict):
            self.fail(path, "must be a table")
            return {}
        for extra in sorted(set(value) - set(known)):
            self.fail(f"{path}.{extra}", "unknown field; known fields are " + ", ".join(known))
        return value

    def number(self, data: dict, where: str, key: str, default, low, high, kind=int):
        value = data.get(key, default)
        ok = not isinstance(value, bool) and isinstance(value, (int, float) if kind is float else int)
        if not ok or not low <= value <= high:
            self.fail(f"{where}.{key}", f"must be a {'number' if kind is float else 'whole number'} "
                                        f"from {low} to {high}, not {value!r}")
            return default
        return kind(value)

    def choice(self, data: dict, where: str, key: str, allowed: tuple, why: str):
        value = data.get(key, allowed[0])
        if isinstance(value, bool) or not isinstance(value, type(allowed[0])) or value not in allowed:
            self.fail(f"{where}.{key}", f"must be {' or '.join(map(str, allowed))} ({why}), not {value!r}")
            return allowed[0]
        return value

    def flag(self, data: dict, where: str, key: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            self.fail(f"{where}.{key}", f"must be true or false, not {value!r}")
            return default
        return value


def parse_profile(data: dict[str, Any], source: str = "profile") -> Profile:
    """Check a profile mapping (from TOML) and build it; :class:`ProfileError` lists every problem."""
    c = _Checker()
    for extra in sorted(set(data) - {"name", "backend", "buzzer", "stations", "timing", "displays", "board",
                                     "table_screen", "gpio", "web"}):
        c.fail(extra, "unknown field; known fields are name, backend, buzzer, stations, timing, displays, board, "
                      "table_screen, gpio, web")
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str):
        c.fail("name", f"must be text, not {name!r}")
    backend = data.get("backend", "pi")
    if backend not in BACKENDS:
        c.fail("backend", f"must be one of {', '.join(BACKENDS)}, not {backend!r}")
    timing_data = c.table(data, "", "timing", ("debounce_ms", "stuck_after_s", "gpio_latency_ms", "gpio_watermark"))
    timing = Timing(
        debounce_ms=c.number(timing_data, "timing", "debounce_ms", 5.0, 0, 50, float),
        stuck_after_s=c.number(timing_data, "timing", "stuck_after_s", 5.0, 0.5, 60, float),
        gpio_latency_ms=c.number(timing_data, "timing", "gpio_latency_ms", Timing.gpio_latency_ms, 0, 50, float),
        gpio_watermark=(c.choice(timing_data, "timing", "gpio_watermark", ("reader", "bound"),
                                 "how races know every GPIO press has arrived")
                        if "gpio_watermark" in timing_data else None),
    )
    displays_data = c.table(data, "", "displays", ("mux_address", "contrast", "dim_contrast", "dim_after_s", "i2c_hz"))
    displays = Displays(
        mux_address=c.number(displays_data, "displays", "mux_address", 0x70, 0x70, 0x77),
        contrast=c.number(displays_data, "displays", "contrast", 255, 1, 255),
        dim_contrast=c.number(displays_data, "displays", "dim_contrast", 16, 0, 255),
        dim_after_s=c.number(displays_data, "displays", "dim_after_s", 300.0, 10, 86400, float),
        i2c_hz=c.number(displays_data, "displays", "i2c_hz", 400_000, 10_000, 1_000_000),
    )
    screen_data = c.table(data, "", "table_screen", ("enabled", "width", "height", "fullscreen"))
    table_screen = TableScreenProfile(
        enabled=c.flag(screen_data, "table_screen", "enabled", False),
        width=c.number(screen_data, "table_screen", "width", 1280, 320, 7680),
        height=c.number(screen_data, "table_screen", "height", 720, 180, 4320),
        fullscreen=c.flag(screen_data, "table_screen", "fullscreen", True),
    )
    web = _web(c, c.table(data, "", "web", ("enabled", "port", "bind")))
    used: dict[int, str] = {}
    addresses: dict[tuple[int, int, int | None], str] = {}
    used_channels: dict[int, str] = {}
    placed: list[tuple[str, DisplayProfile]] = []
    used_leds: dict[int, str] = {}

    def claim_pin(where: str, pin: Any) -> None:
        if isinstance(pin, bool) or not isinstance(pin, int) or pin not in GPIO_RANGE:
            c.fail(where, f"must be a GPIO number from {GPIO_RANGE.start} to {GPIO_RANGE.stop - 1}, not {pin!r}")
        elif pin in I2C_PINS:
            c.fail(where, f"GPIO {pin} is reserved for the displays' I2C bus (GPIO 2 and 3)")
        elif pin in used:
            c.fail(where, f"GPIO {pin} is already used by {used[pin]}")
        else:
            used[pin] = where

    def claim_channel(where: str, channel: Any) -> None:
        if isinstance(channel, bool) or not isinstance(channel, int) or channel not in BOARD_CHANNELS:
            c.fail(where, f"must be a board channel from {BOARD_CHANNELS.start} to {BOARD_CHANNELS.stop - 1}, "
                          f"not {channel!r}")
        elif channel in used_channels:
            c.fail(where, f"channel {channel} is already used by {used_channels[channel]}")
        else:
            used_channels[channel] = where

    gpio_chip = None
    if "gpio" in data:
        chip = c.table(data, "", "gpio", ("chip",)).get("chip")
        if chip is not None and (not isinstance(chip, str) or not chip.startswith("/dev/") or chip == "/dev/"
                                 or not chip.isprintable()):
            c.fail("gpio.chip", f"must be the GPIO chip's device, e.g. \"/dev/gpiochip0\", not {chip!r}")
        else:
            gpio_chip = chip
    board = None
    if "board" in data:
        board_data = c.table(data, "", "board", ("port",))
        port = board_data.get("port")
        if not isinstance(port, str) or not port.strip():
            c.fail("board.port", f"must be the board's serial device, e.g. \"/dev/ttyACM0\", not {port!r}")
        else:
            board = BoardProfile(port)

    buzzer = c.table(data, "", "buzzer", ("pin",))
    buzzer_pin = buzzer.get("pin")
    if buzzer_pin is not None:
        if buzzer_pin not in PWM_PINS:
            c.fail("buzzer.pin", f"must be a PWM-capable pin ({', '.join(map(str, PWM_PINS))}), not {buzzer_pin!r}")
        claim_pin("buzzer.pin", buzzer_pin)

    stations_data = data.get("stations")
    stations: list[StationProfile] = []
    if not isinstance(stations_data, list) or not MIN_STATIONS <= len(stations_data) <= MAX_STATIONS:
        c.fail("stations", f"must be a list of {MIN_STATIONS} to {MAX_STATIONS} [[stations]] tables")
        stations_data = stations_data if isinstance(stations_data, list) else []
    for i, st in enumerate(stations_data):
        where = f"stations[{i + 1}]"
        if not isinstance(st, dict):
            c.fail(where, "must be a table")
            continue
        for extra in sorted(set(st) - {"name", "pins", "channels", "display", "led", "light_sensor", "buzzer_only",
                                       "phone"}):
            c.fail(f"{where}.{extra}", "unknown field; known fields are name, pins, channels, display, led, "
                                       "light_sensor, buzzer_only, phone")
        bare = c.flag(st, where, "buzzer_only", False)
        if c.flag(st, where, "phone", False):
            stations.append(_phone_station(c, st, where, i, bare, web))
            continue
        st_name = st.get("name", f"P{i + 1}")
        if not isinstance(st_name, str) or not st_name.strip():
            c.fail(f"{where}.name", f"must be a non-empty name, not {st_name!r}")
            st_name = f"P{i + 1}"
        elif len(st_name) > MAX_NAME:
            c.fail(f"{where}.name", f"must be at most {MAX_NAME} characters (the screens show it "
                                    f"whole), not {st_name!r} ({len(st_name)})")
            st_name = f"P{i + 1}"
        elif not st_name.isprintable():
            c.fail(f"{where}.name", f"must be printable characters, not {st_name!r}")
            st_name = f"P{i + 1}"
        on_board = "channels" in st
        if on_board and "pins" in st:
            c.fail(where, "give either pins (GPIO) or channels (button board), not both")
        if on_board and "board" not in data:
            c.fail(f"{where}.channels", "a station on board channels needs a [board] table with its port")
        wiring = "channels" if on_board else "pins"
        wired = c.table(st, where, wiring, KEYS)
        for key in KEYS:
            if bare and key != "slap" and key in wired:
                c.fail(f"{where}.{wiring}.{key}", "a buzzer-only seat has its slap button alone: "
                                                  "remove this, or buzzer_only to wire a full station")
            elif key not in wired and (key == "slap" or not bare):
                c.fail(f"{where}.{wiring}.{key}", "missing: a buzzer-only seat needs slap" if bare else
                       "missing: every station needs slap, left, ok and right")
            elif key in wired:
                (claim_channel if on_board else claim_pin)(f"{where}.{wiring}.{key}", wired[key])
        if bare and i == 0:
            c.fail(f"{where}.buzzer_only", "the first station needs a panel and buttons: it hosts a quiz "
                                           "when nobody else takes the host's seat, and walks the lobby")
        if bare and "display" in st:
            c.fail(f"{where}.display", "a buzzer-only seat has no display: remove it, or buzzer_only")
        elif "display" not in st and not bare:
            c.fail(f"{where}.display", "missing: every station needs a display")
        disp = c.table(st, where, "display", ("driver", "port", "address", "width", "height", "rotate", "mux_channel"))
        driver = disp.get("driver", "ssd1306")
        if driver not in DRIVERS:
            c.fail(f"{where}.display.driver", f"must be one of {', '.join(DRIVERS)}, not {driver!r}")
        display = DisplayProfile(
            driver=driver,
            port=c.number(disp, f"{where}.display", "port", 1, 0, 31),
            address=c.number(disp, f"{where}.display", "address", 0x3C, 0x03, 0x77),
            width=c.choice(disp, f"{where}.display", "width", PANEL_SIZE[:1], "every screen is drawn 128x64"),
            height=c.choice(disp, f"{where}.display", "height", PANEL_SIZE[1:], "every screen is drawn 128x64"),
            rotate=c.choice(disp, f"{where}.display", "rotate", ROTATIONS,
                            "upright or upside down; 1 and 3 would stand the panel on its side"),
            mux_channel=c.number(disp, f"{where}.display", "mux_channel", None, 0, 7) if "mux_channel" in disp else None,
        )
        spot = (display.port, display.address, display.mux_channel)
        if bare:
            pass
        elif backend == "pi" and spot in addresses:
            c.fail(f"{where}.display", f"same bus, address and mux channel as {addresses[spot]}: "
                                       "give it another address, port or mux_channel")
        if not bare:
            addresses.setdefault(spot, f"{where}.display")
            placed.append((f"{where}.display", display))
        keys = {k: wired[k] for k in KEYS if k in wired} if bare else {k: wired.get(k) for k in KEYS}
        led = st.get("led")
        if led is not None and on_board:
            if isinstance(led, bool) or not isinstance(led, int) or led not in BOARD_LEDS:
                c.fail(f"{where}.led", f"must be a board LED number from {BOARD_LEDS.start} to "
                                       f"{BOARD_LEDS.stop - 1}, not {led!r}")
            elif led in used_leds:
                c.fail(f"{where}.led", f"board LED {led} is already used by {used_leds[led]}")
            else:
                used_leds[led] = f"{where}.led"
        elif led is not None:
            claim_pin(f"{where}.led", led)
        sensor, sensor_channel = _light_sensor(c, st, where, "board" in data, claim_pin, claim_channel)
        stations.append(StationProfile(st_name, {} if on_board else keys, display, keys if on_board else {}, led,
                                       light_sensor=sensor, light_channel=sensor_channel, buzzer_only=bare))
    if backend == "pi":
        _check_bus_collisions(c, placed, displays.mux_address)
        for port in sorted({d.port for _, d in placed} & I2C_GPIO_BUSES.keys()):
            for pin, line in zip(I2C_GPIO_BUSES[port], ("SDA", "SCL")):
                if pin in used:
                    c.fail(used[pin], f"GPIO {pin} is the {line} of I2C bus {port}, which a display uses "
                                      f"(port = {port}): wire this elsewhere")
    sensed = [i for i, st in enumerate(stations) if st.light_sensor is not None or st.light_channel is not None]
    if sensed and len(sensed) < len(stations) - sum(st.phone for st in stations):  # a phone says when it painted
        c.fail("stations", "light_sensor on " + ", ".join(f"stations[{i + 1}]" for i in sensed)
               + " but not on " + ", ".join(f"stations[{i + 1}]" for i in range(len(stations))
                                            if i not in sensed and not stations[i].phone)
               + ": races time players from their light only when every station has a sensor")
    if sum(not st.phone for st in stations) > MAX_WIRED:
        c.fail("stations", f"at most {MAX_WIRED} stations are wired (GPIO or the button board); "
                           "more players join on phones (phone = true)")
    if board is not None and not used_channels:
        c.fail("board", "no station uses the board: give a station channels instead of pins")
    if c.problems:
        raise ProfileError(source, c.problems)
    return Profile(name, backend, buzzer_pin, tuple(stations), timing, displays, board, table_screen, gpio_chip,
                   web)


def _web(c: _Checker, data: dict) -> WebProfile:
    """The ``[web]`` table: on or off, the port, and where to listen (never beyond the box's own
    network: see :data:`~.box.WEB_BINDS`)."""
    bind = data.get("bind", "lan")
    if bind not in WEB_BINDS and not (isinstance(bind, str) and _local_address(bind)):
        c.fail("web.bind", "must be \"lan\" (the box's own network), \"loopback\" (this machine only) or one "
                           f"private, link-local or loopback address of the box, not {bind!r}: the box never "
                           "listens beyond its own network")
        bind = "lan"
    return WebProfile(enabled=c.flag(data, "web", "enabled", False),
                      port=_web_port(c, data), bind=bind)


def _web_port(c: _Checker, data: dict) -> int:
    """The web companion's port: 1024 or above (the service has no capability to bind lower), or 0
    for any free port (the address shown says which)."""
    port = data.get("port", 8080)
    if port == 0 and not isinstance(port, bool):
        return 0
    return c.number(data, "web", "port", 8080, 1024, 65535)


def _local_address(text: str) -> bool:
    """Whether ``text`` is one IP address on the box's own network: private, link-local or loopback
    (not 0.0.0.0 or ::, every interface: that is ``lan``, which also checks each peer)."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return not address.is_unspecified and (address.is_private or address.is_link_local or address.is_loopback)


def _phone_station(c: _Checker, st: dict, where: str, index: int, bare: bool, web: WebProfile) -> StationProfile:
    """A station a phone plays: its name alone (and ``buzzer_only`` for a quiz buzzer), nothing wired."""
    for wired in sorted({"pins", "channels", "display", "led", "light_sensor"} & set(st)):
        c.fail(f"{where}.{wired}", "a phone station has nothing wired: the phone is its panel and buttons")
    if index == 0:
        c.fail(f"{where}.phone", "the first station needs a panel and buttons of its own: it walks the lobby")
    if not web.enabled:
        c.fail(f"{where}.phone", "a phone station needs the web companion: add [web] with enabled = true")
    name = st.get("name", f"P{index + 1}")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        c.fail(f"{where}.name", f"must be a printable name of 1 to {MAX_NAME} characters, not {name!r}")
        name = f"P{index + 1}"
    return StationProfile(name, {}, DisplayProfile(), phone=True, buzzer_only=bare)


def _light_sensor(c: _Checker, st: dict, where: str, has_board: bool, claim_pin, claim_channel):
    """A station's light sensor: ``light_sensor = 9`` (a GPIO) or ``light_sensor = { channel = 12 }``
    (a button board channel); (GPIO, channel), each None unless given, every pin and channel claimed."""
    sensor = st.get("light_sensor")
    path = f"{where}.light_sensor"
    if not isinstance(sensor, dict):
        if sensor is not None:
            claim_pin(path, sensor)
        return sensor, None
    if "gpio" in sensor:
        c.fail(path, "a sensor is wired to one input: light_sensor = GPIO for a pin of the Pi, "
                     "light_sensor = { channel = N } for a button board channel, not both"
               if "channel" in sensor else "a sensor on a GPIO is light_sensor = GPIO (a number), "
                                           "on a button board channel light_sensor = { channel = N }")
        return None, None
    c.table(st, where, "light_sensor", ("channel",))
    if "channel" not in sensor:
        c.fail(f"{path}.channel", "missing: the button board channel the sensor's output is wired to")
        return None, None
    if not has_board:
        c.fail(f"{path}.channel", "a sensor on a board channel needs a [board] table with its port")
    if sensor["channel"] == 0:  # a sensor reads low while dark, as a held first button does
        c.fail(f"{path}.channel", "channel 0 cannot be a sensor: the board reads it at power-up, and low "
                                  "(a dark sensor) keeps the board at its REPL; use another channel")
        return None, None
    claim_channel(f"{path}.channel", sensor["channel"])
    return None, sensor["channel"]


def _check_bus_collisions(c: _Checker, placed: list[tuple[str, DisplayProfile]], mux_address: int) -> None:
    """A panel wired straight to a bus that also carries the multiplexer must not answer at the
    multiplexer's address, nor at the address of a panel behind it: the channel selected last
    stays connected, so both would answer the same write."""
    muxed: dict[tuple[int, int], str] = {}
    for where, d in placed:
        if d.mux_channel is not None:
            muxed.setdefault((d.port, d.address), where)
    mux_ports = {port for port, _ in muxed}
    for where, d in placed:
        if d.mux_channel is not None or d.port not in mux_ports:
            continue
        if d.address == mux_address:
            c.fail(f"{where}.address", f"0x{d.address:02X} is the multiplexer's address on bus {d.port} "
                                       "(displays.mux_address): give the display another address")
        elif (d.port, d.address) in muxed:
            c.fail(f"{where}.address", f"0x{d.address:02X} on bus {d.port} is also {muxed[d.port, d.address]}, "
                                       "behind the multiplexer, and both would answer: give this display "
                                       "another address or a mux_channel")


def load_profile(path: Path | str) -> Profile:
    """Read and check a profile file."""
    path = Path(path)
    try:
        data = read_toml(path, PROFILE_BYTES)
    except Unreadable as e:
        raise ProfileError(str(path), [e.detail]) from None
    return parse_profile(data, str(path))


def warnings(profile: Profile) -> list[str]:
    """What a profile check says about names the screens cannot show as typed: they are drawn
    with stand-ins (:func:`~companion.screens.canvas.shown`) or cut to fit."""
    from ..screens.canvas import unshowable

    out = []
    for i, st in enumerate(profile.stations):
        where = f"stations[{i + 1}].name"
        if missing := unshowable(st.name):
            out.append(f"{where}: {st.name!r} has characters the screens cannot show ({missing}); "
                       "they are drawn as their plain letter or '?'")
        if len(st.name) > NAME_FITS:
            out.append(f"{where}: {st.name!r} is longer than {NAME_FITS} characters: some screens shorten it")
    return out
