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
menu) shows which cards of the turn that player has seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PIL import Image

from ..games.options import SCREEN_TIE_WINDOW_MS
from ..games.triangle import FACTS, PLAYERS, POINTS, ROUNDS_PER_TURN, VALUES, Round, peers, settlement
from ..arbiter.inputs import InputEvent
from ..arbiter.race import Race, RaceResult
from ..screens.canvas import COLUMNS, WIDTH, abbreviate, fitting, measure
from ..screens.triangle import AidView, EndView, RoundView, aid_screen, end_screen, round_screen, scores_line
from .game import GameTable

if TYPE_CHECKING:
    from ..bots.triangle import Advice

MS = 1_000_000
COUNT_FROM = 3
TOO_CLOSE = "Too close for screens"
"""A draw closer than the panels can show (21 characters: the status line's width)."""

MENU_LABELS = {"peers_even": "peers even", "even": "I'm even", "odd": "I'm odd",
               "greater": "I'm greater", "among": "I'm among", "exact": "I'm exactly.."}
VERDICT_LABELS = {"peers_even": "peers even", "even": "even", "odd": "odd", "greater": "greater",
                  "among": "among", "exact": "exactly"}


def delay(ns: int) -> str:
    """``140ms`` under a second, ``2.1s`` above, to the nearest ms or tenth of a second."""
    ms = round(ns / MS)
    return f"{ms}ms" if ms < 1000 else f"{ns / 1e9:.1f}s"


TENTH_NS = 100_000_000


def _tenths(left_ns: int) -> int:
    """A lockout's time left in whole tenths of a second, rounded up (0 once over)."""
    return max(0, -(-left_ns // TENTH_NS))


def coach_line(advice: Advice) -> str:
    """The coach on the speaker's own station (it depends on the RtS card, which is private):
    ``Best: exactly 5 +1.9`` with the expected gain, or that the statement made was the best.
    At most 21 characters, what the status line shows whole."""
    if advice.said == advice.best or advice.said_gain >= advice.best_gain:
        return f"Best choice, avg {advice.best_gain:+.1f}"  # what it earns on average
    fact, value = advice.best
    said = VERDICT_LABELS[fact] + (f" {value}" if value is not None else "")
    return f"Best: {said} {advice.best_gain:+.1f}"


class TriangleTable(GameTable):
    game = "triangle"

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
        if any(_tenths(end - self._last_now) != _tenths(end - now_ns) for end in self.early.values()
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
        times += [end - (_tenths(end - self.now_ns) - 1) * TENTH_NS  # the next tenth of the time left
                  for end in self.early.values() if end > self.now_ns] + [self.told_early_due_ns()]
        return min((t for t in times if t is not None), default=None)

    # --- what each station sees -------------------------------------------------------------

    def _name(self, player: int, station: int) -> str:
        return "You" if player == station else self.names[player]

    def _scores(self, station: int) -> str:
        names = tuple(self._name(p, station) for p in range(PLAYERS))
        return scores_line(names, self.match.state.scores)

    def _later(self, station: int) -> str:
        """Who slapped after the claimer or the drawers, and how much later."""
        if self.result is None:
            return ""
        later = [(self._name(p.station, station), delay(p.delta_ns)) for p in self.result.later()]
        for gap in ("  ", " "):
            line = fitting(lambda w: gap.join(f"{abbreviate(name, w)} +{d}" for name, d in later))
            if measure(line) <= WIDTH:
                break
        return line

    def _too_close(self) -> str:
        """Said on a draw whose slaps were closer than the screens can show: each panel lights
        its picture at its own row scan, up to a frame after the box's stamp, so a gap this small
        may be the screens' and not the players' (:data:`~companion.games.options.SCREEN_TIE_WINDOW_MS`)."""
        if self.result is None or not self.result.tie:
            return ""
        gap = max(p.delta_ns for p in self.result.order if p.station in self.result.winners)
        return TOO_CLOSE if gap < SCREEN_TIE_WINDOW_MS * MS else ""

    def _nobody_else(self) -> str:
        """Said when the race's result names nobody after the claimer; nothing when the result is
        not known (a round picked up from the journal, which keeps only the claim)."""
        return "nobody else slapped" if self.result is not None else ""

    def _peer_cards(self, station: int) -> tuple[tuple[str, int | None], ...]:
        if station >= PLAYERS:
            return ()
        return tuple((self.names[p], self.last.cards[p]) for p in peers(station))

    def view(self, station: int) -> RoundView:
        heading = self.on_screen
        current = self.current
        if current is None:
            return self._result_view(station)
        if current.claimer is not None:
            return self._speak_view(station)
        status = self._early_status(station)
        if self.count > 0:
            return RoundView(heading, count=self.count, status=status, alert=bool(status),
                             footer=self._scores(station))
        call = "Slap to speak!" if station < PLAYERS else ""  # a station that watches cannot
        return RoundView(heading, cards=self._peer_cards(station), status=status or call,
                         alert=bool(status), footer=self._scores(station))

    def _early_status(self, station: int) -> str:
        """"Too early!" while it is still true: during the countdown, and with a lockout until
        the player's wait is over (then their slap counts again). A slap while the player's panel
        was still dark at 0 is told once the panel shows 0, as long as :meth:`too_early` says."""
        early = self.race.early(station)
        if early is None:
            return ""
        said = "Locked out!" if early == "locked_out" else "Too early!"
        end = self.early.get(station, 0)
        if self.lockout_ns and self.too_early(station):  # slapped while the panel was dark
            end = max(end, self.race.lockout_end_ns(station))
        if end > self.now_ns:  # the time left, a tenth of a second at a time
            return f"{said} wait {_tenths(end - self.now_ns) / 10:.1f}s"
        return said if self.count > 0 or self.too_early(station) else ""

    @property
    def round_late_note(self) -> str | None:
        """The note on a late press, while the round whose race it concerns is on the screens
        (the panels' status line, the table screen under its heading)."""
        return self.late_note if self.decided is self.race else None

    def _speak_view(self, station: int) -> RoundView:
        claimer = self.claimer
        later = self.round_late_note or self._later(station) or self._nobody_else()
        if station != claimer:
            return RoundView(fitting(lambda w: f"{abbreviate(self.names[claimer], w)} speaks"), cards=self._peer_cards(station),
                             status=later, footer=self._scores(station))
        if self.choosing_value:
            choice = f"I'm a {VALUES[self.cursor]} +{POINTS['exact']}"
        else:
            fact = FACTS[self.cursor]
            choice = f"{MENU_LABELS[fact]} +{POINTS[fact]}"
        return RoundView(f"Right to Speak: {self.current.rts}", cards=self._peer_cards(station),
                         status=later, footer=choice, menu=True)

    def _result_view(self, station: int) -> RoundView:
        done = self.last
        footer = self._scores(station)
        if done.fact is None:
            heading = (fitting(lambda w: "Draw: " + ", ".join(abbreviate(self._name(p, station), w)
                                                               for p in done.draw), COLUMNS - 1)
                       if done.draw else "Nobody spoke: void")
            status = self.round_late_note or self._too_close() or self._later(station)
            return RoundView(heading, cards=self._peer_cards(station), status=status, footer=footer, more=True)
        said = VERDICT_LABELS[done.fact] + (f" {done.value}" if done.value is not None else "")
        points = done.points[done.claimer]
        verdict = f" +{points}" if done.correct else "? No"
        cards = tuple((self._name(p, station), c) for p, c in enumerate(done.cards))
        name = self._name(done.claimer, station)
        status = self.round_late_note or self._later(station) or self._nobody_else()
        if self.match.options.coach and station == done.claimer:
            from ..bots.triangle import advice_for_round  # the coach's brain: only for a game with the coach

            status = coach_line(advice_for_round(self.match.state, len(self.match.state.history) - 1))
        return RoundView(fitting(lambda w: f"{abbreviate(name, w)}: {said}{verdict}", COLUMNS - 1), cards=cards,
                         status=status, footer=footer, more=True)

    def end_view(self) -> EndView:
        outcome = self.match.outcome
        winners = [self.names[p] for p in outcome.winners]
        ending = " wins" if len(winners) == 1 else " win"
        heading = fitting(lambda w: " and ".join(abbreviate(n, w) for n in winners) + ending, COLUMNS - 1)
        scores = scores_line(self.names, outcome.scores)
        if self.match.options.settlement:
            rows = tuple(fitting(lambda w: f"{abbreviate(self.names[payer], w)} pays "
                                           f"{abbreviate(self.names[payee], w)} {amount}" if amount
                                 else f"{abbreviate(self.names[payer], w)}, {abbreviate(self.names[payee], w)}: even",
                                 COLUMNS - 1)
                         for payer, payee, amount in settlement(outcome.scores))
        else:
            turns = self.match.state.turns_done
            rows = (f"after {turns} turn{'s' if turns > 1 else ''}", "", "ok: back to lobby")
        return EndView(heading, scores, rows)

    def aid_view(self, station: int) -> AidView:
        """The cards of the latest turn this player has seen; the current round's peers count
        only once the countdown has reached 0."""
        state = self.match.state
        seen = [0] * len(VALUES)
        for r in state.turn_rounds():
            if r is self.current and self.count > 0:
                continue
            for card in r.seen_by(station):
                seen[card - 1] += 1
        return AidView(state.latest_turn, tuple(seen))

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
