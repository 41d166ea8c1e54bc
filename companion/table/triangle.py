"""Triangle at the table: the box deals, counts down, referees the race for the Right to Speak
and shows each player exactly what the seed lets them see.

A round: the box deals (a chance event) and counts 3-2-1-0, one count per ``countdown_ms`` on
the buzzer and every display. At 0 each station shows its two peers' cards, never its own, and
the race opens. Slaps are fed to a :class:`~companion.arbiter.race.Race` by edge time; ``tick`` decides
it once the watermark has passed the first slap plus the tie window. A slap before 0 is a false
start, shown to the presser (with ``false_start_lockout_ms`` it also locks them out for that
long). Several slaps within the window are a draw: the four cards are discarded unseen, so the
box never shows a player their own card or the RtS card. A single first slap claims the RtS:
the claimer's station privately shows its value and the fact menu (``left``/``right`` choose,
``ok`` states, ``exact`` then asks for the value, ``slap`` goes back). After the statement every
station shows all three cards, the verdict and the scores. Everyone sees who else slapped after
the claimer (or the drawers) and how much later. Any station's ``ok`` deals the next round.

When the last round ends the game, its result is shown first; ``ok`` then shows the end screen,
and ``ok`` again returns to the lobby. With ``counting_aid``, holding ``left`` (outside the fact
menu) shows which cards of the turn that player has seen. What each station sees is
:mod:`.triangle_views`.
"""

from __future__ import annotations

from PIL import Image

from ..games.triangle import FACTS, PLAYERS, ROUNDS_PER_TURN, VALUES, Round
from ..arbiter.inputs import InputEvent
from ..arbiter.race import Race, RaceResult
from ..screens.triangle import aid_screen, end_screen, round_screen
from .game import RACE, YOUR_TURN, GameTable
from .triangle_views import MS, TENTH_NS, VERDICT_LABELS, TriangleViews, coach_line, tenths

COUNT_FROM = 3
class TriangleTable(TriangleViews, GameTable):
    game = "triangle"
    tells_bots_on_end_screen = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        options = self.match.options
        self.step_ns = options.countdown_ms * MS
        self.window_ns = options.tie_window_ms * MS
        self.lockout_ns = options.false_start_lockout_ms * MS
        self.timeout_ns = None if options.round_timeout_s is None else options.round_timeout_s * 1_000_000_000
        self.aid_open: set[int] = set()
        self._last_now = self.now_ns
        self.holding_last_round = self.match.outcome is not None
        """The game is over but its last round's result is still on screen, until ``ok`` (a
        finished game resumed shows its last round again first)."""
        self.race: Race | None = None
        self._round_state()
        if self.match.needs_chance and not self.match.state.history:
            self._deal(self.now_ns)
        elif not self.match.needs_chance:
            self._count_down(self.now_ns)

    # --- the round --------------------------------------------------------------------------

    def _deal(self, t_ns: int) -> None:
        self.match.draw_chance()
        self._count_down(t_ns)

    def _round_state(self) -> None:
        """What the table keeps of a round besides the match: the race's result, false starts,
        the claimer's place in the fact menu. A resumed game starts with none of it (see "What
        resume restores" in ``docs/JOURNAL.md``)."""
        self.result: RaceResult | None = None
        """The race decided this round, while its result shows; None before the race, and in a
        round picked up from the journal (its later slaps are not journaled)."""
        self.race_line = None
        self.early: dict[int, int] = {}
        """When the lockout of each station that slapped too early ends (its slap's time when there
        is no lockout): it is told how long it waits until the wait is over. Whether a slap was
        early is the race's to say (:meth:`Race.early`), each station's from its own onset."""
        self.cursor = 0
        self.choosing_value = False
        self.count = 0

    def _count_down(self, t_ns: int) -> None:
        """Count down from ``t_ns`` to the race for the round dealt. A game resumed from its
        journal comes here too, from the moment it is picked up: an unclaimed round is counted
        down again, a claimed one goes straight back to the claimer's menu. Between rounds a
        resumed game shows the last round's result until ``ok`` deals the next."""
        self.round_start_ns = t_ns
        self.opens_ns = t_ns + COUNT_FROM * self.step_ns
        self.race = Race(self.opens_ns, self.window_ns, range(PLAYERS), "slap", self.lockout_ns, revealed=True)
        self._round_state()
        self.count = COUNT_FROM if self.racing else 0
        if self.count:
            self.cues.append("tick")

    @property
    def current(self) -> Round | None:
        return self.match.state.current

    @property
    def last(self) -> Round:
        """The round on screen: the one being played, else the one just finished."""
        return self.current or self.match.state.history[-1]

    @property
    def on_screen(self) -> str:
        """``Turn 2  Round 4/6``: the turn and round of :attr:`last`, the round on the screens (a
        round's result keeps its own number until ``ok`` deals the next)."""
        state = self.match.state
        index = max(len(state.history) + (state.current is not None) - 1, 0)
        return f"Turn {index // ROUNDS_PER_TURN + 1}  Round {index % ROUNDS_PER_TURN + 1}/{ROUNDS_PER_TURN}"

    @property
    def claimer(self) -> int | None:
        return self.current.claimer if self.current else None

    @property
    def racing(self) -> bool:
        return self.current is not None and self.current.claimer is None

    # --- inputs -----------------------------------------------------------------------------

    def waiting_on(self, seat: int) -> str:
        """A race from the countdown until someone claims it; the claimer's turn to state a fact."""
        if self.match.outcome is not None or seat >= PLAYERS:
            return ""
        if self.racing and self.result is None:
            return RACE
        return YOUR_TURN if seat == self.claimer else ""

    def showing_end(self, station: int) -> bool:
        return not self.holding_last_round

    def on_input(self, event: InputEvent) -> None:
        station, key = event.station, event.key
        if self.holding_last_round:
            if event.pressed and key == "ok":  # from the last round's result to the end screen
                self.holding_last_round = False
                self.changed(event)
            return
        if key == "left" and self.match.options.counting_aid and station < PLAYERS:
            if not event.pressed:
                self.aid_open.discard(station)
            elif station != self.claimer:
                self.aid_open.add(station)
        if not event.pressed:
            return
        if key == "slap" and self.current is not None:
            label = self.race.press(event)
            if label in ("false_start", "locked_out"):
                self.early[station] = max(event.t_ns + self.lockout_ns, self.early.get(station, 0))
            if self.result is not None:  # decided already: only the later slaps grow
                self.result = self.race.decide(event.t_ns)
        if self.current is None:
            if key == "ok":
                self.changed(event)
                self._deal(event.t_ns)
        elif station == self.claimer:
            self._menu(event)

    def _menu(self, event: InputEvent) -> None:
        """The claimer's fact menu, then for ``exact`` the value."""
        size = len(VALUES) if self.choosing_value else len(FACTS)
        if event.key in ("left", "right"):
            self.cursor = (self.cursor + (1 if event.key == "right" else -1)) % size
        elif event.key == "slap" and self.choosing_value:
            self.choosing_value = False
            self.cursor = FACTS.index("exact")
        elif event.key == "ok":
            self.changed(event)
            if self.choosing_value:
                self._state("exact", VALUES[self.cursor])
            elif FACTS[self.cursor] == "exact":
                self.choosing_value = True
                self.cursor = 0
            else:
                self._state(FACTS[self.cursor])

    def _state(self, fact: str, value: int | None = None) -> None:
        action = {"action": "state", "player": self.claimer, "fact": fact}
        if value is not None:
            action["value"] = value
        self.match.act(action)
        self.cues.append("correct" if self.last.correct else "wrong")
        self._round_over()

    def _round_over(self) -> None:
        outcome = self.match.outcome
        if outcome is not None:
            self.holding_last_round = True
            self.cues.append("draw" if len(outcome.winners) > 1 else "win")

    # --- time -------------------------------------------------------------------------------

    def tick(self, now_ns: int, watermark_ns: int) -> bool:
        self.now_ns = now_ns
        if not self.racing:
            return False
        changed = False
        count = max(0, COUNT_FROM - (now_ns - self.round_start_ns) // self.step_ns)
        if count < self.count:
            self.count = count
            self.cues.append("go" if count == 0 else "tick")
            if count == 0:
                self.reveal(self.race)
            changed = True
        if any(tenths(end - self._last_now) != tenths(end - now_ns) for end in self.early.values()
               if end > self._last_now) or self.told_early_ends(self._last_now, now_ns):
            changed = True  # a lockout's time left moved on or ended (or a "Too early!" told after 0)
        self._last_now = now_ns
        deadline = self._void_at()
        if deadline is not None and watermark_ns >= deadline:
            self.match.act({"action": "void"})
            self.cues.append("time_up")
            self._round_over()
            return True
        result = self.race.decide(watermark_ns)
        if result is not None:
            self.result = result
            if result.tie:
                self.act_after(self.race, {"action": "draw", "players": sorted(result.winners)})
                self.cues.append("tie")
                self._round_over()
            else:
                (winner,) = result.winners
                self.act_after(self.race, {"action": "claim", "player": winner})
                self.cues.append("decided")
            return True
        return changed

    def _void_at(self) -> int | None:
        """When an unclaimed round becomes void, if it has a timeout and nobody slapped in it."""
        if self.timeout_ns is None:
            return None
        deadline = self.opens_ns + self.timeout_ns
        due = self.race.decision_due_ns
        if due is not None and due - self.window_ns < deadline:
            return None
        return deadline

    def wakeup_ns(self) -> int | None:
        if not self.racing:
            return None
        times = [self.race.decision_due_ns, self._void_at()]
        if self.count > 0:
            times.append(self.round_start_ns + (COUNT_FROM - self.count + 1) * self.step_ns)
        times += [end - (tenths(end - self.now_ns) - 1) * TENTH_NS  # the next tenth of the time left
                  for end in self.early.values() if end > self.now_ns] + [self.told_early_due_ns()]
        return min((t for t in times if t is not None), default=None)

    # --- what each station sees -------------------------------------------------------------

    def lights(self) -> dict[int, str]:
        """The claimer's light, or the drawers' blinking, until the next round counts down: from
        the match, so a resumed game lights them too."""
        if self.racing or not (self.current or self.match.state.history):
            return {}
        done = self.last
        if self.match.outcome is not None and not self.holding_last_round:  # the end: the winners
            return {p: "on" for p in self.match.outcome.winners}
        if done.draw:
            return {p: "blink" for p in done.draw}
        return {} if done.claimer is None else {done.claimer: "on"}

    def screen(self, station: int) -> Image.Image:
        if station in self.aid_open:
            return aid_screen(self.aid_view(station))
        if self.match.outcome is not None and not self.holding_last_round:
            return end_screen(self.end_view())
        return round_screen(self.view(station))
