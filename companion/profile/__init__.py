"""Hardware profiles: which pin is which station's button, which display faces whom.

A profile is a TOML file (see ``hardware/profiles/``). It is data from a maker's hands, so it is
checked completely on load and every problem is reported at once, each naming its field
(``stations[2].pins.ok: pin 13 is already stations[0].pins.right``). Stations are numbered from
1 in messages, as they are labelled on the box; in code they are 0-based indices.

The profile's data is :mod:`.box`, reading and checking it :mod:`.checks`, the Pi's boot
configuration for it :mod:`.bootconfig`; everything is importable from here.
"""

from __future__ import annotations

from .box import (BACKENDS, BOARD_CHANNELS, BOARD_LEDS, DRIVERS, GPIO_RANGE, I2C_GPIO_BUSES, I2C_PINS,
                  MAX_NAME, MAX_SIMULATED, MAX_STATIONS, MIN_STATIONS, NAME_FITS, NAME_MAX, PANEL_SIZE,
                  PWM_PINS, ROTATIONS, BoardProfile, DisplayProfile, Displays, Profile, ProfileError,
                  StationProfile, TableScreenProfile, Timing, WebProfile)
from .bootconfig import boot_config, unknown_buses
from .checks import load_profile, parse_profile, warnings
