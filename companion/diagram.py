"""The wiring of a profile, for the maker with a soldering iron: a table (Markdown) and a
picture (SVG) of the Pi's 40-pin header, made from the profile itself so they cannot drift from it.

Both come from one list of :class:`Wire` rows: every station key (a GPIO and its header pin, or a
button board channel), every display (its bus, multiplexer channel and address) and light sensor, the I2C and
power pins they share, the multiplexer and the buzzer. ``companion profile diagram PROFILE --out
DIR`` writes ``DIR/wiring.svg`` and ``DIR/wiring.md``.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from html import escape

from .arbiter.inputs import KEYS
from .profile import I2C_GPIO_BUSES, I2C_PINS, Profile

HEADER: dict[int, int | str] = {
    1: "3V3", 2: "5V", 3: 2, 4: "5V", 5: 3, 6: "GND", 7: 4, 8: 14, 9: "GND", 10: 15,
    11: 17, 12: 18, 13: 27, 14: "GND", 15: 22, 16: 23, 17: "3V3", 18: 24, 19: 10, 20: "GND",
    21: 9, 22: 25, 23: 11, 24: 8, 25: "GND", 26: 7, 27: 0, 28: 1, 29: 5, 30: "GND",
    31: 6, 32: 12, 33: 13, 34: "GND", 35: 19, 36: 16, 37: 26, 38: 20, 39: "GND", 40: 21,
}
"""The Raspberry Pi 40-pin header (every model since the B+): physical pin -> BCM GPIO number,
or the supply it carries (pinout.xyz, and Raspberry Pi's own GPIO documentation)."""
HEADER_PIN = {gpio: pin for pin, gpio in HEADER.items() if isinstance(gpio, int)}
"""BCM GPIO number -> physical header pin."""

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
"""One colour per station, in seat order."""
SHARED = "#555555"


@dataclass(frozen=True)
class Wire:
    """One connection: ``part`` (a station, "I2C", "buzzer", ...) ``what`` goes ``to`` where."""

    part: str
    what: str
    to: str
    gpio: int | None = None
    """The BCM GPIO at the Pi's end, if it is one (drawn on the header)."""
    station: int | None = None


def pin_name(gpio: int) -> str:
    return f"GPIO {gpio} (pin {HEADER_PIN[gpio]})"


def wires(profile: Profile) -> list[Wire]:
    """Every connection the profile implies, stations first."""
    out: list[Wire] = []
    mux = profile.displays.mux_address
    for i, st in enumerate(profile.stations):
        part = f"{i + 1}: {st.name}"
        for key in KEYS:
            if key in st.pins:
                gpio = st.pins[key]
                out.append(Wire(part, f"{key} button", f"{pin_name(gpio)}; other leg to GND", gpio, i))
            elif key in st.channels:  # a buzzer-only seat has its slap and nothing else
                out.append(Wire(part, f"{key} button", f"button board channel {st.channels[key]}; other leg to GND",
                                station=i))
        d = st.display
        where = (f"TCA9548A (0x{mux:02X}) channel {d.mux_channel} (SD{d.mux_channel}/SC{d.mux_channel})"
                 if d.mux_channel is not None else f"I2C bus {d.port} directly")
        out.append(Wire(part, f"display {d.driver}", f"{where}, address 0x{d.address:02X}; VCC 3V3, GND",
                        station=i))
        over_marker = ("the phototransistor over the marker at the display's right edge, rows 14-37; "
                       "VCC 3V3, GND (hardware/BUILD.md)")
        if st.light_sensor is not None:
            gpio = st.light_sensor
            out.append(Wire(part, "light sensor", f"{pin_name(gpio)} from the comparator's output (high when lit); "
                                                  + over_marker, gpio, i))
        elif st.light_channel is not None:
            out.append(Wire(part, "light sensor", f"button board channel {st.light_channel} from the comparator's "
                                                  "output (high when lit; in the board's SENSOR_CHANNELS); "
                                                  + over_marker, station=i))
    ports = sorted({st.display.port for st in profile.stations})
    if profile.backend == "pi":
        for port in ports:
            if port == 1:
                (sda, scl), note = I2C_PINS, ""
            elif port in I2C_GPIO_BUSES:
                (sda, scl), note = I2C_GPIO_BUSES[port], "; a software bus (i2c-gpio overlay, systemd/install.sh adds it)"
            else:
                out.append(Wire("I2C", f"I2C-{port}", "set up by you (not a bus the installer knows)"))
                continue
            out.append(Wire("I2C", f"I2C-{port} SDA", pin_name(sda) + note, sda))
            out.append(Wire("I2C", f"I2C-{port} SCL", pin_name(scl) + note, scl))
        if any(st.display.mux_channel is not None for st in profile.stations):
            out.append(Wire("TCA9548A", "VIN, GND, SDA, SCL",
                            f"3V3 (pin 1), GND (pin 9), the I2C-1 SDA and SCL above; A0-A2 to GND for 0x{mux:02X}"
                            if mux == 0x70 else
                            f"3V3 (pin 1), GND (pin 9), the I2C-1 SDA and SCL above; A0-A2 set for 0x{mux:02X}"))
    if profile.buzzer_pin is not None:
        gpio = profile.buzzer_pin
        out.append(Wire("buzzer", "NPN base (through 1 kOhm)", pin_name(gpio), gpio))
        out.append(Wire("buzzer", "buzzer", "between 5V (pin 2) and the NPN's collector; emitter to GND; "
                                            "1 kOhm across a piezo, a 1N4148 across a magnetic one"))
    if profile.board is not None:
        out.append(Wire("button board", "Raspberry Pi Pico", f"USB, {profile.board.port}"))
    return out


def wiring_table(profile: Profile) -> str:
    """The wiring as a Markdown table, one row per connection."""
    lines = [f"# Wiring: {profile.name}", "",
             "Generated by `companion profile diagram` from the profile; every button goes between",
             "its input and ground (the inputs are pulled up: a press reads low).", "",
             "| part | what | goes to |", "|---|---|---|"]
    lines += [f"| {w.part} | {w.what} | {w.to} |" for w in wires(profile)]
    return "\n".join(lines) + "\n"


def _short(profile: Profile, w: Wire) -> str:
    """A pin's label on the header: "P1 slap", "I2C-1 SDA", "buzzer NPN base"."""
    if w.station is not None:
        return f"{profile.stations[w.station].name} {w.what.removesuffix(' button')}"
    if w.part == "I2C":
        return w.what
    return f"{w.part} {w.what.split(' (')[0]}"


def _colour(w: Wire) -> str:
    return COLOURS[w.station % len(COLOURS)] if w.station is not None else SHARED


def wiring_svg(profile: Profile) -> str:
    """The header with every pin the profile uses labelled and coloured by station, and a card
    per station (its keys, display) and for the shared parts."""
    rows = wires(profile)
    on_pin = {HEADER_PIN[w.gpio]: w for w in rows if w.gpio is not None}
    row_h, top, pin_x = 24, 70, (330, 356)
    header_h = 20 * row_h
    parts = []
    for w in rows:
        if w.part not in parts:
            parts.append(w.part)
    card_lines = {part: [line for w in rows if w.part == part
                         for line in textwrap.wrap(f"{w.what}: {w.to}", 84, subsequent_indent="    ")]
                  for part in parts}
    line_h, card_gap = 15, 12
    card_x, card_w = 620, 520
    y = top - 20
    cards = []
    for part in parts:
        h = 22 + line_h * len(card_lines[part])
        cards.append((part, y, h))
        y += h + card_gap
    width, height = card_x + card_w + 20, max(top + header_h + 40, y + 10)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="20" y="28" font-size="18" font-weight="bold">{escape(profile.name)}</text>',
           '<text x="20" y="48" fill="#444">The Raspberry Pi 40-pin header from above. Pin 1 (3V3) is the '
           'square pad at the end away from the USB ports; odd pins are the inner row.</text>',
           f'<rect x="{pin_x[0] - 14}" y="{top - 14}" width="{pin_x[1] - pin_x[0] + 28}" '
           f'height="{header_h + 4}" rx="6" fill="#1b1b1b"/>']
    for pin, label in HEADER.items():
        column = (pin + 1) % 2
        cx, cy = pin_x[column], top + (pin - 1) // 2 * row_h
        wire = on_pin.get(pin)
        if wire is not None:
            fill = _colour(wire)
        elif label in ("3V3", "5V"):
            fill = "#e8a33d"
        elif label == "GND":
            fill = "#000000"
        else:
            fill = "#bbbbbb"
        svg.append(f'<circle cx="{cx}" cy="{cy}" r="8" fill="{fill}" stroke="white" stroke-width="1.5"/>')
        svg.append(f'<text x="{cx}" y="{cy + 3}" font-size="8" text-anchor="middle" fill="white">{pin}</text>')
        name = f"GPIO {label}" if isinstance(label, int) else label
        text = f"{name}: {_short(profile, wire)}" if wire is not None else name
        anchor, tx = ("end", cx - 16) if column == 0 else ("start", cx + 16)
        weight = ' font-weight="bold"' if wire is not None else ' fill="#777"'
        colour = f' fill="{_colour(wire)}"' if wire is not None else ""
        svg.append(f'<text x="{tx}" y="{cy + 4}" text-anchor="{anchor}"{weight}{colour}>{escape(text)}</text>')
    for part, y0, h in cards:
        first = next(w for w in rows if w.part == part)
        colour = _colour(first)
        title = f"Station {part}" if first.station is not None else part
        svg.append(f'<rect x="{card_x}" y="{y0}" width="{card_w}" height="{h}" rx="6" fill="none" '
                   f'stroke="{colour}" stroke-width="2"/>')
        svg.append(f'<text x="{card_x + 10}" y="{y0 + 16}" font-weight="bold" fill="{colour}">{escape(title)}</text>')
        for n, line in enumerate(card_lines[part]):
            svg.append(f'<text x="{card_x + 10}" y="{y0 + 32 + n * line_h}" font-size="11" '
                       f'xml:space="preserve">{escape(line)}</text>')
    svg.append("</svg>")
    return "\n".join(svg) + "\n"
