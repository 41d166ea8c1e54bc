"""The lobby's "Box settings" page: after the last game (or before the first) on the game menu.

``ok`` opens it; ``left``/``right`` then change the buzzer's volume, each step heard at once as a
tick at the new volume; ``ok`` (or ``slap``) closes it. On the page itself ``left``/``right`` turn
to the games as on any other page. The daemon applies and saves what changed
(:mod:`companion.settings`).
"""

from __future__ import annotations

from dataclasses import replace

from PIL import Image

from ..arbiter.inputs import InputEvent
from ..screens.lobby import GameMenuView, game_menu
from ..screens.table import settings_screen
from ..settings import VOLUMES, BoxSettings

TITLE = "Box settings"


class SettingsPage:
    def __init__(self, settings: BoxSettings) -> None:
        self.settings = settings
        self.editing = False
        self.cues: list[str] = []

    def handle(self, event: InputEvent) -> int:
        """A press on the page: -1 or 1 to turn to the game before or after it, else 0."""
        if not event.pressed:
            return 0
        step = {"left": -1, "right": 1}.get(event.key, 0)
        if not self.editing:
            self.editing = event.key == "ok"
            return step
        if step:
            i = VOLUMES.index(self.settings.volume)
            self.settings = replace(self.settings, volume=VOLUMES[max(0, min(len(VOLUMES) - 1, i + step))])
            self.cues.append("tick")
        elif event.key in ("ok", "slap"):
            self.editing = False
        return 0

    def screen(self, index: int, count: int) -> Image.Image:
        if self.editing:
            return settings_screen(self.settings.volume, len(VOLUMES))
        return game_menu(GameMenuView(TITLE, f"volume {self.settings.volume}/{len(VOLUMES)}", index, count,
                                      "</>: game  ok: open"))
