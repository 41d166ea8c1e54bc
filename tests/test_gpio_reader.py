"""The GPIO reader: a process of its own over gpiozero's mock pins, sending each edge with its time
and how far it has read; its watermark never passes an edge it has not sent (against a model of
the kernel's queue, which makes an edge readable up to the margin after its stamp); a stalled
reader holds a race until it is reported, a killed one is started again."""

from __future__ import annotations

import os
import queue
import signal
import socket
import time

from hypothesis import example, given, settings
from hypothesis import strategies as st

from companion.adapters.gpiolink import (MISSED_NS, NOT_RESPONDING, SILENT_NS, START_NS, GpioReader, GpioSession,
                                        ReaderDown, ReaderEdge, ReaderMark, Unread)
from companion.adapters.gpioreader import EDGE, RECORD, WANT, WATERMARK, LineEdge, Reader
from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race
from companion.board.handover import Live, Notice, Watermark
from companion.daemon import Daemon
from helpers import MS, PATIENCE_S, until, while_running
from test_board_link import BOARD, GPIO, RaceProbe, profile


class Items:
    """What a reader link delivers, taken in the test's thread."""

    def __init__(self) -> None:
        self.queue: queue.Queue = queue.Queue()
        self.seen: list = []

    def next(self, kind, where=lambda item: True):
        end = time.monotonic() + PATIENCE_S
        while True:
            assert time.monotonic() < end, f"no {kind.__name__} in time"
            try:
                item = self.queue.get(timeout=0.01)
            except queue.Empty:
                continue
            self.seen.append((time.monotonic_ns(), item))
            if isinstance(item, kind) and where(item):
                return item


def test_the_reader_process_sends_each_mock_edge_with_its_time_then_a_watermark_past_it():
    items = Items()
    reader = GpioReader([4, 17], items.queue.put, mock=True)
    reader.start()
    try:
        items.next(ReaderMark)  # started, lines claimed
        before = time.monotonic_ns()
        reader.drive(17, 0)
        edge = items.next(ReaderEdge)
        after = time.monotonic_ns()
        assert (edge.pin, edge.level) == (17, 0)
        assert before <= edge.t_ns <= after  # the pin's own time, on this process's clock
        assert items.next(ReaderMark).t_ns >= edge.t_ns
        reader.drive(17, 1)
        assert items.next(ReaderEdge).level == 1
    finally:
        reader.close()
    assert reader.process.wait(timeout=PATIENCE_S) == 0


def test_a_watermark_asked_for_comes_once_its_time_is_past_by_the_margin():
    items = Items()
    margin = 3 * MS
    reader = GpioReader([4], items.queue.put, mock=True, margin_ns=margin)
    reader.start()
    try:
        items.next(ReaderMark)
        wanted = time.monotonic_ns() + 20 * MS
        reader.want(wanted)
        mark = items.next(ReaderMark, lambda m: m.t_ns >= wanted)
        arrived = items.seen[-1][0]
        assert arrived >= wanted + margin  # not before the kernel could have queued every edge
        assert mark.t_ns <= arrived - margin
    finally:
        reader.close()


def test_a_killed_reader_is_reported_and_started_again():
    items = Items()
    reader = GpioReader([4], items.queue.put, mock=True, retry_s=0.01)
    reader.start()
    try:
        items.next(ReaderMark)
        first = reader.pid
        os.kill(first, signal.SIGKILL)
        down = items.next(ReaderDown)
        assert down.reason == f"exited with status {-signal.SIGKILL}"
        items.next(ReaderMark)
        assert reader.pid != first
        reader.drive(4, 0)
        assert items.next(ReaderEdge).level == 0
    finally:
        reader.close()


class KernelQueue:
    """The kernel's line-event queue as the reader sees it: an edge stamped at ``t`` becomes
    readable at some moment up to ``margin`` later (the interrupt's thread queues it)."""

    def __init__(self, margin_ns: int) -> None:
        self.margin_ns = margin_ns
        self.pending: list[tuple[int, LineEdge]] = []

    def fileno(self):
        return None

    def read(self) -> list[LineEdge]:
        ready = [e for at, e in self.pending if at <= self.now]
        self.pending = [(at, e) for at, e in self.pending if at > self.now]
        return ready


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["edge", "turn", "want", "wait"]), st.integers(0, 3_000_000),
                          st.integers(0, 1_000_000)), max_size=60))
@example([("edge", 0, 900_000), ("wait", 700_000, 0), ("want", 0, 0)])  # asked for just after a slow edge
def test_the_watermark_never_passes_an_edge_not_yet_sent(steps):
    lines = KernelQueue(margin_ns=1_000_000)
    lines.now = 10**12
    ours, theirs = socket.socketpair()
    reader = Reader(lines, theirs, clock=lambda: lines.now)
    stamped: list[int] = []
    try:
        for action, a, b in steps:
            if action == "edge":  # stamped now, readable within the margin
                lines.pending.append((lines.now + b, LineEdge(4, 0, lines.now)))
                stamped.append(lines.now)
            elif action == "want":  # up to 1.5 ms before or after now
                ours.sendall(RECORD.pack(WANT, 0, 0, lines.now + a - 1_500_000))
                assert reader.take_commands()
            elif action == "wait":
                lines.now += a
            reader.turn()
            lines.now += 1
        ours.setblocking(False)
        data = b""
        try:
            while chunk := ours.recv(65536):
                data += chunk
        except BlockingIOError:
            pass
    finally:
        ours.close()
        theirs.close()
    sent_edges: list[int] = []
    for offset in range(0, len(data), RECORD.size):
        kind, _, _, t_ns = RECORD.unpack_from(data, offset)
        if kind == EDGE:
            sent_edges.append(t_ns)
        else:
            assert kind == WATERMARK
            missing = [t for t in stamped if t < t_ns and t not in sent_edges]
            assert not missing, f"watermark {t_ns} passed edges not yet sent: {missing}"
    assert reader.late_edges == 0


def test_the_session_turns_records_into_station_inputs_and_a_silent_reader_goes_down():
    session = GpioSession({4: (0, "slap"), 17: (1, "ok")})
    assert session.check(0) == [] and session.check_due_ns() == START_NS  # just started: 5 s to say hello
    assert session.handle(ReaderEdge(17, 0, 1_000)) == [InputEvent(1, "ok", True, 1_000, "gpio")]
    assert session.handle(ReaderEdge(99, 0, 1_000)) == []  # not a station's pin
    assert session.handle(ReaderMark(2_000)) == [Watermark("gpio", 2_000)]
    assert session.check(2_000 + MISSED_NS - 1) == [] and session.check_due_ns() == 2_000 + MISSED_NS
    # A heartbeat missed: told at once; races still wait for it, until half a second of silence.
    assert session.check(2_000 + MISSED_NS) == [Notice(NOT_RESPONDING)]
    assert session.check_due_ns() == 2_000 + SILENT_NS
    assert session.check(2_000 + SILENT_NS) == [Live("gpio", False)]
    assert session.check_due_ns() is None
    assert session.handle(ReaderMark(3 * SILENT_NS)) == [Live("gpio", True), Notice(None), Watermark("gpio", 3 * SILENT_NS)]
    # Killed: told at once, and races wait up to START_NS from its last word for its successor,
    # whose first watermark says how long nobody read the buttons.
    assert session.handle(ReaderDown("exited with status -9")) == [Notice(NOT_RESPONDING)]
    assert session.live and session.check_due_ns() == 3 * SILENT_NS + START_NS
    assert session.handle(ReaderDown("could not start")) == []  # retried: said once
    assert session.handle(ReaderMark(3 * SILENT_NS + 2_800 * MS)) == [
        Unread("gpio", 2_800 * MS), Notice(None), Watermark("gpio", 3 * SILENT_NS + 2_800 * MS)]
    assert session.downs == 2


def reader_daemon(tmp_path) -> Daemon:
    """A daemon whose station 1 is on GPIO, read by the reader process, and station 2 on a board."""
    box = profile(tmp_path, GPIO[0], BOARD.format(0, 1, 2, 3))
    box = box.__class__(**{**box.__dict__, "timing": box.timing.__class__(gpio_watermark="reader")})
    daemon = Daemon(box)
    assert daemon.box.gpio_reader is not None and not daemon.box.buttons
    return daemon


class DecisionProbe(RaceProbe):
    """A race probe that calls ``decided(now_ns)`` in the loop's step that decides the race."""

    def __init__(self, race: Race, decided) -> None:
        super().__init__(race)
        self.decided = decided

    def stuck(self, station, key):
        pass

    def tick(self, now_ns, watermark_ns):
        undecided = self.result is None
        super().tick(now_ns, watermark_ns)
        if undecided and self.result is not None:
            self.decided(now_ns)


def test_a_stalled_reader_holds_a_race_until_it_is_reported_then_comes_back(tmp_path):
    daemon = reader_daemon(tmp_path)
    seen = {}

    def decided(now_ns):
        seen["decided_ns"], seen["gpio_waited_for"] = now_ns, "gpio" in daemon.watermarks

    async def scenario():
        session = daemon.gpio_session
        await until(lambda: daemon.board_session.clock.synced and session._heard_ns is not None
                    and "gpio" in daemon.watermarks and daemon.watermarks.low(time.monotonic_ns()) > 0)
        # The race opened a second ago: the board's press is stamped on its own clock, and mapped
        # to the host's through a fit a busy machine can leave some ms off; a press mapped before
        # the opening would be a false start, and the race would wait for the stopped reader's
        # station for ever (1 run in the CI of 7 December).
        probe = daemon.table = DecisionProbe(Race(time.monotonic_ns() - 1000 * MS, tie_window_ns=5 * MS,
                                                  stations=range(2)), decided)
        reader = daemon.box.gpio_reader.pid
        os.kill(reader, signal.SIGSTOP)
        try:
            stopped_ns = time.monotonic_ns()
            daemon.box.virtual_board.press(0)  # station 2 slaps on the board: the race opens
            await until(lambda: probe.result is not None)
            seen["notice"] = daemon.notice
            seen["heard_ns"] = session._heard_ns  # the reader's last word, before or at its stop
            assert seen["heard_ns"] < stopped_ns  # every watermark it sent was taken before its stop
        finally:
            os.kill(reader, signal.SIGCONT)
        await until(lambda: daemon.notice is None and session.live)
        daemon.box.drive(0, "slap", True)  # the reader reads again
        await until(lambda: 0 in probe.arrivals)
        return probe

    probe = while_running(daemon, scenario)
    assert probe.result.winners == {1}
    assert not seen["gpio_waited_for"], "decided only once the stalled reader no longer held it"
    # The race waited 0.5 s past the reader's last word (however long before the stop a busy
    # machine let that come), and no longer: it is decided as soon as the reader is reported.
    assert seen["decided_ns"] - seen["heard_ns"] >= SILENT_NS
    assert seen["notice"] == NOT_RESPONDING
    assert daemon.gpio_session.downs == 1


def test_kernel_line_events_are_read_as_the_uapi_lays_them_out():
    """``struct gpio_v2_line_event`` (include/uapi/linux/gpio.h): 48 bytes, timestamp first; a
    rising edge (id 1) is level 1, a falling one (id 2) level 0. Read from a pipe standing in for
    the line request's file (no gpiochip on this machine; the virtual Pi has a real one)."""
    import struct

    from companion.adapters.gpioreader import KernelLines

    read_end, write_end = os.pipe()
    lines = KernelLines.__new__(KernelLines)
    lines._fd = read_end
    os.set_blocking(read_end, False)
    event = struct.Struct("<QIIII24x")
    assert event.size == 48
    os.write(write_end, event.pack(1_000_123, 2, 17, 1, 1) + event.pack(1_004_000, 1, 17, 2, 2))
    assert lines.read() == [LineEdge(17, 0, 1_000_123), LineEdge(17, 1, 1_004_000)]
    assert lines.read() == []  # empty: the queue was read out
    os.close(write_end)
    lines.close()
