"""The chords, kept apart from the game: ``left`` and ``right`` held together (abandon),
``right`` held while ``ok`` is pressed (the rules), and ``left`` held while ``ok`` is pressed
(take back one's last action).

A game acts on ``left`` or ``right`` as soon as it is pressed (a menu step, the Pictionary
take-back, Triangle's counting aid while held, an answer in the closest game's start race), yet
the same key begins a chord. So a ``left``/``right`` press is held back for
:data:`CHORD_WINDOW_NS`: if the rest of a chord comes within it, the keys are the chord and the
game never sees them (nor their releases); otherwise the press is passed on with its own edge
time, as soon as the window has passed or anything else happens on that station (another key,
its release: a quick tap reaches the game on its release, typically 50-100 ms after the press).
A ``right`` (``left``) held longer than the window before ``ok`` has reached the game (a menu
moved a step); the chord still opens the rules (asks to take back, which puts the menus back). The window is a chosen bound, not a measured one: two fingers meant to press
"together" rarely land more than a few tens of milliseconds apart, and 80 ms delays a held menu
key by less than a frame-and-a-half of the panels' refresh.

Decisions never depend on the delay: a game sees every press with its own edge time, and the
table never lets a game's watermark pass a press held back here (:meth:`Chords.oldest_held_ns`),
so a race answered with ``left``/``right`` waits for it rather than deciding without it. Only
such a race's verdict may come later, by at most the window, and only while a press is held.
"""

from __future__ import annotations

from ..arbiter.inputs import InputEvent

CHORD_WINDOW_NS = 80_000_000
HELD_BACK = ("left", "right")
"""Keys a chord begins with: a press of one waits to see whether the rest of a chord follows."""
CHORDS = {("left", "right"): "abandon", ("right", "left"): "abandon", ("right", "ok"): "rules",
          ("left", "ok"): "takeback"}
"""(key held, key pressed) -> the chord they make."""


class Chords:
    def __init__(self) -> None:
        self.pending: dict[int, InputEvent] = {}
        """A station's ``left``/``right`` press waiting to see whether a chord follows."""
        self.held: dict[int, set[str]] = {}
        self.swallowed: set[tuple[int, str]] = set()
        """Keys of a chord: their releases are not passed on either."""
        self.since: dict[int, int] = {}
        """Station -> edge time the abandon chord was completed, while both keys stay held."""

    def feed(self, event: InputEvent) -> tuple[list[InputEvent], str | None]:
        """The inputs to pass on to the game, in order, now that ``event`` has come, and the
        chord (``abandon``, ``rules``, ``takeback``) ``event`` completed, if it did."""
        out = self.due(event.t_ns)
        station, key = event.station, event.key
        held = self.held.setdefault(station, set())
        if not event.pressed:
            held.discard(key)
            if key in HELD_BACK:
                self.since.pop(station, None)
            if (station, key) in self.swallowed:
                self.swallowed.discard((station, key))
                return out, None
            return out + self._flush(station) + [event], None
        chord = next((CHORDS[(other, key)] for other in held if (other, key) in CHORDS), None) if held else None
        held.add(key)
        if chord is not None:
            first = self.pending.pop(station, None)
            if first is not None:
                self.swallowed.add((station, first.key))
            self.swallowed.add((station, key))
            if chord == "abandon":
                self.since[station] = event.t_ns
            return out, chord
        out += self._flush(station)
        if key in HELD_BACK:
            self.pending[station] = event
            return out, None
        return out + [event], None

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

    def oldest_held_ns(self) -> int | None:
        """The edge time of the oldest press held back, if any: no game may take it that every
        press before a later time has reached it (a race would decide without this one)."""
        if not self.pending:
            return None
        return min(e.t_ns for e in self.pending.values())

    def wakeup_ns(self) -> int | None:
        return min((e.t_ns + CHORD_WINDOW_NS for e in self.pending.values()), default=None)

    def holding(self, station: int, key: str) -> bool:
        """True while ``key`` is part of a chord held on ``station`` (a long hold, not a stuck button)."""
        return (station, key) in self.swallowed

    def clear(self) -> None:
        self.__init__()
