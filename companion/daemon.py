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
import errno
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
from .record.journal import Header, JournalWriter, sealed
from .arbiter.latepress import LateNote
from .notify import Notifier
from .profile import Profile
from .arbiter.race import LatePress, watching_late_presses
from .rulebook import SHORT_TITLES
from .record.recovery import KEEP_JOURNALS, NotResumed, next_sequence, note_sequence, pick_up, postpone, rotate
from .record.saving import Saving, SavedJournal
from .record.statedir import hold, in_ram, read_only
from .screens.canvas import with_notice
from .script import ScriptPress, edges
from .settings import load_settings, save_settings
from .table import Table
from .arbiter.watermark import Watermarks
from .adapters.lightsensor import LIGHT_WAIT_NS, marked
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


RETRY_NS = 2_000_000_000
"""How often a journal write that failed (a full disk) is tried again while the game is paused."""
HARNESS_WAIT_S = 60.0
"""How long a daemon stepped by a harness of its own (a test on a fake clock, no loop between its
steps to wait in) waits for its journal lines at each step before showing anything."""
SLOW_SAVE_NS = 1_000_000_000
"""A line not yet on disk after this long (a stalled card) is said on the screens."""


def journal_opener(directory: Path, saving: Saving | None = None):
    """Opens one new journal file per game in ``directory``, named by start time and game and
    numbered by its header's ``sequence``, deleting the oldest finished games beyond what we keep.
    With ``saving``, the game's lines then go through its writer thread; an unsaved ``saving``
    (a read-only state directory) keeps them in memory and opens no file. The directory is made
    again for each game if it is gone (deleted mid-game), so the next game is never refused."""
    if saving is None or not saving.unsaved:
        directory.mkdir(parents=True, exist_ok=True)

    def open_journal(header: Header) -> JournalWriter | SavedJournal:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        if saving is not None and saving.unsaved:
            header = replace(header, sequence=next_sequence(directory))
            log.info("game started: %s, not saved (read-only state directory)", header.game)
            return saving.journal(None, directory / f"{stamp}-{header.game}.jsonl", [sealed(header.as_json()).encode()])
        directory.mkdir(parents=True, exist_ok=True)
        rotate(directory, KEEP_JOURNALS - 1)
        header = replace(header, sequence=next_sequence(directory))
        note_sequence(directory, header.sequence)
        path = directory / f"{stamp}-{header.game}.jsonl"
        n = 1
        while os.path.lexists(path):
            n += 1
            path = directory / f"{stamp}-{header.game}-{n}.jsonl"
        writer = JournalWriter(path, header)
        log.info("game started: %s (number %d on this box), journal %s", header.game, header.sequence, path)
        if saving is None:
            return writer
        return saving.journal(writer, path, [sealed(header.as_json()).encode()])

    return open_journal


def saving_notice(fault: OSError) -> tuple[str, str]:
    """What the screens say while the game is paused because its journal cannot be written:
    one station line, and the table screen's longer line."""
    if fault.errno in (errno.ENOSPC, errno.EDQUOT):
        return "DISK FULL: PAUSED", "DISK FULL: game paused, free space on the card"
    why = "read-only" if fault.errno == errno.EROFS else (fault.strerror or str(fault))
    return "CANNOT SAVE: PAUSED", f"CANNOT SAVE ({why}): game paused"


NOTICE_ORDER = ("board", "gpio", "saving", "displays", "journal", "storage")
"""Which notice a screen's one notice line shows when there are several: the button board and
the GPIO reader (which hold races) first, then a paused game, a dead display, news about the journal, and last the state
directory's standing warnings (read-only, in RAM), which show only in the lobby."""


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
        self._notices: dict[str, tuple[str, str]] = {}
        """What players must know now, by what it is about (:data:`NOTICE_ORDER`): the station
        line and the table screen's line."""
        self._lock_fd: int | None = None
        self._state_dir: Path | None = None
        self.saving = Saving(self._saved, unsaved=True)
        """The journal writer thread (:mod:`companion.record.saving`)."""
        if journal_dir is not None and referee is None:
            self._open_state(journal_dir)
        self.table = referee or Table(names, journal_opener(journal_dir, self.saving) if journal_dir else None,
                                      seed, defaults, self.settings, bots)
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
        interrupted = pick_up(journal_dir, self._replay_time) if journal_dir and referee is None else None
        if interrupted is not None and not isinstance(interrupted, NotResumed):
            interrupted.writer = self.saving.journal(interrupted.writer, interrupted.path, interrupted.lines)
            if interrupted.damaged is not None:
                self._tell("LAST LINE DAMAGED", "journal", "the journal's last line was damaged: the game "
                           "goes on from the line before it", cue=False)
        if isinstance(interrupted, NotResumed):
            self.table.cannot_resume("its journal is damaged", "companion games", "lists it")
        elif interrupted is not None and len(interrupted.match.players) > len(names):
            log.error("cannot resume %s: it has more players than this box has stations", interrupted.path.name)
            interrupted.writer.close()
            postpone(interrupted.path)
            self.table.cannot_resume(SHORT_TITLES.get(interrupted.match.rules.name, interrupted.match.rules.title),
                                     f"{len(interrupted.match.players)} players, {len(names)} stations",
                                     "kept for a bigger box")
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

    def _open_state(self, directory: Path) -> None:
        """Take the state directory (one program per directory, :mod:`companion.record.statedir`)
        and check it: read-only, the box plays unsaved; kept in RAM, it warns. Both are logged
        and said in the lobby."""
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            if e.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise
        self._state_dir = directory
        self._lock_fd = hold(directory) if directory.is_dir() else None
        unsaved = not directory.is_dir() or read_only(directory)
        if unsaved:
            log.warning("%s is read-only: games are played but not saved (no resume after a stop)", directory)
            self._tell("READ-ONLY: NOT SAVED", "storage", "read-only: games are not saved", cue=False)
        elif (kind := in_ram(directory)) is not None:
            log.warning("%s is kept in RAM (%s): games will not survive a power cut; keep the state "
                        "directory on a writable disk partition", directory, kind)
            self._tell("GAMES IN RAM ONLY", "storage", f"games are kept in RAM ({kind}): lost at a power cut",
                       cue=False)
        self.saving = Saving(self._saved, unsaved=unsaved)

    def _hold_again(self) -> None:
        """The state directory was made again (it vanished mid-game): its lock file went with the
        old one, so take the lock again in the new one."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
        try:
            self._lock_fd = hold(self._state_dir)
        except OSError as e:  # another program took the new directory meanwhile
            self._lock_fd = None
            log.error("%s: cannot hold the state directory again: %s", self._state_dir, e.strerror or e)

    def _saved(self) -> None:
        """Runs in the journal writer thread: lines are on disk, or writing failed or works again."""
        loop = getattr(self, "_loop", None)
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._wake.set)
        except RuntimeError:  # the loop has stopped
            pass

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

    def step(self, now_ns: int) -> None:
        """Everything that arrived, then everything due by ``now_ns``; a race that finds a press
        came too late for it tells :attr:`delivery`."""
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
            if sensors is not None and now_ns < self._light_due_ns(onsets):
                break  # the sensors may still see the panels light up: the race waits for them
            self._shown_reveals.popleft()
            self.table.revealed(reveal, onsets, None if sensors is None else self._light_onsets(sensors, onsets))
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
            if raw.pressed and not paused:
                self._tell(None, "journal")  # news about the journal: seen by now
            for event in self.debouncer.edge(raw):
                if not paused:
                    self.table.handle(event)
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
        self.notifier.alive(now_ns)

    def _check_saving(self, now_ns: int) -> bool:
        """How the journal writer is doing, said on the screens; True while writing fails (the
        game is paused, and the lines are tried again every :data:`RETRY_NS` on the loop's clock)."""
        saving = self.saving
        while saving.news:
            self._tell(saving.news.pop(0), "journal", "the journal's folder vanished: rewritten from memory")
            self._hold_again()
        fault = saving.fault
        if fault is not None:
            short, longer = saving_notice(fault)
            self._tell(short, "saving", longer)
            if self._retry_at_ns is None:
                self._retry_at_ns = now_ns + RETRY_NS
            elif now_ns >= self._retry_at_ns:
                self._retry_at_ns = now_ns + RETRY_NS
                saving.retry()
            return True
        self._retry_at_ns = None
        if not saving.pending:
            self._unsaved_since_ns = None
            self._tell(None, "saving")
        elif self._unsaved_since_ns is None:
            self._unsaved_since_ns = now_ns
        elif now_ns - self._unsaved_since_ns >= SLOW_SAVE_NS:
            self._tell("SAVING...", "saving", "Saving: the card is slow to write", cue=False)
        return False

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
                self._view = self.public_view(self.table)
                self._show_view()

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

    def _light_due_ns(self, onsets: dict[int, int]) -> int:
        """When every light sensor has had its time to see a reveal stamped at ``onsets``, and
        its edge to reach the loop: the sensors are read in the daemon through gpiozero (not by
        the GPIO reader process), so their edges may be as late as ``timing.gpio_latency_ms``."""
        return max(onsets.values(), default=0) + LIGHT_WAIT_NS + round(self.profile.timing.gpio_latency_ms * 1e6)

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
        slow_at = None if self._unsaved_since_ns is None else self._unsaved_since_ns + SLOW_SAVE_NS
        light_at = (self._light_due_ns(self._shown_reveals[0][2])
                    if self._shown_reveals and self.box.light_sensors is not None else None)
        deadlines = [d for d in (self.debouncer.next_deadline(), due, dim_at, *silent_at, self._blink_at_ns,
                                 self._retry_at_ns, slow_at, light_at) if d is not None]
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
        log.info("status: %s; journal %s; notice %s", "in a game" if game is not None else "in the lobby",
                 "not saved (read-only)" if self.saving.unsaved else
                 f"failing ({self.saving.fault.strerror})" if self.saving.fault is not None else
                 "saving" if self.saving.pending else "saved", self.notice or "none")

    async def press_script(self, presses: list[ScriptPress], speed: float = 1.0) -> None:
        """Press and release the box's keys as a script says, ``speed`` times faster.

        If the loop gets to an edge late (a busy machine), the rest of the script moves later
        with it instead of catching up: catching up would squeeze the next press and release
        together, and the debouncer would take the squeezed tap for contact bounce. For the same
        reason two edges of a key are never closer than twice the debounce time, however fast
        the script plays (a finger's tap, and the gap between two taps, are longer still)."""
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
        taken the last edge (however long a busy machine takes to get there)."""
        stop = asyncio.Event()
        runner = asyncio.ensure_future(self.run(stop))
        await self.press_script(presses, speed)
        while not self.quiet():
            await asyncio.sleep(0.01)
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
        self.saving.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # lets go of the state directory
            self._lock_fd = None
