"""What the table monkey's players do: every gesture a player can make on the box, drawn at random
and written as a script of timed presses (``companion/script.py``) for one life of the box.

A gesture is a few presses close together, by one station or several: a tap of any key (menus,
the quiz host's arming and judging), a slap, a race of slaps from several stations a few
milliseconds apart, a chord pressed at once (two keys of one station, or one key on several
stations at the same instant), a take-back (``left`` held 0.6 s with ``ok`` pressed inside it,
then ``ok`` to confirm), reading the rules mid-game (``right`` held, ``ok`` inside it, pages
turned, then back), leaving a seat (``left`` and ``right`` held past the abandon hold, then
``left`` or ``right``: a bot plays the seat), abandoning (the same hold, then ``ok``), taking a
bot's seat back (a watcher's press, then ``ok``), a key held for seconds (as a stuck button),
a burst of ``ok`` from one station (through the lobby's rows, or a resume offer), and starting
the game: ``ok`` on the game, stations joining with ``slap`` on "Who plays?" (or none: ``ok``
seats every station where they fill the game), then ``ok`` through the options (now and then
another value with ``left``/``right``) to Start. Which gestures a station can make follows its
keys: a buzzer-only seat only slaps.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Collection, Sequence

from companion.script import ScriptPress

TAP_S = 0.06
"""How long a tap is held: above the debounce time, as a finger's is."""
ABANDON_HOLD_S = 2.3
"""``left`` and ``right`` held together this long open the abandon (or leave) dialog: the box's
hold (``companion.table.dialogs.ABANDON_HOLD_NS``, 2 s) and some slack."""

KINDS = ("start", "tap", "slap", "race", "chord", "takeback", "rules", "leave", "abandon", "join", "held", "oks",
         "host")
"""Every gesture, in the order they are counted in the monkey's figures."""


def press(at_s: float, station: int, key: str, hold_s: float = TAP_S) -> ScriptPress:
    """A press of ``station`` numbered from 1, as scripts and players number them."""
    return ScriptPress(at_s, station - 1, key, hold_s)


@dataclass(frozen=True)
class Gesture:
    kind: str
    presses: tuple[ScriptPress, ...]

    @property
    def at_s(self) -> float:
        return min(p.at_s for p in self.presses)

    @property
    def end_s(self) -> float:
        return max(p.at_s + p.hold_s for p in self.presses)


class Players:
    """Draws gestures for the stations of one box (each station's keys, from its profile)."""

    def __init__(self, station_keys: Sequence[Collection[str]], rnd: random.Random, host: bool,
                 seats: tuple[int, int]) -> None:
        """``seats``: the game's fewest and most players."""
        self.keys = [frozenset(k) for k in station_keys]
        self.full = [i + 1 for i, k in enumerate(self.keys) if {"left", "ok", "right"} <= k]
        """Stations with every key (from 1): those that can make chords and answer dialogs."""
        self.rnd = rnd
        self.host = host
        self.seats = seats
        """Station 1 hosts the quiz: it arms, judges and corrects more often than anyone presses."""

    def gesture(self, at_s: float) -> Gesture:
        weights = {"tap": 30, "slap": 14, "race": 8, "chord": 4, "takeback": 8, "rules": 2, "leave": 3,
                   "abandon": 1, "join": 3, "held": 2, "oks": 5, "host": 12 if self.host else 0}
        kind = self.rnd.choices(list(weights), list(weights.values()))[0]
        return Gesture(kind, tuple(getattr(self, "_" + kind)(at_s)))

    def _anyone(self) -> int:
        return self.rnd.randint(1, len(self.keys))

    def _player(self) -> int:
        return self.rnd.choice(self.full)

    def _tap(self, t: float) -> list[ScriptPress]:
        station = self._anyone()
        return [press(t, station, self.rnd.choice(sorted(self.keys[station - 1])), self.rnd.uniform(0.04, 0.2))]

    def _slap(self, t: float) -> list[ScriptPress]:
        return [press(t, self._anyone(), "slap")]

    def _race(self, t: float) -> list[ScriptPress]:
        who = self.rnd.sample(range(1, len(self.keys) + 1), self.rnd.randint(2, min(5, len(self.keys))))
        return [press(t + self.rnd.uniform(0, 0.04), s, "slap") for s in who]

    def _chord(self, t: float) -> list[ScriptPress]:
        if self.rnd.random() < 0.5:  # one station, two keys at once
            station = self._player()
            keys = self.rnd.sample(sorted(self.keys[station - 1]), 2)
            return [press(t, station, k, 0.12) for k in keys]
        key = self.rnd.choice(("slap", "ok", "left", "right"))  # one key, several stations at the same instant
        who = [s for s in range(1, len(self.keys) + 1) if key in self.keys[s - 1]]
        return [press(t, s, key) for s in self.rnd.sample(who, min(len(who), self.rnd.randint(2, 4)))]

    def _takeback(self, t: float) -> list[ScriptPress]:
        """Often right after the station's own move (``ok`` or ``slap``): a take-back is refused
        once someone else has acted since."""
        station = self._player()
        out = []
        if self.rnd.random() < 0.6:
            out.append(press(t, station, self.rnd.choice(("ok", "ok", "slap"))))
            t += 0.3
        out += [press(t, station, "left", 0.6), press(t + 0.25, station, "ok")]
        if self.rnd.random() < 0.85:  # confirmed; else left unanswered
            out.append(press(t + 0.9, station, self.rnd.choice(("ok", "ok", "ok", "left"))))
        return out

    def _rules(self, t: float) -> list[ScriptPress]:
        station = self._player()
        out = [press(t, station, "right", 0.4), press(t + 0.2, station, "ok")]
        t += 0.6
        for _ in range(self.rnd.randint(0, 3)):
            out.append(press(t, station, self.rnd.choice(("left", "right"))))
            t += 0.2
        out.append(press(t, station, self.rnd.choice(("ok", "slap"))))
        return out

    def _both_held(self, t: float, station: int) -> list[ScriptPress]:
        return [press(t, station, "left", ABANDON_HOLD_S), press(t, station, "right", ABANDON_HOLD_S)]

    def _leave(self, t: float) -> list[ScriptPress]:
        """Now and then the player, watching a bot play their seat, holds both keys again."""
        station = self._player()
        out = []
        for _ in range(1 if self.rnd.random() < 0.7 else 2):
            answer = press(t + ABANDON_HOLD_S + 0.2, station, self.rnd.choice(("left", "right")))
            out += self._both_held(t, station) + [answer]
            t += ABANDON_HOLD_S + 0.6
        return out

    def _abandon(self, t: float) -> list[ScriptPress]:
        station = self._player()
        return self._both_held(t, station) + [press(t + ABANDON_HOLD_S + 0.2, station, "ok")]

    def _join(self, t: float) -> list[ScriptPress]:
        station = self._player()
        return [press(t, station, self.rnd.choice(("slap", "ok"))), press(t + 0.3, station, "ok")]

    def _held(self, t: float) -> list[ScriptPress]:
        station = self._anyone()
        return [press(t, station, self.rnd.choice(sorted(self.keys[station - 1])), self.rnd.uniform(1.0, 4.0))]

    def _oks(self, t: float) -> list[ScriptPress]:
        station = self._player()
        return [press(t + 0.15 * i, station, "ok") for i in range(self.rnd.randint(3, 16))]

    def _start(self, t: float) -> list[ScriptPress]:
        """From the game menu to the game: pick it, take seats, accept the options, Start."""
        out = [press(t, self._player(), "ok")]
        t += 0.3
        fewest, most = self.seats
        starter = self._player()
        if len(self.keys) > most or self.rnd.random() < 0.3:
            others = [s for s in range(1, len(self.keys) + 1) if s != starter]
            room = min(most, len(self.keys))  # a game for more than the box's stations: bots sit in
            how_many = self.rnd.randint(min(max(fewest, 2), room), room)
            joining = [starter] + self.rnd.sample(others, how_many - 1)
            for s in joining:
                out.append(press(t, s, "slap"))
                t += 0.15
        for _ in range(self.rnd.randint(12, 16)):
            if self.rnd.random() < 0.25:  # another value of this row's option
                for _ in range(self.rnd.randint(1, 2)):
                    out.append(press(t, starter, self.rnd.choice(("left", "right", "right"))))
                    t += 0.2
            out.append(press(t, starter, "ok"))
            t += 0.15
        return out

    def _host(self, t: float) -> list[ScriptPress]:
        """The quiz host (station 1): arm, then maybe a buzz or two, then judge (ok right, left
        wrong), sometimes a correction or a tie pick with left/right. Now and then a player who
        buzzed presses again while the host reads the next question (too early for it)."""
        out = [press(t, 1, "slap")]
        t += self.rnd.uniform(0.2, 1.2)
        buzzers = self.rnd.sample(range(2, len(self.keys) + 1), min(len(self.keys) - 1, self.rnd.randint(0, 3)))
        for s in buzzers:
            out.append(press(t + self.rnd.uniform(0, 0.05), s, "slap"))
        t += 0.5
        for _ in range(self.rnd.randint(1, 3)):
            out.append(press(t, 1, self.rnd.choice(("ok", "left", "right", "ok", "left"))))
            t += self.rnd.uniform(0.2, 0.5)
        if buzzers and self.rnd.random() < 0.4:
            out.append(press(t, self.rnd.choice(buzzers), "slap"))
        return out


def life_script(players: Players, seconds: float, first: bool) -> tuple[list[Gesture], str]:
    """Gestures for about ``seconds`` of a life, and their script. A night's ``first`` life begins
    with the game's start, a later one most times, so that nights get past the lobby (or,
    resumed, through its offer) into games."""
    rnd = players.rnd
    gestures = []
    t = 0.3
    if first or rnd.random() < 0.7:
        gestures.append(Gesture("start", tuple(players._start(t))))
        t = gestures[-1].end_s + 0.2
    while t < seconds:
        g = players.gesture(t)
        gestures.append(g)
        # Gestures overlap now and then (another station acts while a key is still held)
        t = (g.at_s + rnd.uniform(0.1, 0.4)) if rnd.random() < 0.2 else g.end_s + rnd.uniform(0.1, 0.5)
    return gestures, script_text(gestures)


def script_text(gestures: Sequence[Gesture]) -> str:
    """The script of ``gestures``; a key pressed again while still held (two overlapping
    gestures) is dropped, as a finger cannot press a key it holds."""
    busy: dict[tuple[int, str], float] = {}
    lines = []
    for p in sorted((p for g in gestures for p in g.presses), key=lambda p: p.at_s):
        if busy.get((p.station, p.key), -1.0) + 0.03 > p.at_s:
            continue
        busy[(p.station, p.key)] = p.at_s + p.hold_s
        lines.append(f"{p.at_s:.3f} {p.station + 1} {p.key} {p.hold_s:.3f}")
    return "\n".join(lines) + "\n"
