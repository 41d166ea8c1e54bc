"""Button races: who pressed first, decided from edge times and nothing else.

Fairness is the point of the product (DESIGN.md section 4), so a race follows three rules:

- **Never order by arrival.** Serial frames arrive tens of ms late and GPIO callbacks come from
  a thread, so a later-arriving press may carry an earlier edge time. A race keeps every press
  it is given and computes the first press as the minimum edge time, whatever the arrival order.
- **Decide only when nothing earlier can still arrive.** The caller passes a watermark (see
  :mod:`companion.arbiter.watermark`): a promise that every press with an edge time before it has been
  delivered. The race is decided once the watermark reaches ``first + tie_window``; until then a
  press may still arrive and win.
- **Ties are ties.** Every station whose first counted press lies strictly within the tie window
  of the first press wins. Station number, pin, source and arrival order never break a tie;
  ``order`` lists equal times by station index only so that displays are stable.

A press before the race opens is a false start: recorded and shown, never counted, and with a
lockout it also voids that station's presses until ``false_start + lockout``. Lockout is computed
from edge times too, so a false start that arrives after the station's counted press still locks
it out (as long as the race is undecided).

**Each station's race starts when its screen shows it.** A race that opens with a screen change
(Triangle's 0, a quiz question) is *revealed*: the box shows the new screens on every panel at
once and reports when each one actually became visible, its *onset* (see
:mod:`companion.adapters.reveal`). Presses are compared by reaction time, edge minus the
station's own onset, so a panel that lit up late costs its player nothing, and a press before
the station's onset is a false start. The onset is the panel's light, measured by a light sensor
over each panel where the box has them, else the moment the panel took its display-on command;
a panel's row scan then lights it up to a frame later, which the tie window covers
(:data:`companion.games.options.SCREEN_TIE_WINDOW_MS`). Until the onsets are known such a race decides nothing. A
race that is not revealed has every onset at its opening, and reaction times order like edges.

A quiz race (the first *right* answer wins) also knocks a station out at its first wrong answer:
its presses from that edge time on no longer count, while a right answer before it stands, in
whichever order the two arrive. A wrong answer before the station's onset is a false start like
any other press there: the question was not on its screen. Such a race may also give the
players a reading time (``reading_ns``): a press sooner than that after the station's onset was
made before the question could be read, and is a false start too.

A verdict is only as good as the watermark it waited for. A press that arrives after the decision
and would have changed it is a *late press*: its source broke its promise. It may be a press
earlier than the winner's or inside the tie window, a false start that would have locked a winner
out, or a wrong answer that would have knocked one out: the race decides again with everything
that has arrived and compares. The verdict stands (the game has acted on it), but the race
reports the late press, with the verdict it would have given, to whoever watches
(:func:`watching_late_presses`), so a broken promise is never silent.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Mapping

from .inputs import KEYS, InputEvent

READING_NS = 100_000_000
"""The least time between a question showing and a counted answer. Sprint starts count a
reaction under 100 ms as a false start (World Athletics rule 16.6: no one hears the gun and
pushes off faster); reading two numbers and four answers takes far longer, so an answer sooner
than this after the question showed was made before it was read: "Too early!"."""


@dataclass(frozen=True, slots=True)
class Press:
    """One station's press in a result; ``delta_ns`` is its reaction time minus the fastest one
    (for a false start, its time before the station's onset: negative)."""

    station: int
    t_ns: int
    delta_ns: int


@dataclass(frozen=True, slots=True)
class RaceResult:
    """A decided race. ``winners`` holds every station whose reaction time is within the tie
    window of the fastest one (whose press was at ``first_ns``); more than one is a tie, and what
    a tie means is the game's business."""

    first_ns: int
    winners: frozenset[int]
    order: tuple[Press, ...]
    false_starts: tuple[Press, ...]

    @property
    def tie(self) -> bool:
        return len(self.winners) > 1

    def later(self) -> tuple[Press, ...]:
        """The presses of everyone but the winners, by time ("Ben +140 ms")."""
        return tuple(p for p in self.order if p.station not in self.winners)


LATE_KINDS = ("press", "false_start", "wrong")
"""What a late press was: a press on the race's key after the station's onset, a press before it
(a false start, which with a lockout voids the station's next presses), a wrong answer."""


@dataclass(frozen=True, slots=True)
class LatePress:
    """A press that arrived after its race was decided and would have changed the verdict:
    ``winners`` is the verdict given, ``would_be`` the one the race gives with every press that
    has arrived (empty: nobody would have won yet). ``behind_ns`` is the press's reaction time
    minus the winners' fastest (below 0: before the winning press); ``kind`` one of
    :data:`LATE_KINDS`."""

    station: int
    t_ns: int
    behind_ns: int
    winners: frozenset[int]
    kind: str
    would_be: frozenset[int]


_late_press_watcher: ContextVar[Callable[[LatePress], None] | None] = ContextVar("late_press_watcher", default=None)


@contextmanager
def watching_late_presses(watcher: Callable[[LatePress], None]) -> Iterator[None]:
    """Every :class:`LatePress` any race finds while the block runs is passed to ``watcher``: the
    daemon wraps its hand-off of inputs to the games in this, whatever game holds the race."""
    token = _late_press_watcher.set(watcher)
    try:
        yield
    finally:
        _late_press_watcher.reset(token)


class Race:
    """One race among ``stations`` on ``key``, open from ``opens_at_ns``.

    Feed it every input event with :meth:`press` (it picks out the pressed edges of its key from
    its stations) and ask :meth:`decide` with the current low watermark. The next ask is due
    when the watermark reaches :attr:`decision_due_ns` (which may move as presses arrive); see
    :meth:`companion.arbiter.watermark.Watermarks.reaches_at`.
    """

    def __init__(
        self,
        opens_at_ns: int,
        tie_window_ns: int,
        stations: Iterable[int],
        key: str = "slap",
        lockout_ns: int = 0,
        revealed: bool = False,
        reading_ns: int = 0,
    ) -> None:
        """With ``revealed``, the race waits for :meth:`reveal` to say when each station saw it.
        ``reading_ns``: a press sooner than this after the station's onset is a false start too
        (nobody reads a question and answers it that fast: see :data:`READING_NS`)."""
        if tie_window_ns < 1:
            # The window is strict (t - first < window): a zero window would have no winner.
            raise ValueError(f"tie_window_ns must be >= 1, not {tie_window_ns}")
        if lockout_ns < 0:
            raise ValueError(f"lockout_ns must be >= 0, not {lockout_ns}")
        if key not in KEYS:
            raise ValueError(f"key must be one of {', '.join(KEYS)}, not {key!r}")
        self.opens_at_ns = opens_at_ns
        self.tie_window_ns = tie_window_ns
        self.stations = frozenset(stations)
        self.key = key
        self.lockout_ns = lockout_ns
        self.reading_ns = reading_ns
        self.onsets: dict[int, int] | None = None if revealed else dict.fromkeys(self.stations, opens_at_ns)
        """Station -> when its screen showed the race, as the race times it (its light if
        every station has a light sensor, else its stamp); None until the reveal is reported."""
        self.stamped: dict[int, int] | None = self.onsets
        """Station -> when its panel took the display-on command (see :meth:`reveal`)."""
        self.light: dict[int, int] | None = None
        """Station -> when its light sensor saw the race, when every station has one."""
        # Every press of each station, false starts too: whether a press is early depends on
        # the station's onset, which may be reported after the press arrives.
        self._presses: dict[int, set[int]] = {}
        self._wrong: dict[int, set[int]] = {}  # station -> its wrong answers' edge times
        self._first_ns: int | None = None  # set, with the rest, when the race is decided
        self._fastest_ns = 0  # the winners' best reaction time, frozen
        self._winners: dict[int, int] = {}  # winning station -> its press time, frozen

    def reveal(self, onsets: Mapping[int, int], light: Mapping[int, int] | None = None) -> None:
        """When each station's screen showed the race (host monotonic ns, stamped as its panel
        took the display-on command); a station left out saw it as the race opened (an instant
        panel). ``light``: when each station's light sensor saw its panel light up (kernel or
        board time). The race times every station from its light when every station has one,
        else every station from its stamp: timing some from light (later by up to a frame of
        the panel's scan) and others from stamps would favour those with sensors."""
        self.stamped = {s: onsets.get(s, self.opens_at_ns) for s in self.stations}
        self.light = ({s: light[s] for s in self.stations}
                      if light is not None and self.stations <= light.keys() else None)
        self.onsets = self.light or self.stamped

    def press(self, event: InputEvent) -> str:
        """Take one input event and say what it was, for immediate feedback to the player.

        Returns ``"counted"`` (this is now the station's first counted press), ``"false_start"``,
        ``"locked_out"``, ``"knocked_out"``, ``"pending"`` (after the opening, while the
        station's onset is not known yet) or ``"ignored"`` (a release, another key, a station not
        in the race, or not the station's earliest press). The label reflects what has arrived so
        far; the verdict itself is computed by :meth:`decide` from edge times alone.
        """
        station, t = event.station, event.t_ns
        if not event.pressed or event.key != self.key or station not in self.stations:
            return "ignored"
        current = self._counted_ns(station)
        verdict = self._verdict() if self._first_ns is not None else None
        self._presses.setdefault(station, set()).add(t)
        if verdict is not None:
            self._check_late(station, t, verdict, wrong=False)
        if self.onsets is None:
            return "false_start" if t < self._ready(station) else "pending"
        if t < self._ready(station):
            return "false_start"
        if t < self.lockout_end_ns(station):
            return "locked_out"
        if t >= self._out_ns(station, t + 1):
            return "knocked_out"
        if station in self._winners or (current is not None and current <= t):
            return "ignored"
        return "counted"

    def early(self, station: int) -> str | None:
        """``"locked_out"`` if the station pressed during its lockout, else ``"false_start"`` if
        it pressed before its onset, else None. While the onsets are unknown, only a press
        before the opening is known to be early."""
        if station not in self.stations:
            return None
        onset = self._ready(station)
        presses = self._tried(station)
        if not any(t < onset for t in presses):
            return None
        end = self.lockout_end_ns(station)
        return "locked_out" if any(onset <= t < end for t in presses) else "false_start"

    def early_unseen(self, station: int) -> bool:
        """True if the station pressed after the race opened but before its own screen showed it
        (while the panels were being written), or before anyone could have read it: a false
        start its screen could not tell it of at the time."""
        onset = self._ready(station)
        return any(self.opens_at_ns <= t < onset for t in self._tried(station))

    def knock_out(self, station: int, t_ns: int) -> str:
        """A wrong answer at ``t_ns``: the station's presses from then on no longer count. Says
        what it was: ``"knocked_out"``, ``"false_start"`` (before the station's onset: it is out
        of nothing), ``"pending"`` (after the opening, while the onsets are unknown) or
        ``"ignored"`` (a station not in the race, or the race decided: it changes nothing, though
        it is reported if it would have, see :class:`LatePress`).

        The earliest knock-out of a station holds.
        """
        if station not in self.stations:
            return "ignored"
        if self._first_ns is not None:
            verdict = self._verdict()
            self._wrong.setdefault(station, set()).add(t_ns)
            self._check_late(station, t_ns, verdict, wrong=True)
            return "ignored"
        self._wrong.setdefault(station, set()).add(t_ns)
        if self.onsets is None:
            return "false_start" if t_ns < self._ready(station) else "pending"
        return "false_start" if t_ns < self._ready(station) else "knocked_out"

    def knocked_out(self, station: int) -> bool:
        """True once the station has a wrong answer on or after its onset."""
        return self.onsets is not None and self._out_ns(station) is not None

    def nobody_can_win(self, watermark_ns: int) -> bool:
        """True once every station is knocked out and no press before its knock-out can still
        arrive: the race will never have a winner (a quiz question everyone got wrong)."""
        due = self._everyone_out_ns()
        return due is not None and watermark_ns >= due and not self._reactions()

    @property
    def decision_due_ns(self) -> int | None:
        """When a watermark makes the race decidable: the latest onset plus the fastest reaction
        so far plus the tie window (``first + tie_window`` when every onset is the opening): no
        station can still beat it. It moves earlier if a faster press arrives, so re-read it after
        each press. With nobody counted and every station knocked out, it is when
        :meth:`nobody_can_win` can tell. None while the onsets are unknown."""
        if self.onsets is None:
            return None
        fastest = self._fastest_ns if self._first_ns is not None else min(self._reactions().values(), default=None)
        if fastest is None:
            return self._everyone_out_ns()
        return max(self.onsets.values()) + fastest + self.tie_window_ns

    def decide(self, watermark_ns: int) -> RaceResult | None:
        """The result once every source has reported past :attr:`decision_due_ns`, else None.

        The first decision freezes ``first_ns`` and the winners: a press arriving afterwards
        (its source broke its watermark promise, or it is simply later) joins ``order`` with its
        delta to the fastest reaction but never changes who won.
        """
        reactions = self._reactions()
        if self._first_ns is None:
            if not reactions or watermark_ns < self.decision_due_ns:
                return None
            fastest = min(reactions.values())
            self._winners = {s: self.onsets[s] + reactions[s] for s in self._verdict(reactions)}
            self._fastest_ns = fastest
            self._first_ns = min(t for s, t in self._winners.items() if reactions[s] == fastest)
        counted = {s: self.onsets[s] + r for s, r in reactions.items()}
        counted.update(self._winners)
        early = sorted((t, s) for s in self.stations for t in self._tried(s) if t < self._ready(s))
        return RaceResult(
            first_ns=self._first_ns,
            winners=frozenset(self._winners),
            order=tuple(Press(s, t, t - self.onsets[s] - self._fastest_ns)
                        for _, s, t in sorted((t - self.onsets[s], s, t) for s, t in counted.items())),
            false_starts=tuple(Press(s, t, t - self.onsets[s]) for t, s in early),
        )

    def reaction_ns(self, station: int) -> int | None:
        """The station's counted press minus its onset, if it has one."""
        return self._reactions().get(station)

    def _onset(self, station: int) -> int:
        """The station's onset; the opening while the onsets are unknown (no screen shows the
        race before it opens)."""
        return self.opens_at_ns if self.onsets is None else self.onsets[station]

    def _ready(self, station: int) -> int:
        """The earliest press of the station that can count: its onset plus the reading time."""
        return self._onset(station) + self.reading_ns

    def lockout_end_ns(self, station: int) -> int:
        """Presses before this are void: the station's latest false start plus the lockout (its
        onset when it made none)."""
        onset = self._ready(station)
        return max((t + self.lockout_ns for t in self._tried(station) if t < onset), default=onset)

    def _tried(self, station: int) -> set[int]:
        """Every press of the station in the race: on its key, and its wrong answers."""
        presses, wrong = self._presses.get(station, set()), self._wrong.get(station)
        return presses | wrong if wrong else presses

    def _out_ns(self, station: int, default: int | None = None) -> int | None:
        """The station's first wrong answer from its onset (and reading time) on: its presses from
        then on are out."""
        onset = self._ready(station)
        return min((t for t in self._wrong.get(station, ()) if t >= onset), default=default)

    def _behind_ns(self, station: int, t_ns: int) -> int:
        """How far a press at ``t_ns`` is behind the decided race's winning press, in reaction
        time (each station timed from its own onset)."""
        return t_ns - self.onsets[station] - self._fastest_ns

    def _verdict(self, reactions: Mapping[int, int] | None = None) -> frozenset[int]:
        """The stations within the tie window of the fastest reaction among ``reactions`` (by
        default every press that has arrived): who wins on them."""
        reactions = self._reactions() if reactions is None else reactions
        fastest = min(reactions.values(), default=0)
        return frozenset(s for s, r in reactions.items() if r - fastest < self.tie_window_ns)

    def _check_late(self, station: int, t_ns: int, before: frozenset[int], wrong: bool) -> None:
        """After the decision: report the press at ``t_ns`` if it changed what the race would
        decide now (``before`` it arrived) into something other than its verdict. A press given
        twice changes nothing the second time, so it is reported once."""
        would_be = self._verdict()
        watcher = _late_press_watcher.get()
        if watcher is None or would_be == before or would_be == frozenset(self._winners):
            return
        kind = "false_start" if t_ns < self._ready(station) else "wrong" if wrong else "press"
        watcher(LatePress(station, t_ns, self._behind_ns(station, t_ns), frozenset(self._winners), kind, would_be))

    def _counted_ns(self, station: int) -> int | None:
        """The station's first counted press: its earliest press at or after its onset, neither
        locked nor knocked out (None while the onsets are unknown)."""
        if self.onsets is None:
            return None
        end = max(self._ready(station), self.lockout_end_ns(station))
        out = self._out_ns(station)
        return min((t for t in self._presses.get(station, ())
                    if t >= end and (out is None or t < out)), default=None)

    def _reactions(self) -> dict[int, int]:
        """Station -> reaction time of its counted press."""
        reactions = {}
        for station in self._presses:
            t = self._counted_ns(station)
            if t is not None:
                reactions[station] = t - self.onsets[station]
        return reactions

    def _everyone_out_ns(self) -> int | None:
        """The last knock-out time once every station has one, else None. A race among nobody
        (every quiz player pressed too early) has no knock-out to wait for: None, and it is
        never decided (the host skips the question)."""
        if self._first_ns is not None or self.onsets is None:
            return None
        outs = [self._out_ns(s) for s in self.stations]
        return None if None in outs else max(outs, default=None)
