"""The simulator's keyboard: one key for every station button, printed on the drawn buttons.

Stations 1 to 3 share the home row with their slap keys on the row above; stations 4 to 6 share
the bottom row with their slap keys on the digit row, so six players fit around one laptop.
Keys are pygame key names (``pygame.key.name``), which follow the keyboard's layout.
"""

from __future__ import annotations

from typing import Collection, Sequence

STATION_KEYS: tuple[dict[str, str], ...] = (
    {"slap": "q", "left": "a", "ok": "s", "right": "d"},
    {"slap": "p", "left": "j", "ok": "k", "right": "l"},
    {"slap": "t", "left": "f", "ok": "g", "right": "h"},
    {"slap": "1", "left": "z", "ok": "x", "right": "c"},
    {"slap": "5", "left": "v", "ok": "b", "right": "n"},
    {"slap": "0", "left": "m", "ok": ",", "right": "."},
)
"""Station ``i``'s keys: station button -> key name."""

MUTE = "f1"
QUIT = "escape"
CONFIRM_QUIT = ("y", "return")
"""While the window asks whether to quit, these quit; any other key keeps playing."""


def station_button(key_name: str, stations: Sequence[Collection[str]]) -> tuple[int, str] | None:
    """The (station, button) a key stands for on a box whose stations have the ``stations``
    buttons each (all four, or a buzzer-only seat's slap alone), if any: the keys of a button a
    station does not have stand for nothing."""
    for station, (keys, buttons) in enumerate(zip(STATION_KEYS, stations)):
        for button, name in keys.items():
            if name == key_name and button in buttons:
                return station, button
    return None


def label(key_name: str) -> str:
    """How a key is printed on a drawn button."""
    return key_name.upper()


def button_label(station: int, button: str) -> str:
    """What is printed on a station's drawn button: its key, or nothing on a station beyond the
    keyboard's six (a quiz night's 17 stations), which is pressed with the mouse."""
    return label(STATION_KEYS[station][button]) if station < len(STATION_KEYS) else ""


def legend(station: int, buttons: Collection[str]) -> str:
    """The keys of the station's ``buttons``, for its card's header: ``keys Q  A S D``, a
    buzzer-only seat's ``key T``, or ``click`` beyond six."""
    if station >= len(STATION_KEYS):
        return "click"
    keys = STATION_KEYS[station]
    if set(buttons) == {"slap"}:
        return f"key {label(keys['slap'])}"
    return f"keys {label(keys['slap'])}  " + " ".join(label(keys[k]) for k in ("left", "ok", "right"))
