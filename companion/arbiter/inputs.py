"""What a button press is by the time it leaves an adapter.

Every input carries the time of its *edge* (when the contact closed), not the time Python saw
it: the kernel's GPIO line-event timestamp, the button board's 1 us timer converted to host
time, or the moment the simulator received the key. All of them are integer nanoseconds on the
host's CLOCK_MONOTONIC, so presses from different sources can be compared directly.
"""

from __future__ import annotations

from dataclasses import dataclass

KEYS = ("slap", "left", "ok", "right")
"""The four buttons of a station: the big slap button and three small menu buttons."""


@dataclass(frozen=True, slots=True)
class InputEvent:
    """One debounced or raw edge of one station button.

    ``station`` is the 0-based station index, ``t_ns`` the edge time in integer ns on the host
    monotonic clock, ``source`` the adapter that reported it (its watermark says how far it
    has reported everything; see :mod:`companion.arbiter.watermark`).
    """

    station: int
    key: str
    pressed: bool
    t_ns: int
    source: str = "gpio"

    def __post_init__(self) -> None:
        if self.key not in KEYS:
            raise ValueError(f"key must be one of {', '.join(KEYS)}, not {self.key!r}")
        if self.station < 0:
            raise ValueError(f"station must be >= 0, not {self.station}")
        if not isinstance(self.t_ns, int):
            raise TypeError(f"t_ns must be integer nanoseconds, not {type(self.t_ns).__name__}")
