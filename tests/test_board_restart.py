"""A board that restarts with its port open, and single frames whose sequence number is wrong,
over a real pseudo-terminal read by the real serial link and board session: the board is known
to have restarted by its HELLO (whatever its sequence number was before), and one bad frame is
dropped and counted, never a reason to refuse the live board's frames after it."""

from __future__ import annotations

import pytest

from companion.board.frames import Edge, Heartbeat
from companion.board.virtual import VirtualBoard
from test_board_attack import CHANNELS, Host


def started(tmp_path) -> tuple[VirtualBoard, Host]:
    board = VirtualBoard(tmp_path / "board")
    board.start()
    host = Host(board)
    host.link.start()
    host.pump_until(lambda: host.session.clock.synced)
    return board, host


def press_and_release(board: VirtualBoard, host: Host, count: int) -> list[int]:
    """``count`` taps, each waited for; the stations tapped."""
    tapped, before = [], len(host.releases())
    for i in range(count):
        channel = i % CHANNELS
        board.press(channel)
        board.press(channel, False)
        tapped.append(channel)
        host.pump_until(lambda: len(host.releases()) >= before + len(tapped) or host.session.out_of_step_frames
                        + host.session.stale_frames > 1000)  # a board shut out drops everything
    return tapped


@pytest.mark.parametrize("sent", [100, 40_000])  # 40,000: more than half the sequence range
def test_a_board_restarting_with_its_port_open_delivers_every_press(tmp_path, sent):
    board, host = started(tmp_path)
    try:
        board.chatter(sent)
        host.pump_until(lambda: host.items.empty() and host.session.reported_ns > 0)
        board.restart(pressed_at_boot=[1])  # held as it started: its press waits behind the HELLO
        host.pump_until(lambda: host.presses() == [1])
        board.press(1, False)
        host.pump_until(lambda: host.releases() == [1])
        assert press_and_release(board, host, 20) == host.presses()[1:]
        assert host.session.board_restarts == 1
        assert (host.session.stale_frames, host.session.out_of_step_frames) == (0, 0)
    finally:
        host.link.close()
        board.close()


@pytest.mark.parametrize("sent, back, bad", [
    (5, -32_767, lambda board: Heartbeat(board.now_us(), 0, 0, 0)),  # one number jumped half the range ahead
    (40_000, 33_000, lambda board: Edge(5_000, 2, 1)),  # a press from the board's first minute, replayed
], ids=["jumped ahead", "replayed from 33000 back"])
def test_one_frame_off_the_sequence_is_dropped_and_counted_and_costs_no_press(tmp_path, sent, back, bad):
    board, host = started(tmp_path)
    try:
        board.chatter(sent)
        board.inject(bad(board), seq=(board._seq - back) & 0xFFFF)
        tapped = press_and_release(board, host, 200)
        assert host.presses() == tapped, "no phantom press, every real one after the bad frame delivered"
        assert host.session.out_of_step_frames == 1 and host.session.lost_frames == 0
    finally:
        host.link.close()
        board.close()


def test_garbage_run_into_a_real_press_frame_does_not_lose_the_press(tmp_path):
    board, host = started(tmp_path)
    try:
        for i, garbage in enumerate((b"\x07\x33\x91", b"\xfe" * 40, bytes(range(1, 200)))):
            board.noise(garbage)  # no zero: the press's frame arrives as the tail of one packet
            board.press(i)
            board.press(i, False)
            host.pump_until(lambda: len(host.releases()) == i + 1)
        assert host.presses() == [0, 1, 2]
        assert sum(host.link.errors.values()) == 3, "each garbage run still counted"
    finally:
        host.link.close()
        board.close()
