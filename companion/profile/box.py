"""The box a hardware profile describes, as frozen data: its stations (pins or board channels,
display, light, name), displays, button board, table screen and timing; and the limits a
profile is checked against.

Separate from reading a profile (:mod:`.checks`) because everything else in the box only ever
sees this: a profile that was checked completely, never the maker's TOML.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..arbiter.inputs import KEYS

BACKENDS = ("mock", "pi")
DRIVERS = ("ssd1306", "sh1106", "ssd1309", "ssd1315")
"""The luma.oled drivers of one-bit 128x64 panels, the only screens the box draws (luma.oled
3.16: ``sh1106``, and ``ssd1306`` with its subclasses ``ssd1309`` and ``ssd1315``). Greyscale
panels (``ssd1322``...) and other sizes would fail on every frame."""
PANEL_SIZE = (128, 64)
ROTATIONS = (0, 2)
"""luma's rotate 1 and 3 turn a 128x64 panel into 64x128, which no screen is drawn for."""
I2C_PINS = (2, 3)
"""GPIO 2 and 3 are I2C-1 (SDA, SCL), shared by every display and the multiplexer."""
I2C_GPIO_BUSES = {3: (23, 24), 4: (7, 8)}
"""Software I2C buses, bus number -> (SDA, SCL) GPIO, that ``systemd/install.sh`` sets up with the
``i2c-gpio`` overlay for a display on that ``port`` (``companion profile overlays``); their pins
are then reserved like GPIO 2 and 3. Any other port but 1 is the maker's to set up."""
PWM_PINS = (12, 13, 18, 19)
"""The pins with a hardware PWM channel. gpiozero's lgpio factory drives the buzzer with lgpio's
software PWM on any pin; keeping to these leaves room for a hardware-PWM driver."""
GPIO_RANGE = range(2, 28)
"""BCM 0 and 1 are the HAT ID EEPROM bus; 2..27 are on the 40-pin header."""
MIN_STATIONS, MAX_STATIONS = 2, 33
"""A quiz night's host and 32 players; each game seats as many as it takes, the others watch."""
MAX_WIRED = 17
"""Stations wired to the box (GPIO or the button board): a host and 16 players; the rest of a
quiz night's 32 players join on phones (``phone = true``)."""
MAX_SIMULATED = 6
"""The most stations ``companion sim --players`` makes: a window of panels, one per name."""
NAME_MAX = 32
"""Characters in a player's name in a journal (a journal may come from elsewhere)."""
MAX_NAME = 10
"""Longest station name: the screens are 21 characters wide and show up to three names on a
line; the layout test renders every screen with names this long."""
NAME_FITS = 6
"""Characters of a name most screens show in full; longer ones are abbreviated where a line
needs it (:func:`~companion.screens.canvas.fitting`)."""
BOARD_CHANNELS = range(0, 32)
"""A button board's channels, as its firmware numbers them (``firmware/buttonboard/config.py``)."""
BOARD_LEDS = range(0, 32)
"""A button board's LEDs: bits of the host's LEDS message (``firmware/PROTOCOL.md``)."""


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
    led: int | None = None
    """The station's light, if it has one: a GPIO pin for a station on pins, the board's LED
    number for a station on board channels (lit for the race winner, blinking for a tie)."""
    light_sensor: int | None = None
    """The GPIO pin of the light sensor over the station's panel, if it is wired to the Pi (for
    a station on pins or on board channels: the sensor sits by the panel, which the Pi drives).
    With a sensor on every station, races revealed on the screens time each player from their
    panel's light (:mod:`companion.adapters.lightsensor`)."""
    light_channel: int | None = None
    """The button board channel of the light sensor over the station's panel, if it is wired to
    the board instead (``light_sensor = { channel = N }``; the board's ``SENSOR_CHANNELS``)."""
    phone: bool = False
    """A seat with no physical station: a phone takes it over the web companion (:mod:`companion.web`),
    sees its panel as a picture and presses on its touch screen (with ``buzzer_only``: a quiz
    buzzer, one big button). No pins, channels, display or light; needs ``[web]`` enabled."""
    buzzer_only: bool = False
    """A bare slap button with no panel (a quiz player's buzzer): only ``slap`` is wired, and
    its light and the table screen tell its player what happened. Its screens go nowhere."""


@dataclass(frozen=True)
class BoardProfile:
    """A button board (``firmware/``) on USB serial; with the mock backend a virtual board on a
    pseudo-terminal stands in for it and ``port`` is not opened."""

    port: str


@dataclass(frozen=True)
class Timing:
    debounce_ms: float = 5.0
    stuck_after_s: float = 5.0
    gpio_latency_ms: float = 30.0
    """Only with ``gpio_watermark = "bound"``: how late a GPIO edge can reach the loop; races wait
    this long past the tie window.

    A press reaches the loop after lgpio's poll and sort hold (0.5-1.05 ms) and a thread hand-off
    that waits for the GIL (one switch interval, 1 ms in the daemon, with a scheduling tail):
    ``bench/gpio_model.py`` puts one press in about 15 million beyond 20 ms; 30 ms also covers
    the worst we measured on a CPU loaded far beyond a Pi's (22 ms). ``companion selftest``
    measures a box's own delays and says whether this covers them."""
    gpio_watermark: str | None = None
    """How races know every GPIO press has arrived: ``"reader"``, the GPIO reader process says
    how far it has read (:mod:`companion.adapters.gpioreader`); ``"bound"``, the fallback, the
    buttons are read in the daemon and assumed to arrive within ``gpio_latency_ms``. Unset: the
    reader on a Pi, the bound with mock pins (read in the daemon's process, where tests and the
    simulator drive them and their clock)."""


@dataclass(frozen=True)
class Displays:
    """Settings for every display: the multiplexer's address, brightness, dimming when idle."""

    mux_address: int = 0x70
    contrast: int = 255
    dim_contrast: int = 16
    dim_after_s: float = 300.0
    i2c_hz: int = 400_000
    """The displays' I2C bus speed: 400 kHz (Fast-mode, what SSD1306 and SH1106 panels are rated
    for) needs ``dtparam=i2c_arm_baudrate=400000`` in the Pi's boot config, which
    ``systemd/install.sh`` sets; the Pi's default is 100 kHz, four times slower per frame."""


@dataclass(frozen=True)
class TableScreenProfile:
    """The table screen (``[table_screen]``): the public state on an HDMI screen. Off by default;
    on a Pi it draws with SDL's ``kmsdrm`` driver, no desktop needed."""

    enabled: bool = False
    width: int = 1280
    height: int = 720
    fullscreen: bool = True


WEB_BINDS = ("lan", "loopback")
"""Where the web companion listens (``[web] bind``): ``lan``, every interface but only answering
peers on the box's own network (private, link-local and loopback addresses); ``loopback``, this
machine alone. An explicit address must itself be private, link-local or loopback: the box is
never reachable from beyond its own network."""


@dataclass(frozen=True)
class WebProfile:
    """The web companion (``[web]``): phones join, watch and play a seat over the box's own
    network. Off by default on a profile (``companion sim`` turns it on)."""

    enabled: bool = False
    port: int = 8080
    bind: str = "lan"
    """``lan``, ``loopback`` or one private, link-local or loopback address (:data:`WEB_BINDS`)."""


@dataclass(frozen=True)
class Profile:
    name: str
    backend: str
    buzzer_pin: int | None
    stations: tuple[StationProfile, ...]
    timing: Timing = field(default_factory=Timing)
    displays: Displays = field(default_factory=Displays)
    board: BoardProfile | None = None
    table_screen: TableScreenProfile = field(default_factory=TableScreenProfile)
    gpio_chip: str | None = None
    """The gpiochip device the GPIO reader claims the stations' lines on (``[gpio] chip``), if the
    40-pin header's is not the one: by default the reader takes the chip whose label names the
    SoC's pin controller (:func:`~companion.adapters.gpioreader.header_chip`)."""
    web: WebProfile = field(default_factory=WebProfile)
    """The web companion: phones joining over the box's network (``[web]``)."""

    @property
    def gpio_reader(self) -> bool:
        """Whether GPIO buttons are read by the reader process (``timing.gpio_watermark``)."""
        return self.timing.gpio_watermark == "reader" or (self.timing.gpio_watermark is None and self.backend == "pi")

    def phone_stations(self) -> list[int]:
        """The station indexes a phone plays (``phone = true``), in order."""
        return [i for i, st in enumerate(self.stations) if st.phone]

    def gpio_pins(self) -> dict[int, tuple[int, str]]:
        """GPIO pin -> (station index, key), for every station key wired to a pin."""
        return {pin: (i, key) for i, st in enumerate(self.stations) for key, pin in st.pins.items()}

    def station_keys(self) -> list[frozenset[str]]:
        """The keys each station has, by station index: a buzzer-only seat ``slap`` alone, any
        other station every key (the checks refuse one missing a key; the simulator's have all)."""
        return [frozenset({"slap"}) if st.buzzer_only else frozenset(KEYS) for st in self.stations]

    def light_sensor_pins(self) -> dict[int, int]:
        """GPIO pin -> station index, for every light sensor."""
        return {st.light_sensor: i for i, st in enumerate(self.stations) if st.light_sensor is not None}

    def board_channels(self) -> dict[int, tuple[int, str]]:
        """Board channel -> (station index, key)."""
        return {ch: (i, key) for i, st in enumerate(self.stations) for key, ch in st.channels.items()}

    def light_channels(self) -> dict[int, int]:
        """Board channel -> station index, for every light sensor wired to the board."""
        return {st.light_channel: i for i, st in enumerate(self.stations) if st.light_channel is not None}
