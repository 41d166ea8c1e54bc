"""The daemon: one asyncio loop owns all state; adapters only stamp and enqueue.

gpiozero calls our edge callback from its own thread; the callback hands the event to the loop
with ``call_soon_threadsafe`` and returns. The loop debounces, advances the source watermark,
lets the table act, then hands changed screens to the display writer and cues to the buzzer.
It sleeps until the next input or the next deadline (a race decision, a held button), so an
idle box costs almost nothing.

The button board's link calls back from its reader thread the same way; the loop turns board
frames into inputs and watermarks (:mod:`companion.board.session`). Races wait for the board
only while it can deliver: absent, unplugged or silent, it is dropped from the watermarks (GPIO
races go on without it) and every screen says so until it is back. On a Pi the station buttons
are read by a process of their own that says how far it has read, whose records this loop reads
(:mod:`companion.adapters.gpiolink`): a reader that stalls is treated like a silent board.

A screen change that opens a race is a *reveal* (:mod:`companion.adapters.reveal`): on real
panels the writer shows it on every station at once and reports each station's onset; the loop
hands the onsets to the table (the race times each station from its own) and only then plays
the cues that came with it, so the "go" is heard when the screens change, not before.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import signal
import sys
import threading
import time
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping

from .adapters import gpiolink
from .adapters.gpiolink import GpioSession, ReaderItem
from .board.session import BoardSession, Live, LinkItem, Output, Watermark
from .arbiter.debounce import Debouncer, Stuck
from .arbiter.delivery import DeliveryWatch
from .arbiter.inputs import InputEvent
from .record.journal import Header, JournalWriter
from .arbiter.latepress import LateNote
from .notify import Notifier
from .profile import Profile
from .arbiter.race import LatePress, watching_late_presses
from .record.recovery import KEEP_JOURNALS, NotResumed, next_sequence, pick_up, rotate
from .screens.canvas import with_notice
from .script import ScriptPress, edges
from .settings import load_settings, save_settings
from .table import Table
from .arbiter.watermark import Watermarks
from .wiring import Box, EdgeCallback, build_box

log = logging.getLogger(__name__)

IDLE_WAKE_S = 1.0
SPIN_NS = 1_500_000
"""The loop's timers wake up to a millisecond late (epoll counts whole milliseconds), so for the
last 1.5 ms before a deadline (a race's decision) the loop keeps turning instead of sleeping:
a race is decided within microseconds of its watermark passing, for a moment of busy CPU."""
SWITCH_INTERVAL_S = 0.001
"""The interpreter's GIL switch interval while the daemon runs (Python's default is 5 ms). A GPIO
edge reaches the daemon through lgpio's callback thread, which waits for the GIL whenever the
display writer is packing a frame: about one switch interval, sometimes several. At 1 ms a press
waits about 1 ms instead of 5 and its tail shrinks with it (``bench/gpio_model.py``), at a cost in
frames packed within our measurement's noise (``python -m bench.handoff``: 1,376 frames/s at 5 ms,
1,321-1,743 at 1 ms). Below 1 ms the machine's scheduling, not the interval, sets the tail."""


def displays_down(down: list[int]) -> str:
    """The notice for dead displays, fitting one screen line."""
    numbers = ",".join(str(i + 1) for i in down)
    return f"Display {numbers} not working" if len(down) == 1 else f"Displays {numbers} failing"


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
                 defaults: Mapping[str, Mapping[str, Any]] | None = None,
                 settings_path: Path | None = None, bots: Mapping[int, str] | None = None) -> None:
        """``adapters`` builds the box around the daemon's edge callback (the simulator's window);
        by default the profile's pins and panels are wired, on ``pin_factory`` if given.
        ``referee`` replaces the games' :class:`Table` (the self-test). ``defaults`` are option
        values the lobby starts from, per game (``--option``). ``settings_path`` is the box
        settings file (:mod:`companion.settings`): read at start, written when players change it.
        ``bots`` are the seats the box plays itself (seat -> level, ``--bot``)."""
        self.profile = profile
        self.notifier = notifier or Notifier()
        t = profile.timing
        self.debouncer = Debouncer(round(t.debounce_ms * 1e6), round(t.stuck_after_s * 1e9))
        names = tuple(st.name for st in profile.stations)
        self.settings_path = settings_path
        self.settings = load_settings(settings_path)
        self.table = referee or Table(names, journal_opener(journal_dir) if journal_dir else None, seed, defaults,
                                      self.settings, bots)
        self._inbox: deque[InputEvent] = deque()
        self._arrived_ns: dict[InputEvent, int] = {}
        """When each GPIO edge in the inbox reached the daemon, to measure its delivery delay."""
        self._handling_delay_ns: int | None = None
        self._edge_clock_ns: Callable[[], int] = time.monotonic_ns
        """The clock edge times are on, to stamp arrivals: the pin factory's ticks once the box is
        built (the kernel's CLOCK_MONOTONIC with lgpio; a test's clock with mock pins)."""
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._shown = -1
        self._last_input_ns = time.monotonic_ns()
        self.dimmed = False
        self._notices: dict[str, str] = {}
        """What players must know now, by what it is about ("board", "gpio", "displays")."""
        self.board_session: BoardSession | None = None
        self.box: Box = (adapters(self._on_edge) if adapters is not None
                         else build_box(profile, self._on_edge, pin_factory, self._on_board, self._on_gpio))
        self.timed_reveals = referee is None and self.box.screens_take_time
        """Real panels take time to show a screen: races wait for the onsets they report."""
        if referee is None:
            self.table.screens_take_time = self.timed_reveals
        self._shown_reveals: deque[tuple[int, list[str], dict[int, int]]] = deque()
        self._lit: tuple[str, ...] | None = None
        self._blink_at_ns: int | None = None
        """When a board LED's blink next turns over (board LEDs only hold on or off)."""
        interrupted = pick_up(journal_dir, self._replay_time) if journal_dir and referee is None else None
        if isinstance(interrupted, NotResumed):
            self.table.tell("GAME NOT RESUMED")
        elif interrupted is not None and len(interrupted.match.players) > len(names):
            log.error("cannot resume %s: it has more players than this box has stations", interrupted.path.name)
            interrupted.writer.close()
            self.table.tell("GAME NOT RESUMED")
        elif interrupted is not None and interrupted.match.outcome is not None:
            self.table.resume(interrupted, time.monotonic_ns())  # its result, until the players leave it
        elif interrupted is not None:
            self.table.offer_resume(interrupted)
        self.delivery = DeliveryWatch(self.box.sources.get("gpio"))
        ticks = getattr(self.box.pin_factory, "ticks", None)
        if ticks is not None:
            self._edge_clock_ns = lambda: round(ticks() * 1e9)
        self.watermarks = Watermarks()
        for source, latency_bound_ns in self.box.sources.items():
            self.watermarks.add_source(source, latency_bound_ns)
        if profile.board is not None:
            self.board_session = BoardSession(profile.board_channels())
            self.watermarks.add_source(self.board_session.source)
        self.gpio_session: GpioSession | None = None
        if self.box.gpio_reader is not None:
            self.gpio_session = GpioSession(profile.gpio_pins())
            self.watermarks.add_source(gpiolink.SOURCE, in_order=False)
        elif profile.backend == "pi" and "gpio" in self.box.sources:
            log.warning("GPIO buttons are read in the daemon and races assume every press arrives within "
                        "%g ms (timing.gpio_watermark = \"bound\"): a press later than that is decided without "
                        "(and reported as a late press); the GPIO reader, the default, needs no such guess",
                        profile.timing.gpio_latency_ms)
        self.box.displays.set_contrast(profile.displays.contrast)  # the panels start at their own
        self.box.displays.on_ready = self._displays_ready
        self.box.displays.on_change = self._displays_changed
        if self.box.buzzer is not None:
            self.box.buzzer.set_volume(self.settings.volume)
        self.public_view = None
        """Makes the table screen's public view, if the box has a table screen (imported only
        then: most boxes have none, and start-up is shorter without it)."""
        if self.box.table_screen is not None:
            from .tablescreen.public import public_view

            self.public_view = public_view
        self.ready = threading.Event()
        """Set once every display has been sent its first frame (shown, or failed and retrying)."""

    @property
    def notice(self) -> str | None:
        """Shown on every screen while set: the button board is unplugged, a display is dead.
        One line fits, so the board (which holds races) comes first."""
        return next(iter(self._notices[k] for k in ("board", "gpio", "displays") if k in self._notices), None)

    def _replay_time(self, size: int) -> None:
        """Before replaying a journal of ``size`` bytes, ask systemd for the time it may take."""
        if size > REPLAY_BYTES_PER_S * 10:
            self.notifier.extend_start(30 + size / REPLAY_BYTES_PER_S)

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

    def _on_edge(self, event: InputEvent) -> None:
        """Runs in gpiozero's thread (or the loop's, with mock pins): enqueue and return.

        ``deque.append`` is atomic, so an edge that comes before the loop runs (a press during
        start-up) simply waits in the inbox.
        """
        if event.source == "gpio":
            self._arrived_ns[event] = self._edge_clock_ns()
        self._inbox.append(event)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def _on_board(self, item: LinkItem) -> None:
        """Runs in the board link's reader thread: enqueue and return."""
        self._loop.call_soon_threadsafe(self._board_arrive, item)

    def _board_arrive(self, item: LinkItem) -> None:
        """A board's heartbeat only moves its watermark: worth a step only if something waits."""
        if self._source_outputs(self.board_session.handle(item)):
            self._wake.set()

    def _on_gpio(self, item: ReaderItem) -> None:
        """A GPIO reader's record, read by the loop itself: an edge's delivery delay is measured
        from here (its arrival)."""
        outputs = self.gpio_session.handle(item)
        for out in outputs:
            if isinstance(out, InputEvent):
                self._arrived_ns[out] = time.monotonic_ns()
        if self._source_outputs(outputs, "gpio"):
            self._wake.set()

    def _source_outputs(self, outputs: list[Output], about: str = "board") -> bool:
        """Apply what the board's or GPIO reader's session says; True if the loop should step for it."""
        news = False
        for out in outputs:
            if isinstance(out, Watermark):
                if out.source in self.watermarks:
                    self.watermarks.report(out.source, out.t_ns)
                news = news or self.table.wakeup_ns() is not None
            elif isinstance(out, Live):
                news = True
                if out.live and out.source not in self.watermarks:
                    self.watermarks.add_source(out.source, in_order=out.source != gpiolink.SOURCE)
                elif not out.live and out.source in self.watermarks:
                    self.watermarks.remove_source(out.source)
            else:
                news = True
                if isinstance(out, InputEvent):
                    self._inbox.append(out)
                else:
                    self._tell(out.text, about)
        return news

    def _tell(self, text: str | None, about: str = "board") -> None:
        if text is None:
            self._notices.pop(about, None)
        else:
            self._notices[about] = text
        self._shown = -1
        if text is not None and self.box.buzzer is not None:
            self.box.buzzer.play("unplugged")

    def _on_shown(self, reveal: int, cues: list[str], onsets: dict[int, int]) -> None:
        """Runs in the display writer's thread: a reveal is on every panel; enqueue and return."""
        self._shown_reveals.append((reveal, cues, onsets))
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def step(self, now_ns: int) -> None:
        """Everything that arrived, then everything due by ``now_ns``; a race that finds a press
        came too late for it tells :attr:`delivery`."""
        with watching_late_presses(self._late_press):
            self._step(now_ns)

    def _step(self, now_ns: int) -> None:
        """Everything that arrived, then everything due by ``now_ns``."""
        while self._shown_reveals:
            reveal, cues, onsets = self._shown_reveals.popleft()
            self._play(cues)
            self.table.revealed(reveal, onsets)
        if self.board_session is not None:
            self._source_outputs(self.board_session.check(now_ns))
        if self.gpio_session is not None:
            self._source_outputs(self.gpio_session.check(now_ns), "gpio")
        while self._inbox:
            raw = self._inbox.popleft()
            self._measure_delivery(raw)
            self._last_input_ns = max(self._last_input_ns, raw.t_ns)
            if raw.source in self.watermarks:  # a board that went down meanwhile no longer counts
                self.watermarks.saw(raw.source, raw.t_ns)
            for event in self.debouncer.edge(raw):
                self.table.handle(event)
        self._handling_delay_ns = None  # presses the debouncer held have no delivery of their own
        for item in self.debouncer.settle(now_ns):
            if isinstance(item, Stuck):
                if self.table.stuck(item.station, item.key) is not False:  # False: held on purpose
                    log.warning("station %d %s button stuck", item.station + 1, item.key)
            else:
                self.table.handle(item)
        self.table.tick(now_ns, self.watermark(now_ns))
        self._dim(now_ns)
        self._present()
        self._light(now_ns)
        self.notifier.alive(now_ns)

    def _measure_delivery(self, raw: InputEvent) -> None:
        """Note a GPIO edge's delivery delay, kept for a late press it may turn out to be."""
        arrived = self._arrived_ns.pop(raw, None)
        self._handling_delay_ns = None if arrived is None else arrived - raw.t_ns
        if self._handling_delay_ns is not None:
            self.delivery.saw(self._handling_delay_ns)

    def _late_press(self, press: LatePress) -> None:
        """A race was decided without this press, which would have changed the verdict: logged,
        and handed back to the table to journal it and tell the players."""
        note = LateNote.of(press, self._handling_delay_ns)
        self.delivery.late(note)
        if isinstance(self.table, Table):
            self.table.late_press(note)

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
        """Cues first (a decided race is heard at once), then the screens that changed; a
        reveal's cues when its screens are shown."""
        self._apply_settings()
        cues = list(self.table.cues)
        self.table.cues.clear()
        reveal = self.table.take_reveal() if self.timed_reveals else None
        if reveal is None:
            self._play(cues)
        if self.table.version != self._shown or reveal is not None:
            self._shown = self.table.version
            screens = {}
            for station in range(len(self.profile.stations)):
                screen = self.table.screen(station)
                if self.notice is not None:
                    screen = with_notice(screen, self.notice)
                screens[station] = screen
            if reveal is None:
                for station, screen in screens.items():
                    self.box.displays.show(station, screen)
            else:
                self.box.displays.reveal(screens, functools.partial(self._on_shown, reveal, cues))
            if self.box.table_screen is not None and isinstance(self.table, Table):
                view = self.public_view(self.table)
                self.box.table_screen.show(view if self.notice is None else replace(view, notice=self.notice))

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
        if lights is None or referee_lights is None:
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

    def _next_wake_s(self, now_ns: int) -> float:
        """Seconds to the next deadline. A table deadline is an edge time (a race's first press +
        tie window): wake when every source's watermark will have passed it."""
        due = self.table.wakeup_ns()
        if due is not None:
            if self.box.gpio_reader is not None:
                self.box.gpio_reader.want(due)
            due = self.watermarks.reaches_at(due)  # None: a source's report wakes the loop
        dim_at = None if self.dimmed else self._last_input_ns + round(self.profile.displays.dim_after_s * 1e9)
        silent_at = [session.check_due_ns() for session in (self.board_session, self.gpio_session)
                     if session is not None]
        deadlines = [d for d in (self.debouncer.next_deadline(), due, dim_at, *silent_at, self._blink_at_ns)
                     if d is not None]
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
        if self.box.gpio_reader is not None:  # its records read by this loop: no thread hand-off
            self.box.gpio_reader.start(self._loop)
        switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        try:
            await self._turn_until(stop or asyncio.Event())
        finally:
            sys.setswitchinterval(switch_interval)
            if self.box.board is not None:
                self.box.board.close()  # its thread must not call into a loop that is gone
            if self.box.gpio_reader is not None:
                self.box.gpio_reader.close()

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
        """Press and release the box's keys as a script says, ``speed`` times faster.

        If the loop gets to an edge late (a busy machine), the rest of the script moves later
        with it instead of catching up: catching up would squeeze the next press and release
        together, and the debouncer would take the squeezed tap for contact bounce."""
        start = time.monotonic()
        for at_s, station, key, pressed in edges(presses):
            due = start + at_s / speed
            if due > time.monotonic():
                await asyncio.sleep(due - time.monotonic())
            start += max(0.0, time.monotonic() - due)
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
        log.info("%s", self.delivery.summary())
        if self.board_session is not None:
            log.info("button board frames: %s", self.board_session.counters())
        self.box.close()
