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


def why_no_overlays(profile: Profile) -> str:
    """Why a profile needs no ``config.txt`` lines, for ``profile overlays`` to say rather than print
    nothing: a simulated box has no Pi, and I2C-1 (a multiplexer's panels too) is raspi-config's."""
    if profile.backend != "pi":
        return f"a simulated box (backend = \"{profile.backend}\") has no Pi to configure"
    muxed = any(st.display.mux_channel is not None for st in profile.stations)
    return (f"every display is on the Pi's own I2C bus 1{' (through its multiplexer)' if muxed else ''}, "
            "which the installer turns on with raspi-config")
