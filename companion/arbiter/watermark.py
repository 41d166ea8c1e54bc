"""Watermarks: how far every input source has reported, so races wait for late presses.

Presses reach the host out of order: a button board's serial frame can arrive tens of ms after
a GPIO press that happened later. A race may only be decided once no press earlier than
``first + tie_window`` can still arrive from *any* source; deciding on what has arrived so far
would favour the fastest transport, not the fastest hand.

A source's watermark ``W`` promises that every event of that source with an edge time before
``W`` has been delivered. It comes in two kinds:

- *explicit*: the source says how far it is, from its heartbeats and, if it delivers in edge-time
  order (a button board, a script), its events' edge times. Until its first report it promises
  nothing and holds every race. The GPIO reader process is one (its lines' queues are read
  together, not necessarily in edge order, so only its watermarks count).
- *live*: events are delivered within a known latency bound of their edge (GPIO kernel events via
  a callback thread in the daemon, the fallback ``timing.gpio_watermark = "bound"``), so at
  ``now`` the watermark is at least ``now - latency_bound``. That bound is an assumption about the
  box: the daemon measures every GPIO edge against it and reports a press that came too late
  (:mod:`companion.arbiter.delivery`).

:meth:`Watermarks.low` is the minimum over the sources: what a race may rely on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

NOTHING_REPORTED = -(1 << 63)
"""The watermark of an explicit source that has not reported yet: before any edge time."""


@dataclass(slots=True)
class _Source:
    latency_bound_ns: int | None
    in_order: bool = True
    reported_ns: int = NOTHING_REPORTED

    def mark(self, now_ns: int) -> int:
        if self.latency_bound_ns is None:
            return self.reported_ns
        return max(self.reported_ns, now_ns - self.latency_bound_ns)


class Watermarks:
    """The watermarks of all input sources, by source name (``InputEvent.source``)."""

    def __init__(self) -> None:
        self._sources: dict[str, _Source] = {}

    def add_source(self, name: str, latency_bound_ns: int | None = None, in_order: bool = True) -> None:
        """Start waiting for ``name``: explicit if ``latency_bound_ns`` is None, else live.
        ``in_order``: an explicit source's events come in edge-time order, so each is a report."""
        if name in self._sources:
            raise ValueError(f"input source {name!r} is already added")
        if latency_bound_ns is not None and latency_bound_ns < 0:
            raise ValueError(f"latency_bound_ns must be >= 0, not {latency_bound_ns}")
        self._sources[name] = _Source(latency_bound_ns, in_order)

    def report(self, name: str, t_ns: int) -> None:
        """``name`` has delivered every event with an edge time before ``t_ns``.

        An event's own edge time is a valid report for an in-order source (another event at the
        same time may still follow; it is not before ``t_ns``). A report never moves the
        watermark backwards: an older one is ignored.
        """
        source = self._source(name)
        source.reported_ns = max(source.reported_ns, t_ns)

    def saw(self, name: str, t_ns: int) -> None:
        """An event of ``name`` arrived with edge time ``t_ns``.

        For an explicit source, which delivers in edge-time order (one board, one timer), that
        is a report. A live source promises no order across its lines (each GPIO line has its
        own kernel queue), so its watermark rests on the latency bound alone; an explicit source
        added with ``in_order=False`` (the GPIO reader) moves by its reports alone.
        """
        source = self._source(name)
        if source.latency_bound_ns is None and source.in_order:
            self.report(name, t_ns)

    def __contains__(self, name: str) -> bool:
        return name in self._sources

    def remove_source(self, name: str) -> None:
        """Stop waiting for ``name`` (e.g. a board was unplugged)."""
        self._source(name)
        del self._sources[name]

    def low(self, now_ns: int, among: Iterable[str] | None = None) -> int:
        """The minimum watermark over all sources (or those named ``among``) at ``now_ns``;
        ``now_ns`` with no sources."""
        return min((s.mark(now_ns) for s in self._among(among)), default=now_ns)

    def reaches_at(self, target_ns: int, among: Iterable[str] | None = None) -> int | None:
        """A ``now`` by which ``low(now, among) >= target_ns`` without further reports, to
        schedule a wake-up (for a race: ``target_ns = decision_due_ns``). None while an explicit
        source has not reported that far: only its next report can get there."""
        due = target_ns
        for source in self._among(among):
            if source.reported_ns >= target_ns:
                continue
            if source.latency_bound_ns is None:
                return None
            due = max(due, target_ns + source.latency_bound_ns)
        return due

    def _among(self, names: Iterable[str] | None) -> Iterable[_Source]:
        return self._sources.values() if names is None else [self._source(name) for name in names]

    def _source(self, name: str) -> _Source:
        try:
            return self._sources[name]
        except KeyError:
            known = ", ".join(repr(n) for n in self._sources) or "none"
            raise KeyError(
                f"unknown input source {name!r} (known: {known}); call add_source() first"
            ) from None
