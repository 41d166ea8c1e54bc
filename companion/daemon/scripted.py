"""Playing a script of timed presses through the box (``companion run --script``, the tests,
the demo), and pictures of what its panels show.

Separate from the loop because a real box is pressed by players, never by a script: this part
drives the box's own keys the way fingers would (never faster than a tap) and says when the box
has taken every edge, so a scripted run ends on what the box did, not on a guess of how long it
takes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from ..adapters import gpiolink
from ..script import ScriptPress, edges

log = logging.getLogger(__name__)

SCRIPT_PLAYED = "script: its last press driven"
"""Logged once the script's last edge has been driven: whoever watches a scripted box (the table
monkey) times its end from here, not from when the process started (a busy machine starts it
late and plays its script late)."""


class Scripted:
    """The daemon's part that plays scripts and saves the panels' pictures."""

    async def press_script(self, presses: list[ScriptPress], speed: float = 1.0) -> None:
        """Press and release the box's keys as a script says, ``speed`` times faster.

        If the loop gets to an edge late (a busy machine), the rest of the script moves later
        with it instead of catching up: catching up would squeeze the next press and release
        together, and the debouncer would take the squeezed tap for contact bounce. For the same
        reason two edges of a key are never closer than twice the debounce time, however fast
        the script plays (a finger's tap, and the gap between two taps, are longer still).

        With a GPIO reader process the keys are its mock pins: the script starts once the reader
        holds them (its first watermark; at most :data:`~companion.adapters.gpiolink.START_NS`),
        or its first presses would be driven on pins nobody reads yet."""
        waited = time.monotonic()
        while (self.gpio_session is not None and not self.gpio_session.reading
               and time.monotonic() - waited < gpiolink.START_NS / 1e9):
            await asyncio.sleep(0.01)
        shortest_s = 2 * self.debouncer.debounce_ns / 1e9
        start = time.monotonic()
        last: dict[tuple[int, str], float] = {}
        for at_s, station, key, pressed in edges(presses):
            due = max(start + at_s / speed, last.get((station, key), 0.0) + shortest_s)
            if due > time.monotonic():
                await asyncio.sleep(due - time.monotonic())
            start += max(0.0, time.monotonic() - (start + at_s / speed))
            self.box.drive(station, key, pressed)
            last[(station, key)] = time.monotonic()

    def quiet(self) -> bool:
        """Every edge driven has been taken: none waits in the inbox, the debouncer holds none
        back and no button is down, and no key is held back for a chord."""
        chords = getattr(self.table, "chords", None)  # the self-test's referee holds no key back
        return not self._inbox and self.debouncer.next_deadline() is None and not (chords and chords.pending)

    async def play_script(self, presses: list[ScriptPress], speed: float = 1.0, tail_s: float = 0.3) -> None:
        """Run the loop while a script drives the box's keys; stop ``tail_s`` after the box has
        taken the last edge (however long a busy machine takes to get there). If the loop fails,
        the script stops there and the failure is raised: the run ends with its traceback, never
        waits for the box to take presses a loop that is gone never takes."""
        stop = asyncio.Event()
        runner = asyncio.ensure_future(self.run(stop))
        script = asyncio.ensure_future(self._play_out(presses, speed, tail_s))
        await asyncio.wait({runner, script}, return_when=asyncio.FIRST_COMPLETED)
        if runner.done():
            script.cancel()
            await asyncio.gather(script, return_exceptions=True)
        stop.set()
        await runner

    async def _play_out(self, presses: list[ScriptPress], speed: float, tail_s: float) -> None:
        """Press the script's keys, wait until the box has taken every edge, then ``tail_s``."""
        await self.press_script(presses, speed)
        log.info(SCRIPT_PLAYED)
        while not self.quiet():
            await asyncio.sleep(0.01)
        await asyncio.sleep(tail_s)

    def snapshots(self, directory: Path) -> list[Path]:
        """Write what every station's panel shows now, one PNG each. A bare buzzer has no panel
        (its screens go nowhere), so it has no picture: one would show a panel no player sees."""
        directory.mkdir(parents=True, exist_ok=True)
        self.box.displays.flush()
        paths = []
        for station, device in enumerate(self.box.displays.devices):
            if self.profile.stations[station].buzzer_only:
                continue
            path = directory / f"station-{station + 1}.png"
            image = getattr(device, "image", None)
            if image is None:  # a real panel cannot be read back: save what it was sent
                image = self.table.screen(station)
            image.save(path)
            paths.append(path)
        return paths
