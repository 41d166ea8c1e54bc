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
from ..arbiter.inputs import InputEvent
from ..profile import Profile
from . import keys as keymap
from .look import BACKGROUND, CARD, DIM, GAP, TEXT, Canvas
from .sound import MixerBuzzer
from .station import StationArea, card_sizes, draw_station, panel_pixels, station_area
from .tablestrip import draw_table_strip, table_strip

FRAME_S = 1 / 60
SOURCE = "keyboard"

MAX_COLUMNS = 6
"""Stations in a row at most: a quiz box's 17 stations are three rows, not two very long ones."""


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
    """Rows of at most six stations, each row as tall as its tallest box (a row of buzzer-only
    seats is a short one) and centred in the window, as wide as its widest row."""
    sizes = card_sizes(profile, scale)
    count = len(sizes)
    columns = min(-(-count // 2), MAX_COLUMNS)
    rows = [range(first, min(first + columns, count)) for first in range(0, count, columns)]
    above = (len(rows) + 1) // 2
    row_w = [sum(sizes[s][0] + GAP for s in row) - GAP for row in rows]
    row_h = [max(sizes[s][1] for s in row) for row in rows]
    width = max(row_w) + 2 * GAP
    strip = table_strip(GAP, GAP + sum(h + GAP for h in row_h[:above]), width - 2 * GAP)
    table = strip["table"]
    areas = []
    y = GAP
    for i, row in enumerate(rows):
        if i == above:
            y = table.bottom + GAP
        x = (width - row_w[i]) // 2
        for station in row:
            card = pygame.Rect(x, y, sizes[station][0], row_h[i])
            areas.append(station_area(profile, station, card, scale))
            x += card.width + GAP
        y += row_h[i] + GAP
    height = max(y, table.bottom + GAP)
    return Layout((width, height), tuple(areas), **strip)


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
        self.canvas = Canvas(self.surface)
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
        button = keymap.station_button(name, [area.buttons for area in self.layout.stations])
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
            down = {key for key in area.buttons if self.is_down(station, key)}
            st = self.profile.stations[station]
            draw_station(self.canvas, station, f"{st.name} (phone)" if st.phone else st.name, area,
                         self._panel_surface(station) if area.panel else None, self.lamp_lit(station), down)
        self._draw_table()
        if self.asking:
            self._draw_quit_question()

    def save(self, path) -> None:
        pygame.image.save(self.surface, str(path))

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

    def lamp_lit(self, station: int, now_s: float | None = None) -> bool:
        """Whether the station's light is lit now: on, or in the lit half of a blink."""
        state = self.lights.states.get(station, "off") if self.lights is not None else "off"
        if state == "blink":
            return int((time.monotonic() if now_s is None else now_s) / BLINK_S) % 2 == 0
        return state == "on"

    def _draw_table(self) -> list[pygame.Rect]:
        """The table strip as it looks now; returns where each of its things was drawn."""
        return draw_table_strip(self.canvas, self.layout, len(self.panels),
                                self.buzzer.lit(time.monotonic()), self.buzzer.muted)

    def _draw_quit_question(self) -> pygame.Rect:
        """The question over a shaded window; returns its box."""
        shade = pygame.Surface(self.layout.size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 170))
        self.surface.blit(shade, (0, 0))
        box = pygame.Rect(0, 0, min(420, self.layout.size[0] - 2 * GAP), 130)  # a one-column window too
        box.center = self.surface.get_rect().center
        pygame.draw.rect(self.surface, CARD, box, border_radius=14)
        self.canvas.text("Quit the simulator?", 32, TEXT, midtop=(box.centerx, box.y + 22))
        self.canvas.text("Y or Enter: quit", 20, DIM, midbottom=(box.centerx, box.bottom - 44))
        self.canvas.text("any other key: keep playing", 20, DIM, midbottom=(box.centerx, box.bottom - 22))
        return box

    def close(self) -> None:
        pygame.font.quit()
        pygame.display.quit()
