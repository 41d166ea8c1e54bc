"""Which ``/dev/i2c-N`` is the displays' bus: the 40-pin header's found by its controller, not its number.

A profile's ``port = 1`` (the default) means the header's own I2C bus, GPIO 2 and 3. On
Raspberry Pi's device trees that bus is always ``/dev/i2c-1`` (they carry an ``i2c1`` alias),
but Debian's trees (the kernel's upstream ones) have no I2C aliases, so the kernel numbers the
buses in the order they probe: on the emulated Pi 4 i2c0 and its multiplexer's two channels took
0 to 2 and the header's bus was ``/dev/i2c-3``, while ``/dev/i2c-1`` was a channel of i2c0's
multiplexer (GPIO 0 and 1, the HAT EEPROM's pins): the box found none of its displays there
(docs/VIRTUAL-PI.md). So the header's bus is found by its controller, the BCM2835 "BSC1":

- its device-tree node, ``i2c@7e804000`` in every BCM283x and BCM2711 tree (the controller's
  address on the VideoCore bus, the same on a Pi 1, 2, 3, Zero 2 W and 4; bcm283x.dtsi and
  bcm2711.dtsi in the kernel's sources), which ``/sys/bus/i2c/devices/i2c-N/of_node`` links to;
- failing that (a kernel without ``of_node`` links), the platform device the adapter hangs
  under, named by the controller's ARM address: ``20804000.i2c`` on the BCM2835 (Pi 1, Zero),
  ``3f804000.i2c`` on the BCM2836/7 (Pi 2, 3, Zero 2 W), ``fe804000.i2c`` on the BCM2711 (Pi 4;
  the emulated Pi 4's interrupts name it so).

Where no adapter has that controller (a Pi 5's header bus is RP1's, on Raspberry Pi's kernel,
whose tree has the alias), the profile's bus number is used as it is, and the log says so. Any
other port (an ``i2c-gpio`` software bus, a maker's own) is always its number. Found again at
each display's (re)opening, so a bus whose driver loads late is found once it is there.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ..profile import Profile

log = logging.getLogger(__name__)

SYSFS = Path("/sys")
HEADER_PORT = 1
"""The profile's number for the header's bus (GPIO 2 and 3)."""
HEADER_NODE = "i2c@7e804000"
"""The header's controller's device-tree node (its VideoCore bus address)."""
HEADER_DEVICES = {"20804000.i2c": "BCM2835", "3f804000.i2c": "BCM2836/7", "fe804000.i2c": "BCM2711"}
"""The same controller's platform device, by the SoC's ARM address for it."""


@dataclass(frozen=True)
class BusChoice:
    port: int
    """The kernel's bus number: ``/dev/i2c-<port>``."""
    why: str


class HeaderBusMissing(LookupError):
    """No I2C bus is the header's, and the profile's number names no bus either."""


def adapters(sysfs: Path = SYSFS) -> dict[int, Path]:
    """The kernel's I2C adapters (``/sys/bus/i2c/devices/i2c-N``; the class ``i2c-adapter``
    is gone from newer kernels, 6.12 among them), by number."""
    found = {}
    try:
        entries = list((sysfs / "bus" / "i2c" / "devices").iterdir())
    except OSError:
        return found
    for entry in entries:
        number = re.fullmatch(r"i2c-(\d+)", entry.name)
        if number:
            found[int(number.group(1))] = entry
    return found


def header_controller(adapter: Path) -> str | None:
    """How ``adapter`` is known to be the header's controller, or None if it is not."""
    node = adapter / "of_node"
    if node.exists() and node.resolve().name == HEADER_NODE:
        return f"device-tree node {HEADER_NODE}"
    device = adapter.resolve().parent.name
    if device in HEADER_DEVICES:
        return f"the {HEADER_DEVICES[device]}'s controller {device}"
    return None


def header_bus(sysfs: Path = SYSFS, named: int = HEADER_PORT) -> BusChoice:
    """The header's bus: the adapter whose controller is the header's; else the profile's
    number ``named`` if the kernel has that bus; else :class:`HeaderBusMissing`."""
    found = adapters(sysfs)
    for number in sorted(found):
        how = header_controller(found[number])
        if how is not None:
            return BusChoice(number, f"the header's bus (GPIO 2 and 3) is /dev/i2c-{number}: its {how}")
    looked_for = (f"no I2C adapter in {sysfs}/bus/i2c/devices has the header's controller (device-tree node "
                  f"{HEADER_NODE}, or a device {', '.join(HEADER_DEVICES)})")
    if named in found:
        return BusChoice(named, f"{looked_for}: the profile's bus /dev/i2c-{named} is used as named")
    raise HeaderBusMissing(f"{looked_for}, and there is no bus {named} either ({len(found)} I2C adapters: "
                           f"{', '.join(f'i2c-{n}' for n in sorted(found)) or 'none'}): is I2C on "
                           "(dtparam=i2c_arm=on in config.txt, then a reboot)?")


class BusFinder:
    """Each display's kernel bus for its profile ``port``, found again at each opening; what it
    chose and why logged when it first chooses and whenever the choice changes."""

    def __init__(self, sysfs: Path = SYSFS) -> None:
        self.sysfs = sysfs
        self._said: str | None = None

    def port(self, port: int) -> int:
        """The kernel's number for the profile's ``port``; the header's found by its controller.
        No bus at all: logged with what was looked for, and the profile's number returned (its
        opening then fails, and the display is retried as any that fails)."""
        if port != HEADER_PORT:
            return port
        try:
            choice = header_bus(self.sysfs, port)
        except HeaderBusMissing as e:
            self._say(logging.ERROR, f"displays: {e}")
            return port
        self._say(logging.INFO, f"displays: {choice.why}")
        return choice.port

    def _say(self, level: int, line: str) -> None:
        if line != self._said:
            self._said = line
            log.log(level, "%s", line)


def bus_speed_hz(port: int, sysfs: Path = SYSFS) -> int | None:
    """The kernel bus ``port``'s clock as the device tree set it (``clock-frequency``, a
    big-endian 32-bit number), or None where the kernel does not say."""
    try:
        frequency = sysfs / "bus" / "i2c" / "devices" / f"i2c-{port}" / "of_node" / "clock-frequency"
        return int.from_bytes(frequency.read_bytes()[:4], "big")
    except OSError:
        return None


def check_bus_speed(profile: Profile, finder: BusFinder) -> list[str]:
    """Warn (and return the warnings) for each displays' bus not running at the profile's
    ``i2c_hz``: at the Pi's default 100 kHz a frame takes 106 ms instead of 26 ms."""
    want = profile.displays.i2c_hz
    warnings = []
    wired = [st for st in profile.stations if not (st.phone or st.buzzer_only)]  # the others have no panel on a bus
    for port in sorted({finder.port(st.display.port) for st in wired}):
        hz = bus_speed_hz(port, finder.sysfs)
        if hz is not None and hz != want:
            warnings.append(f"I2C bus {port} runs at {hz} Hz, the profile says {want} Hz: set "
                            f"dtparam=i2c_arm_baudrate={want} in the boot config (systemd/install.sh does) and reboot")
            log.warning("%s", warnings[-1])
    return warnings
