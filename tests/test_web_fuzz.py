"""Hostile WebSocket frames: anyone on the box's network can connect, so whatever a frame holds, the
box answers with a closed connection and one log line, never a traceback, and goes on serving."""

from __future__ import annotations

import asyncio
import json
import logging

import aiohttp
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.web.messages import FRAME_BYTES, Refused, read_frame

from helpers import until
from phonebox import PhoneBox, profile_with_phones, wired

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
FIELDS = {"type": st.sampled_from(["hello", "pong", "press", "painted", "ping", "table", "", "HELLO"]) | st.text(max_size=8),
          "room": JSON, "role": st.sampled_from(["watch", "seat", "buzzer", "host"]) | JSON, "name": JSON,
          "token": JSON, "seat": JSON, "id": JSON, "t": JSON, "key": st.sampled_from(["slap", "ok", "tilt"]) | JSON,
          "down": JSON, "seq": JSON, "frame": JSON}
MESSAGES = st.fixed_dictionaries({}, optional=FIELDS).map(json.dumps)
FRAMES = MESSAGES | st.text(max_size=200) | JSON.map(json.dumps) | st.just("x" * (FRAME_BYTES + 1)) \
    | st.just("[" * 5000 + "]" * 5000) | st.just('{"type": "pong", "id": 1, "t": 1' + "0" * 400 + "}")


@given(FRAMES)
@settings(max_examples=600, deadline=None)
def test_a_frame_is_a_message_or_refused_with_a_reason_never_anything_else(text):
    try:
        read_frame(text)
    except Refused as e:
        assert str(e)


def test_the_limits_each_say_which_rule():
    assert "over 4096 bytes" in _refusal("x" * 5000)
    assert "not JSON" in _refusal("{")
    assert "nested" in _refusal("[" * 100 + "]" * 100)
    assert "unknown type" in _refusal('{"type": "ping", "id": 1}')
    assert "press.key" in _refusal('{"type": "press", "key": "tilt", "down": true, "t": 1, "seq": 1}')
    assert "press.t" in _refusal('{"type": "press", "key": "slap", "down": true, "t": -1, "seq": 1}')
    assert "hello.name" in _refusal('{"type": "hello", "room": "ABCD", "role": "seat", "name": "\\u0007"}')


def _refusal(text: str) -> str:
    try:
        read_frame(text)
    except Refused as e:
        return str(e)
    raise AssertionError(f"{text[:40]!r} was taken")


class Logged(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@given(st.lists(FRAMES | st.binary(max_size=64), min_size=1, max_size=4), st.booleans())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_hostile_frames_close_the_connection_with_a_log_line_and_the_box_serves_on(tmp_path_factory, frames, greet):
    """Over a real socket, after a proper hello or none: the box closes the connection (or takes
    the frames, if they were proper ones), logs at most a line each, never an error or a
    traceback, and the next phone still joins."""
    tmp = tmp_path_factory.mktemp("fuzz")
    logged = Logged()
    logging.getLogger().addHandler(logged)
    try:
        asyncio.run(_attack(tmp, frames, greet))
    finally:
        logging.getLogger().removeHandler(logged)
    assert not [r for r in logged.records if r.levelno >= logging.ERROR or r.exc_info], \
        [r.getMessage() for r in logged.records]
    closes = [r for r in logged.records if r.name == "companion.web.server" and "closed" in r.getMessage()]
    assert len(closes) <= 1


async def _attack(tmp, frames, greet) -> None:
    box = PhoneBox(profile_with_phones(tmp, wired("Ana", "Ben"), [(2, "Zoe", False)]), None)
    async with box:
        async with aiohttp.ClientSession() as session:
            socket = await session.ws_connect(f"{box.url}/ws")
            if greet:
                await socket.send_str(json.dumps({"type": "hello", "room": box.room, "role": "seat"}))
            for frame in frames:
                if socket.closed:
                    break
                try:
                    await (socket.send_bytes(frame) if isinstance(frame, bytes) else socket.send_str(frame))
                except ConnectionError:
                    break
            await socket.close()
            assert socket.close_code in (1000, 1008, 1009, 4003, None), socket.close_code
        again = box.phone()
        assert await again.join(box.room, "watch") is not None
        await until(lambda: again.view is not None)


def test_too_many_frames_a_second_close_the_connection(tmp_path, caplog):
    async def flood():
        box = PhoneBox(profile_with_phones(tmp_path, wired("Ana", "Ben"), []), None)
        async with box:
            phone = await box.join("watch")
            for i in range(100):  # all within one second of the box's (fake) clock
                if phone.socket.closed:
                    break
                await phone.socket.send_str(json.dumps({"type": "pong", "id": 10_000 + i, "t": 1.0}))
            await until(lambda: phone.closed_code is not None)
            return phone.closed_code

    with caplog.at_level(logging.INFO):
        assert asyncio.run(flood()) == 1008
    assert "more than 60 frames in a second" in caplog.text
