"""Buttons reported stuck (held far too long), marked on their station's screen until released.

A stuck slap button would otherwise look like a player who never presses; the mark tells the
table (and the maker running the self-test) which button to free.
"""

from __future__ import annotations

from PIL import Image

from ..arbiter.inputs import InputEvent
from ..screens.canvas import with_notice


class StuckButtons:
    def __init__(self) -> None:
        self.keys: set[tuple[int, str]] = set()

    def report(self, station: int, key: str) -> None:
        self.keys.add((station, key))

    def seen(self, event: InputEvent) -> None:
        """A release frees a stuck button."""
        if not event.pressed:
            self.keys.discard((event.station, event.key))

    def mark(self, station: int, image: Image.Image) -> Image.Image:
        keys = sorted(k for s, k in self.keys if s == station)
        if keys:
            return with_notice(image, " ".join(keys).upper() + " STUCK")
        return image
