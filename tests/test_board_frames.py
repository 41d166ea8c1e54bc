"""The host's frame codec: the shared vectors both ways, and a decoder that random bytes and
corrupted frames can never stop, counting every bad frame."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board import frames as f
from firmware_standin import VECTORS

KINDS = {"hello": f.Hello, "edge": f.Edge, "heartbeat": f.Heartbeat, "pong": f.Pong, "light": f.Light,
         "ping": f.Ping, "hello_please": f.HelloPlease, "leds": f.Leds}


def message_of(vector: dict) -> f.Message:
    fields = {k: bytes.fromhex(v) if k == "board_id" else v for k, v in vector["fields"].items()}
    return KINDS[vector["type"]](**fields)


def test_crc_check_value():
    for v in VECTORS["crc16"]:
        assert f.crc16(bytes.fromhex(v["data"])) == v["crc"]


@pytest.mark.parametrize("v", VECTORS["cobs"], ids=lambda v: v["data"][:12] or "empty")
def test_cobs_vectors(v):
    data, encoded = bytes.fromhex(v["data"]), bytes.fromhex(v["encoded"])
    assert f.cobs_encode(data) == encoded
    assert f.cobs_decode(encoded) == data


@pytest.mark.parametrize("v", VECTORS["frames"], ids=lambda v: v["name"])
def test_frames_are_the_vectors_bytes_both_ways(v):
    on_wire = bytes.fromhex(v["wire"])
    assert f.encode(v["seq"], message_of(v)) == on_wire
    assert f.decode(on_wire[:-1]) == f.Frame(v["seq"], message_of(v))


@pytest.mark.parametrize("v", VECTORS["bad_frames"], ids=lambda v: v["name"])
def test_bad_frames_are_named(v):
    with pytest.raises(f.FrameError) as e:
        f.decode(bytes.fromhex(v["wire"])[:-1])
    assert e.value.kind == v["error"]


def test_deframer_counts_each_bad_frame_by_kind_and_keeps_the_good_ones():
    deframer = f.Deframer()
    good = [bytes.fromhex(v["wire"]) for v in VECTORS["frames"]]
    bad = [bytes.fromhex(v["wire"]) for v in VECTORS["bad_frames"]]
    stream = b"\0" + b"".join(x for pair in zip(good, bad) for x in pair) + b"".join(good[len(bad):])
    got = deframer.feed(stream)
    assert [fr.message for fr in got] == [message_of(v) for v in VECTORS["frames"]]
    assert deframer.errors == {v["error"]: 1 for v in VECTORS["bad_frames"]}


def test_a_connection_that_starts_mid_frame_drops_the_piece_uncounted():
    edge = bytes.fromhex(VECTORS["frames"][1]["wire"])
    deframer = f.Deframer()
    assert [fr.message for fr in deframer.feed(edge[5:] + edge)] == [message_of(VECTORS["frames"][1])]
    assert not deframer.errors


# --- fuzzing ----------------------------------------------------------------------------------------

u8, u16, u32, u64 = (st.integers(0, 2**n - 1) for n in (8, 16, 32, 64))
messages = st.one_of(
    st.builds(f.Hello, u8, u8, u32, u32, st.binary(min_size=8, max_size=8)),
    st.builds(f.Edge, u64, u8, u8),
    st.builds(f.Heartbeat, u64, u32, u32, u32),
    st.builds(f.Pong, u32, u64),
    st.builds(f.Ping, u32),
    st.just(f.HelloPlease()),
    st.builds(f.Leds, u32),
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.lists(st.integers(1, 50), max_size=20))
def test_random_bytes_never_raise_and_every_packet_is_a_frame_or_counted(data, cuts):
    deframer = f.Deframer()
    stream = b"\0" + data
    got, at = [], 0
    for cut in cuts + [len(stream)]:
        got += deframer.feed(stream[at:at + cut])
        at += cut
    got += deframer.feed(stream[at:])
    packets = [p for p in stream.split(b"\0")[:-1] if p]
    assert len(got) + sum(deframer.errors.values()) == len(packets)


def flip_one_bit(raw: bytes, where: int, bit: int) -> bytes:
    raw = bytearray(raw)
    raw[where % len(raw)] ^= 1 << bit
    return bytes(raw)


@st.composite
def corrupted(draw, message):
    """``message`` as a frame broken in one way the decoder is sure to catch, or intact."""
    seq = draw(u16)
    body = f.HEADER.pack(message.code, seq) + message.payload()
    raw = body + f.CRC.pack(f.crc16(body))
    how = draw(st.sampled_from(["intact", "bit", "burst", "length", "type", "garbage", "overlong"]))
    if how == "intact":
        return False, f.encode(seq, message)
    if how == "bit":  # CRC-16 catches every single-bit error
        raw = flip_one_bit(raw, draw(st.integers(0, 999)), draw(st.integers(0, 7)))
    elif how == "burst":  # ... and every burst of up to 16 bits
        at = draw(st.integers(0, len(raw) - 2))
        raw = raw[:at] + bytes(b ^ m for b, m in zip(raw[at:at + 2], draw(st.binary(min_size=2, max_size=2)))) + raw[at + 2:]
        if raw == body + f.CRC.pack(f.crc16(body)):
            return False, f.encode(seq, message)
    elif how == "length":
        cut = body[:-1] if len(body) > 3 else body + b"\1"
        raw = cut + f.CRC.pack(f.crc16(cut))
    elif how == "type":
        bad = bytes([draw(st.integers(0, 255).filter(lambda c: c not in f.MESSAGES))]) + body[1:]
        raw = bad + f.CRC.pack(f.crc16(bad))
    elif how == "garbage":  # too short to be a frame
        return True, draw(st.binary(min_size=1, max_size=4).filter(lambda b: 0 not in b)) + b"\0"
    else:
        return True, b"\1" * (f.MAX_FRAME + 1 + draw(st.integers(0, 100))) + b"\0"
    return True, f.cobs_encode(raw) + b"\0"


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_corrupted_frames_are_each_counted_and_the_rest_decoded(data):
    originals = data.draw(st.lists(messages, min_size=1, max_size=12))
    pieces = [data.draw(corrupted(m)) for m in originals]
    deframer = f.Deframer()
    got = deframer.feed(b"\0" + b"".join(wire for _, wire in pieces))
    assert [fr.message for fr in got] == [m for m, (bad, _) in zip(originals, pieces) if not bad]
    assert sum(deframer.errors.values()) == sum(bad for bad, _ in pieces)


def test_a_wrong_length_names_the_message_and_both_lengths():
    body = struct.pack("<BH", f.Ping.code, 0) + b"\1\2\3"
    with pytest.raises(f.FrameError, match="length: Ping payload of 3 bytes, not 4"):
        f.decode(f.cobs_encode(body + f.CRC.pack(f.crc16(body))))
