"""The frames a phone may send (``docs/PHONE-PROTOCOL.md``), read as untrusted input.

Anyone on the box's network can open the WebSocket, so every frame is checked here before the
box acts on it: its size, that it is one JSON object (with :func:`~companion.untrusted.json_value`'s
limits on depth and numbers) naming each key once, that its ``type`` is known, that it has that
type's fields only and every field has its kind and range. The room code and the seat token are
ASCII of their own alphabets before anything compares them (``secrets.compare_digest`` takes ASCII
text only: anything else raised a ``TypeError`` per frame).
A frame that fails is a :class:`Refused` naming the rule it broke, which the server logs on one
line before closing the connection; nothing a phone sends can raise anything else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..arbiter.inputs import KEYS
from ..untrusted import json_value

FRAME_BYTES = 4096
"""The largest frame a phone may send: its longest real frame (a hello with a token) is under 200."""
ROLES = ("watch", "seat", "buzzer", "host")
"""``host``: the quiz host's phone, taken with the host's PIN (:mod:`.host`), never a station."""
NAME_CHARS = 10
"""A phone's name as a station's: the screens show at most 10 characters."""
ROOM_CHARS = 8
"""The longest room code read (the box's are :data:`~companion.web.room.CODE_LENGTH`): a longer
one is no code of any box, refused as a broken frame rather than compared."""
TOKEN_CHARS = 64
TOKEN_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
"""A seat token's characters: ``secrets.token_urlsafe``'s."""
DIGITS = frozenset("0123456789")
PIN_DIGITS = 6
"""The host's PIN is six digits (:mod:`.host`); a longer text is no PIN, refused as a broken frame
rather than compared."""
HOST_ACTS = ("arm", "right", "wrong", "skip", "next", "pick", "correct", "pause")
"""The host phone's keys (``docs/PHONE-PROTOCOL.md``): what each does is the quiz table's
(:mod:`companion.table.quiz_host`)."""
TURN_MAX = 1 << 31
SEQ_MAX = 1 << 31
PHONE_MS_MAX = 1 << 50
"""The largest phone time taken (ms since 1970 is about 2**41 today): a bigger number is nonsense."""
LAG_MS_MAX = 60_000.0
"""The longest handler delay or stall a page may report (a minute: the box caps what it holds back)."""
STEP_MS_MIN, STEP_MS_MAX = 0.001, 1000.0
"""A clock step a page may say: from 1 us (finer means nothing on a phone's stamps) to a second."""


class Refused(ValueError):
    """A frame the box will not take: the rule it broke, for the log line and the close."""


@dataclass(frozen=True, slots=True)
class Hello:
    room: str
    role: str
    name: str | None
    token: str | None
    seat: int | None
    """The station number (1-based) the phone asks for, if it asks for one."""
    pin: str | None = None
    """The host's PIN (role ``host``), as typed."""


@dataclass(frozen=True, slots=True)
class Pong:
    id: int
    t_ms: float
    lag_ms: float = 0.0
    """The page's longest main-thread stall in the last second: input may still be queued that long."""
    res_ms: float | None = None
    """The step of the page's clock, as it measured it (None: it did not say)."""


@dataclass(frozen=True, slots=True)
class Press:
    key: str
    down: bool
    t_ms: float
    seq: int
    lag_ms: float = 0.0
    """How long after the touch its handler ran (handler start less ``event.timeStamp``)."""


@dataclass(frozen=True, slots=True)
class Painted:
    frame: int
    t_ms: float


@dataclass(frozen=True, slots=True)
class HostAct:
    """A key on the host's phone: ``act`` on the page the box sent at ``turn`` (the quiz's moves
    so far), so a key pressed on a screen the station-1 host has since moved on is refused, not
    applied to the new one; ``seat``: the tied player a ``pick`` names."""

    act: str
    turn: int
    seq: int
    seat: int | None = None


Message = Hello | Pong | Press | Painted | HostAct


def read_frame(text: str) -> Message:
    """One text frame from a phone, checked; :class:`Refused` with the reason otherwise."""
    if len(text.encode("utf-8", "surrogatepass")) > FRAME_BYTES:
        raise Refused(f"a frame over {FRAME_BYTES} bytes")
    try:
        data = json_value(text, unique_keys=True)
    except ValueError as e:
        raise Refused(f"not JSON: {e}") from None
    if not isinstance(data, dict):
        raise Refused("not a JSON object")
    kind = data.get("type")
    reader, fields = _READERS.get(kind, (None, ())) if isinstance(kind, str) else (None, ())
    if reader is None:
        raise Refused(f"unknown type {str(kind)[:20]!r}")
    unknown = sorted(set(data) - {"type", *fields})
    if unknown:
        raise Refused(f"{kind} has no field {unknown[0][:20]!r}")
    return reader(_Fields(data, kind))


class _Fields:
    """One frame's fields, each read with its kind and range or refused naming it."""

    def __init__(self, data: dict, kind: str) -> None:
        self.data = data
        self.kind = kind

    def _fail(self, key: str, wanted: str) -> Refused:
        return Refused(f"{self.kind}.{key} must be {wanted}")

    def text(self, key: str, longest: int, required: bool = True) -> str | None:
        value = self.data.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not 0 < len(value) <= longest or not value.isprintable():
            raise self._fail(key, f"printable text of 1 to {longest} characters")
        return value

    def whole(self, key: str, low: int, high: int, required: bool = True) -> int | None:
        value = self.data.get(key)
        if value is None and not required:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self._fail(key, f"a whole number from {low} to {high}")
        return value

    def time(self, key: str) -> float:
        value = self.data.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not 0 <= value <= PHONE_MS_MAX:
            raise self._fail(key, "the phone's time in ms, a number from 0")
        return float(value)

    def word(self, key: str, longest: int, alphabet: frozenset[str] | None, required: bool = True) -> str | None:
        """ASCII text of ``alphabet``'s characters (None: letters), 1 to ``longest`` of them."""
        value = self.data.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not 0 < len(value) <= longest or not value.isascii() \
                or not (value.isalpha() if alphabet is None else set(value) <= alphabet):
            raise self._fail(key, f"1 to {longest} " + ("letters" if alphabet is None else "digits" if alphabet == DIGITS
                                                        else "characters of a token"))
        return value

    def lag(self, key: str) -> float:
        """An optional delay the page measured, in ms (0 when it says none)."""
        value = self.data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not 0 <= value <= LAG_MS_MAX:
            raise self._fail(key, f"a delay in ms from 0 to {LAG_MS_MAX:g}")
        return float(value)

    def step(self, key: str) -> float | None:
        """An optional clock step the page measured, in ms (None when it says none)."""
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not STEP_MS_MIN <= value <= STEP_MS_MAX:
            raise self._fail(key, f"a clock step in ms from {STEP_MS_MIN:g} to {STEP_MS_MAX:g}")
        return float(value)

    def choice(self, key: str, allowed: tuple[str, ...]) -> str:
        value = self.data.get(key)
        if value not in allowed or not isinstance(value, str):
            raise self._fail(key, " or ".join(allowed))
        return value

    def flag(self, key: str) -> bool:
        value = self.data.get(key)
        if not isinstance(value, bool):
            raise self._fail(key, "true or false")
        return value


def _hello(f: _Fields) -> Hello:
    return Hello(f.word("room", ROOM_CHARS, None).upper(), f.choice("role", ROLES), f.text("name", NAME_CHARS, False),
                 f.word("token", TOKEN_CHARS, TOKEN_ALPHABET, False), f.whole("seat", 1, 99, False),
                 f.word("pin", PIN_DIGITS, DIGITS, False))


def _pong(f: _Fields) -> Pong:
    return Pong(f.whole("id", 0, SEQ_MAX), f.time("t"), f.lag("lag"), f.step("res"))


def _press(f: _Fields) -> Press:
    return Press(f.choice("key", KEYS), f.flag("down"), f.time("t"), f.whole("seq", 1, SEQ_MAX), f.lag("lag"))


def _painted(f: _Fields) -> Painted:
    return Painted(f.whole("frame", 0, SEQ_MAX), f.time("t"))


def _host(f: _Fields) -> HostAct:
    return HostAct(f.choice("act", HOST_ACTS), f.whole("turn", 0, TURN_MAX), f.whole("seq", 1, SEQ_MAX),
                   f.whole("seat", 1, 99, False))


_READERS = {"hello": (_hello, ("room", "role", "name", "token", "seat", "pin")),
            "pong": (_pong, ("id", "t", "lag", "res")), "press": (_press, ("key", "down", "t", "seq", "lag")), "painted": (_painted, ("frame", "t")),
            "host": (_host, ("act", "turn", "seq", "seat"))}
"""Each type's reader and the fields it may have (``type`` besides): any other field is refused."""
