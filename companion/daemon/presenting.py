"""Presenting: what the players see, hear and are told, from the table's state to the panels, the
table screen, the buzzer and the station lights.

Separate from the loop because it is the one place that decides what is *shown*: notices (the
button board unplugged, a paused game, a dead display) over every screen, nothing of a state not
yet saved, a reveal's cues only when its screens flip, and the light sensors' wait before a race
is timed from them.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import replace

from ..adapters.lightsensor import LIGHT_WAIT_NS, marked
from ..screens.canvas import with_notice
from ..settings import save_settings
from ..table import Table
from .keeping import HARNESS_WAIT_S

log = logging.getLogger(__name__)


def displays_down(down: list[int]) -> str:
    """The notice for dead displays, fitting one screen line."""
    numbers = ",".join(str(i + 1) for i in down)
    return f"Display {numbers} not working" if len(down) == 1 else f"Displays {numbers} failing"


NOTICE_ORDER = ("board", "gpio", "saving", "displays", "journal", "storage")
"""Which notice a screen's one notice line shows when there are several: the button board and
the GPIO reader (which hold races) first, then a paused game, a dead display, news about the journal, and last the state
directory's standing warnings (read-only, in RAM), which show only in the lobby."""


class Presenting:
    """The daemon's part that shows the table's state and tells the players what they must know."""

    def _current_notice(self, line: int) -> str | None:
        game = getattr(self.table, "game", None)
        for about in NOTICE_ORDER:
            if about in self._notices and not (about == "storage" and game is not None):
                return self._notices[about][line]
        return None

    @property
    def notice(self) -> str | None:
        """Shown on every screen while set (one line, :data:`NOTICE_ORDER`): the button board is
        unplugged, the game is paused because it cannot be saved, a display is dead..."""
        return self._current_notice(0)

    def _displays_ready(self) -> None:
        """Runs in the display writer's thread, once every display was tried: a dead panel does
        not hold the service back (systemd would kill it at TimeoutStartSec); it is retried."""
        status = f"{len(self.profile.stations)} stations"
        down = self.box.displays.down()
        if down:
            status += "; " + displays_down(down).lower()
            log.warning("ready without display %s: retrying in the background",
                        ", ".join(str(i + 1) for i in down))
        else:
            log.info("ready: first frame on every display")
        self.ready.set()
        self.notifier.ready(status)

    def _displays_changed(self, down: list[int]) -> None:
        """Runs in the display writer's thread: a display failed or came back."""
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._displays_notice, down)
        except RuntimeError:  # the loop has stopped: nobody is left to tell
            pass

    def _displays_notice(self, down: list[int]) -> None:
        self._tell(displays_down(down) if down else None, "displays")
        self._wake.set()

    def _tell(self, text: str | None, about: str = "board", longer: str | None = None, cue: bool = True) -> None:
        """Set (or with None clear) the notice ``about`` something; ``longer`` is the table
        screen's line (the station line if not given). A new notice sounds the alarm cue."""
        notice = None if text is None else (text, longer or text)
        if self._notices.get(about) == notice:
            return
        if notice is None:
            self._notices.pop(about, None)
        else:
            self._notices[about] = notice
        self._shown = -1
        box = getattr(self, "box", None)  # notices found at start come before the box is built
        if notice is not None and cue and box is not None and box.buzzer is not None:
            box.buzzer.play("unplugged")

    def _on_shown(self, reveal: int, cues: list[str], onsets: dict[int, int]) -> None:
        """Runs in the display writer's thread: a reveal is on every panel; enqueue and return."""
        self._shown_reveals.append((reveal, cues, onsets))
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def _dim(self, now_ns: int) -> None:
        """Dim every display when nobody has pressed anything for a while; brighten on a press."""
        settings = self.profile.displays
        idle = now_ns - self._last_input_ns >= settings.dim_after_s * 1e9
        if idle != self.dimmed:
            self.dimmed = idle
            self.box.displays.set_contrast(settings.dim_contrast if idle else settings.contrast)

    def _present(self) -> None:
        """Cues first (a decided race is heard at once), then the screens that changed; a
        reveal's cues when its screens are shown. Nothing of a state whose journal lines are not
        yet on disk: the screens shown last stay, with a notice if there is one."""
        self._apply_settings()
        if self._loop is None and self.saving.pending:
            self.saving.wait(HARNESS_WAIT_S)  # stepped by a harness, not the loop: wait here
        if self.saving.pending:
            if self._shown == -1:
                self._show_again()
            return
        cues = list(self.table.cues)
        self.table.cues.clear()
        reveal = self.table.take_reveal() if self.timed_reveals else None
        if reveal is None:
            self._play(cues)
        if self.table.version != self._shown or reveal is not None:
            self._shown = self.table.version
            screens = {}
            for station in range(len(self.profile.stations)):
                screen = self._screens[station] = self.table.screen(station)
                if self.notice is not None:
                    screen = with_notice(screen, self.notice)
                screens[station] = screen
            if reveal is None:
                for station, screen in screens.items():
                    self.box.displays.show(station, screen)
            else:
                if self.box.light_sensors is not None:  # the sensors time the panels' light
                    screens = {station: marked(screen) for station, screen in screens.items()}
                self.box.displays.reveal(screens, functools.partial(self._on_shown, reveal, cues))
            if self.box.table_screen is not None and isinstance(self.table, Table):
                self._view = self._public_view()
                self._show_view()

    def _public_view(self):
        """The table screen's view of the table; a game whose view fails to be made is set aside
        (:mod:`companion.table.faults`), and the view is then the sentence that says so."""
        with self.table.refereeing():
            return self.public_view(self.table)
        return self.public_view(self.table)

    def _show_view(self) -> None:
        notice = self._current_notice(1)
        self.box.table_screen.show(self._view if notice is None else replace(self._view, notice=notice))

    def _show_again(self) -> None:
        """The screens shown last, with the notice now due (the game is paused or saving)."""
        self._shown = -2  # not a table version: the table's screens are shown once saved
        for station, screen in self._screens.items():
            self.box.displays.show(station, screen if self.notice is None else with_notice(screen, self.notice))
        if self.box.table_screen is not None and self._view is not None:
            self._show_view()

    def _play(self, cues: list[str]) -> None:
        if self.box.buzzer is not None:
            for cue in cues:
                self.box.buzzer.play(cue)

    def _apply_settings(self) -> None:
        """Box settings the players changed: heard from the next cue on, and saved."""
        settings = getattr(self.table, "settings", self.settings)
        if settings == self.settings:
            return
        self.settings = settings
        if self.box.buzzer is not None:
            self.box.buzzer.set_volume(settings.volume)
        if self.settings_path is not None:
            try:
                save_settings(self.settings_path, settings)
            except OSError as e:
                log.error("cannot save the box settings to %s: %s", self.settings_path, e.strerror)

    def _light(self, now_ns: int) -> None:
        """The station lights, when they change; a blinking board LED turned over when due."""
        lights = self.box.lights
        referee_lights = getattr(self.table, "lights", None)  # a probe standing in may have none
        if lights is None or referee_lights is None or self.saving.pending:
            return
        lit = referee_lights()
        if lit != self._lit:
            self._lit = lit
            lights.show(lit)
            self._blink_at_ns = None
        elif self._blink_at_ns is not None and now_ns >= self._blink_at_ns:
            lights.blink_step()
            self._blink_at_ns = None
        if self._blink_at_ns is None and lights.next_blink_s() is not None:
            self._blink_at_ns = now_ns + round(lights.next_blink_s() * 1e9)

    def _light_onsets(self, sensors, onsets: dict[int, int]) -> dict[int, int]:
        """Each station's light onset of a reveal stamped at ``onsets``; a station whose sensor
        saw nothing is logged (once until it sees again): the race is then timed from stamps."""
        light = sensors.light_onsets(onsets)
        for station in sorted(onsets.keys() - light.keys() - self._unlit):
            log.warning("station %d: its light sensor saw nothing of the reveal; races are timed from "
                        "the displays' commands until it does (companion selftest checks the sensors)", station + 1)
        self._unlit = set(onsets.keys() - light.keys())
        return light

    @staticmethod
    def _light_target_ns(onsets: dict[int, int]) -> int:
        """How far the light sensors' edges must be known for a reveal stamped at ``onsets``:
        :data:`LIGHT_WAIT_NS` after its last stamp."""
        return max(onsets.values(), default=0) + LIGHT_WAIT_NS

    def _light_sources(self) -> list[str]:
        """The sources of the sensors' edges that can deliver now (a GPIO reader found down holds
        nothing: its edges cannot come)."""
        return [source for source in self.box.light_sources if source in self.watermarks]

    def _light_seen(self, onsets: dict[int, int], now_ns: int) -> bool:
        """Whether every light sensor has had its time to see a reveal stamped at ``onsets`` and
        its edge has reached the box: its sources' watermark has passed the light's wait (the GPIO
        reader's report, or the button board's; with the fallback, ``timing.gpio_latency_ms``
        later). A source that is down (a silent board, a stalled reader) is not waited for."""
        return self.watermarks.low(now_ns, self._light_sources()) >= self._light_target_ns(onsets)
