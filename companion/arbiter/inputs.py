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
    has reported everything; see :mod:`companion.arbiter.watermark`), ``error_ns`` how far
    ``t_ns`` may be from the true edge: 0 for an edge the box timed itself (GPIO, the button
    board, a script), a phone's clock sync error for a touch on a phone (:mod:`companion.web`).
    A race never ranks two presses whose intervals overlap (:mod:`companion.arbiter.race`).
    """

    station: int
    key: str
    pressed: bool
    t_ns: int
    source: str = "gpio"
    error_ns: int = 0

    def __post_init__(self) -> None:
        if self.key not in KEYS:
            raise ValueError(f"key must be one of {', '.join(KEYS)}, not {self.key!r}")
        if self.station < 0:
            raise ValueError(f"station must be >= 0, not {self.station}")
        if not isinstance(self.t_ns, int):
            raise TypeError(f"t_ns must be integer nanoseconds, not {type(self.t_ns).__name__}")
        if not isinstance(self.error_ns, int) or self.error_ns < 0:
            raise ValueError(f"error_ns must be integer nanoseconds >= 0, not {self.error_ns!r}")
