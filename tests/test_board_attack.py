"""A hostile button board on a real pseudo-terminal, read by the real serial link (pyserial) and
board session: frames repeated, old frames sent again, edges 5 s stale and tens of ms in the
future, replugs with a press made as the board starts. Not one phantom press; every real press
delivered, and every bad frame counted by what was wrong with it."""

from __future__ import annotations

import queue
import random
import time

from companion.adapters.board import BoardLink
from companion.arbiter.inputs import InputEvent
from companion.board.frames import Edge
from companion.board.handover import LinkUp
from companion.board.session import BoardSession
from companion.board.virtual import VirtualBoard
from helpers import PATIENCE_S

CHANNELS = 4


class Host:
    """The link and session of one board, pumped in the test's thread."""

    def __init__(self, board: VirtualBoard) -> None:
        self.items: queue.Queue = queue.Queue()
        self.link = BoardLink(str(board.path), self.items.put, retry_s=0.02)
        self.session = BoardSession({c: (c, "slap") for c in range(CHANNELS)})
        self.events: list[InputEvent] = []
        self.connections = 0

    def pump_until(self, done) -> None:
        end = time.monotonic() + PATIENCE_S
        while not done():
            assert time.monotonic() < end, f"timed out waiting for {done.__doc__}"
            try:
                item = self.items.get(timeout=0.01)
            except queue.Empty:
                continue
            self.connections += isinstance(item, LinkUp)
            self.events += [o for o in self.session.handle(item) if isinstance(o, InputEvent)]

    def presses(self) -> list[int]:
        return [e.station for e in self.events if e.pressed]

    def releases(self) -> list[int]:
        return [e.station for e in self.events if not e.pressed]


def test_a_press_waiting_in_the_port_before_the_host_opens_it_is_delivered(tmp_path):
    board = VirtualBoard(tmp_path / "board")
    board.start()
    board.press(2)  # the board's HELLO and this press wait in the port: nobody has opened it yet
    host = Host(board)
    host.link.start()
    try:
        host.pump_until(lambda: host.presses() == [2])
        assert host.session.held_dropped == 0 and host.session.missed_presses == 0
    finally:
        host.link.close()
        board.close()


def test_a_hostile_board_gets_no_phantom_press_and_every_real_press_through(tmp_path):
    board = VirtualBoard(tmp_path / "board", drift_ppm=50)
    board.start()
    host = Host(board)
    host.link.start()
    rnd = random.Random(33)
    real: list[int] = []
    expected = {"out_of_step_frames": 0, "stale_frames": 0, "future_frames": 0}
    replugs = 0
    try:
        host.pump_until(lambda: host.session.clock.synced)
        for turn in range(60):
            channel = rnd.randrange(CHANNELS)
            attack = turn % 6
            if attack == 5:  # unplugged and plugged in, pressed as the board starts
                board.replug(pressed_at_boot=[channel])
                replugs += 1
                real.append(channel)
                host.pump_until(lambda: host.connections == replugs + 1 and host.session.clock.synced)
            else:
                board.press(channel)
                real.append(channel)
            if attack == 0:
                board.repeat(1)  # the press again (or the heartbeat after it)
                expected["out_of_step_frames"] += 1
            elif attack == 1:
                board.repeat(rnd.randint(2, 5))  # an older frame
                expected["out_of_step_frames"] += 1
            elif attack == 2:  # an edge from 5 s ago (or the board's start), with a new sequence number
                board.inject(Edge(max(0, board.now_us() - 5_000_000), channel, 1))
                expected["stale_frames"] += 1
            elif attack == 3:  # an edge 45 ms ahead, beyond what the clock sync can be wrong by
                ahead_us = 45_000 + host.session.clock.uncertainty_ns(board.now_us()) // 1000
                board.inject(Edge(board.now_us() + ahead_us, channel, 1))
                expected["future_frames"] += 1
            board.press(channel, False)
            host.pump_until(lambda: len(host.releases()) == len(real)
                            and all(getattr(host.session, k) >= v for k, v in expected.items()))
        assert host.presses() == real, "each real press once, in order: no phantom, none lost"
        assert host.releases() == real
        assert {k: getattr(host.session, k) for k in expected} == expected
        assert (host.session.lost_frames, host.session.missed_presses, host.session.held_dropped) == (0, 0, 0)
        times = [e.t_ns for e in host.events]
        assert times == sorted(times)
    finally:
        host.link.close()
        board.close()
