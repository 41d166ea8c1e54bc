"""Station displays through luma, written off the event loop with per-display coalescing.

An SSD1306 frame takes about 25 ms on a 400 kHz I2C bus, so the loop never writes one itself: it
hands the newest image for each display to one writer thread (one, because every display sits
on the same bus) and goes back to the buttons. If a display falls behind, only its newest frame
is written. A display that fails (unplugged, a loose wire) is counted, reported, and retried
with a growing pause, reopened from scratch (a panel that lost power needs its init sequence
again); the game goes on meanwhile. A screen change that opens a race is a :class:`Reveal`,
shown on every panel at once (:mod:`companion.adapters.reveal`).

Reopening must not leak. luma's device constructor registers an ``atexit`` hook holding the device
(and its frame buffers, about 340 kB) *before* it sends the init sequence (luma.core 2.6,
``device.__init__``), and a direct panel's serial opens its own smbus file descriptor. So each
device is built with luma's hook caught (:func:`open_device`), and :func:`release_device`
unregisters it and closes the device's own bus when the writer drops a failed panel.
"""

from __future__ import annotations

import atexit
import functools
import logging
import threading
import time
from typing import Callable

from PIL import Image

from ..profile import DisplayProfile, Profile
from .i2cbus import BusFinder, check_bus_speed
from .mux import MuxChannel
from .reveal import Reveal

log = logging.getLogger(__name__)

RETRY_FIRST_S, RETRY_MAX_S = 1.0, 30.0


class Buses:
    """One smbus per I2C port and one lock per bus, shared by every display on it."""

    def __init__(self) -> None:
        self._buses: dict[int, object] = {}
        self.locks: dict[int, threading.Lock] = {}

    def get(self, port: int):
        if port not in self._buses:
            import smbus2

            self._buses[port] = smbus2.SMBus(port)
            self.locks[port] = threading.Lock()
        return self._buses[port]

    def close(self) -> None:
        for bus in self._buses.values():
            bus.close()


class _ExitHookTrap:
    """Stands in for the ``atexit`` module inside ``luma.core.device``: while a thread builds a
    device in :func:`_build`, the hook luma registers is caught instead of registered;
    any other registration goes through to ``atexit``."""

    def __init__(self) -> None:
        self._local = threading.local()

    def register(self, func, *args, **kwargs):
        caught = getattr(self._local, "caught", None)
        if caught is None or args or kwargs:
            return atexit.register(func, *args, **kwargs)
        caught.append(func)
        return func

    def __getattr__(self, name: str):
        return getattr(atexit, name)


_TRAP = _ExitHookTrap()
_EXIT_HOOKS: dict[int, list] = {}
"""id(device) -> the luma exit hooks registered for it (each holds its device)."""


def _build(make: Callable[[], object], serial=None):
    """``make()`` a luma device with its exit hooks kept by us: registered if it is built,
    dropped with ``serial`` closed if it fails (its init sequence found no panel)."""
    import luma.core.device

    luma.core.device.atexit = _TRAP
    _TRAP._local.caught = caught = []
    try:
        panel = make()
    except BaseException:
        if serial is not None:
            serial.cleanup()  # closes the smbus a direct panel opened; nothing for a mux channel
        raise
    finally:
        _TRAP._local.caught = None
    for hook in caught:
        atexit.register(hook)
    _EXIT_HOOKS[id(panel)] = caught
    return panel


def release_device(panel) -> None:
    """Forget a device that failed: unregister its exit hooks, close its own bus (a panel left
    on shows its last frame; a dead one cannot be told anything)."""
    for hook in _EXIT_HOOKS.pop(id(panel), []):
        atexit.unregister(hook)
    serial = getattr(panel, "_serial_interface", None)
    if serial is not None:
        try:
            serial.cleanup()
        except OSError as e:
            log.debug("closing a failed display's bus: %s", e)


def open_device(display: DisplayProfile, backend: str, buses: Buses | None = None, mux_address: int = 0x70,
                finder: BusFinder | None = None):
    """The luma device for one station display: a ``dummy`` in the mock backend. Its bus is the
    kernel's number ``finder`` gives for its profile ``port`` (the header's found by its
    controller, :mod:`.i2cbus`), asked at each opening."""
    if backend == "mock":
        from luma.core.device import dummy

        return _build(lambda: dummy(width=display.width, height=display.height, rotate=display.rotate, mode="1"))
    from luma.core.interface.serial import i2c
    from luma.oled import device as oled

    from .framepack import FAST

    port = display.port if finder is None else finder.port(display.port)
    if display.mux_channel is None:
        serial = i2c(port=port, address=display.address)
    else:
        bus = MuxChannel(buses.get(port), display.mux_channel, buses.locks[port], mux_address)
        serial = i2c(bus=bus, address=display.address)
    driver = FAST.get(display.driver) or getattr(oled, display.driver)
    panel = _build(lambda: driver(serial, width=display.width, height=display.height, rotate=display.rotate), serial)
    panel.persist = True  # a clean stop leaves the last screen up
    return panel


def display_openers(profile: Profile, buses: Buses) -> list[Callable[[], object]]:
    """One way to (re)open each station's display, for the writer to call; a buzzer-only seat's
    is a panel in memory (luma's dummy): its screens go nowhere, and it shows a race at once. So is a
    phone station's: its phone is sent the screen (:mod:`companion.web`)."""
    finder = None
    if profile.backend == "pi":
        finder = BusFinder()
        check_bus_speed(profile, finder)
    return [functools.partial(open_device, st.display, "mock" if st.buzzer_only or st.phone else profile.backend, buses,
                              profile.displays.mux_address, finder)
            for st in profile.stations]


class DisplayWriter:
    """Writes frames to luma devices from one thread, newest frame per display wins.

    Displays take turns (round robin), so one busy screen cannot starve the others. Give
    ``openers`` (callables returning a device) to have displays opened in the writer thread and
    reopened after a failure; or give ready ``devices``.
    """

    def __init__(self, devices: list | None = None, on_ready=None,
                 openers: list[Callable[[], object]] | None = None, clock=time.monotonic,
                 now_ns=time.monotonic_ns, on_change=None) -> None:
        """``on_ready`` is called once, from the writer thread, when every display has been
        *tried* with its first frame, shown or failed: a dead panel must not keep the box (and
        systemd) waiting; it is retried in the background. ``on_change`` is called from the
        writer thread with :meth:`down` whenever a display fails or comes back, so the players
        can be told. ``now_ns`` stamps a reveal's onsets (the same clock as the buttons' edges)."""
        self.openers = openers
        self.devices = list(devices) if devices is not None else [None] * len(openers)
        self.on_ready = on_ready
        self.on_change = on_change
        self.clock = clock
        self.now_ns = now_ns
        count = len(self.devices)
        self.failures = [0] * count
        self.written = [0] * count
        self.tried = [False] * count
        """Displays that have been sent their first frame, shown or not."""
        self.retry_at = [0.0] * count
        self._pause = [0.0] * count
        self._contrast: int | None = None
        self.contrast_level: int | None = None
        """The brightness last asked for (None: the panels' own default)."""
        self._pending: dict[int, Image.Image] = {}
        self._reveal: Reveal | None = None
        self._busy = False
        self.jobs = 0
        """Jobs done (a frame, a reveal, a contrast): the writer's work, which a spin does none of."""
        self._closed = False
        self._next = 0
        self._cv = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="displays", daemon=True)
        self._thread.start()

    def show(self, index: int, image: Image.Image) -> None:
        """A newer frame for one display; if a reveal is waiting, it joins the reveal."""
        with self._cv:
            if self._reveal is not None and index in self._reveal.frames:
                self._reveal.frames[index] = image
            else:
                self._pending[index] = image
            self._cv.notify_all()

    def reveal(self, frames: dict[int, Image.Image], on_shown: Callable[[dict[int, int]], None] | None = None) -> None:
        """Show ``frames`` (station -> image) on every panel at the same instant; ``on_shown``
        gets each station's onset. It replaces older frames of those displays, and a reveal
        still waiting (whose race the table has left)."""
        with self._cv:
            for index in frames:
                self._pending.pop(index, None)
            self._reveal = Reveal(dict(frames), on_shown)
            self._cv.notify_all()

    def set_contrast(self, level: int) -> None:
        """Brightness 0-255 for every display (dimmed when the table is idle)."""
        with self._cv:
            self.contrast_level = self._contrast = level
            self._cv.notify_all()

    def down(self) -> list[int]:
        """Displays waiting to be retried after a failure."""
        return [i for i, pause in enumerate(self._pause) if pause > 0]

    def _due(self) -> list[int]:
        now = self.clock()
        return [i for i in self._pending if self.retry_at[i] <= now]

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._closed and not self._due() and self._contrast is None and self._reveal is None:
                    waits = [self.retry_at[i] - self.clock() for i in self._pending]
                    self._cv.wait(timeout=max(0.0, min(waits)) if waits else None)
                if self._closed:
                    return
                contrast, self._contrast = self._contrast, None
                reveal, self._reveal = self._reveal, None
                due = [] if reveal is not None else self._due()
                index = min(due, key=lambda i: (i - self._next) % len(self.devices)) if due else None
                image = self._pending.pop(index) if index is not None else None
                if index is not None:
                    self._next = index + 1
                self._busy = True
            if contrast is not None:
                self._apply_contrast(contrast)
            if reveal is not None:
                self._show_at_once(reveal)
            if index is not None:
                self._write(index, image)
            with self._cv:
                self._busy = False
                self.jobs += 1
                self._cv.notify_all()

    def _apply_contrast(self, level: int) -> None:
        for index, device in enumerate(self.devices):
            if device is not None:
                try:
                    device.contrast(level)
                except Exception as e:
                    log.warning("display %d: contrast failed: %s", index + 1, e)

    def _show_at_once(self, reveal: Reveal) -> None:
        """Hide every panel, write every frame, then show them all, each step back to back
        (every panel goes dark at the same time too: the blink warns nobody earlier)."""
        frames = reveal.frames
        now = self.clock()
        waiting = [i for i in sorted(frames) if self.retry_at[i] > now]
        with self._cv:
            for index in waiting:  # down: shown when its retry is due
                self._pending.setdefault(index, frames[index])
        hidden = [i for i in sorted(frames) if i not in waiting and self._on_device(i, frames[i], "hide")]
        written = [i for i in hidden if self._write(i, frames[i])]
        shown = {}
        for index in written:
            if self._on_device(index, frames[index], "show"):
                shown[index] = self.now_ns()
        if reveal.on_shown is not None:
            reveal.on_shown(reveal.onsets(shown, self.now_ns()))

    def _on_device(self, index: int, image: Image.Image, action: str, *args) -> bool:
        """Call the display's ``action`` (opening it first if need be); on failure count it and
        retry the display later with ``image``, and return False."""
        try:
            if self.devices[index] is None:
                self.devices[index] = self.openers[index]()
                if self.contrast_level is not None:  # a fresh init sequence set the panel's own
                    self.devices[index].contrast(self.contrast_level)
            getattr(self.devices[index], action)(*args)
        except Exception as e:  # a display fault must never stop the game
            self._failed(index, image, e)
            return False
        return True

    def _write(self, index: int, image: Image.Image) -> bool:
        """Write one frame; False if the display failed."""
        if not self._on_device(index, image, "display", image):
            return False
        came_back = bool(self._pause[index])
        if came_back:
            log.info("display %d is back", index + 1)
            self._pause[index] = 0.0
        self.written[index] += 1
        self._first_try(index)
        if came_back:
            self._changed()
        return True

    def _first_try(self, index: int) -> None:
        if self.tried[index]:
            return
        self.tried[index] = True
        if all(self.tried) and self.on_ready is not None:
            self.on_ready()

    def _failed(self, index: int, image: Image.Image, e: Exception) -> None:
        """Count the failure and retry the display later, with this frame unless a newer one comes."""
        self.failures[index] += 1
        was_up = not self._pause[index]
        self._pause[index] = min(RETRY_MAX_S, max(RETRY_FIRST_S, 2 * self._pause[index]))
        self.retry_at[index] = self.clock() + self._pause[index]
        failures = self.failures[index]
        if was_up or failures & (failures - 1) == 0:  # then at 2, 4, 8...: a dead panel cannot flood the log
            # str(e): a log record kept by a handler must not keep the failed device alive
            log.warning("display %d failed (%s; %d failures); retrying in %.0f s",
                        index + 1, str(e), failures, self._pause[index])
        if self.openers is not None and self.devices[index] is not None:
            release_device(self.devices[index])
            self.devices[index] = None
        with self._cv:
            self._pending.setdefault(index, image)  # a newer frame wins; else show this one
        self._first_try(index)
        if was_up:
            self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.down())

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every frame that is due is written (a display waiting for its retry keeps
        its frame for later); False on timeout."""
        with self._cv:
            return self._cv.wait_for(lambda: not self._busy and not self._due() and self._reveal is None, timeout)

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._thread.join(timeout=5)
