"""What a Pi's ``/boot/firmware/config.txt`` needs for a profile's display buses.

Separate from the profile's data and checks because it speaks to the Pi's firmware, not to the
box: ``systemd/install.sh`` and ``companion profile overlays`` write it, the box never reads it.
"""

from __future__ import annotations

from .box import I2C_GPIO_BUSES, Profile

def boot_config(profile: Profile) -> list[str]:
    """The lines ``/boot/firmware/config.txt`` needs for the profile's display buses beyond I2C-1
    (which ``raspi-config nonint do_i2c 0`` turns on): an ``i2c-gpio`` overlay per known
    software bus (:data:`I2C_GPIO_BUSES`)."""
    if profile.backend != "pi":
        return []
    ports = sorted({st.display.port for st in profile.stations} & I2C_GPIO_BUSES.keys())
    return [f"dtoverlay=i2c-gpio,bus={port},i2c_gpio_sda={I2C_GPIO_BUSES[port][0]},"
            f"i2c_gpio_scl={I2C_GPIO_BUSES[port][1]}" for port in ports]


def unknown_buses(profile: Profile) -> list[int]:
    """Display ports neither I2C-1 nor a bus :func:`boot_config` sets up (an ``i2c-mux`` kernel
    overlay's buses, say): the maker's to provide."""
    if profile.backend != "pi":
        return []
    return sorted({st.display.port for st in profile.stations} - I2C_GPIO_BUSES.keys() - {1})
