"""The desktop simulator: the whole box in one pygame window.

Only adapters live here (the window's keys, clicks and panels, the mixer's buzzer); the referee is
the box's own daemon, table, debouncer and watermarks, handed a :class:`~companion.wiring.Box`
built from these adapters instead of from pins.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def display_problem() -> str | None:
    """Why no one would see a simulator window here, or None if one can open."""
    try:
        import pygame
    except ImportError:
        return "pygame is not installed (pip install \".[sim]\")"
    try:
        pygame.display.init()
    except pygame.error as e:
        return f"no display ({e})"
    driver = pygame.display.get_driver()
    if driver in ("dummy", "offscreen"):
        pygame.display.quit()
        return f"SDL's {driver} video driver shows no window"
    return None
