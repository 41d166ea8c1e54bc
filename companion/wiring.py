"""One function builds every adapter from a profile, with the pin factory passed in (never the
process-wide ``Device.pin_factory``).

The daemon only needs a :class:`Box`: whatever feeds it edges and shows its frames. The simulator
builds its own (keyboard and window instead of pins and panels) and hands it to the daemon the
same way, so both run one referee.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .adapters.board import BoardLink
from .adapters.buttons import EdgeCallback, StationButton, station_buttons
from .adapters.buzzer import Buzzer
from .adapters.displays import Buses, DisplayWriter, display_openers
from .adapters.gpiolink import GpioReader, ReaderItem
from .adapters.gpioreader import KERNEL_MARGIN_NS, NO_CHIP
from .adapters.lights import StationLights
from .adapters.lightsensor import LightSensors
from .board.handover import LinkItem
from .board.virtual import VirtualBoard
from .profile import Profile

if TYPE_CHECKING:
    from .tablescreen.display import TableScreen


@dataclass
class Box:
    """Every adapter of one box."""

    profile: Profile
    pin_factory: object
    buttons: list[StationButton]
    displays: DisplayWriter
    buzzer: Buzzer | None
    """Anything with ``play(cue)`` and ``close()``."""
    sources: dict[str, int | None] = field(default_factory=dict)
    """The input sources the buttons in this process report as, each with its latency bound in ns
    (None for an explicit source): the daemon's watermarks wait for exactly these, and for the
    GPIO reader and the board if there are."""
    buses: Buses | None = None
    board: BoardLink | None = None
    """The button board's serial link; the daemon starts it once its loop runs."""
    virtual_board: VirtualBoard | None = None
    """With the mock backend, the software board behind ``board``."""
    screens_take_time: bool = False
    """Real panels: a screen is seen only once written over I2C, so a race that opens with a
    screen change waits for the onsets the display writer reports (mock panels are instant)."""
    lights: StationLights | None = None
    """The stations' LEDs, if any station has one: anything with ``show(states)``,
    ``next_blink_s()``, ``blink_step()`` and ``close()``."""
    table_screen: TableScreen | None = None
    """The public state on an HDMI screen (``[table_screen]``), if the profile has one."""
    light_sensors: LightSensors | None = None
    """The light sensors over the stations' panels, when every station has one (on a GPIO or a
    board channel): every source of their edges calls its ``rise(station, t_ns)``."""
    light_sources: tuple[str, ...] = ()
    """The input sources the light sensors' edges come through (``gpio``: the GPIO reader, or
    with the fallback gpiozero pins in this process; ``board``: the button board's LIGHT frames,
    which the daemon adds): a reveal's light is read once each of them has delivered every edge
    up to the light's wait. Empty: the edges are in the store as soon as they happen (the
    simulator's scan model)."""
    gpio_reader: GpioReader | None = None
    """The GPIO reader process, when it reads the station buttons (``timing.gpio_watermark``);
    the daemon starts it once its loop runs."""

    def pin(self, station: int, key: str):
        """The pin object behind a station key (in the mock backend, tests drive it)."""
        return self.pin_factory.pin(self.profile.stations[station].pins[key])

    def drive(self, station: int, key: str, pressed: bool) -> None:
        """Press or release a station key as a script does: a mock pin (here or in the GPIO
        reader) or a virtual board channel."""
        channels = self.profile.stations[station].channels
        if key in channels:
            self.virtual_board.press(channels[key], pressed)
        elif self.gpio_reader is not None:
            self.gpio_reader.drive(self.profile.stations[station].pins[key], 0 if pressed else 1)
        else:
            pin = self.pin(station, key)
            pin.drive_low() if pressed else pin.drive_high()

    def close(self) -> None:
        for button in self.buttons:
            button.close()
        if self.buzzer is not None:
            self.buzzer.close()
        if self.lights is not None:
            self.lights.close()
        if self.light_sensors is not None:
            self.light_sensors.close()
        if self.board is not None:
            self.board.close()
        if self.gpio_reader is not None:
            self.gpio_reader.close()
        if self.virtual_board is not None:
            self.virtual_board.close()
            shutil.rmtree(self.virtual_board.path.parent, ignore_errors=True)
        self.displays.close()
        if self.table_screen is not None:
            self.table_screen.close()
        if self.buses is not None:
            self.buses.close()


class NoGpio(RuntimeError):
    """A profile for real pins on a machine without the GPIO library (not a Pi), or whose
    ``gpio.chip`` is not there: said plainly."""


def lgpio_work_dir() -> str:
    """Give lgpio a working directory it can use, before it is loaded; returns it.

    lgpio makes its notification FIFOs (``.lgd-nfy-N``) in ``LG_WD``, else in the current
    directory, and changes into it. The unit sets ``LG_WD=/run/companion``; but the self-test run
    by hand as the service's user (``sudo -u companion ... selftest``) keeps the maker's current
    directory, typically a home the service's user may not enter (0700), and lgpio died there
    (``lguGetWorkDir: can't set working directory``, then ``FileNotFoundError: '.lgd-nfy-3'``).
    So, when ``LG_WD`` is not given, the process gets a private directory in the temp dir, removed
    at exit. ``LG_WD`` rather than a ``chdir`` of our own: lgpio changes into it anyway, and the
    paths given on the command line have been read by then."""
    given = os.environ.get("LG_WD")
    if given:
        return given
    path = tempfile.mkdtemp(prefix="companion-lgpio-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    os.environ["LG_WD"] = path
    return path


def pin_factory_for(profile: Profile):
    if profile.backend == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    lgpio_work_dir()
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError as e:
        raise NoGpio(f"this profile drives real GPIO pins, and this machine has no lgpio ({e.msg}): "
                     "run it on the Raspberry Pi (sudo apt install python3-lgpio), or try a profile with "
                     'backend = "mock" here') from e
    return LGPIOFactory()


def build_box(profile: Profile, on_edge: EdgeCallback, pin_factory=None,
              on_board: Callable[[LinkItem], None] | None = None,
              on_gpio: Callable[[ReaderItem], None] | None = None) -> Box:
    """Every adapter of ``profile``; ``on_board`` receives the button board's link items (from
    the link's thread), and is needed if the profile has a board; ``on_gpio`` the GPIO reader's
    items (from its thread), needed if the profile's buttons are read by the reader.

    A board gpiozero cannot tell (``PinUnknownPi``, from lgpio's factory as it starts or from the
    first pin it names) is :class:`NoGpio`, said plainly: its traceback went to the service's log
    and systemd restarted the box into its start limit (on the emulated Pi 4, whose device tree
    lacked the revision a Pi's firmware writes)."""
    from gpiozero.exc import PinUnknownPi

    try:
        return _adapters(profile, on_edge, pin_factory, on_board, on_gpio)
    except PinUnknownPi as e:
        raise NoGpio(f"gpiozero cannot tell which Raspberry Pi this is ({e}), so no pin can be named: a Pi's "
                     "firmware gives its revision in /proc/device-tree/system/linux,revision (or /proc/cpuinfo's "
                     "Revision); run the box on a Raspberry Pi gpiozero knows, or try a profile with "
                     'backend = "mock" here') from e


def _adapters(profile: Profile, on_edge: EdgeCallback, pin_factory, on_board, on_gpio) -> Box:
    sensor_pins = profile.light_sensor_pins()
    chip = profile.gpio_chip if profile.backend == "pi" and profile.gpio_reader else None
    if chip is not None and not Path(chip).exists():
        raise NoGpio(f"gpio.chip: {chip} does not exist: {NO_CHIP}")
    table_screen = None
    if profile.table_screen.enabled:  # its drawing is imported only for a box that has one
        from .tablescreen.display import open_table_screen

        table_screen = open_table_screen(profile.table_screen)
    factory = pin_factory or pin_factory_for(profile)
    reader = None
    if profile.gpio_reader:
        buttons, sources = [], {}
        if profile.gpio_pins() or sensor_pins:
            # Mock pins pretend the kernel's margin: the daemon sees what it will on a Pi.
            reader = GpioReader(sorted(profile.gpio_pins()), on_gpio, mock=profile.backend == "mock",
                                chip=chip, margin_ns=KERNEL_MARGIN_NS, sensors=sorted(sensor_pins))
    else:
        buttons = station_buttons(profile, factory, on_edge)
        sources = {"gpio": round(profile.timing.gpio_latency_ms * 1e6)}
    buzzer = Buzzer(profile.buzzer_pin, factory) if profile.buzzer_pin is not None else None
    buses = Buses()
    displays = DisplayWriter(openers=display_openers(profile, buses))
    box = Box(profile, factory, buttons, displays, buzzer, sources, buses,
              screens_take_time=profile.backend == "pi", table_screen=table_screen, gpio_reader=reader)
    if profile.board is not None:
        port = profile.board.port
        if profile.backend == "mock":
            folder = Path(tempfile.mkdtemp(prefix="companion-board-"))
            box.virtual_board = VirtualBoard(folder / "board",
                                             channels=max([*profile.board_channels(), *profile.light_channels()]) + 1)
            box.virtual_board.start()
            port = str(box.virtual_board.path)
        box.board = BoardLink(port, on_board)
    pins = {i: st.led for i, st in enumerate(profile.stations) if st.led is not None and not st.channels}
    board_leds = {i: st.led for i, st in enumerate(profile.stations) if st.led is not None and st.channels}
    if pins or board_leds:
        box.lights = StationLights(pins, factory, board_leds, box.board.send if box.board else None)
    if sensor_pins or profile.light_channels():
        box.light_sensors = LightSensors()
        box.light_sources = ("gpio",) * bool(sensor_pins) + ("board",) * bool(profile.light_channels())
        if sensor_pins and reader is None:  # the fallback: read here, through gpiozero
            box.light_sensors.read_pins({station: pin for pin, station in sensor_pins.items()}, factory)
    return box
