"""Where presses come from: the GPIO buttons (through gpiozero's thread or the GPIO reader
process), the button board's link, and the watermark that says how far every one has reported.

Separate from the loop because each source hands its edges over in its own way (a thread's
callback, a record read by the loop, a board frame with a clock of its own) and may go silent;
the loop only takes the inbox and the watermark from here.
"""

from __future__ import annotations

import logging
import time

from ..adapters import gpiolink
from ..adapters.gpiolink import ReaderItem, Unread
from ..arbiter.inputs import InputEvent
from ..arbiter.latepress import LateNote
from ..arbiter.race import LatePress
from ..board.handover import Lit, Live, LinkItem, Output, Watermark
from ..table import Table

log = logging.getLogger(__name__)


class Sources:
    """The daemon's part that takes edges and reports from every source onto the loop."""

    def _on_edge(self, event: InputEvent) -> None:
        """Runs in gpiozero's thread (or the loop's, with mock pins): enqueue and return.

        ``deque.append`` is atomic, so an edge that comes before the loop runs (a press during
        start-up) simply waits in the inbox.
        """
        if event.source == "gpio":
            self._arrived_ns[event] = self._edge_clock_ns()
        self._inbox.append(event)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def _on_board(self, item: LinkItem) -> None:
        """Runs in the board link's reader thread: enqueue and return."""
        self._loop.call_soon_threadsafe(self._board_arrive, item)

    def _board_arrive(self, item: LinkItem) -> None:
        """A board's heartbeat only moves its watermark: worth a step only if something waits."""
        if self._source_outputs(self.board_session.handle(item)):
            self._wake.set()

    def _on_gpio(self, item: ReaderItem) -> None:
        """A GPIO reader's record, read by the loop itself: an edge's delivery delay is measured
        from here (its arrival)."""
        outputs = self.gpio_session.handle(item)
        for out in outputs:
            if isinstance(out, InputEvent):
                self._arrived_ns[out] = time.monotonic_ns()
        if self._source_outputs(outputs, "gpio"):
            self._wake.set()
            due, now = self.table.wakeup_ns(), time.monotonic_ns()
            if self._loop is not None and due is not None and self.watermark(now) >= due:
                # Decide the race in this callback, not two loop turns later: while the display
                # writer packs a frame each turn's poll can wait a GIL switch interval for the GIL.
                self.step(now)

    def _source_outputs(self, outputs: list[Output | Unread], about: str = "board") -> bool:
        """Apply what the board's or GPIO reader's session says; True if the loop should step for it."""
        news = False
        for out in outputs:
            if isinstance(out, Watermark):
                if out.source in self.watermarks:
                    self.watermarks.report(out.source, out.t_ns)
                # worth a step if a race waits for it, or a reveal for its light
                news = news or self.table.wakeup_ns() is not None or bool(self._shown_reveals)
            elif isinstance(out, Lit):
                self.box.light_sensors.rise(out.station, out.t_ns)  # the reveal waits for the watermark after it
            elif isinstance(out, Unread):
                news = True
                log.error("GPIO buttons were not read for %.1f s (their reader had stopped): a press made then "
                          "is lost, and the game's journal says so", out.for_ns / 1e9)
                if isinstance(self.table, Table):
                    self.table.unread(out.source, out.for_ns)
            elif isinstance(out, Live):
                news = True
                if out.live and out.source not in self.watermarks:
                    self.watermarks.add_source(out.source, in_order=out.source != gpiolink.SOURCE)
                elif not out.live and out.source in self.watermarks:
                    self.watermarks.remove_source(out.source)
            else:
                news = True
                if isinstance(out, InputEvent):
                    self._inbox.append(out)
                else:
                    self._tell(out.text, about)
        return news

    def _measure_delivery(self, raw: InputEvent) -> None:
        """Note a GPIO edge's delivery delay, kept for a late press it may turn out to be."""
        arrived = self._arrived_ns.pop(raw, None)
        self._handling_delay_ns = None if arrived is None else arrived - raw.t_ns
        if self._handling_delay_ns is not None:
            self.delivery.saw(self._handling_delay_ns)

    def _late_press(self, press: LatePress) -> None:
        """A race was decided without this press, which would have changed the verdict: logged,
        and handed back to the table to journal it and tell the players."""
        note = LateNote.of(press, self._handling_delay_ns)
        self.delivery.late(note)
        if isinstance(self.table, Table):
            self.table.late_press(note)

    def watermark(self, now_ns: int) -> int:
        """How far every press is known: the sources' watermark, held back by any press the
        debouncer is still holding (it will be emitted with its own, earlier, edge time)."""
        low = self.watermarks.low(now_ns)
        held = self.debouncer.oldest_held_ns()
        return low if held is None else min(low, held)
