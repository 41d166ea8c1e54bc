"""The table screen in the simulator: a second window, next to the stations' window.

pygame's display module has one window, the stations'; this one is an SDL window of its own
(``pygame._sdl2.video``). The table screen's thread draws frames and hands them over with
:meth:`TableWindow.receive`; the simulator's pump puts the newest on the window, in the thread
that owns the windows, about 60 times a second and only when a new frame came.
"""

from __future__ import annotations

import asyncio
import threading

import pygame
from pygame._sdl2.video import Renderer, Texture, Window
from PIL import Image

from ..tablescreen.display import TableScreen
from .window import FRAME_S


class TableWindow:
    def __init__(self, size: tuple[int, int]) -> None:
        self.window = Window("Tabletop Companion: table screen", size=size)
        self.renderer = Renderer(self.window)
        self.screen = TableScreen(size, self.receive)
        self._lock = threading.Lock()
        self._fresh: Image.Image | None = None

    def receive(self, image: Image.Image) -> None:
        """Called from the table screen's thread with each new frame."""
        with self._lock:
            self._fresh = image

    def present(self) -> None:
        """Show the newest frame if one came since the last call (the windows' thread)."""
        with self._lock:
            image, self._fresh = self._fresh, None
        if image is None:
            return
        surface = pygame.image.frombytes(image.tobytes(), image.size, "RGB")
        self.renderer.clear()
        Texture.from_surface(self.renderer, surface).draw()
        self.renderer.present()

    async def pump(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.present()
            await asyncio.sleep(FRAME_S)

    def close(self) -> None:
        self.screen.close()
        self.window.destroy()
