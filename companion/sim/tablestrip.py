"""The table between the rows of stations: the box's title, the buzzer lamp with the cue it
plays, the sound switch and "Esc quit", each in a box of its own, none over another."""

from __future__ import annotations

import pygame

from .look import DIM, FELT, GAP, LAMP_OFF, LAMP_ON, PAD, SMALL, TEXT, Canvas

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


def table_strip(x: int, y: int, width: int) -> dict[str, pygame.Rect]:
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


def draw_table_strip(canvas: Canvas, plan, stations: int, cue: str | None, muted: bool) -> list[pygame.Rect]:
    """The table strip of the window's layout ``plan``, with the buzzer lamp lit for ``cue``;
    returns where each of its things was drawn (the title's two lines, the lamp with its glow,
    its label, the sound switch, "Esc quit"), which never overlap."""
    surface = canvas.surface
    pygame.draw.rect(surface, FELT, plan.table, border_radius=16)
    if cue is not None:
        pygame.draw.rect(surface, LAMP_ON, plan.table, width=3, border_radius=16)
    middle = plan.title.y + 20
    drawn = [canvas.text("Tabletop Companion", 30, TEXT, bottomleft=(plan.title.x, middle)),
             canvas.text(f"{stations} stations, simulated", 20, DIM, topleft=(plan.title.x, middle + 4))]
    lamp = plan.lamp
    if cue is not None:
        pygame.draw.circle(surface, LAMP_ON, lamp.center, lamp.width // 2 + LAMP_GLOW, width=3)
    pygame.draw.circle(surface, LAMP_ON if cue else LAMP_OFF, lamp.center, lamp.width // 2)
    drawn.append(lamp.inflate(2 * LAMP_GLOW, 2 * LAMP_GLOW))
    drawn.append(canvas.text(cue or "buzzer", 24, TEXT if cue else DIM, midleft=plan.cue.midleft))
    pygame.draw.rect(surface, SMALL, plan.sound, border_radius=6)
    canvas.text(f"F1  sound {'off' if muted else 'on'}", 20, TEXT, center=plan.sound.center)
    drawn.append(plan.sound)
    drawn.append(canvas.text("Esc  quit", 20, DIM, midright=plan.quit.midright))
    return drawn
