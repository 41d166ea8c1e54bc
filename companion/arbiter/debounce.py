"""Debouncing that keeps the first edge's time, and stuck-button detection.

Races are decided on edge times, so debouncing must not delay them: kernel and lgpio debounce
report an edge only once the line has settled, stamping it late by up to the debounce period,
which would hand races to whoever's button bounces least. Here the first edge that changes a
line's state passes straight through with its own time; the bounce that follows is swallowed.

Each ``(station, key)`` line is independent and starts released. Rules per line:

- an edge within ``debounce_ns`` after the last accepted edge is bounce: swallowed, but it still
  updates the raw level;
- once the line has been quiet for ``debounce_ns``, a raw level that differs from the debounced
  state (a tap so short its release fell inside the bounce window) is reconciled: the missing
  transition is emitted with the time of the raw edge that caused it;
- an edge older than the last raw edge of its line (out of order) says nothing about the current
  level: swallowed;
- a line held pressed for more than ``stuck_after_ns`` is reported once as :class:`Stuck`; it
  stays pressed, so it yields no presses until its release, which passes through as usual.

Nothing here reads a clock: time arrives as edge times and as ``now_ns`` in :meth:`settle`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .inputs import InputEvent


@dataclass(frozen=True, slots=True)
class Stuck:
    """A button held down since ``since_ns`` for longer than the stuck threshold."""

    station: int
    key: str
    since_ns: int


@dataclass(slots=True)
class _Line:
    pressed: bool = False  # debounced state
    accepted_ns: int | None = None  # time of the last edge passed on
    raw: InputEvent | None = None  # last raw edge seen: the raw level and its cause
    stuck: bool = False

    def pending(self) -> InputEvent | None:
        """The raw edge whose level the debounced state has not caught up with, if any."""
        if self.raw is not None and self.raw.pressed != self.pressed:
            return self.raw
        return None


class Debouncer:
    """Turns raw edges of every station button into debounced edges and :class:`Stuck` reports.

    Call :meth:`edge` for each raw edge and :meth:`settle` when time passes (at the latest by
    :meth:`next_deadline`).
    """

    def __init__(self, debounce_ns: int = 5_000_000, stuck_after_ns: int = 5_000_000_000) -> None:
        if debounce_ns < 0:
            raise ValueError(f"debounce_ns must be >= 0, not {debounce_ns}")
        if stuck_after_ns < 0:
            raise ValueError(f"stuck_after_ns must be >= 0, not {stuck_after_ns}")
        self.debounce_ns = debounce_ns
        self.stuck_after_ns = stuck_after_ns
        self._lines: dict[tuple[int, str], _Line] = {}

    def edge(self, event: InputEvent) -> list[InputEvent]:
        """One raw edge in; the debounced edges it releases out (0, 1 or 2, by time).

        Two when the line had a pending reconciliation that this edge proves settled.
        """
        line = self._lines.setdefault((event.station, event.key), _Line())
        if line.raw is not None and event.t_ns < line.raw.t_ns:
            return []
        out = self._reconcile(line, event.t_ns)
        line.raw = event
        if line.accepted_ns is not None and event.t_ns < line.accepted_ns + self.debounce_ns:
            return out
        if event.pressed != line.pressed:
            self._accept(line, event)
            out.append(event)
        return out

    def settle(self, now_ns: int) -> list[InputEvent | Stuck]:
        """Time has reached ``now_ns``: reconcile quiet lines and report newly stuck buttons.

        The list is per line, not by time: consumers order by ``t_ns``, never by position.
        """
        out: list[InputEvent | Stuck] = []
        for (station, key), line in self._lines.items():
            out += self._reconcile(line, now_ns)
            if line.pressed and not line.stuck and now_ns - line.accepted_ns > self.stuck_after_ns:
                line.stuck = True
                out.append(Stuck(station, key, line.accepted_ns))
        return out

    def next_deadline(self) -> int | None:
        """The earliest ``now_ns`` at which :meth:`settle` could return something, or None."""
        deadlines = []
        for line in self._lines.values():
            raw = line.pending()
            if raw is not None:
                deadlines.append(raw.t_ns + self.debounce_ns)
            if line.pressed and not line.stuck:
                deadlines.append(line.accepted_ns + self.stuck_after_ns + 1)
        return min(deadlines, default=None)

    def oldest_held_ns(self) -> int | None:
        """The edge time of the oldest raw edge held back for reconciliation, or None.

        A held-back edge reaches its consumers late with its own (early) time, so a watermark
        of events *after* debouncing must not pass it: decide races on
        ``min(watermarks.low(now), oldest_held_ns())``.
        """
        return min((raw.t_ns for line in self._lines.values() if (raw := line.pending())),
                   default=None)

    def is_stuck(self, station: int, key: str) -> bool:
        line = self._lines.get((station, key))
        return line is not None and line.stuck

    def _reconcile(self, line: _Line, now_ns: int) -> list[InputEvent]:
        raw = line.pending()
        if raw is None or now_ns < raw.t_ns + self.debounce_ns:
            return []
        self._accept(line, raw)
        return [raw]

    @staticmethod
    def _accept(line: _Line, event: InputEvent) -> None:
        line.pressed = event.pressed
        line.accepted_ns = event.t_ns
        if not event.pressed:
            line.stuck = False
