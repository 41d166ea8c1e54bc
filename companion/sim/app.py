"""The simulator assembled: a box of window and mixer adapters, run by the box's own daemon."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from ..adapters.displays import DisplayWriter, open_device
from ..adapters.lights import StationLights
from ..adapters.lightsensor import LightSensors
from ..daemon import Daemon
from ..profile import DisplayProfile, Profile, StationProfile, WebProfile
from ..script import ScriptPress
from ..wiring import Box, EdgeCallback
from .light import ScanLitWriter, scanned_panels
from .sound import MixerBuzzer
from .tablewindow import TableWindow
from .window import SOURCE, Window

NAMES = ("Ana", "Ben", "Cy", "Dee", "Eli", "Fay")
"""The players of a simulated box made with ``--players``."""

KEYBOARD_LATENCY_NS = 20_000_000
"""How late a stamped key can reach the loop: it is handed over at once, but behind whatever
the loop is doing (at most drawing one frame)."""


def players_profile(players: int, phones: int = 0) -> Profile:
    """A simulated box of ``players`` stations with standard 128x64 panels, and ``phones`` seats
    after them that a phone takes over the web companion (``companion sim --phones N``). A phone's
    seat is drawn in the window too, with keys, so one person can try a game with a phone in it."""
    stations = tuple(StationProfile(NAMES[i], {}, DisplayProfile(), phone=i >= players)
                     for i in range(players + phones))
    what = f"{players} stations" + (f" and {phones} phone{'s' * (phones > 1)}" if phones else "")
    return Profile(f"{what}, simulated", "mock", None, stations)


class SimBox(Box):
    """The box as the simulator builds it: luma ``dummy`` panels shown in the window, keys and
    clicks for buttons, the mixer for the buzzer. Panels are drawn upright whatever a profile's
    rotation, as every player faces the screen. With ``light_sensors`` every station has one,
    over a panel that lights as the scan model says (:mod:`.light`; ``seed``: the same panels
    every run), and races revealed on the screens are timed from that light."""

    def __init__(self, profile: Profile, on_edge: EdgeCallback, scale: int | None = None,
                 table_screen: tuple[int, int] | None = None, light_sensors: bool = False,
                 seed: int | None = None) -> None:
        panels = [open_device(replace(st.display, rotate=0), "mock") for st in profile.stations]
        buzzer = MixerBuzzer()
        sensors = LightSensors() if light_sensors else None
        writer = (ScanLitWriter(panels, sensors, scanned_panels(profile, seed)) if sensors is not None
                  else DisplayWriter(panels))
        super().__init__(profile, None, [], writer, buzzer, {SOURCE: KEYBOARD_LATENCY_NS},
                         screens_take_time=sensors is not None, light_sensors=sensors)
        self.lights = StationLights({}, None)  # no pins: the window draws each station's lamp
        self.window = Window(profile, panels, buzzer, on_edge, scale, self.lights)
        self.table_window = TableWindow(table_screen) if table_screen else None
        """The table screen's own window, with ``--table-screen`` or a profile's [table_screen]."""
        if self.table_window is not None:
            self.table_screen = self.table_window.screen

    def drive(self, station: int, key: str, pressed: bool) -> None:
        self.window.deliver(station, key, pressed, "script")

    def close(self) -> None:
        if self.table_window is not None:
            self.table_window.close()
        super().close()
        self.window.close()


class Simulator:
    def __init__(self, profile: Profile, journal_dir: Path | None = None, seed: int | None = None,
                 scale: int | None = None, defaults: Mapping[str, Mapping[str, Any]] | None = None,
                 settings_path: Path | None = None, table_screen: tuple[int, int] | None = None,
                 bots: dict[int, str] | None = None, light_sensors: bool = False) -> None:
        """``light_sensors``: every station has one over a modelled panel, as when the profile's
        stations have ``light_sensor``."""
        if not profile.web.enabled:  # phones may always watch the simulator, on any free port
            profile = replace(profile, web=WebProfile(enabled=True, port=0, bind=profile.web.bind))
        settings = profile.table_screen
        if table_screen is None and settings.enabled:
            table_screen = (settings.width, settings.height)
        sensed = light_sensors or bool(profile.light_sensor_pins() or profile.light_channels())
        self.daemon = Daemon(profile, journal_dir, seed, defaults=defaults,
                             adapters=lambda on_edge: SimBox(profile, on_edge, scale, table_screen, sensed, seed),
                             settings_path=settings_path, bots=bots)
        self.window: Window = self.daemon.box.window
        self.table_window: TableWindow | None = self.daemon.box.table_window

    async def run(self, presses: list[ScriptPress] | None = None, speed: float = 1.0,
                  stop: asyncio.Event | None = None) -> None:
        """Until the players quit (or ``stop`` is set); a script, if given, presses keys for them
        meanwhile."""
        stop = stop or asyncio.Event()
        self.daemon.stop_on_signals(stop)  # closing the terminal (SIGHUP) closes the window cleanly
        script = asyncio.ensure_future(self.daemon.press_script(presses or [], speed))
        asyncio.ensure_future(self._say_where_phones_join())
        try:
            pumps = [self.window.pump(stop)] + ([self.table_window.pump(stop)] if self.table_window else [])
            await asyncio.gather(self.daemon.run(stop), *pumps)
        finally:
            script.cancel()

    async def _say_where_phones_join(self) -> None:
        """Print the phones' join address once the web companion listens."""
        web = self.daemon.web
        while not web.join_url:
            await asyncio.sleep(0.05)
        print(f"Phones join at {web.join_url} (room {web.room.code})", flush=True)

    async def screenshot(self, path: Path, presses: list[ScriptPress] | None = None, speed: float = 1.0) -> None:
        """Start up, play the script if any, then save the window as it looks as a PNG (and the
        table screen's, if it has one, as ``.table.png``)."""
        await self.daemon.play_script(presses or [], speed)
        self.daemon.box.displays.flush()
        self.window.draw()
        self.window.save(path)
        if self.table_window is not None:  # the table screen beside it: shot.png, shot.table.png
            self.table_window.screen.flush()
            self.table_window.screen.image.save(path.with_suffix(".table.png"))

    def close(self) -> None:
        self.daemon.close()
