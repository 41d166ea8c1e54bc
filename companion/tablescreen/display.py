"""Putting table-screen frames on a screen without ever holding up the daemon's loop.

The loop hands :meth:`TableScreen.show` the newest public view and returns at once. A thread of
the table screen's own draws it (:func:`~companion.tablescreen.render.render`, tens of ms at
1280x720) and hands the image to a sink. Views that come while a frame is being drawn are not
queued: only the newest is drawn next, as the station displays' writer does, so a burst of
changes costs one frame and the screen is never behind by more than one.

Sinks: :class:`PygameScreen` opens a pygame display of its own (on a Pi, SDL's ``kmsdrm``
driver straight on the HDMI output, no desktop; ``SDL_VIDEODRIVER=dummy`` in tests); the
simulator shows the frames in a window of its own (:mod:`companion.sim.tablewindow`).
"""

from __future__ import annotations

import logging
import threading
from typing import Callable

from PIL import Image

from ..profile import TableScreenProfile
from . import TableScreenError
from .publicview import PublicView
from .render import render

log = logging.getLogger(__name__)


class TableScreen:
    """Draws the newest public view in its own thread and passes each frame to ``sink``."""

    def __init__(self, size: tuple[int, int], sink: Callable[[Image.Image], None]) -> None:
        self.size = size
        self.sink = sink
        self.frames = 0
        """Frames drawn so far."""
        self.image: Image.Image | None = None
        """The last frame drawn."""
        self._newest: PublicView | None = None
        self._wanted = self._drawn = 0
        self._closed = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="table-screen", daemon=True)
        self._thread.start()

    def show(self, view: PublicView) -> None:
        """Called from the loop: remember ``view`` as the one to draw next, and return."""
        with self._changed:
            self._newest = view
            self._wanted += 1
            self._changed.notify_all()

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until the newest view given is on the screen (screenshots, tests)."""
        with self._changed:
            wanted = self._wanted
            return self._changed.wait_for(lambda: self._drawn >= wanted or self._closed, timeout_s)

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._closed or self._wanted > self._drawn)
                if self._closed:
                    return
                view, wanted = self._newest, self._wanted
            try:
                image = render(view, self.size)
                self.sink(image)
            except Exception:  # a broken screen must not take the referee down with it
                log.exception("table screen: a frame could not be shown")
                image = self.image
            with self._changed:
                self.image = image
                self.frames += 1
                self._drawn = wanted
                self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        self._thread.join(timeout=5)
        close = getattr(self.sink, "close", None)
        if close is not None:
            close()


class PygameScreen:
    """A pygame display of its own, opened by the first frame (in the table screen's thread,
    which then owns it)."""

    def __init__(self, settings: TableScreenProfile) -> None:
        self.settings = settings
        self.surface = None

    def __call__(self, image: Image.Image) -> None:
        import pygame

        if self.surface is None:
            pygame.display.init()
            flags = pygame.FULLSCREEN if self.settings.fullscreen else 0
            self.surface = pygame.display.set_mode(image.size, flags)
            pygame.display.set_caption("Tabletop Companion: table screen")
            pygame.mouse.set_visible(False)
        self.surface.blit(pygame.image.frombytes(image.tobytes(), image.size, "RGB"), (0, 0))
        pygame.display.flip()
        pygame.event.pump()

    def close(self) -> None:
        if self.surface is not None:
            import pygame

            pygame.display.quit()


def open_table_screen(settings: TableScreenProfile) -> TableScreen | None:
    """The profile's table screen, or None when it is off. pygame is needed only then."""
    if not settings.enabled:
        return None
    try:
        import pygame  # noqa: F401
    except ImportError as e:
        raise TableScreenError(f"[table_screen] is enabled but pygame is missing (pip install \".[sim]\"): {e}") from None
    return TableScreen((settings.width, settings.height), PygameScreen(settings))
