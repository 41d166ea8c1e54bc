"""The abandon chord, kept apart from the game: ``left`` and ``right`` held together.

A game acts on ``left`` or ``right`` as soon as it is pressed (a menu step, the Pictionary word
swap, Triangle's counting aid while held), yet the same key is the first half of the chord that
abandons the game. So a ``left``/``right`` press is held back for :data:`CHORD_WINDOW_NS`: if the
other key of the pair comes within it, both are the chord and the game never sees them (nor their
releases); otherwise the press is passed on with its own edge time, as soon as the window has
passed or anything else happens on that station (another key, its release: a quick tap reaches
the game on its release, typically 50-100 ms after the press). The window is a chosen bound, not
a measured one: two fingers meant to press "together" rarely land more than a few tens of
milliseconds apart, and 80 ms delays a held menu key by less than a frame-and-a-half of the
panels' refresh. Races answered with ``left``/``right`` are not delayed at all
(:meth:`~companion.table.game.GameTable.races_on_left_right`). Decisions never depend on the
delay: a game sees every press with its own edge time.
"""

from __future__ import annotations

from ..inputs import InputEvent

CHORD_WINDOW_NS = 80_000_000
PAIR = {"left": "right", "right": "left"}


class Chords:
    def __init__(self) -> None:
        self.pending: dict[int, InputEvent] = {}
        """A station's ``left``/``right`` press waiting to see whether the chord follows."""
        self.held: dict[int, set[str]] = {}
        self.swallowed: set[tuple[int, str]] = set()
        """Keys of a chord: their releases are not passed on either."""
        self.since: dict[int, int] = {}
        """Station -> edge time the chord was completed, while both keys stay held."""

    def feed(self, event: InputEvent, at_once: bool = False) -> list[InputEvent]:
        """The inputs to pass on to the game, in order, now that ``event`` has come; ``at_once``
        passes a ``left``/``right`` press on without waiting for the window (a race answer)."""
        out = self.due(event.t_ns)
        station, key = event.station, event.key
        held = self.held.setdefault(station, set())
        if key not in PAIR:
            out += self._flush(station)
            return out + [event]
        if event.pressed:
            held.add(key)
            if PAIR[key] in held:
                first = self.pending.pop(station, None)
                if first is not None:
                    self.swallowed.add((station, first.key))
                self.swallowed.add((station, key))
                self.since[station] = event.t_ns
                return out
            out += self._flush(station)
            if at_once:
                return out + [event]
            self.pending[station] = event
            return out
        held.discard(key)
        self.since.pop(station, None)
        if (station, key) in self.swallowed:
            self.swallowed.discard((station, key))
            return out
        return out + self._flush(station) + [event]

    def _flush(self, station: int) -> list[InputEvent]:
        first = self.pending.pop(station, None)
        return [first] if first is not None else []

    def due(self, now_ns: int) -> list[InputEvent]:
        """Held-back presses whose window has passed by ``now_ns``, oldest first. Asked on every
        input and every tick, when most often nothing is due: then nothing is sorted."""
        ready = [e for e in self.pending.values() if e.t_ns + CHORD_WINDOW_NS <= now_ns]
        if ready:
            ready.sort(key=lambda e: e.t_ns)
            for e in ready:
                del self.pending[e.station]
        return ready

    def wakeup_ns(self) -> int | None:
        return min((e.t_ns + CHORD_WINDOW_NS for e in self.pending.values()), default=None)

    def holding(self, station: int, key: str) -> bool:
        """True while ``key`` is half of a chord held on ``station`` (a long hold, not a stuck button)."""
        return (station, key) in self.swallowed

    def clear(self) -> None:
        self.__init__()
