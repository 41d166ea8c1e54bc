"""Hardware profiles: which pin is which station's button, which display faces whom.

A profile is a TOML file (see ``hardware/profiles/``). It is data from a maker's hands, so it is
checked completely on load and every problem is reported at once, each naming its field
(``stations[2].pins.ok: pin 13 is already stations[0].pins.right``). Stations are numbered from
1 in messages, as they are labelled on the box; in code they are 0-based indices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .inputs import KEYS
from .untrusted import PROFILE_BYTES, Unreadable, read_toml

BACKENDS = ("mock", "pi")
DRIVERS = ("ssd1306", "sh1106", "ssd1309", "ssd1322")
I2C_PINS = (2, 3)
"""GPIO 2 and 3 are I2C-1 (SDA, SCL), shared by every display and the multiplexer."""
PWM_PINS = (12, 13, 18, 19)
GPIO_RANGE = range(2, 28)
"""BCM 0 and 1 are the HAT ID EEPROM bus; 2..27 are on the 40-pin header."""
MIN_STATIONS, MAX_STATIONS = 2, 6
NAME_MAX = 32
"""Characters in a station's name, and in a player's name in a journal."""
NAME_FITS = 6
"""Characters of a name most screens show in full (Pictomania's guess lists show 4)."""
BOARD_CHANNELS = range(0, 32)
"""A button board's channels, as its firmware numbers them (``firmware/buttonboard/config.py``)."""


class ProfileError(ValueError):
    """Every problem found in a profile, one per line, each naming its field."""

    def __init__(self, source: str, problems: list[str]) -> None:
        super().__init__(f"{source}:\n" + "\n".join(f"  {p}" for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class DisplayProfile:
    driver: str = "ssd1306"
    port: int = 1
    address: int = 0x3C
    width: int = 128
    height: int = 64
    rotate: int = 0
    mux_channel: int | None = None
    """The TCA9548A channel (0-7) in front of this display, if it shares its address."""


@dataclass(frozen=True)
class StationProfile:
    name: str
    pins: dict[str, int]
    """Key -> GPIO pin, for a station wired to the Pi (empty on a button board)."""
    display: DisplayProfile
    channels: dict[str, int] = field(default_factory=dict)
    """Key -> button board channel, for a station wired to the board (empty on GPIO)."""


@dataclass(frozen=True)
class BoardProfile:
    """A button board (``firmware/``) on USB serial; with the mock backend a virtual board on a
    pseudo-terminal stands in for it and ``port`` is not opened."""

    port: str


@dataclass(frozen=True)
class Timing:
    debounce_ms: float = 5.0
    stuck_after_s: float = 5.0
    gpio_latency_ms: float = 1.0
    """How late a GPIO edge can reach the loop; races wait this long past the tie window."""


@dataclass(frozen=True)
class Displays:
    """Settings for every display: the multiplexer's address, brightness, dimming when idle."""

    mux_address: int = 0x70
    contrast: int = 255
    dim_contrast: int = 16
    dim_after_s: float = 300.0


@dataclass(frozen=True)
class Profile:
    name: str
    backend: str
    buzzer_pin: int | None
    stations: tuple[StationProfile, ...]
    timing: Timing = field(default_factory=Timing)
    displays: Displays = field(default_factory=Displays)
    board: BoardProfile | None = None

    def board_channels(self) -> dict[int, tuple[int, str]]:
        """Board channel -> (station index, key)."""
        return {ch: (i, key) for i, st in enumerate(self.stations) for key, ch in st.channels.items()}


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


def parse_profile(data: dict[str, Any], source: str = "profile") -> Profile:
    """Check a profile mapping (from TOML) and build it; :class:`ProfileError` lists every problem."""
    c = _Checker()
    for extra in sorted(set(data) - {"name", "backend", "buzzer", "stations", "timing", "displays", "board"}):
        c.fail(extra, "unknown field; known fields are name, backend, buzzer, stations, timing, displays, board")
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str):
        c.fail("name", f"must be text, not {name!r}")
    backend = data.get("backend", "pi")
    if backend not in BACKENDS:
        c.fail("backend", f"must be one of {', '.join(BACKENDS)}, not {backend!r}")
    timing_data = c.table(data, "", "timing", ("debounce_ms", "stuck_after_s", "gpio_latency_ms"))
    timing = Timing(
        debounce_ms=c.number(timing_data, "timing", "debounce_ms", 5.0, 0, 50, float),
        stuck_after_s=c.number(timing_data, "timing", "stuck_after_s", 5.0, 0.5, 60, float),
        gpio_latency_ms=c.number(timing_data, "timing", "gpio_latency_ms", 1.0, 0, 50, float),
    )
    displays_data = c.table(data, "", "displays", ("mux_address", "contrast", "dim_contrast", "dim_after_s"))
    displays = Displays(
        mux_address=c.number(displays_data, "displays", "mux_address", 0x70, 0x70, 0x77),
        contrast=c.number(displays_data, "displays", "contrast", 255, 1, 255),
        dim_contrast=c.number(displays_data, "displays", "dim_contrast", 16, 0, 255),
        dim_after_s=c.number(displays_data, "displays", "dim_after_s", 300.0, 10, 86400, float),
    )
    used: dict[int, str] = {}
    addresses: dict[tuple[int, int, int | None], str] = {}
    used_channels: dict[int, str] = {}

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
            c.fail("buzzer.pin", f"must be a hardware PWM pin ({', '.join(map(str, PWM_PINS))}), not {buzzer_pin!r}")
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
        for extra in sorted(set(st) - {"name", "pins", "channels", "display"}):
            c.fail(f"{where}.{extra}", "unknown field; known fields are name, pins, channels, display")
        st_name = st.get("name", f"P{i + 1}")
        if not isinstance(st_name, str) or not st_name.strip():
            c.fail(f"{where}.name", f"must be a non-empty name, not {st_name!r}")
            st_name = f"P{i + 1}"
        elif len(st_name) > NAME_MAX or not st_name.isprintable():
            c.fail(f"{where}.name", f"must be at most {NAME_MAX} printable characters, not {st_name!r}")
            st_name = f"P{i + 1}"
        on_board = "channels" in st
        if on_board and "pins" in st:
            c.fail(where, "give either pins (GPIO) or channels (button board), not both")
        if on_board and "board" not in data:
            c.fail(f"{where}.channels", "a station on board channels needs a [board] table with its port")
        wiring = "channels" if on_board else "pins"
        wired = c.table(st, where, wiring, KEYS)
        for key in KEYS:
            if key not in wired:
                c.fail(f"{where}.{wiring}.{key}", "missing: every station needs slap, left, ok and right")
            else:
                (claim_channel if on_board else claim_pin)(f"{where}.{wiring}.{key}", wired[key])
        if "display" not in st:
            c.fail(f"{where}.display", "missing: every station needs a display")
        disp = c.table(st, where, "display", ("driver", "port", "address", "width", "height", "rotate", "mux_channel"))
        driver = disp.get("driver", "ssd1306")
        if driver not in DRIVERS:
            c.fail(f"{where}.display.driver", f"must be one of {', '.join(DRIVERS)}, not {driver!r}")
        display = DisplayProfile(
            driver=driver,
            port=c.number(disp, f"{where}.display", "port", 1, 0, 31),
            address=c.number(disp, f"{where}.display", "address", 0x3C, 0x03, 0x77),
            width=c.number(disp, f"{where}.display", "width", 128, 128, 256),
            height=c.number(disp, f"{where}.display", "height", 64, 32, 64),
            rotate=c.number(disp, f"{where}.display", "rotate", 0, 0, 3),
            mux_channel=c.number(disp, f"{where}.display", "mux_channel", None, 0, 7) if "mux_channel" in disp else None,
        )
        spot = (display.port, display.address, display.mux_channel)
        if backend == "pi" and spot in addresses:
            c.fail(f"{where}.display", f"same bus, address and mux channel as {addresses[spot]}: "
                                       "give it another address, port or mux_channel")
        addresses.setdefault(spot, f"{where}.display")
        keys = {k: wired.get(k) for k in KEYS}
        stations.append(StationProfile(st_name, {} if on_board else keys, display, keys if on_board else {}))
    if board is not None and not used_channels:
        c.fail("board", "no station uses the board: give a station channels instead of pins")
    if c.problems:
        raise ProfileError(source, c.problems)
    return Profile(name, backend, buzzer_pin, tuple(stations), timing, displays, board)


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
    from .screens.canvas import unshowable

    out = []
    for i, st in enumerate(profile.stations):
        where = f"stations[{i + 1}].name"
        if missing := unshowable(st.name):
            out.append(f"{where}: {st.name!r} has characters the screens cannot show ({missing}); "
                       "they are drawn as their plain letter or '?'")
        if len(st.name) > NAME_FITS:
            out.append(f"{where}: {st.name!r} is longer than {NAME_FITS} characters: some screens shorten it")
    return out
