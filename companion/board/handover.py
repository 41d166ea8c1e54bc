"""What passes between the button board's link, its session and the daemon's loop.

The link's reader thread hands the session :data:`LinkItem` s (a checked frame, a ping answered,
the port opening or failing); the session hands the loop :data:`Output` s (a station's press, how
far the board has reported, a light sensor's rise, a notice for the players, whether races wait
for the board). Kept apart from :mod:`.session` because the GPIO reader
(:mod:`companion.adapters.gpiolink`) and the self-test speak the same outputs without a board.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..arbiter.inputs import InputEvent
from .frames import Frame


@dataclass(frozen=True, slots=True)
class Received:
    """A checked frame, and the host time just after the bytes that ended it were read."""

    frame: Frame
    at_ns: int


@dataclass(frozen=True, slots=True)
class Exchanged:
    """A ping answered: host times around it and the board's clock when it read the ping."""

    sent_ns: int
    board_us: int
    received_ns: int


@dataclass(frozen=True, slots=True)
class LinkUp:
    """The port opened (again)."""


@dataclass(frozen=True, slots=True)
class LinkDown:
    """The port failed or vanished (unplugged)."""

    reason: str


LinkItem = Received | Exchanged | LinkUp | LinkDown


@dataclass(frozen=True, slots=True)
class Watermark:
    """The board has delivered every input with an edge before ``t_ns`` (host time)."""

    source: str
    t_ns: int


@dataclass(frozen=True, slots=True)
class Lit:
    """The light sensor of ``station`` saw its panel light at ``t_ns`` (host time): a rising
    edge for the daemon's light-sensor store."""

    station: int
    t_ns: int


@dataclass(frozen=True, slots=True)
class Notice:
    """What players should be told about the board; ``None`` clears it."""

    text: str | None


@dataclass(frozen=True, slots=True)
class Live:
    """Whether races wait for ``source``: False while the board is down, True once it is back
    (before its first :class:`Watermark`)."""

    source: str
    live: bool


Output = InputEvent | Watermark | Lit | Notice | Live

UNPLUGGED = "Board not connected"
"""The players' notice for a board that is absent, unplugged or silent (one screen line)."""
WRONG_VERSION = "Board firmware v{0}: needs v{1}"
