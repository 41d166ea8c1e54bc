"""How the simulator's window looks: its colours, and text in pygame's own font."""

from __future__ import annotations

import pygame

OLED_ON = (205, 238, 255)
OLED_OFF = (7, 11, 17)
BACKGROUND = (30, 33, 38)
CARD = (47, 52, 61)
BEZEL = (14, 16, 20)
FELT = (22, 70, 48)
TEXT = (235, 238, 242)
DIM = (150, 158, 170)
SLAP = (205, 45, 45)
SMALL = (70, 76, 88)
LAMP_OFF = (70, 58, 30)
LAMP_ON = (255, 186, 20)

GAP, PAD = 16, 12
"""Between boxes (stations, the table), and inside each one around what it holds."""


class Canvas:
    """The window's surface with the fonts drawn on it, one per size."""

    def __init__(self, surface: pygame.Surface) -> None:
        self.surface = surface
        self._fonts: dict[int, pygame.font.Font] = {}

    def text(self, s: str, size: int, colour, **where) -> pygame.Rect:
        """Text in pygame's own font (a bold sans), placed by a ``pygame.Rect`` anchor."""
        if size not in self._fonts:
            self._fonts[size] = pygame.font.Font(None, size)
        image = self._fonts[size].render(s, True, colour)
        rect = image.get_rect(**where)
        self.surface.blit(image, rect)
        return rect
