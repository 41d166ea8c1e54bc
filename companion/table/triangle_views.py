"""What each station sees of a Triangle round: the two peers' cards (never its own), the
countdown, who slapped and how much later, the claimer's fact menu, the verdict and the scores,
the end screen with its settlement, the counting aid and the coach.

Separate from refereeing the round (:mod:`.triangle`) because it decides what each player may
*see*, and nothing else: a round's secrets stay secret here, screen by screen, and the table
screen's public view reads the same labels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..games.options import SCREEN_TIE_WINDOW_MS
from ..games.triangle import FACTS, PLAYERS, POINTS, VALUES, peers, settlement
from ..record import seats
from ..screens.canvas import COLUMNS, WIDTH, abbreviate, fitting, measure
from ..screens.triangle import AidView, EndView, RoundView, scores_line

if TYPE_CHECKING:
    from ..bots.triangle import Advice

MS = 1_000_000
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


def tenths(left_ns: int) -> int:
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


def others_gained(done) -> str:
    """What a false statement gave the other players, ``the others +3 each``: the verdict says
    only "? No", and the rules page, the panels and the table screen say it in these words.
    Empty for a true statement (the verdict shows its points) and a round nobody stated in."""
    if done.fact is None or done.correct:
        return ""
    (gain,) = {pts for p, pts in enumerate(done.points) if p != done.claimer}
    return f"the others +{gain} each"


class TriangleViews:
    """The Triangle table's part that makes each station's view of the round and the end."""

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

        def line(width: int) -> str:  # two spaces between players, one if that is what fits
            spaced = "  ".join(f"{abbreviate(name, width)} +{d}" for name, d in later)
            return spaced if measure(spaced) <= WIDTH else " ".join(
                f"{abbreviate(name, width)} +{d}" for name, d in later)
        return fitting(line)

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
            return f"{said} wait {tenths(end - self.now_ns) / 10:.1f}s"
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
        status = self.round_late_note or others_gained(done) or self._later(station) or self._nobody_else()
        if self.match.options.coach and station == done.claimer:
            from ..bots.triangle import advice_for_round  # the coach's brain: only for a game with the coach

            status = coach_line(advice_for_round(self.match.state, len(self.match.state.history) - 1))
        return RoundView(fitting(lambda w: f"{abbreviate(name, w)}: {said}{verdict}", COLUMNS - 1), cards=cards,
                         status=status, footer=footer, more=True)

    def end_view(self) -> EndView:
        outcome = self.match.outcome
        winners = [self.names[p] for p in outcome.winners]
        ending = " wins" if len(winners) == 1 else " win"
        heading = fitting(lambda w: _listed([abbreviate(n, w) for n in winners]) + ending, COLUMNS - 1)
        scores = scores_line(self.names, outcome.scores)
        bots = [fitting(lambda w: f"{abbreviate(self.names[p], w)}: {seats.short_flag(*self.bot_played[p])}",
                        COLUMNS - 1) for p in sorted(self.bot_played)]
        if self.match.options.settlement:
            rows = tuple(fitting(lambda w: f"{abbreviate(self.names[payer], w)} pays "
                                           f"{abbreviate(self.names[payee], w)} {amount}" if amount
                                 else f"{abbreviate(self.names[payer], w)}, {abbreviate(self.names[payee], w)}: even",
                                 COLUMNS - 1)
                         for payer, payee, amount in settlement(outcome.scores))
            rows = rows + tuple(bots[:3 - len(rows)])
        else:  # the seats a bot took over where the empty line was; from two, the turns' line's
            turns = self.match.state.turns_done  # and for three, ok's (the title's arrow says it too)
            lead = [f"after {turns} turn{'s' if turns > 1 else ''}"] if len(bots) < 2 else []
            rows = (*lead, *(bots or [""]), "ok: back to lobby")[:3]
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


def _listed(names: list[str]) -> str:
    """``Ana and Ben``; ``Ana, Ben and Cy``: three winners fit the title bar."""
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
