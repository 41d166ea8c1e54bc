"""A thread or process of the box that spins stops the watchdog's pings, so systemd restarts it.

The whole service runs at real-time priority (``SCHED_FIFO`` 20, the unit), its GPIO reader process
too. A thread caught in a loop there (the display writer, the button board's reader, the loop
itself) or a reader process that spins holds a CPU for ever: the kernel's real-time throttling
leaves other work 5 % of it (measured in a trixie guest: a normal task on that CPU did 1.8 % of
its usual work). The loop alone pings systemd's watchdog, and a loop that turns pings it while a
worker spins; so before each ping the loop looks at every task of the box.

A task *spins* when it was runnable (on a CPU, or waiting in the run queue for one: the kernel's
``schedstat``) for :data:`SPIN_SHARE` of the last :data:`SPIN_WINDOW_NS` and, where it counts its
work (the display writer its jobs, the table screen its frames), did none. Runnable time and not
CPU time: a spinner on a loaded machine waits for a CPU as much as it runs, and its runnable time
still grows with the clock, however loaded the machine (a test's spinner too). A working box
blocks (a condition, the bus, epoll) far more than that: an idle daemon is runnable well under 1 %
of the time. The GPIO reader process is watched once it has sent its first record (its start,
imports and chip open, may take seconds of CPU on a slow machine; a stall before that is the
reader link's to report).

On a spin the loop logs which task and stops pinging; systemd's ``WatchdogSec`` (10 s) restarts
the service, at most :data:`SPIN_WINDOW_NS` + :data:`SAMPLE_NS` + 10 s after the spin began.
Outside systemd (no watchdog) only the log line says it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

log = logging.getLogger(__name__)

SPIN_WINDOW_NS = 5_000_000_000
"""How long a task must have been runnable nearly all the time to count as spinning: half the
unit's ``WatchdogSec``."""
SPIN_SHARE = 0.75
"""The share of :data:`SPIN_WINDOW_NS` a spinning task was runnable: a real-time spinner is runnable
nearly all of it (a Python thread a little less: it waits for the interpreter's lock while others
take it, 1-10 % in the tests), a working thread of the box a few percent."""
CALM_SHARE = 0.5
"""A task found spinning spins until it does work or is runnable less than this share of the
window: one window a little under :data:`SPIN_SHARE` does not ping the watchdog again."""
SAMPLE_NS = 1_000_000_000
"""How often the loop reads the tasks' runnable time (a dozen small files from /proc)."""


class Sample(NamedTuple):
    at_ns: int
    runnable_ns: int
    progress: int | None


def runnable_ns(task: Path) -> int | None:
    """Nanoseconds the task (``/proc/PID/task/TID``) was on a CPU or waiting for one; None if it
    is gone (or the kernel keeps no schedstat)."""
    try:
        on_cpu, waiting, _ = (task / "schedstat").read_text().split()
    except (OSError, ValueError):
        return None
    return int(on_cpu) + int(waiting)


def tasks(pid: int | str = "self") -> Iterator[Path]:
    """The tasks (threads) of a process, by their /proc paths."""
    base = Path("/proc") / str(pid) / "task"
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        yield base / name


class SpinWatch:
    """Keeps each task's runnable time over the last window; says which tasks spin."""

    def __init__(self, window_ns: int = SPIN_WINDOW_NS, share: float = SPIN_SHARE, calm: float = CALM_SHARE,
                 read: Callable[[Path], int | None] = runnable_ns) -> None:
        self.window_ns = window_ns
        self.share = share
        self.calm = calm
        self.read = read
        self._samples: dict[Path, deque[Sample]] = {}
        self._spinning: set[Path] = set()

    def check(self, now_ns: int, watched: dict[Path, Callable[[], int] | None]) -> dict[Path, float]:
        """Sample every task of ``watched`` (its path, and what counts its work, if anything);
        the tasks spinning now, each with its runnable share of the window."""
        spinning = {}
        for task in list(self._samples):
            if task not in watched:
                del self._samples[task]  # ended, or no longer watched
        for task, progress in watched.items():
            runnable = self.read(task)
            if runnable is None:
                self._samples.pop(task, None)
                continue
            samples = self._samples.setdefault(task, deque())
            samples.append(Sample(now_ns, runnable, None if progress is None else progress()))
            while len(samples) > 2 and now_ns - samples[1].at_ns >= self.window_ns:
                samples.popleft()
            first, last = samples[0], samples[-1]
            span = last.at_ns - first.at_ns
            if span < self.window_ns:
                continue
            share = (last.runnable_ns - first.runnable_ns) / span
            idle = progress is None or last.progress == first.progress
            if idle and share >= (self.calm if task in self._spinning else self.share):
                spinning[task] = share
        self._spinning = set(spinning)
        return spinning


def thread_names() -> dict[int, str]:
    """This process's Python threads by their kernel thread id; the main thread is the loop."""
    names = {t.native_id: t.name for t in threading.enumerate() if t.native_id is not None}
    names[threading.main_thread().native_id] = "the loop"
    return names


class Watching:
    """The daemon's part that pings the watchdog only while no task of the box spins."""

    def _feed_watchdog(self, now_ns: int) -> None:
        """Ping the watchdog, unless a task spins. Watched from READY on: before it, the start
        (a journal's replay, the first frames) is the unit's start timeout's to bound."""
        watch = getattr(self, "_spin_watch", None)
        if watch is None:
            if not self.ready.is_set():
                self.notifier.alive(now_ns)
                return
            watch = self._spin_watch = SpinWatch(SPIN_WINDOW_NS, SPIN_SHARE, CALM_SHARE)
            self._spin_checked_ns, self._spins = None, {}
        if self._spin_checked_ns is None or now_ns - self._spin_checked_ns >= SAMPLE_NS:
            self._spin_checked_ns = now_ns
            now_spinning = watch.check(now_ns, self._watched())
            for task, share in now_spinning.items():
                if task not in self._spins:
                    log.error("%s is spinning: runnable %.0f%% of the last %.1f s, no work done; the watchdog "
                              "is no longer pinged, so systemd restarts the box", self._task_name(task), share * 100,
                              watch.window_ns / 1e9)
            for task in set(self._spins) - set(now_spinning):
                log.warning("%s no longer spins: the watchdog is pinged again", self._task_name(task))
            self._spins = now_spinning
        if not self._spins:
            self.notifier.alive(now_ns)

    def _watched(self) -> dict[Path, Callable[[], int] | None]:
        """Every thread of the daemon, what counts the work of those that count it, and every
        task of the GPIO reader process once it has reported."""
        counted = {**self.counted_work, "displays": lambda: getattr(self.box.displays, "jobs", 0)}
        if self.box.table_screen is not None:
            counted["table-screen"] = lambda: self.box.table_screen.frames
        names = thread_names()
        watched: dict[Path, Callable[[], int] | None] = {}
        for task in tasks():
            watched[task] = counted.get(names.get(int(task.name), ""))
        reader = self.box.gpio_reader
        pid = reader.reporting_pid if reader is not None else None
        if pid is not None:
            watched.update((task, None) for task in tasks(pid))
        return watched

    def _task_name(self, task: Path) -> str:
        """Who a task is, for the log: the thread's name, or the GPIO reader process."""
        if task.parts[2] != "self":
            return f"the GPIO reader process (pid {task.parts[2]}, task {task.name})"
        name = thread_names().get(int(task.name))
        if name is None:
            try:
                name = (task / "comm").read_text().strip()
            except OSError:
                name = "?"
        return f"thread {name!r} (task {task.name})" if name != "the loop" else f"the loop (task {task.name})"
