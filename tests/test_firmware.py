"""The button board's firmware logic under CPython: framing against the shared vectors, the
64-bit clock across ticks_us wrap-around, the interrupt's ring buffer, debouncing that keeps the
first edge, the board's turn, and the hardware glue on stand-in pins."""

from __future__ import annotations

import pytest

from companion.board.frames import Deframer, Edge, Heartbeat, Hello, Light, Pong
from firmware_standin import BOARD_ID, TICKS_PERIOD, VECTORS, Pin, SerialPort, Ticks, load_main, module

wire = module("wire")
ticks64 = module("ticks64")
edgering = module("edgering")
contacts = module("contacts")
board = module("board")

MS = 1000  # board time is in microseconds


def code(name: str) -> int:
    return getattr(wire, name.upper())


def field_values(vector: dict) -> tuple:
    """The fields in payload order (the vectors list them in that order)."""
    return tuple(bytes.fromhex(v) if k == "board_id" else v for k, v in vector["fields"].items())


# --- framing against the shared vectors --------------------------------------------------------

def test_crc_check_value():
    for v in VECTORS["crc16"]:
        assert wire.crc16(bytes.fromhex(v["data"])) == v["crc"]


@pytest.mark.parametrize("v", VECTORS["cobs"], ids=lambda v: v["data"][:12] or "empty")
def test_cobs_vectors(v):
    data, encoded = bytes.fromhex(v["data"]), bytes.fromhex(v["encoded"])
    assert bytes(wire.cobs_encode(data)) == encoded
    assert bytes(wire.cobs_decode(encoded)) == data


@pytest.mark.parametrize("v", VECTORS["frames"], ids=lambda v: v["name"])
def test_frames_are_the_vectors_bytes_both_ways(v):
    on_wire = bytes.fromhex(v["wire"])
    assert wire.frame(code(v["type"]), v["seq"], *field_values(v)) == on_wire
    assert wire.unframe(on_wire[:-1]) == (code(v["type"]), v["seq"], field_values(v))


def test_every_bad_frame_is_counted_and_a_good_one_still_passes():
    reader = wire.Reader()
    for v in VECTORS["bad_frames"]:
        assert reader.feed(bytes.fromhex(v["wire"])) == [], v["name"]
    assert reader.errors == len(VECTORS["bad_frames"])
    ping = next(v for v in VECTORS["frames"] if v["name"] == "ping")
    assert reader.feed(bytes.fromhex(ping["wire"])) == [(wire.PING, 9, (0xDEADBEEF,))]
    assert reader.errors == len(VECTORS["bad_frames"])


def test_reader_takes_frames_split_anywhere():
    stream = b"".join(bytes.fromhex(v["wire"]) for v in VECTORS["frames"])
    reader = wire.Reader()
    got = []
    for i in range(0, len(stream), 7):
        got += reader.feed(stream[i:i + 7])
    assert [kind for kind, _, _ in got] == [code(v["type"]) for v in VECTORS["frames"]]
    assert reader.errors == 0


# --- the clock -----------------------------------------------------------------------------------

def test_ticks_are_extended_across_the_wrap():
    clock = ticks64.Clock64(TICKS_PERIOD - 10)
    assert clock.extend(TICKS_PERIOD - 5) == 5
    assert clock.extend(15) == 25  # wrapped: 2**30 - 10 + 25
    assert clock.extend(14) == 24  # an edge the interrupt stamped just before: still in order


def test_an_older_tick_does_not_move_the_clock_back():
    minutes = 60_000_000
    clock = ticks64.Clock64(0)
    assert clock.extend(8 * minutes) == 8 * minutes
    assert clock.extend(1 * minutes) == 1 * minutes  # 7 minutes old, within half a wrap
    assert clock.extend((16 * minutes) % TICKS_PERIOD) == 16 * minutes  # 8 minutes after the newest


def test_ten_hours_of_ticks_lose_nothing():
    start = 123_456
    clock = ticks64.Clock64(start)
    step = 97_000_000  # 97 s between turns, well within half a wrap
    for n in range(1, 372):
        assert clock.extend((start + n * step) % TICKS_PERIOD) == n * step


# --- the ring buffer -----------------------------------------------------------------------------

def test_ring_is_first_in_first_out_across_its_end():
    ring = edgering.EdgeRing(4)
    out = []
    for t in range(10):
        ring.push(t * 100, t % 3, t % 2)
        out.append(ring.pop())
    assert out == [(t * 100, t % 3, t % 2) for t in range(10)]
    assert ring.pop() is None


def test_a_full_ring_drops_new_edges_and_counts_them():
    ring = edgering.EdgeRing(4)  # holds 3: one slot tells full from empty
    for t in range(5):
        ring.push(t, 0, 1)
    assert ring.overflows == 2
    assert [ring.pop() for _ in range(4)] == [(0, 0, 1), (1, 0, 1), (2, 0, 1), None]


def test_ring_keeps_raw_ticks_up_to_the_wrap():
    ring = edgering.EdgeRing(2)
    ring.push(TICKS_PERIOD - 1, 31, 1)
    assert ring.pop() == (TICKS_PERIOD - 1, 31, 1)


# --- debouncing -----------------------------------------------------------------------------------

def test_a_bouncing_press_keeps_the_first_edge():
    c, out = contacts.Contacts(2, 5 * MS), []
    for t, level in [(1000, 1), (1200, 0), (1300, 1), (1900, 0), (2000, 1)]:
        c.edge(0, level, t, out)
    c.settle(10 * MS, out)
    assert out == [(1000, 0, 1)]


def test_a_tap_shorter_than_the_window_is_caught_up_with_its_own_time():
    c, out = contacts.Contacts(1, 5 * MS), []
    c.edge(0, 1, 1000, out)
    c.edge(0, 0, 3000, out)  # released inside the window
    assert out == [(1000, 0, 1)]
    assert c.held_since() == 3000
    c.settle(7999, out)
    assert out == [(1000, 0, 1)]
    c.settle(8000, out)
    assert out == [(1000, 0, 1), (3000, 0, 0)]
    assert c.held_since() is None


# --- the board's turn ------------------------------------------------------------------------------

def frames_of(data: bytes, deframer=None):
    deframer = deframer or Deframer()
    frames = deframer.feed(data)
    assert not deframer.errors
    return [f.message for f in frames]


def new_board(**options):
    return board.ButtonBoard(12, BOARD_ID, 0, **options)


def test_the_first_turn_says_hello_then_heartbeat():
    b = new_board()
    messages = frames_of(b.poll(1 * MS))
    assert messages == [Hello(1, 12, 5000, 10000, BOARD_ID), Heartbeat(1 * MS, 0, 0, 0)]


def test_a_board_started_with_the_hosts_ping_waiting_says_hello_first_at_sequence_zero():
    """A soft reset keeps USB up, and the host pings on: its first turn may read a ping. The
    HELLO still goes first, with sequence 0: that is how the host knows the board restarted."""
    b = new_board()
    data = b.poll(1 * MS, wire.frame(wire.PING, 40_000, 77))
    frames = Deframer().feed(data)
    assert (frames[0].seq, frames[0].message) == (0, Hello(1, 12, 5000, 10000, BOARD_ID))
    assert [f.message for f in frames[1:]] == [Pong(77, 1 * MS), Heartbeat(1 * MS, 0, 0, 0)]


def test_a_ping_is_answered_with_the_boards_clock():
    b = new_board()
    b.poll(0)
    assert frames_of(b.poll(3 * MS, wire.frame(wire.PING, 0, 77))) == [Pong(77, 3 * MS)]


def test_heartbeats_only_when_idle_for_the_period():
    b = new_board()
    b.poll(0)
    beats = [t for t in range(1 * MS, 31 * MS, 1 * MS) if frames_of(b.poll(t))]
    assert beats == [10 * MS, 20 * MS, 30 * MS]


def test_edges_go_out_in_time_order_while_a_catch_up_is_pending():
    b = new_board()
    b.poll(0)
    b.ring.push(10 * MS, 0, 1)
    b.ring.push(11 * MS, 0, 0)  # a tap inside the window: caught up at 16 ms
    b.ring.push(13 * MS, 1, 1)  # another channel, later
    first = frames_of(b.poll(14 * MS))
    assert first == [Edge(10 * MS, 0, 1)]  # channel 1 waits: an older edge is still held
    assert b.upto(14 * MS) == 11 * MS
    second = frames_of(b.poll(16 * MS))
    assert second == [Edge(11 * MS, 0, 0), Edge(13 * MS, 1, 1)]
    beat = frames_of(b.poll(26 * MS))
    assert beat == [Heartbeat(26 * MS, 0b10, 0, 0)]


def test_heartbeat_reports_drops_and_bad_host_frames():
    b = new_board(ring_size=2)
    b.poll(0)
    for t in (1, 2, 3):
        b.ring.push(t * MS, 0, t % 2)
    b.poll(4 * MS, b"\x05\x01\x00")
    assert frames_of(b.poll(20 * MS))[-1] == Heartbeat(20 * MS, 1, 2, 1)


def test_leds_echo_held_buttons_and_take_the_hosts_mask():
    b = new_board(led_echo=(0, 4, 8))
    b.poll(0)
    b.ring.push(1 * MS, 4, 1)
    b.poll(2 * MS, wire.frame(wire.LEDS, 0, 0b100))
    assert b.leds() == 0b110


def test_edges_of_channels_the_board_lacks_are_ignored():
    b = board.ButtonBoard(2, BOARD_ID, 0)
    b.poll(0)
    b.ring.push(1 * MS, 5, 1)
    assert frames_of(b.poll(2 * MS)) == []


# --- light sensors ---------------------------------------------------------------------------------

FRAME_US = 6900  # a panel's frame at the box's clock (docs/LIGHT.md): the marker flashes once a frame


def test_a_sensor_reports_the_first_rise_of_a_lit_marker_with_its_board_time():
    b = board.ButtonBoard(13, BOARD_ID, 0, sensors=(12,))
    b.poll(0)
    for n in range(40):  # the marker shown for 40 frames: a rise each
        b.ring.push(10 * MS + n * FRAME_US, 12, 1)
    b.ring.push(10 * MS + 250, 12, 0)  # a fall (a stand-in that reports both): not a report
    messages = frames_of(b.poll(10 * MS + 40 * FRAME_US))
    assert [m for m in messages if not isinstance(m, Heartbeat)] == [Light(10 * MS, 12)]
    b.ring.push(400 * MS, 12, 1)  # the next reveal, after the panel was dark
    assert frames_of(b.poll(400 * MS + 100)) == [Light(400 * MS, 12)]


def test_rises_closer_than_the_quiet_gap_are_one_however_long_they_go_on():
    b = board.ButtonBoard(13, BOARD_ID, 0, sensors=(12,), sensor_quiet_us=16 * MS)
    b.poll(0)
    for t in (1 * MS, 16 * MS, 31 * MS, 46 * MS):  # each 15 ms after the last: never quiet for 16
        b.ring.push(t, 12, 1)
    b.ring.push(62 * MS, 12, 1)  # 16 ms after the last rise
    lights = [m for m in frames_of(b.poll(70 * MS)) if isinstance(m, Light)]
    assert lights == [Light(1 * MS, 12), Light(62 * MS, 12)]


def test_a_sensor_rise_has_no_hold_off_and_keeps_time_order_with_buttons():
    b = board.ButtonBoard(13, BOARD_ID, 0, sensors=(12,))
    b.poll(0)
    b.ring.push(10 * MS, 12, 1)
    assert frames_of(b.poll(10 * MS + 1)) == [Light(10 * MS, 12)]  # at the next turn, no debounce wait
    b.ring.push(40 * MS, 0, 1)
    b.ring.push(41 * MS, 0, 0)  # a tap inside the debounce window: caught up at 46 ms
    b.ring.push(42 * MS, 12, 1)  # the sensor rises after the tap's release
    assert frames_of(b.poll(43 * MS)) == [Edge(40 * MS, 0, 1)]  # the rise waits behind the held release
    assert frames_of(b.poll(46 * MS)) == [Edge(41 * MS, 0, 0), Light(42 * MS, 12)]
    assert frames_of(b.poll(56 * MS)) == [Heartbeat(56 * MS, 0, 0, 0)]  # a sensor is never "held"


# --- the hardware glue on stand-in pins --------------------------------------------------------------

def test_glue_timestamps_edges_in_the_interrupt_across_the_wrap():
    ticks = Ticks(TICKS_PERIOD - 2 * MS)
    main = load_main(ticks)
    board_, leds = main.start()
    channel_pins = [Pin.made[n] for n in main.config.CHANNEL_PINS]
    assert all(p.irq_options == {"trigger": Pin.IRQ_FALLING | Pin.IRQ_RISING, "hard": True} for p in channel_pins)
    port, deframer = SerialPort(), Deframer()
    main.turn(board_, leds, port, port, port)

    ticks.us += 1 * MS
    channel_pins[4].drive(0)  # station B's slap pressed, 1 ms before the wrap
    ticks.us += 1 * MS + 250  # the wrap passes
    channel_pins[5].drive(0)
    ticks.us += 40  # the main loop comes round after the interrupts
    port.incoming += wire.frame(wire.PING, 0, 5)
    main.turn(board_, leds, port, port, port)
    messages = frames_of(bytes(port.written), deframer)
    assert messages[0] == Hello(1, 12, 5000, 10000, BOARD_ID)
    assert Edge(1 * MS, 4, 1) in messages
    assert Edge(2 * MS + 250, 5, 1) in messages
    assert Pong(5, 2 * MS + 290) in messages
    assert leds[1].value() == 1  # LED of station B echoes its slap button


def test_holding_the_first_button_at_power_up_keeps_the_repl():
    main = load_main(Ticks())
    Pin.held.add(main.config.CHANNEL_PINS[0])
    assert main.start() is None
    assert all(pin.handler is None for pin in Pin.made.values())


def test_glue_stamps_a_sensor_s_rise_in_the_interrupt(monkeypatch):
    ticks = Ticks(5 * MS)
    main = load_main(ticks)
    monkeypatch.setattr(main.config, "CHANNEL_PINS", main.config.CHANNEL_PINS + (17,))
    monkeypatch.setattr(main.config, "SENSOR_CHANNELS", (12,))
    board_, leds = main.start()
    sensor = Pin.made[17]
    assert sensor.level == 0  # pulled down: a sensor unplugged reads dark
    assert sensor.irq_options == {"trigger": Pin.IRQ_RISING, "hard": True}
    port = SerialPort()
    main.turn(board_, leds, port, port, port)
    ticks.us += 3 * MS
    sensor.drive(1)  # the marker lit
    ticks.us += 300
    main.turn(board_, leds, port, port, port)
    messages = frames_of(bytes(port.written))
    assert messages[0] == Hello(1, 13, 5000, 10000, BOARD_ID)
    assert Light(3 * MS, 12) in messages and not any(isinstance(m, Edge) for m in messages)
