"""The board session on a fake clock: frames in, station inputs on the host clock and board
watermarks out; held until the clock is known; lost frames and unknown channels counted; an
unplug told to the players; buttons let go while away released on return."""

from __future__ import annotations

from companion.board.frames import Edge, Frame, Heartbeat, Hello, Pong
from companion.board.session import (
    MAX_HELD, UNPLUGGED, BoardSession, Exchanged, LinkDown, Live, LinkUp, Notice, Received, Watermark,
)
from companion.arbiter.inputs import InputEvent

MS = 1_000_000
BOOT_NS = 50_000 * MS  # host time at which the board's clock read 0
HELLO = Hello(1, 12, 5000, 10000, b"virtual!")


class Feed:
    """Frames from one board with consecutive sequence numbers, on a fake host clock."""

    def __init__(self, session: BoardSession) -> None:
        self.session, self.seq = session, 0

    def __call__(self, message, at_ns: int = BOOT_NS) -> list:
        out = self.session.handle(Received(Frame(self.seq, message), at_ns))
        self.seq = (self.seq + 1) & 0xFFFF
        return out

    def sync(self, board_us: int) -> list:
        """A ping that took no time at all: board time ``board_us`` is host ``BOOT_NS + it``."""
        host = BOOT_NS + board_us * 1000
        self(Pong(1, board_us), host)
        return self.session.handle(Exchanged(host, board_us, host))


def connected(channels=None) -> tuple[BoardSession, Feed]:
    session = BoardSession(channels or {0: (3, "slap"), 1: (3, "ok"), 4: (4, "slap")})
    session.handle(LinkUp())
    feed = Feed(session)
    assert feed(HELLO) == []
    return session, feed


def test_edges_wait_for_the_clock_then_arrive_on_the_host_clock():
    session, feed = connected()
    assert feed(Edge(1_000, 4, 1)) == []
    assert feed(Heartbeat(1_500, 1 << 4, 0, 0)) == []
    assert feed.sync(2_000) == [
        InputEvent(4, "slap", True, BOOT_NS + 1 * MS, "board"),
        Watermark("board", BOOT_NS + 1_500_000),
    ]
    assert feed(Edge(2_500, 0, 1)) == [InputEvent(3, "slap", True, BOOT_NS + 2_500_000, "board")]


def test_an_edge_on_a_channel_no_station_uses_is_counted_and_still_a_watermark():
    session, feed = connected()
    feed.sync(0)
    assert feed(Edge(700, 9, 1)) == [Watermark("board", BOOT_NS + 700_000)]
    assert session.unmapped_edges == 1


def test_converted_times_never_go_backwards():
    session, feed = connected()
    feed.sync(10_000)
    feed(Heartbeat(12_000, 0, 0, 0))
    # A later exchange says the board is 0.5 ms further ahead: the same board time now maps
    # earlier, but an edge after the reported watermark must not land before it.
    host = BOOT_NS + 20 * MS
    session.handle(Exchanged(host, 20_500, host))
    [event] = feed(Edge(12_100, 1, 1))
    assert event.t_ns >= BOOT_NS + 12 * MS


def synced_from(seq):
    """A session whose board said hello with sequence number ``seq`` and is in sync."""
    session = BoardSession({0: (0, "slap")})
    session.handle(LinkUp())
    feed = Feed(session)
    feed.seq = seq
    feed(HELLO)
    feed.sync(0)
    return session, feed


def test_lost_frames_are_counted_from_sequence_gaps_across_the_wrap():
    session, feed = synced_from(0xFFFC)
    feed(Heartbeat(100, 0, 0, 0))  # seq 0xFFFE
    assert session.lost_frames == 0
    feed.seq = 3  # 0xFFFF, 0, 1 and 2 never arrived
    feed(Heartbeat(200, 0, 0, 0))
    assert session.lost_frames == 4


def test_a_sequence_number_going_back_is_not_counted_as_lost_frames(caplog):
    session, feed = synced_from(5000)
    feed(Heartbeat(100, 0, 0, 0))
    feed.seq = 3000  # behind: a repeated or old frame, not 63,534 lost ones
    feed(Heartbeat(200, 0, 0, 0))
    assert session.lost_frames == 0 and session.backward_seqs == 1
    assert "went back by" in caplog.text
    feed(Heartbeat(300, 0, 0, 0))  # and counting carries on from there
    assert session.lost_frames == 0


def test_unplugged_is_told_once_stops_holding_races_and_is_cleared_by_the_next_heartbeat():
    session, feed = connected()
    assert session.handle(LinkDown("device disconnected")) == [Live("board", False), Notice(UNPLUGGED)]
    assert session.handle(LinkDown("still gone")) == []
    session.handle(LinkUp())
    feed.seq = 0
    assert feed(HELLO) == []
    feed.sync(1_000)
    assert feed(Heartbeat(2_000, 0, 0, 0)) == [Live("board", True), Notice(None), Watermark("board", BOOT_NS + 2 * MS)]
    assert session.notice is None and session.live


def test_a_button_let_go_while_unplugged_is_released_on_return():
    session, feed = connected()
    feed.sync(0)
    feed(Edge(1_000, 0, 1))  # slap held...
    feed(Edge(1_100, 1, 1))  # ...and ok held
    session.handle(LinkDown("unplugged"))
    session.handle(LinkUp())
    feed.seq = 0
    feed(HELLO)
    feed.sync(5_000)
    out = feed(Heartbeat(6_000, 0b10, 0, 0))  # the board restarted: only ok is still held
    assert out == [InputEvent(3, "slap", False, BOOT_NS + 6 * MS, "board"), Live("board", True), Notice(None),
                   Watermark("board", BOOT_NS + 6 * MS)]


def test_a_board_speaking_another_version_is_ignored_and_the_players_told():
    session = BoardSession({0: (0, "slap")})
    session.handle(LinkUp())
    feed = Feed(session)
    assert feed(Hello(2, 12, 5000, 10000, b"future!!")) == [Live("board", False), Notice("Board firmware v2: needs v1")]
    feed.sync(0)
    assert feed(Edge(100, 0, 1)) == []


def test_board_counters_come_from_heartbeats():
    session, feed = connected()
    feed.sync(0)
    feed(Heartbeat(100, 0, 3, 1))
    assert (session.overflows, session.board_rx_errors) == (3, 1)


def test_a_board_absent_at_start_stops_holding_races_after_fifty_heartbeat_periods():
    session = BoardSession({0: (0, "slap")})
    assert session.check(BOOT_NS) == []                       # the daemon's first step: the clock starts
    assert session.check_due_ns() == BOOT_NS + 500 * MS
    assert session.check(BOOT_NS + 499 * MS) == []
    assert session.check(BOOT_NS + 500 * MS) == [Live("board", False), Notice(UNPLUGGED)]
    assert session.check(BOOT_NS + 900 * MS) == [] and session.check_due_ns() is None


def test_a_board_silent_while_its_port_is_open_goes_down_and_its_presses_wait_until_it_is_back():
    session, feed = connected({0: (3, "slap")})
    feed.sync(0)
    assert feed(Heartbeat(10_000, 0, 0, 0), BOOT_NS + 10 * MS) == [Watermark("board", BOOT_NS + 10 * MS)]
    session.check(BOOT_NS + 100 * MS)
    assert session.check(BOOT_NS + 509 * MS) == []              # 499 ms after the last watermark
    assert session.check(BOOT_NS + 510 * MS) == [Live("board", False), Notice(UNPLUGGED)]
    # It wakes up (a firmware that hung for a while): a press from its silent time is not counted.
    assert feed(Edge(600_000, 0, 1), BOOT_NS + 601 * MS) == []
    assert session.presses_while_down == 1
    out = feed(Heartbeat(601_000, 1, 0, 0), BOOT_NS + 602 * MS)
    assert out == [Live("board", True), Notice(None), Watermark("board", BOOT_NS + 601 * MS)]
    assert feed(Edge(601_000, 0, 0), BOOT_NS + 602 * MS) == [InputEvent(3, "slap", False, BOOT_NS + 601 * MS, "board")]
    assert feed(Edge(700_000, 0, 1), BOOT_NS + 701 * MS) == [InputEvent(3, "slap", True, BOOT_NS + 700 * MS, "board")]


def test_the_silence_timeout_follows_the_heartbeat_the_board_announces():
    session = BoardSession({0: (0, "slap")})
    session.handle(LinkUp())
    Feed(session)(Hello(1, 12, 5000, 20_000, b"slowbeat"))
    assert session.silent_after_ns() == 1000 * MS


def test_a_frame_stamped_in_the_future_is_counted_and_dropped_and_moves_nothing():
    session, feed = connected()
    feed.sync(0)
    twenty_minutes_us = 20 * 60 * 1_000_000
    assert feed(Heartbeat(twenty_minutes_us, 0, 0, 0), BOOT_NS + 5 * MS) == []
    assert feed(Edge(twenty_minutes_us, 0, 1), BOOT_NS + 5 * MS) == []
    assert session.absurd_frames == 2
    assert feed(Edge(6_000, 0, 1), BOOT_NS + 7 * MS) == [InputEvent(3, "slap", True, BOOT_NS + 6 * MS, "board")]
    assert feed(Heartbeat(7_000, 1, 0, 0), BOOT_NS + 8 * MS) == [Watermark("board", BOOT_NS + 7 * MS)]


def test_frames_held_for_a_board_that_never_answers_a_ping_are_bounded():
    session, feed = connected()
    for i in range(MAX_HELD + 250):
        feed(Heartbeat(i * 10_000, 0, 0, 0), BOOT_NS + 20_000 * MS)
    assert session.held_dropped == 250
    released = feed.sync(0)  # its pong is held too, pushing out one more heartbeat
    assert session.held_dropped == 251
    assert len(released) == MAX_HELD - 1 and released[0] == Watermark("board", BOOT_NS + 2_510 * MS)
