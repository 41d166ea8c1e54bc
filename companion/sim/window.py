"""The simulator's window: every station's OLED and buttons around a table, in one pygame window.

It is two adapters in one: the stations' input (keys and clicks become input events, stamped on
the host monotonic clock the moment pygame hands them over) and their output (each panel is
drawn from the image its luma device holds, every OLED pixel a ``scale`` x ``scale`` block).
The event pump runs about 60 times a second while the window is open and redraws only when
something changed, so an idle simulator costs little. Quitting only ever sets the stop event: the
window never ends the process itself.

Key times have the pump's resolution: presses that wait in one frame's queue are stamped in the
order they happened, microseconds apart, so a press up to one frame (17 ms) later can count
as a tie where the hardware would not.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Callable

import pygame
from PIL import Image

from ..adapters.lights import BLINK_S, StationLights
from ..arbiter.inputs import KEYS, InputEvent
from ..profile import Profile
from . import keys as keymap
from .sound import MixerBuzzer

FRAME_S = 1 / 60
SOURCE = "keyboard"

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

GAP, PAD, HEADER, GLASS, RIM = 16, 12, 30, 4, 10
BUTTON_H, CAPTION_H, SLAP_D, SMALL_W, SMALL_GAP, SLAP_GAP = 52, 18, 52, 64, 10, 22
TABLE_H = 86
"""The table strip's row: the title, the sound switch and, where the window is wide enough, the
buzzer lamp between them."""
LAMP_ROW_H = 56
"""A second row for the buzzer lamp where the window is too narrow for all three (one column)."""
LAMP_D, LAMP_GLOW = 40, 6
TITLE_W = 210
"""The title's block: "Tabletop Companion" is 200 px wide in pygame's font at 30 px."""
CUE_W = 120
"""The lamp's label: the longest cue name ("last_seconds") is 103 px at 24 px."""
SOUND_W, SOUND_H, QUIT_W = 150, 30, 60
MAX_COLUMNS = 6
"""Stations in a row at most: a quiz box's 17 stations are three rows, not two very long ones."""
LAMP_RING = 7


def panel_pixels(image: Image.Image, scale: int) -> Image.Image:
    """A panel's image as the window shows it: lit and dark OLED colours, each pixel a block."""
    rgb = Image.new("RGB", image.size, OLED_OFF)
    rgb.paste(OLED_ON, mask=image.convert("1"))
    return rgb.resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)


@dataclass(frozen=True)
class StationArea:
    card: pygame.Rect
    panel: pygame.Rect
    """Where the OLED's pixels are drawn, exactly ``scale`` times the panel's size."""
    buttons: dict[str, pygame.Rect]
    lamp: pygame.Rect
    """The station light: a ring around the slap button, as the LED in an arcade button."""


@dataclass(frozen=True)
class Layout:
    """Where everything goes: the first half of the stations' rows above the table, the rest
    below; on the table, each thing in a box of its own, none over another."""

    size: tuple[int, int]
    stations: tuple[StationArea, ...]
    table: pygame.Rect
    title: pygame.Rect
    """The box's name above the middle of the title's block, the station count below it."""
    lamp: pygame.Rect
    cue: pygame.Rect
    """The lamp's label: the cue playing, else "buzzer"."""
    sound: pygame.Rect
    quit: pygame.Rect


def layout(profile: Profile, scale: int) -> Layout:
    panel_w = max(st.display.width for st in profile.stations) * scale
    panel_h = max(st.display.height for st in profile.stations) * scale
    buttons_w = SLAP_D + SLAP_GAP + 3 * SMALL_W + 2 * SMALL_GAP
    card_w = max(panel_w + 2 * (GLASS + RIM), buttons_w) + 2 * PAD
    card_h = PAD + HEADER + panel_h + 2 * (GLASS + RIM) + PAD + BUTTON_H + CAPTION_H + PAD
    count = len(profile.stations)
    columns = min(-(-count // 2), MAX_COLUMNS)
    rows = [range(first, min(first + columns, count)) for first in range(0, count, columns)]
    above = (len(rows) + 1) // 2
    width = columns * (card_w + GAP) + GAP
    strip = _table_strip(GAP, GAP + above * (card_h + GAP), width - 2 * GAP)
    table = strip["table"]
    areas = []
    for i, row in enumerate(rows):
        y = GAP + i * (card_h + GAP) + (table.height + GAP if i >= above else 0)
        x = (width - len(row) * (card_w + GAP) + GAP) // 2
        for station in row:
            areas.append(_station_area(profile, station, pygame.Rect(x, y, card_w, card_h), scale))
            x += card_w + GAP
    height = GAP + len(rows) * (card_h + GAP) + table.height + GAP
    return Layout((width, height), tuple(areas), **strip)


def _table_strip(x: int, y: int, width: int) -> dict[str, pygame.Rect]:
    """The table between the rows of stations: the title at the left, the sound switch and
    "Esc quit" at the right, the buzzer lamp and its label between them. Where the window is
    too narrow for that (one column of stations), the lamp goes in a row of its own below, and
    the sound switch below the title if it does not fit beside it either."""
    lamp_w = LAMP_D + 2 * LAMP_GLOW + 14 + CUE_W
    middle = y + TABLE_H // 2
    title = pygame.Rect(x + 20, middle - 20, TITLE_W, 38)
    sound = pygame.Rect(0, 0, SOUND_W, SOUND_H)
    quit = pygame.Rect(0, 0, QUIT_W, 16)
    lamp = pygame.Rect(0, 0, LAMP_D, LAMP_D)
    bottom = y + TABLE_H
    if 20 + TITLE_W + GAP + SOUND_W + PAD <= width:
        sound.midright = (x + width - PAD, middle - 17)
    else:
        sound.topleft = (title.x, bottom)
        bottom = sound.bottom + 36
    quit.midright = (sound.right, sound.bottom + 20)
    if 20 + TITLE_W + GAP + lamp_w + GAP + SOUND_W + PAD <= width:
        lamp.center = (x + width // 2 - 50, middle)
        lamp.left = max(lamp.left, title.right + GAP + LAMP_GLOW)
    else:
        lamp.midleft = (title.x + LAMP_GLOW, bottom + LAMP_ROW_H // 2 - LAMP_GLOW)
        bottom += LAMP_ROW_H
    cue = pygame.Rect(lamp.right + 14, lamp.centery - 10, CUE_W, 20)
    table = pygame.Rect(x, y, width, bottom - y)
    return {"table": table, "title": title, "lamp": lamp, "cue": cue, "sound": sound, "quit": quit}


def _station_area(profile: Profile, station: int, card: pygame.Rect, scale: int) -> StationArea:
    display = profile.stations[station].display
    panel = pygame.Rect(0, 0, display.width * scale, display.height * scale)
    panel.midtop = (card.centerx, card.y + PAD + HEADER + GLASS + RIM)
    y = card.bottom - PAD - CAPTION_H - BUTTON_H
    x = card.centerx - (SLAP_D + SLAP_GAP + 3 * SMALL_W + 2 * SMALL_GAP) // 2
    buttons = {"slap": pygame.Rect(x, y, SLAP_D, SLAP_D)}
    x += SLAP_D + SLAP_GAP
    for key in KEYS[1:]:
        buttons[key] = pygame.Rect(x, y + (BUTTON_H - 40) // 2, SMALL_W, 40)
        x += SMALL_W + SMALL_GAP
    return StationArea(card, panel, buttons, buttons["slap"].inflate(2 * LAMP_RING, 2 * LAMP_RING))


def fit_scale(profile: Profile, screen: tuple[int, int]) -> int:
    """The largest pixel scale (up to 4) whose window fits in 90% of the screen."""
    for scale in (4, 3, 2):
        w, h = layout(profile, scale).size
        if w <= screen[0] * 0.9 and h <= screen[1] * 0.9:
            return scale
    return 1


class Window:
    def __init__(self, profile: Profile, panels: list, buzzer: MixerBuzzer,
                 on_edge: Callable[[InputEvent], None], scale: int | None = None,
                 lights: StationLights | None = None) -> None:
        """``panels`` are the stations' luma devices (their ``.image`` is what each shows);
        ``lights`` the station lights the daemon sets (their ``states``)."""
        self.lights = lights
        pygame.display.init()
        pygame.font.init()
        if scale is None:
            scale = fit_scale(profile, pygame.display.get_desktop_sizes()[0])
        self.profile = profile
        self.scale = scale
        self.layout = layout(profile, scale)
        self.panels = panels
        self.buzzer = buzzer
        self.on_edge = on_edge
        self.surface = pygame.display.set_mode(self.layout.size)
        pygame.display.set_caption(f"Tabletop Companion: {profile.name}")
        self.asking = False
        """True while the window asks whether to quit."""
        self.quitting = False
        self._held: dict[tuple[int, str], set[str]] = {}
        self._clicked: tuple[int, str] | None = None
        self._fonts: dict[int, pygame.font.Font] = {}
        self._pixels: list[tuple[Image.Image | None, pygame.Surface | None]] = [(None, None)] * len(panels)
        self._drawn: tuple | None = None

    # input

    def deliver(self, station: int, key: str, pressed: bool, by: str) -> None:
        """A station button went down or up, held by ``by`` (keyboard, mouse or script).

        A button held two ways at once (key and mouse) is one press: only the first down and
        the last up are edges."""
        holders = self._held.setdefault((station, key), set())
        was_down = bool(holders)
        holders.add(by) if pressed else holders.discard(by)
        if bool(holders) != was_down:
            self.on_edge(InputEvent(station, key, pressed, time.monotonic_ns(), SOURCE))

    def handle(self, events: list[pygame.event.Event]) -> None:
        for event in events:
            if event.type == pygame.QUIT:
                self.quitting = True
            elif event.type in (pygame.KEYDOWN, pygame.KEYUP):
                self._key(pygame.key.name(event.key), event.type == pygame.KEYDOWN)
            elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
                self._click(event.pos)
            elif event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self._clicked:
                self.deliver(*self._clicked, False, "mouse")
                self._clicked = None
            elif event.type == pygame.WINDOWFOCUSLOST:
                self.release_all()

    def _key(self, name: str, down: bool) -> None:
        button = keymap.station_button(name, len(self.panels))
        if self.asking and down:
            self.asking = False
            self.quitting = name in keymap.CONFIRM_QUIT
        elif button is not None:
            self.deliver(*button, down, "keyboard")
        elif down and name == keymap.QUIT:
            self.asking = True
        elif down and name == keymap.MUTE:
            self.buzzer.toggle_mute()

    def _click(self, pos: tuple[int, int]) -> None:
        if self.asking:
            return
        if self.layout.sound.collidepoint(pos):
            self.buzzer.toggle_mute()
            return
        for station, area in enumerate(self.layout.stations):
            for key, rect in area.buttons.items():
                if rect.collidepoint(pos):
                    self._clicked = (station, key)
                    self.deliver(station, key, True, "mouse")
                    return

    def release_all(self) -> None:
        """Lift every held button (the window lost focus and will not see the key-ups)."""
        for (station, key), holders in self._held.items():
            if holders:
                holders.clear()
                self.on_edge(InputEvent(station, key, False, time.monotonic_ns(), SOURCE))
        self._clicked = None

    def is_down(self, station: int, key: str) -> bool:
        return bool(self._held.get((station, key)))

    async def pump(self, stop: asyncio.Event) -> None:
        """Handle the window's events and redraw, about 60 times a second, until ``stop``;
        set ``stop`` when the players quit."""
        while not stop.is_set():
            self.handle(pygame.event.get())
            if self.quitting:
                stop.set()
                return
            self.redraw()
            await asyncio.sleep(FRAME_S)

    # output

    def redraw(self) -> None:
        """Draw and show the window if anything on it changed since it was last drawn."""
        images = [panel.image for panel in self.panels]
        state = (self.asking, self.buzzer.muted, self.buzzer.lit(time.monotonic()),
                 frozenset(k for k, v in self._held.items() if v),
                 tuple(self.lamp_lit(s) for s in range(len(self.panels))))
        if self._drawn is not None and self._drawn[0] == state and all(
                a is b for a, b in zip(self._drawn[1], images)):
            return
        self._drawn = (state, images)
        self.draw()
        pygame.display.flip()

    def draw(self) -> None:
        self.surface.fill(BACKGROUND)
        for station, area in enumerate(self.layout.stations):
            self._draw_station(station, area)
        self._draw_table()
        if self.asking:
            self._draw_quit_question()

    def save(self, path) -> None:
        pygame.image.save(self.surface, str(path))

    def _text(self, s: str, size: int, colour, **where) -> pygame.Rect:
        """Text in pygame's own font (a bold sans), placed by a ``pygame.Rect`` anchor."""
        if size not in self._fonts:
            self._fonts[size] = pygame.font.Font(None, size)
        image = self._fonts[size].render(s, True, colour)
        rect = image.get_rect(**where)
        self.surface.blit(image, rect)
        return rect

    def _panel_surface(self, station: int) -> pygame.Surface | None:
        image = self.panels[station].image
        if image is None:
            return None
        drawn, surface = self._pixels[station]
        if drawn is not image:
            pixels = panel_pixels(image, self.scale)
            surface = pygame.image.frombytes(pixels.tobytes(), pixels.size, "RGB")
            self._pixels[station] = (image, surface)
        return surface

    def _draw_station(self, station: int, area: StationArea) -> None:
        pygame.draw.rect(self.surface, CARD, area.card, border_radius=14)
        name = self.profile.stations[station].name
        header_y = area.card.y + PAD + HEADER // 2
        self._text(f"{station + 1}  {name}", 24, TEXT, midleft=(area.card.x + PAD, header_y))
        self._text(keymap.legend(station), 20, DIM, midright=(area.card.right - PAD, header_y))
        glass = area.panel.inflate(2 * GLASS, 2 * GLASS)
        pygame.draw.rect(self.surface, BEZEL, glass.inflate(2 * RIM, 2 * RIM), border_radius=8)
        pygame.draw.rect(self.surface, OLED_OFF, glass)
        surface = self._panel_surface(station)
        if surface is not None:
            self.surface.blit(surface, area.panel)
        self._draw_lamp(station, area)
        for key, rect in area.buttons.items():
            self._draw_button(station, key, rect)

    def lamp_lit(self, station: int, now_s: float | None = None) -> bool:
        """Whether the station's light is lit now: on, or in the lit half of a blink."""
        state = self.lights.states.get(station, "off") if self.lights is not None else "off"
        if state == "blink":
            return int((time.monotonic() if now_s is None else now_s) / BLINK_S) % 2 == 0
        return state == "on"

    def _draw_lamp(self, station: int, area: StationArea) -> None:
        lit = self.lamp_lit(station)
        pygame.draw.ellipse(self.surface, LAMP_ON if lit else LAMP_OFF, area.lamp, width=LAMP_RING - 2)

    def _draw_button(self, station: int, key: str, rect: pygame.Rect) -> None:
        """A raised button casts a shadow; a held one sinks into it and darkens."""
        down = self.is_down(station, key)
        colour = SLAP if key == "slap" else SMALL
        face = rect.move(0, 3)
        if down:
            colour = tuple(c * 3 // 4 for c in colour)
        else:
            self._shape(key, BEZEL, face)
            face = rect
        self._shape(key, colour, face)
        self._text(keymap.button_label(station, key), 28, TEXT, center=face.center)
        self._text(key, 18, DIM, midtop=(rect.centerx, rect.bottom + 4))

    def _shape(self, key: str, colour, rect: pygame.Rect) -> None:
        if key == "slap":
            pygame.draw.ellipse(self.surface, colour, rect)
        else:
            pygame.draw.rect(self.surface, colour, rect, border_radius=8)

    def _draw_table(self) -> list[pygame.Rect]:
        """The table strip; returns where each of its things was drawn (the title's two lines,
        the lamp with its glow, its label, the sound switch, "Esc quit"), which never overlap."""
        plan = self.layout
        cue = self.buzzer.lit(time.monotonic())
        pygame.draw.rect(self.surface, FELT, plan.table, border_radius=16)
        if cue is not None:
            pygame.draw.rect(self.surface, LAMP_ON, plan.table, width=3, border_radius=16)
        middle = plan.title.y + 20
        drawn = [self._text("Tabletop Companion", 30, TEXT, bottomleft=(plan.title.x, middle)),
                 self._text(f"{len(self.panels)} stations, simulated", 20, DIM, topleft=(plan.title.x, middle + 4))]
        lamp = plan.lamp
        if cue is not None:
            pygame.draw.circle(self.surface, LAMP_ON, lamp.center, lamp.width // 2 + LAMP_GLOW, width=3)
        pygame.draw.circle(self.surface, LAMP_ON if cue else LAMP_OFF, lamp.center, lamp.width // 2)
        drawn.append(lamp.inflate(2 * LAMP_GLOW, 2 * LAMP_GLOW))
        drawn.append(self._text(cue or "buzzer", 24, TEXT if cue else DIM, midleft=plan.cue.midleft))
        pygame.draw.rect(self.surface, SMALL, plan.sound, border_radius=6)
        self._text(f"F1  sound {'off' if self.buzzer.muted else 'on'}", 20, TEXT, center=plan.sound.center)
        drawn.append(plan.sound)
        drawn.append(self._text("Esc  quit", 20, DIM, midright=plan.quit.midright))
        return drawn

    def _draw_quit_question(self) -> pygame.Rect:
        """The question over a shaded window; returns its box."""
        shade = pygame.Surface(self.layout.size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 170))
        self.surface.blit(shade, (0, 0))
        box = pygame.Rect(0, 0, min(420, self.layout.size[0] - 2 * GAP), 130)  # a one-column window too
        box.center = self.surface.get_rect().center
        pygame.draw.rect(self.surface, CARD, box, border_radius=14)
        self._text("Quit the simulator?", 32, TEXT, midtop=(box.centerx, box.y + 22))
        self._text("Y or Enter: quit", 20, DIM, midbottom=(box.centerx, box.bottom - 44))
        self._text("any other key: keep playing", 20, DIM, midbottom=(box.centerx, box.bottom - 22))
        return box

    def close(self) -> None:
        pygame.font.quit()
        pygame.display.quit()
