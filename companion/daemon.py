"""The daemon: one asyncio loop owns all state; adapters only stamp and enqueue.

gpiozero calls our edge callback from its own thread, and the button board's link its callback
from its reader thread; each hands its item to the loop with ``call_soon_threadsafe`` and
returns. The loop turns board frames into inputs and watermarks (:mod:`companion.board.session`),
debounces, advances the source watermarks, lets the table act, then hands changed screens to
the display writer and cues to the buzzer. It sleeps until the next input or the next deadline
(a race decision, a held button), so an idle box costs almost nothing.

While the button board is unplugged its watermark stands still, so a race waits for it (GPIO
presses still arrive and count), and every screen says so until the board is back.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from pathlib import Path

from .board.session import BoardSession, LinkItem, Notice, Watermark
from .debounce import Debouncer, Stuck
from .inputs import InputEvent
from .journal import Header, JournalWriter
from .profile import Profile
from .screens.canvas import with_notice
from .script import ScriptPress, edges
from .table import Table
from .watermark import Watermarks
from .wiring import Box, build_box

log = logging.getLogger(__name__)

IDLE_WAKE_S = 1.0


def journal_opener(directory: Path):
    """Opens one new journal file per game in ``directory``, named by start time and game."""
    directory.mkdir(parents=True, exist_ok=True)

    def open_journal(header: Header) -> JournalWriter:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = directory / f"{stamp}-{header.game}.jsonl"
        n = 1
        while path.exists():
            n += 1
            path = directory / f"{stamp}-{header.game}-{n}.jsonl"
        log.info("game started: %s, journal %s", header.game, path)
        return JournalWriter(path, header)

    return open_journal


class Daemon:
    def __init__(self, profile: Profile, journal_dir: Path | None = None, seed: int | None = None,
                 pin_factory=None) -> None:
        self.profile = profile
        t = profile.timing
        self.debouncer = Debouncer(round(t.debounce_ms * 1e6), round(t.stuck_after_s * 1e9))
        self.watermarks = Watermarks()
        self.watermarks.add_source("gpio", round(t.gpio_latency_ms * 1e6))
        names = tuple(st.name for st in profile.stations)
        self.table = Table(names, journal_opener(journal_dir) if journal_dir else None, seed)
        self._inbox: deque[InputEvent] = deque()
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._shown = -1
        self.stuck: list[Stuck] = []
        self.notice: str | None = None
        """Shown on every screen while set (the button board is unplugged)."""
        self.board_session: BoardSession | None = None
        if profile.board is not None:
            self.board_session = BoardSession(profile.board_channels())
            self.watermarks.add_source(self.board_session.source)
        self.box: Box = build_box(profile, self._on_edge, pin_factory, self._on_board)

    def _on_edge(self, event: InputEvent) -> None:
        """Runs in gpiozero's thread (or the loop's, with mock pins): enqueue and return."""
        self._loop.call_soon_threadsafe(self._arrive, event)

    def _arrive(self, event: InputEvent) -> None:
        self._inbox.append(event)
        self._wake.set()

    def _on_board(self, item: LinkItem) -> None:
        """Runs in the board link's reader thread: enqueue and return."""
        self._loop.call_soon_threadsafe(self._board_arrive, item)

    def _board_arrive(self, item: LinkItem) -> None:
        """A board's heartbeat only moves its watermark: worth a step only if something waits."""
        news = False
        for out in self.board_session.handle(item):
            if isinstance(out, Watermark):
                self.watermarks.report(out.source, out.t_ns)
                news = news or self.table.wakeup_ns() is not None
            else:
                news = True
                if isinstance(out, InputEvent):
                    self._inbox.append(out)
                else:
                    self._tell(out.text)
        if news:
            self._wake.set()

    def _tell(self, text: str | None) -> None:
        self.notice = text
        self._shown = -1
        if text is not None and self.box.buzzer is not None:
            self.box.buzzer.play("unplugged")

    def step(self, now_ns: int) -> None:
        """Everything that arrived, then everything due by ``now_ns``."""
        while self._inbox:
            raw = self._inbox.popleft()
            self.watermarks.saw(raw.source, raw.t_ns)
            for event in self.debouncer.edge(raw):
                self.table.handle(event)
        for item in self.debouncer.settle(now_ns):
            if isinstance(item, Stuck):
                log.warning("station %d %s button stuck", item.station + 1, item.key)
                self.stuck.append(item)
            else:
                self.table.handle(item)
        self.table.tick(now_ns, self.watermark(now_ns))
        self._present()

    def watermark(self, now_ns: int) -> int:
        """How far every press is known: the sources' watermark, held back by any press the
        debouncer is still holding (it will be emitted with its own, earlier, edge time)."""
        low = self.watermarks.low(now_ns)
        held = self.debouncer.oldest_held_ns()
        return low if held is None else min(low, held)

    def _present(self) -> None:
        if self.table.version != self._shown:
            self._shown = self.table.version
            for station in range(len(self.profile.stations)):
                screen = self.table.screen(station)
                if self.notice is not None:
                    screen = with_notice(screen, self.notice)
                self.box.displays.show(station, screen)
        for cue in self.table.cues:
            if self.box.buzzer is not None:
                self.box.buzzer.play(cue)
        self.table.cues.clear()

    def _next_wake_s(self, now_ns: int) -> float:
        """Seconds to the next deadline. A table deadline is an edge time (a race's first press +
        tie window): wake when every source's watermark will have passed it."""
        due = self.table.wakeup_ns()
        if due is not None:
            due = self.watermarks.reaches_at(due) or due
        deadlines = [d for d in (self.debouncer.next_deadline(), due) if d is not None]
        if not deadlines:
            return IDLE_WAKE_S
        return min(IDLE_WAKE_S, max(0.0, (min(deadlines) - now_ns) / 1e9))

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Run until ``stop`` is set (or forever)."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        if self.box.board is not None:
            self.box.board.start()
        try:
            await self._serve(stop or asyncio.Event())
        finally:
            if self.box.board is not None:
                self.box.board.close()  # its thread must not call into a loop that is gone

    async def _serve(self, stop: asyncio.Event) -> None:
        self.step(time.monotonic_ns())
        while not stop.is_set():
            now = time.monotonic_ns()
            timer = self._loop.call_later(self._next_wake_s(now), self._wake.set)
            stopper = asyncio.ensure_future(stop.wait())
            waiter = asyncio.ensure_future(self._wake.wait())
            await asyncio.wait({stopper, waiter}, return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            waiter.cancel()
            timer.cancel()
            self._wake.clear()
            self.step(time.monotonic_ns())

    async def play_script(self, presses: list[ScriptPress], speed: float = 1.0, tail_s: float = 0.3) -> None:
        """Drive the mock pins from a script, then stop the loop ``tail_s`` after the last edge."""
        stop = asyncio.Event()
        runner = asyncio.ensure_future(self.run(stop))
        start = time.monotonic()
        for at_s, station, key, pressed in edges(presses):
            delay = start + at_s / speed - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            self.box.press(station, key, pressed)
        await asyncio.sleep(tail_s)
        stop.set()
        await runner

    def snapshots(self, directory: Path) -> list[Path]:
        """Write what every station display shows now, one PNG each."""
        directory.mkdir(parents=True, exist_ok=True)
        self.box.displays.flush()
        paths = []
        for station, device in enumerate(self.box.displays.devices):
            path = directory / f"station-{station + 1}.png"
            image = getattr(device, "image", None)
            if image is None:  # a real panel cannot be read back: save what it was sent
                image = self.table.screen(station)
            image.save(path)
            paths.append(path)
        return paths

    def close(self) -> None:
        self.box.close()
