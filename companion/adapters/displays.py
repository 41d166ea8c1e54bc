"""Station displays through luma, written off the event loop with per-display coalescing.

An SSD1306 frame takes about 25 ms on a 400 kHz I2C bus, so the loop never writes one itself: it
hands the newest image for each display to one writer thread (one, because every display sits
on the same bus) and goes back to the buttons. If a display falls behind, only its newest frame
is written. A display that fails is counted and the game goes on.
"""

from __future__ import annotations

import logging
import threading

from PIL import Image

from ..profile import DisplayProfile, Profile

log = logging.getLogger(__name__)


def open_device(display: DisplayProfile, backend: str):
    """The luma device for one station display: a ``dummy`` in the mock backend."""
    if backend == "mock":
        from luma.core.device import dummy

        return dummy(width=display.width, height=display.height, rotate=display.rotate, mode="1")
    from luma.core.interface.serial import i2c
    from luma.oled import device as oled

    driver = getattr(oled, display.driver)
    panel = driver(i2c(port=display.port, address=display.address),
                   width=display.width, height=display.height, rotate=display.rotate)
    panel.persist = True
    return panel


def open_devices(profile: Profile) -> list:
    return [open_device(st.display, profile.backend) for st in profile.stations]


class DisplayWriter:
    """Writes frames to luma devices from one thread, newest frame per display wins.

    Displays take turns (round robin), so one busy screen cannot starve the others.
    """

    def __init__(self, devices: list, on_ready=None) -> None:
        """``on_ready`` is called once, from the writer thread, when every display has shown
        its first frame: the box is ready for players (and systemd may be told so)."""
        self.devices = devices
        self.on_ready = on_ready
        self.failures = [0] * len(devices)
        self.written = [0] * len(devices)
        self._pending: dict[int, Image.Image] = {}
        self._busy = False
        self._closed = False
        self._next = 0
        self._cv = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="displays", daemon=True)
        self._thread.start()

    def show(self, index: int, image: Image.Image) -> None:
        with self._cv:
            self._pending[index] = image
            self._cv.notify_all()

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._pending and not self._closed:
                    self._cv.wait()
                if self._closed and not self._pending:
                    return
                index = min(self._pending, key=lambda i: (i - self._next) % len(self.devices))
                self._next = index + 1
                image = self._pending.pop(index)
                self._busy = True
            try:
                self.devices[index].display(image)
                self.written[index] += 1
                if self.written[index] == 1 and all(self.written) and self.on_ready is not None:
                    self.on_ready()
            except Exception as e:  # a display fault must never stop the game
                self.failures[index] += 1
                log.warning("display %d failed: %s", index + 1, e)
            with self._cv:
                self._busy = False
                self._cv.notify_all()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every pending frame is written; False on timeout."""
        with self._cv:
            return self._cv.wait_for(lambda: not self._pending and not self._busy, timeout)

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._thread.join(timeout=5)
