"""A station as the simulator draws it: its name and keys, its panel in a bezel, its slap button
with the station light around it, and its left/ok/right keys.

A buzzer-only seat (a quiz player's bare slap button, ``buzzer_only = true``) is drawn as what
it is: its name and key over the slap button and its light, in a narrower box, with no panel
and no left/ok/right keys, so a maker trying a quiz layout sees the seats they will build.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame
from PIL import Image

from ..arbiter.inputs import KEYS
from ..profile import Profile
from . import keys as keymap
from .look import BEZEL, CARD, DIM, LAMP_OFF, LAMP_ON, OLED_OFF, OLED_ON, PAD, SLAP, SMALL, TEXT, Canvas

HEADER, GLASS, RIM = 30, 4, 10
BUTTON_H, CAPTION_H, SLAP_D, SMALL_W, SMALL_GAP, SLAP_GAP = 52, 18, 52, 64, 10, 22
LAMP_RING = 7
BUTTONS_W = SLAP_D + SLAP_GAP + 3 * SMALL_W + 2 * SMALL_GAP
"""The row of a station's four buttons."""
BUZZER_W = 2 * PAD + 100
"""A buzzer-only seat's box: its slap button with the light, and "16  Ola" (66 px at 24 px)."""
LEGEND_H = 22
"""A buzzer-only seat's key ("key T", or "click") on a line of its own below its name."""
BUZZER_H = PAD + HEADER + LEGEND_H + LAMP_RING + BUTTON_H + CAPTION_H + PAD


@dataclass(frozen=True)
class StationArea:
    card: pygame.Rect
    panel: pygame.Rect | None
    """Where the OLED's pixels are drawn, exactly ``scale`` times the panel's size; none for a
    buzzer-only seat."""
    buttons: dict[str, pygame.Rect]
    """The buttons the station has: all four, or a buzzer-only seat's slap alone."""
    lamp: pygame.Rect
    """The station light: a ring around the slap button, as the LED in an arcade button."""


def card_sizes(profile: Profile, scale: int) -> list[tuple[int, int]]:
    """Each station's box, (width, height): every full station's as big as the biggest panel
    needs, every buzzer-only seat's narrow and short."""
    displays = [st.display for st in profile.stations if not st.buzzer_only]
    panel_w = max(d.width for d in displays) * scale
    panel_h = max(d.height for d in displays) * scale
    full = (max(panel_w + 2 * (GLASS + RIM), BUTTONS_W) + 2 * PAD,
            PAD + HEADER + panel_h + 2 * (GLASS + RIM) + PAD + BUTTON_H + CAPTION_H + PAD)
    return [(BUZZER_W, BUZZER_H) if st.buzzer_only else full for st in profile.stations]


def station_area(profile: Profile, station: int, card: pygame.Rect, scale: int) -> StationArea:
    """Where a station's things go in its box; the slap buttons of a row of boxes are level, as
    each sits at its box's foot."""
    y = card.bottom - PAD - CAPTION_H - BUTTON_H
    if profile.stations[station].buzzer_only:
        slap = pygame.Rect(0, y, SLAP_D, SLAP_D)
        slap.centerx = card.centerx
        return StationArea(card, None, {"slap": slap}, slap.inflate(2 * LAMP_RING, 2 * LAMP_RING))
    display = profile.stations[station].display
    panel = pygame.Rect(0, 0, display.width * scale, display.height * scale)
    panel.midtop = (card.centerx, card.y + PAD + HEADER + GLASS + RIM)
    x = card.centerx - BUTTONS_W // 2
    buttons = {"slap": pygame.Rect(x, y, SLAP_D, SLAP_D)}
    x += SLAP_D + SLAP_GAP
    for key in KEYS[1:]:
        buttons[key] = pygame.Rect(x, y + (BUTTON_H - 40) // 2, SMALL_W, 40)
        x += SMALL_W + SMALL_GAP
    return StationArea(card, panel, buttons, buttons["slap"].inflate(2 * LAMP_RING, 2 * LAMP_RING))


def panel_pixels(image: Image.Image, scale: int) -> Image.Image:
    """A panel's image as the window shows it: lit and dark OLED colours, each pixel a block."""
    rgb = Image.new("RGB", image.size, OLED_OFF)
    rgb.paste(OLED_ON, mask=image.convert("1"))
    return rgb.resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)


def draw_station(canvas: Canvas, station: int, name: str, area: StationArea,
                 panel: pygame.Surface | None, lit: bool, down: set[str]) -> None:
    """The station's box: ``panel`` is its panel's pixels (if it has shown anything), ``lit``
    whether its light is lit now, ``down`` the buttons held."""
    surface = canvas.surface
    pygame.draw.rect(surface, CARD, area.card, border_radius=14)
    header_y = area.card.y + PAD + HEADER // 2
    legend = keymap.legend(station, area.buttons)
    surface.set_clip(area.card.inflate(-PAD, 0))   # a long name stays in its box
    if area.panel is None:
        canvas.text(f"{station + 1}  {name}", 24, TEXT, center=(area.card.centerx, header_y))
        canvas.text(legend, 20, DIM, center=(area.card.centerx, header_y + (HEADER + LEGEND_H) // 2))
    else:
        canvas.text(f"{station + 1}  {name}", 24, TEXT, midleft=(area.card.x + PAD, header_y))
        canvas.text(legend, 20, DIM, midright=(area.card.right - PAD, header_y))
    surface.set_clip(None)
    if area.panel is not None:
        glass = area.panel.inflate(2 * GLASS, 2 * GLASS)
        pygame.draw.rect(surface, BEZEL, glass.inflate(2 * RIM, 2 * RIM), border_radius=8)
        pygame.draw.rect(surface, OLED_OFF, glass)
        if panel is not None:
            surface.blit(panel, area.panel)
    pygame.draw.ellipse(surface, LAMP_ON if lit else LAMP_OFF, area.lamp, width=LAMP_RING - 2)
    for key, rect in area.buttons.items():
        _draw_button(canvas, station, key, rect, key in down)


def _draw_button(canvas: Canvas, station: int, key: str, rect: pygame.Rect, down: bool) -> None:
    """A raised button casts a shadow; a held one sinks into it and darkens."""
    colour = SLAP if key == "slap" else SMALL
    face = rect.move(0, 3)
    if down:
        colour = tuple(c * 3 // 4 for c in colour)
    else:
        _shape(canvas.surface, key, BEZEL, face)
        face = rect
    _shape(canvas.surface, key, colour, face)
    canvas.text(keymap.button_label(station, key), 28, TEXT, center=face.center)
    canvas.text(key, 18, DIM, midtop=(rect.centerx, rect.bottom + 4))


def _shape(surface: pygame.Surface, key: str, colour, rect: pygame.Rect) -> None:
    if key == "slap":
        pygame.draw.ellipse(surface, colour, rect)
    else:
        pygame.draw.rect(surface, colour, rect, border_radius=8)
