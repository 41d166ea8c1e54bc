"""The daemon: one asyncio loop owns all state; adapters only stamp and enqueue.

gpiozero calls our edge callback from its own thread; the callback hands the event to the loop
with ``call_soon_threadsafe`` and returns. The loop debounces, advances the source watermark,
lets the table act, then hands changed screens to the display writer and cues to the buzzer.
It sleeps until the next input or the next deadline (a race decision, a held button), so an
idle box costs almost nothing.

The button board's link calls back from its reader thread the same way; the loop turns board
frames into inputs and watermarks (:mod:`companion.board.session`). While the board is unplugged
its watermark stands still, so a race waits for it (GPIO presses still arrive and count), and
every screen says so until the board is back.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping

from .board.session import BoardSession, LinkItem, Watermark
from .debounce import Debouncer, Stuck
from .inputs import InputEvent
from .journal import Header, JournalWriter
from .notify import Notifier
from .profile import Profile
from .recovery import KEEP_JOURNALS, NotResumed, next_sequence, pick_up, rotate
from .screens.canvas import with_notice
from .script import ScriptPress, edges
from .table import Table
from .watermark import Watermarks
from .wiring import Box, EdgeCallback, build_box

log = logging.getLogger(__name__)

IDLE_WAKE_S = 1.0
SPIN_NS = 1_500_000
"""The loop's timers wake up to a millisecond late (epoll counts whole milliseconds), so for the
last 1.5 ms before a deadline (a race's decision) the loop keeps turning instead of sleeping:
a race is decided within microseconds of its watermark passing, for a moment of busy CPU."""


REPLAY_BYTES_PER_S = 500_000
"""A slow estimate of replay speed on a Raspberry Pi 4: ``python -m bench.replay_scaling`` replays
2.3 MB/s on a shared x86 laptop core, and a Pi 4's Cortex-A72 runs CPython 3-4 times slower.
Replaying a journal longer than 10 s of this asks systemd for that much more start time."""


def journal_opener(directory: Path):
    """Opens one new journal file per game in ``directory``, named by start time and game and
    numbered by its header's ``sequence``, deleting the oldest finished games beyond what we keep."""
    directory.mkdir(parents=True, exist_ok=True)

    def open_journal(header: Header) -> JournalWriter:
        rotate(directory, KEEP_JOURNALS - 1)
        header = replace(header, sequence=next_sequence(directory))
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = directory / f"{stamp}-{header.game}.jsonl"
        n = 1
        while os.path.lexists(path):
            n += 1
            path = directory / f"{stamp}-{header.game}-{n}.jsonl"
        writer = JournalWriter(path, header)
        log.info("game started: %s (number %d on this box), journal %s", header.game, header.sequence, path)
        return writer

    return open_journal


class Daemon:
    def __init__(self, profile: Profile, journal_dir: Path | None = None, seed: int | None = None,
                 pin_factory=None, notifier: Notifier | None = None,
                 adapters: Callable[[EdgeCallback], Box] | None = None, referee=None,
                 defaults: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        """``adapters`` builds the box around the daemon's edge callback (the simulator's window);
        by default the profile's pins and panels are wired, on ``pin_factory`` if given.
        ``referee`` replaces the games' :class:`Table` (the self-test). ``defaults`` are option
        values the lobby starts from, per game (``--option``)."""
        self.profile = profile
        self.notifier = notifier or Notifier()
        t = profile.timing
        self.debouncer = Debouncer(round(t.debounce_ms * 1e6), round(t.stuck_after_s * 1e9))
        names = tuple(st.name for st in profile.stations)
        self.table = referee or Table(names, journal_opener(journal_dir) if journal_dir else None, seed, defaults)
        interrupted = pick_up(journal_dir, self._replay_time) if journal_dir and referee is None else None
        if isinstance(interrupted, NotResumed):
            self.table.tell("GAME NOT RESUMED")
        elif interrupted is not None and len(interrupted.match.players) > len(names):
            log.error("cannot resume %s: it has more players than this box has stations", interrupted.path.name)
            interrupted.writer.close()
            self.table.tell("GAME NOT RESUMED")
        elif interrupted is not None:
            self.table.resume(interrupted, time.monotonic_ns())
        self._inbox: deque[InputEvent] = deque()
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._shown = -1
        self._last_input_ns = time.monotonic_ns()
        self.dimmed = False
        self.notice: str | None = None
        """Shown on every screen while set (the button board is unplugged)."""
        self.board_session: BoardSession | None = None
        self.box: Box = (adapters(self._on_edge) if adapters is not None
                         else build_box(profile, self._on_edge, pin_factory, self._on_board))
        self.watermarks = Watermarks()
        for source, latency_bound_ns in self.box.sources.items():
            self.watermarks.add_source(source, latency_bound_ns)
        if profile.board is not None:
            self.board_session = BoardSession(profile.board_channels())
            self.watermarks.add_source(self.board_session.source)
        self.box.displays.on_ready = self._displays_ready
        self.ready = threading.Event()
        """Set once every display has shown its first frame."""

    def _replay_time(self, size: int) -> None:
        """Before replaying a journal of ``size`` bytes, ask systemd for the time it may take."""
        if size > REPLAY_BYTES_PER_S * 10:
            self.notifier.extend_start(30 + size / REPLAY_BYTES_PER_S)

    def _displays_ready(self) -> None:
        """Runs in the display writer's thread."""
        log.info("ready: first frame on every display")
        self.ready.set()
        self.notifier.ready(f"{len(self.profile.stations)} stations")

    def _on_edge(self, event: InputEvent) -> None:
        """Runs in gpiozero's thread (or the loop's, with mock pins): enqueue and return.

        ``deque.append`` is atomic, so an edge that comes before the loop runs (a press during
        start-up) simply waits in the inbox.
        """
        self._inbox.append(event)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

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
            self._last_input_ns = max(self._last_input_ns, raw.t_ns)
            self.watermarks.saw(raw.source, raw.t_ns)
            for event in self.debouncer.edge(raw):
                self.table.handle(event)
        for item in self.debouncer.settle(now_ns):
            if isinstance(item, Stuck):
                log.warning("station %d %s button stuck", item.station + 1, item.key)
                self.table.stuck(item.station, item.key)
            else:
                self.table.handle(item)
        self.table.tick(now_ns, self.watermark(now_ns))
        self._dim(now_ns)
        self._present()
        self.notifier.alive(now_ns)

    def _dim(self, now_ns: int) -> None:
        """Dim every display when nobody has pressed anything for a while; brighten on a press."""
        settings = self.profile.displays
        idle = now_ns - self._last_input_ns >= settings.dim_after_s * 1e9
        if idle != self.dimmed:
            self.dimmed = idle
            self.box.displays.set_contrast(settings.dim_contrast if idle else settings.contrast)

    def watermark(self, now_ns: int) -> int:
        """How far every press is known: the sources' watermark, held back by any press the
        debouncer is still holding (it will be emitted with its own, earlier, edge time)."""
        low = self.watermarks.low(now_ns)
        held = self.debouncer.oldest_held_ns()
        return low if held is None else min(low, held)

    def _present(self) -> None:
        """Cues first (a decided race is heard at once), then the screens that changed."""
        for cue in self.table.cues:
            if self.box.buzzer is not None:
                self.box.buzzer.play(cue)
        self.table.cues.clear()
        if self.table.version != self._shown:
            self._shown = self.table.version
            for station in range(len(self.profile.stations)):
                screen = self.table.screen(station)
                if self.notice is not None:
                    screen = with_notice(screen, self.notice)
                self.box.displays.show(station, screen)

    def _next_wake_s(self, now_ns: int) -> float:
        """Seconds to the next deadline. A table deadline is an edge time (a race's first press +
        tie window): wake when every source's watermark will have passed it."""
        due = self.table.wakeup_ns()
        if due is not None:
            due = self.watermarks.reaches_at(due) or due
        dim_at = None if self.dimmed else self._last_input_ns + round(self.profile.displays.dim_after_s * 1e9)
        deadlines = [d for d in (self.debouncer.next_deadline(), due, dim_at) if d is not None]
        idle = IDLE_WAKE_S
        if self.notifier.watchdog_interval_ns is not None:
            idle = min(idle, self.notifier.watchdog_interval_ns / 1e9)
        if not deadlines:
            return idle
        wait_ns = min(deadlines) - now_ns
        if wait_ns < SPIN_NS:
            return 0.0
        return min(idle, (wait_ns - SPIN_NS) / 1e9)

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Run until ``stop`` is set (or forever)."""
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        if self.box.board is not None:
            self.box.board.start()
        try:
            await self._turn_until(stop or asyncio.Event())
        finally:
            if self.box.board is not None:
                self.box.board.close()  # its thread must not call into a loop that is gone

    async def _turn_until(self, stop: asyncio.Event) -> None:
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

    async def serve(self) -> None:
        """Run as the service: until SIGTERM or SIGINT, then tell systemd we are stopping."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await self.run(stop)
        self.notifier.stopping()

    async def press_script(self, presses: list[ScriptPress], speed: float = 1.0) -> None:
        """Press and release the box's keys as a script says, ``speed`` times faster."""
        start = time.monotonic()
        for at_s, station, key, pressed in edges(presses):
            delay = start + at_s / speed - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            self.box.drive(station, key, pressed)

    async def play_script(self, presses: list[ScriptPress], speed: float = 1.0, tail_s: float = 0.3) -> None:
        """Run the loop while a script drives the box's keys; stop ``tail_s`` after the last edge."""
        stop = asyncio.Event()
        runner = asyncio.ensure_future(self.run(stop))
        await self.press_script(presses, speed)
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
