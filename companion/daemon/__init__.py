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
import signal
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, Mapping

from ..adapters import gpiolink
from ..adapters.gpiolink import GpioSession
from ..board.session import BoardSession
from ..arbiter.debounce import Debouncer, Stuck
from ..arbiter.delivery import DeliveryWatch
from ..arbiter.inputs import InputEvent
from ..notify import Notifier
from ..profile import Profile
from ..arbiter.race import watching_late_presses
from ..record.saving import Saving
from ..games.quiz_packs import PACKS, SHELF
from ..record.statedir import FolderLocks
from ..settings import load_settings
from ..table import Table
from ..arbiter.watermark import Watermarks
from ..wiring import Box, EdgeCallback, build_box
from .keeping import RETRY_NS, Keeping, journal_opener
from .phones import Phones
from .presenting import Presenting, displays_down
from .resuming import Resuming
from .scripted import Scripted
from .sources import Sources
from .watching import Watching

log = logging.getLogger(__name__)

__all__ = ["Daemon", "RETRY_NS", "displays_down", "journal_opener"]
"""What is imported from here: the daemon, and from its parts what the tests and the virtual
Pi's screens name."""

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


class Daemon(Keeping, Sources, Presenting, Phones, Resuming, Scripted, Watching):
    """The one loop: it steps the arbiter and the table on every input and deadline; saving,
    the sources, what is presented and the phones are its parts in :mod:`.keeping`,
    :mod:`.sources`, :mod:`.presenting`, :mod:`.phones`, :mod:`.resuming` (the interrupted game, at
    start), :mod:`.scripted` (scripts of presses, pictures of the panels) and :mod:`.watching`
    (the watchdog's pings, stopped while a task of the box spins)."""

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
        named = (defaults or {}).get("quiz", {}).get("pack")
        SHELF.use(settings_path.parent / PACKS if settings_path is not None else None, (named,) if named else ())
        self._notices: dict[str, tuple[str, str]] = {}
        """What players must know now, by what it is about (:data:`NOTICE_ORDER`): the station
        line and the table screen's line."""
        self._locks: FolderLocks | None = None
        self._state_dir: Path | None = None
        self.saving = Saving(self._saved, unsaved=True)
        """The journal writer thread (:mod:`companion.record.saving`)."""
        if journal_dir is not None and referee is None:
            self._open_state(journal_dir)
        opener = journal_opener(journal_dir, self.saving, self._locks) if journal_dir else None
        self.table = referee or Table(names, opener,
                                      seed, defaults, self.settings, bots)
        self.counted_work: dict[str, Callable[[], int]] = {}
        """Threads of this process that work flat out by design (a benchmark's load), by name,
        and what counts their work: the spin watch (:mod:`.watching`) takes such a thread for a
        spinning one only while its count stands still."""
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
        self._retry_at_ns: int | None = None
        """When a journal write that failed is tried again (the game is paused until then)."""
        self._unsaved_since_ns: int | None = None
        """Since when a journal line waits to be written: said on the screens after a while."""
        self._slow_save_said = False
        """SAVING... is shown for the line waiting now: no timer is due for it until it lands."""
        self.steps = 0
        """How many times the loop has stepped (the status line says it)."""
        self._screens: dict[int, Any] = {}
        self._view = None
        """What the stations and the table screen last showed (without notices): shown again,
        with the notice, while the game is paused or its last line is not yet saved."""
        self.board_session: BoardSession | None = None
        self.box: Box = (adapters(self._on_edge) if adapters is not None
                         else build_box(profile, self._on_edge, pin_factory, self._on_board, self._on_gpio))
        self.timed_reveals = referee is None and self.box.screens_take_time
        """Real panels take time to show a screen: races wait for the onsets they report."""
        if referee is None:
            self.table.screens_take_time = self.timed_reveals
        self._shown_reveals: deque[tuple[int, list[str], dict[int, int]]] = deque()
        self._unlit: set[int] = set()
        """Stations whose light sensor saw nothing at the last reveal (said once, until it sees)."""
        self._lit: tuple[str, ...] | None = None
        self._blink_at_ns: int | None = None
        """When a board LED's blink next turns over (board LEDs only hold on or off)."""
        self._game_resumes = False
        """A game a crash interrupted is offered to go on: its phone seats are held (:mod:`.phones`)."""
        if journal_dir is not None and referee is None:
            self._pick_up(journal_dir, len(names))
        self.delivery = DeliveryWatch(self.box.sources.get("gpio"))
        ticks = getattr(self.box.pin_factory, "ticks", None)
        if ticks is not None:
            self._edge_clock_ns = lambda: round(ticks() * 1e9)
        self.watermarks = Watermarks()
        for source, latency_bound_ns in self.box.sources.items():
            self.watermarks.add_source(source, latency_bound_ns)
        if self.box.board is not None:  # the simulator has none: its window presses every key
            self.board_session = BoardSession(profile.board_channels(), sensors=profile.light_channels())
            self.watermarks.add_source(self.board_session.source)
        self.gpio_session: GpioSession | None = None
        if self.box.gpio_reader is not None:
            sensors = self.box.light_sensors
            self.gpio_session = GpioSession(profile.gpio_pins(), profile.light_sensor_pins(),
                                            None if sensors is None else sensors.rise)
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
            from ..tablescreen.public import public_view

            self.public_view = public_view
        self._open_phones()
        self.ready = threading.Event()
        """Set once every display has been sent its first frame (shown, or failed and retrying)."""

    def step(self, now_ns: int) -> None:
        """Everything that arrived, then everything due by ``now_ns``; a race that finds a press
        came too late for it tells :attr:`delivery`. Counted in :attr:`steps` (the status line
        says how often the loop turned: an idle box that turns thousands of times is spinning)."""
        self.steps += 1
        with watching_late_presses(self._late_press):
            self._step(now_ns)

    def _step(self, now_ns: int) -> None:
        """Everything that arrived, then everything due by ``now_ns``. While the journal cannot
        be written the game is paused: presses do nothing and its timers wait."""
        paused = self._check_saving(now_ns)
        while self._shown_reveals:
            reveal, cues, onsets = self._shown_reveals[0]
            self._play(cues)  # the "go" sounds at the flip
            cues.clear()
            sensors = self.box.light_sensors
            if sensors is not None and not self._light_seen(onsets, now_ns):
                break  # the sensors may still see the panels light up: the race waits for them
            phones = self._phone_onsets(reveal, now_ns) if self.web is not None else ({}, {})
            if phones is None:
                break  # a phone may still say when it painted the race
            self._shown_reveals.popleft()
            self.table.revealed(reveal, {**onsets, **phones[0]},
                                None if sensors is None else self._light_onsets(sensors, onsets), phones[1])
        if self.board_session is not None:
            self._source_outputs(self.board_session.check(now_ns))
        if self.gpio_session is not None:
            self._source_outputs(self.gpio_session.check(now_ns), "gpio")
        if self.web is not None:
            self._phones_check(now_ns)
        while self._inbox:
            raw = self._inbox.popleft()
            self._measure_delivery(raw)
            self._last_input_ns = max(self._last_input_ns, raw.t_ns)
            if raw.source in self.watermarks:  # a board that went down meanwhile no longer counts
                self.watermarks.saw(raw.source, raw.t_ns)
            if raw.pressed and not paused:
                self._tell(None, "journal")  # news about the journal: seen by now
            for event in self.debouncer.edge(raw):
                if not paused:
                    self.table.handle(event)
        if self.web is not None and not paused:
            self._take_host_acts(now_ns)
        self._handling_delay_ns = None  # presses the debouncer held have no delivery of their own
        for item in self.debouncer.settle(now_ns):
            if isinstance(item, Stuck):
                if self.table.stuck(item.station, item.key) is not False:  # False: held on purpose
                    log.warning("station %d %s button stuck", item.station + 1, item.key)
            elif not paused:
                self.table.handle(item)
        if not paused:
            self.table.tick(now_ns, self.watermark(now_ns))
        self._dim(now_ns)
        self._present()
        self._light(now_ns)
        self._feed_watchdog(now_ns)

    def _next_wake_s(self, now_ns: int) -> float:
        """Seconds to the next deadline. A table deadline is an edge time (a race's first press +
        tie window): wake when every source's watermark will have passed it."""
        due = self.table.wakeup_ns()
        light = (self._light_target_ns(self._shown_reveals[0][2])
                 if self._shown_reveals and self.box.light_sensors is not None else None)
        if self.box.gpio_reader is not None:  # the reader's watermark the first of them needs
            wanted = [t for t in (due, light) if t is not None]
            if wanted:
                self.box.gpio_reader.want(min(wanted))
        if self.web is not None and self._loop is not None:  # ask the phones when their answers can pass it
            self.web.want(due)
        if due is not None:
            due = self.watermarks.reaches_at(due)  # None: a source's report wakes the loop
        light_at = None if light is None else self.watermarks.reaches_at(light, self._light_sources())
        dim_at = None if self.dimmed else self._last_input_ns + round(self.profile.displays.dim_after_s * 1e9)
        silent_at = [session.check_due_ns() for session in (self.board_session, self.gpio_session)
                     if session is not None]
        slow_at = self._slow_save_due_ns()
        phones_at = self._phones_due_ns() if self.web is not None else None
        deadlines = [d for d in (self.debouncer.next_deadline(), due, dim_at, *silent_at, self._blink_at_ns,
                                 self._retry_at_ns, slow_at, light_at, phones_at) if d is not None]
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
        if self.web is not None:
            await self._start_web()
        switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        try:
            await self._turn_until(stop or asyncio.Event())
        finally:
            sys.setswitchinterval(switch_interval)
            if self.web is not None:
                await self._stop_web()
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
        """Run as the service: until SIGTERM, SIGINT or SIGHUP (the terminal it ran in closed),
        then tell systemd we are stopping. SIGUSR1 and SIGUSR2 only log how the box is doing."""
        stop = asyncio.Event()
        self.stop_on_signals(stop)
        await self.run(stop)
        self.notifier.stopping()

    def stop_on_signals(self, stop: asyncio.Event) -> None:
        """Set ``stop`` on SIGTERM, SIGINT or SIGHUP; log the status on SIGUSR1 or SIGUSR2 (in
        the running loop: the service and the simulator alike)."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(sig, functools.partial(self._stop_on, sig, stop))
        for sig in (signal.SIGUSR1, signal.SIGUSR2):
            loop.add_signal_handler(sig, self._log_status)

    @staticmethod
    def _stop_on(sig: signal.Signals, stop: asyncio.Event) -> None:
        log.info("stopping (%s)", sig.name)
        stop.set()

    def _log_status(self) -> None:
        game = getattr(self.table, "game", None)
        log.info("status: %s; journal %s; notice %s; %d loop steps",
                 "in a game" if game is not None else "in the lobby",
                 "not saved (read-only)" if self.saving.unsaved else
                 f"failing ({self.saving.fault.strerror})" if self.saving.fault is not None else
                 "saving" if self.saving.pending else "saved", self.notice or "none", self.steps)

    def close(self) -> None:
        log.info("%s", self.delivery.summary())
        if self.board_session is not None:
            log.info("button board frames: %s", self.board_session.counters())
        self.box.close()
        self.saving.close()
        if self._locks is not None:
            self._locks.release()  # lets go of the state directory
