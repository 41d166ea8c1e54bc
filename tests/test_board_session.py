"""The board session on a fake clock: frames in, station inputs on the host clock and board
watermarks out; held until the clock is known; lost frames and unknown channels counted; an
unplug told to the players; buttons let go while away released on return."""

from __future__ import annotations

from companion.board.frames import Edge, Frame, Heartbeat, Hello, Pong
from companion.board.handover import UNPLUGGED, Exchanged, LinkDown, Live, LinkUp, Notice, Received, Watermark
from companion.board.session import MAX_HELD, BoardSession
from companion.arbiter.inputs import InputEvent

MS = 1_000_000
BOOT_NS = 50_000 * MS  # host time at which the board's clock read 0
READ_NS = BOOT_NS + 10_000 * MS
"""When the host read a frame, unless a test says: after any board time used here (a frame read
before its board time would be from the future)."""
HELLO = Hello(1, 12, 5000, 10000, b"virtual!")


class Feed:
    """Frames from one board with consecutive sequence numbers, on a fake host clock."""

    def __init__(self, session: BoardSession) -> None:
        self.session, self.seq = session, 0

    def __call__(self, message, at_ns: int = READ_NS) -> list:
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
    assert feed(Heartbeat(200, 0, 0, 0)) == []  # held: one frame alone does not move the count
    assert feed(Heartbeat(300, 0, 0, 0)) == [Watermark("board", BOOT_NS + 200_000),
                                             Watermark("board", BOOT_NS + 300_000)]
    assert session.lost_frames == 4 and session.out_of_step_frames == 0


def test_a_frame_whose_sequence_number_is_not_new_is_dropped_and_no_frame_counted_lost(caplog):
    session, feed = synced_from(5000)
    feed(Heartbeat(100, 0, 0, 0))  # seq 5002
    feed.seq = 3000  # behind: a repeated or old frame, not 63,534 lost ones
    assert feed(Edge(200, 0, 1)) == []
    feed.seq = 5003  # and counting carries on from the last frame accepted
    assert feed(Heartbeat(300, 0, 0, 0)) == [Watermark("board", BOOT_NS + 300_000)]
    assert session.lost_frames == 0 and session.out_of_step_frames == 1
    assert "not the next one" in caplog.text
    assert session.lost_frames == 0


def test_a_repeated_press_frame_is_never_a_second_press_and_a_hundred_repeats_lose_no_frame():
    session, feed = synced_from(0xFFF0)  # across the wrap, too
    presses = []
    for i in range(100):
        t_us = 1_000 * (i + 1)
        press = Frame(feed.seq, Edge(t_us, 0, i % 2 == 0))
        presses += feed(press.message)
        for repeat in (press, Frame((press.seq - 7) & 0xFFFF, Edge(t_us - 7_000, 0, 1))):
            assert session.handle(Received(repeat, READ_NS)) == []
    feed(Heartbeat(200_000, 0, 0, 0))  # the board's next frame: the last repeat held is dropped too
    assert [e.pressed for e in presses] == [i % 2 == 0 for i in range(100)]
    assert (session.out_of_step_frames, session.lost_frames) == (200, 0)


def test_a_board_restarting_with_its_port_open_starts_over():
    session, feed = synced_from(0)
    for t_us in range(1_000, 50_000, 1_000):
        feed(Heartbeat(t_us, 0, 0, 0), BOOT_NS + t_us * 1000 + MS)
    feed.seq = 0
    feed(HELLO)  # the board said hello again, from sequence 0
    assert session.board_restarts == 1 and not session.clock.synced
    # The board's clock runs from 0 again, from host 60 ms.
    session.handle(Exchanged(BOOT_NS + 60 * MS, 0, BOOT_NS + 60 * MS))
    feed.seq = 1
    assert feed(Edge(1_000, 0, 1), BOOT_NS + 62 * MS) == [InputEvent(0, "slap", True, BOOT_NS + 61 * MS, "board")]
    assert (session.lost_frames, session.out_of_step_frames, session.stale_frames) == (0, 0, 0)


def test_a_board_whose_first_frame_after_a_restart_is_a_pong_is_known_restarted_by_its_clock():
    """Firmware flashed before HELLO went first answered a waiting ping first (PONG at sequence
    0, HELLO at 1): the pong's board time, behind the last one's, says the board restarted."""
    session, feed = synced_from(40_000)
    for t_us in range(1_000, 40_000_000, 1_000_000):
        feed(Heartbeat(t_us, 0, 0, 0), BOOT_NS + t_us * 1000 + MS)
        session.handle(Exchanged(BOOT_NS + t_us * 1000, t_us, BOOT_NS + t_us * 1000))
    restart_ns = BOOT_NS + 50_000 * MS  # the board's clock reads 0 again here
    session.handle(Exchanged(restart_ns + 2 * MS, 2_000, restart_ns + 2 * MS))
    feed.seq = 0
    feed(Pong(1, 2_000), restart_ns + 3 * MS)
    feed(HELLO, restart_ns + 3 * MS)
    assert session.board_restarts == 1
    assert feed(Edge(3_000, 0, 1), restart_ns + 4 * MS) == [InputEvent(0, "slap", True, restart_ns + 3 * MS, "board")]
    assert (session.stale_frames, session.out_of_step_frames) == (0, 0)


def test_an_edge_older_than_the_boards_own_watermark_is_stale_not_now():
    session, feed = connected()
    feed.sync(0)
    feed(Heartbeat(6_000_000, 0, 0, 0))
    assert feed(Edge(1_000_000, 0, 1)) == []  # 5 s behind what the board already promised
    assert session.stale_frames == 1
    assert feed(Edge(6_000_000, 0, 1)) == [InputEvent(3, "slap", True, BOOT_NS + 6_000 * MS, "board")]


def test_a_repeated_hello_does_not_let_old_frames_back_in():
    session, feed = connected()
    feed.sync(0)
    feed(Heartbeat(6_000_000, 0, 0, 0))  # host time BOOT + 6 s given
    feed.seq = 0
    feed(HELLO)  # a hello repeated (its sequence number 0): taken for a restart...
    session.handle(Exchanged(BOOT_NS + 7_000 * MS, 7_000_000, BOOT_NS + 7_000 * MS + MS // 2))
    # ...but the board's clock went on: a press from 5 s ago, sent again with the next sequence
    # number, maps 5 s behind what was given already, far beyond the sync's uncertainty.
    assert feed(Edge(1_000_000, 0, 1)) == []
    assert session.stale_frames == 1
    assert feed(Edge(7_000_100, 0, 1)) == [InputEvent(3, "slap", True, BOOT_NS + 7_000_100_000 + MS // 4, "board")]


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


def test_a_board_silent_while_its_port_is_open_goes_down_and_its_next_edge_brings_it_back():
    session, feed = connected({0: (3, "slap")})
    feed.sync(0)
    assert feed(Heartbeat(10_000, 0, 0, 0), BOOT_NS + 10 * MS) == [Watermark("board", BOOT_NS + 10 * MS)]
    session.check(BOOT_NS + 100 * MS)
    assert session.check(BOOT_NS + 509 * MS) == []              # 499 ms after the last watermark
    assert session.check(BOOT_NS + 510 * MS) == [Live("board", False), Notice(UNPLUGGED)]
    # It wakes up (a firmware that hung for a while): its press, an edge and so a watermark, makes
    # it live again and is delivered with its own time (a race decided without it finds it late).
    assert feed(Edge(600_000, 0, 1), BOOT_NS + 601 * MS) == [
        Live("board", True), Notice(None), InputEvent(3, "slap", True, BOOT_NS + 600 * MS, "board")]
    out = feed(Heartbeat(601_000, 1, 0, 0), BOOT_NS + 602 * MS)
    assert out == [Watermark("board", BOOT_NS + 601 * MS)]
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
    assert session.future_frames == 2
    assert feed(Edge(6_000, 0, 1), BOOT_NS + 7 * MS) == [InputEvent(3, "slap", True, BOOT_NS + 6 * MS, "board")]
    assert feed(Heartbeat(7_000, 1, 0, 0), BOOT_NS + 8 * MS) == [Watermark("board", BOOT_NS + 7 * MS)]


def test_a_frame_a_few_ms_in_the_future_beyond_the_syncs_uncertainty_is_dropped():
    session, feed = connected()
    # The board's clock known to within 0.5 ms either way (a ping answered within 1 ms).
    session.handle(Exchanged(BOOT_NS - MS // 2, 0, BOOT_NS + MS // 2))
    assert session.clock.uncertainty_ns(1_000) == 500_000 + 1_000  # plus 0.1 % of 1 ms past the ping
    # Read at host 10 ms: an edge at board 11.4 ms may be at host 10.9 ms (within the band), so
    # possibly true; one at board 11.6 ms is at least 0.1 ms after its reading, beyond the 1 ms margin.
    read = BOOT_NS + 10 * MS
    assert feed(Edge(11_400, 0, 1), read) == [InputEvent(3, "slap", True, BOOT_NS + 11_400_000, "board")]
    assert feed(Edge(11_600, 0, 0), read) == []
    assert feed(Edge(42_000, 0, 0), read) == []  # the attack's 40-45 ms, once within a 50 ms slack
    assert session.future_frames == 2


def test_frames_held_for_a_board_that_never_answers_a_ping_are_bounded():
    session, feed = connected()
    for i in range(MAX_HELD + 250):
        feed(Heartbeat(i * 10_000, 0, 0, 0), BOOT_NS + 20_000 * MS)
    assert session.held_dropped == 250
    released = feed.sync(0)
    assert session.held_dropped == 250
    assert len(released) == MAX_HELD and released[0] == Watermark("board", BOOT_NS + 2_500 * MS)


def test_frames_before_the_hello_are_held_then_delivered_or_counted_if_the_version_is_wrong():
    session = BoardSession({0: (0, "slap")})
    session.handle(LinkUp())
    feed = Feed(session)
    feed.sync(0)  # the clock is known, the board is not yet
    assert feed(Edge(1_000, 0, 1)) == []  # its hello was lost (or comes after a replug's first frames)
    assert feed(HELLO) == [InputEvent(0, "slap", True, BOOT_NS + 1 * MS, "board")]
    other = BoardSession({0: (0, "slap")})
    other.handle(LinkUp())
    feed = Feed(other)
    feed.sync(0)
    feed(Edge(1_000, 0, 1))
    feed(Hello(2, 12, 5000, 10000, b"future!!"))
    assert other.held_dropped == 1


def test_a_button_held_whose_press_never_arrived_is_counted_as_missed_not_invented(caplog):
    session, feed = connected({0: (0, "slap")})
    feed.sync(0)
    out = feed(Heartbeat(5_000, 0b1, 0, 0))  # held, but its press frame was lost
    assert out == [Watermark("board", BOOT_NS + 5 * MS)]
    assert session.missed_presses == 1 and "never arrived" in caplog.text
    feed(Heartbeat(6_000, 0b1, 0, 0))  # still held: counted once
    assert session.missed_presses == 1
    assert feed(Edge(7_000, 0, 0)) == [InputEvent(0, "slap", False, BOOT_NS + 7 * MS, "board")]


def test_a_board_is_logged_once_per_connection_though_it_says_hello_twice(caplog):
    caplog.set_level("INFO", logger="companion.board.session")
    session, feed = connected()
    feed(HELLO)  # its answer to the host's HELLO_PLEASE, after its start-up HELLO
    assert [r.getMessage() for r in caplog.records].count("button board 7669727475616c21: 12 channels") == 1
    session.handle(LinkUp())  # plugged in again: a new connection is logged again
    Feed(session)(HELLO)
    assert [r.getMessage() for r in caplog.records].count("button board 7669727475616c21: 12 channels") == 2
