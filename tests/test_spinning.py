"""A task of the box that spins stops the watchdog's pings (companion/daemon/watching.py).

The spinners here are real: a Python thread and a process in a busy loop, read through the
kernel's schedstat like the daemon's own threads and its GPIO reader process. Their runnable time
grows with the clock however loaded this machine is (a task waiting for a CPU is runnable too),
so the tests wait for it to have grown, and the window's clock is the test's own."""

import asyncio
import hashlib
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.daemon import watching
from companion.daemon.watching import SpinWatch, runnable_ns, tasks

from helpers import PATIENCE_S, until

ROOT = Path(__file__).parent.parent
SECOND = 1_000_000_000


def waited_for(condition) -> None:
    end = time.monotonic() + PATIENCE_S
    while not condition():
        assert time.monotonic() < end, "not seen in time"
        time.sleep(0.01)


@pytest.fixture
def spinners():
    """A spinning thread and process, an idle thread and process: their task paths."""
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            pass

    spinning, idle = threading.Thread(target=spin), threading.Thread(target=stop.wait)
    spinning.start()
    idle.start()
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]),
             subprocess.Popen(["sleep", "600"])]
    try:
        yield {"thread": Path(f"/proc/self/task/{spinning.native_id}"), "idle thread": Path(f"/proc/self/task/{idle.native_id}"),
               "process": Path(f"/proc/{procs[0].pid}/task/{procs[0].pid}"),
               "idle process": Path(f"/proc/{procs[1].pid}/task/{procs[1].pid}")}
    finally:
        stop.set()
        spinning.join()
        idle.join()
        for proc in procs:
            proc.kill()
            proc.wait()


def test_a_spinning_thread_and_process_are_caught_and_idle_ones_are_not(spinners):
    if runnable_ns(Path("/proc/self/task") / str(threading.get_native_id())) is None:
        pytest.skip("this kernel keeps no schedstat")
    watch = SpinWatch(window_ns=SECOND)
    watched = dict.fromkeys(spinners.values())
    start = {name: runnable_ns(task) for name, task in spinners.items()}
    assert watch.check(0, watched) == {}
    # a second of the window's clock once each spinner has been runnable a second of the real one
    waited_for(lambda: all(runnable_ns(spinners[n]) - start[n] >= SECOND for n in ("thread", "process")))
    assert watch.check(SECOND // 2, watched) == {}, "half a window is not yet a spin"
    found = watch.check(SECOND, watched)
    assert set(found) == {spinners["thread"], spinners["process"]}
    assert all(share >= watching.SPIN_SHARE for share in found.values())


def fake_read(values):
    return lambda task: values.get(task)


def test_a_task_that_does_its_work_or_rests_is_not_spinning_and_an_ended_one_is_forgotten():
    writer, board, gone = Path("/proc/self/task/1"), Path("/proc/self/task/2"), Path("/proc/self/task/3")
    runnable, jobs = {writer: 0, board: 0, gone: 0}, [0]
    watch = SpinWatch(window_ns=5 * SECOND, read=fake_read(runnable))
    watched = {writer: lambda: jobs[0], board: None, gone: None}
    for second in range(0, 11):
        runnable.update({writer: second * SECOND, board: second * SECOND // 2, gone: second * SECOND})
        jobs[0] += 1  # the writer writes a frame a second: busy, not spinning
        found = watch.check(second * SECOND, watched)
        assert writer not in found and board not in found     # the board's reader half the time: working
        assert (gone in found) == (second >= 5)
    del runnable[gone]                                          # the task ended
    assert watch.check(11 * SECOND, watched) == {}
    runnable[writer] += SECOND                                  # the writer stops doing work, runnable on
    for second in range(12, 18):
        runnable[writer] += SECOND
        found = watch.check(second * SECOND, watched)
    assert writer in found


def test_a_thread_names_itself_and_the_reader_process_is_found_by_its_tasks():
    assert Path(f"/proc/self/task/{threading.get_native_id()}") in set(tasks())
    assert watching.thread_names()[threading.main_thread().native_id] == "the loop"
    assert list(tasks(os.getpid()))


def test_a_spinning_display_writer_stops_the_watchdogs_pings_and_they_come_back_when_it_stops(
        tmp_path, monkeypatch, caplog):
    """The display writer's panel call spins (a real busy loop in its thread): the loop goes on turning, but pings systemd no more, so the watchdog
    restarts the service; once the writer gets on with its work, the pings come back."""
    from companion.daemon import Daemon
    from companion.notify import Notifier
    from companion.profile import load_profile

    if runnable_ns(Path("/proc/self/task") / str(threading.get_native_id())) is None:
        pytest.skip("this kernel keeps no schedstat")
    monkeypatch.setattr(watching, "SPIN_WINDOW_NS", SECOND // 2)
    monkeypatch.setattr(watching, "SAMPLE_NS", SECOND // 10)
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.setblocking(False)
    received = []

    def pings() -> int:
        while True:
            try:
                received.append(sock.recv(100).decode())
            except BlockingIOError:
                return received.count("WATCHDOG=1")

    daemon = Daemon(load_profile(ROOT / "hardware/profiles/mock-3.toml"),
                    notifier=Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"}))  # a ping every 0.1 s
    release = threading.Event()

    def spinning_display(image):
        block = bytes(1 << 20)
        while not release.is_set():
            # a spin outside Python's lock, as in a driver's C code: a spinner that held the lock
            # would wait, asleep, whenever a loaded machine took the CPU from the loop holding it
            # for a moment, and its runnable share would then hang on the machine's load
            hashlib.sha256(block).digest()
        type(device).display(device, image)

    def spin_said() -> bool:
        pings()  # keeps the socket drained, as systemd does: a full one would block the loop's send
        return any("'displays'" in r.getMessage() and "is spinning" in r.getMessage() for r in caplog.records)

    device = None

    async def scenario():
        nonlocal device
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        try:
            await until(lambda: daemon.ready.is_set() and pings() >= 3)
            device = daemon.box.displays.devices[0]   # opened by the writer, before READY
            device.display = spinning_display
            daemon.box.displays.show(0, daemon.table.screen(0))
            await until(spin_said)
            before, steps = pings(), daemon.steps
            await until(lambda: pings() >= 0 and daemon.steps >= steps + 30)   # 30 turns, 0.1 s apart at most
            silent = pings() == before
            release.set()
            await until(lambda: pings() >= before + 3)
            return silent
        finally:
            release.set()
            stop.set()
            await runner

    caplog.set_level(logging.WARNING, logger="companion.daemon.watching")
    try:
        assert asyncio.run(scenario()), "the loop pinged the watchdog while the display writer spun"
    finally:
        release.set()
        daemon.close()
        sock.close()
    assert any("no longer spins" in r.getMessage() for r in caplog.records)


def test_a_thread_busy_by_design_is_watched_by_the_work_it_counts():
    """A benchmark's load thread packs frames flat out in the box's process: the watch reads its
    count (as it reads the display writer's jobs), so it is a spin only while the count stands
    still; without the count the thread would be taken for a spinner."""
    from companion.daemon import Daemon
    from companion.profile import load_profile

    daemon = Daemon(load_profile(ROOT / "hardware/profiles/mock-3.toml"))
    done, frames = threading.Event(), [7]
    load = threading.Thread(target=done.wait, name="frame packer", daemon=True)
    load.start()
    try:
        task = Path(f"/proc/self/task/{load.native_id}")
        assert daemon._watched()[task] is None
        daemon.counted_work["frame packer"] = lambda: frames[0]
        counted = daemon._watched()[task]
        frames[0] += 5
        assert counted() == 12
    finally:
        done.set()
        load.join()
        daemon.close()
