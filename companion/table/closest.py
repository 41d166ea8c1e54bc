"""The closest-number game at the table: the start race, secret decoys, the scoring screen.

**Start race** (option ``start`` 17x34 or products): every station shows a product and four
answers, one per button (``left``, ``ok``, ``right`` as they sit, then ``slap``). The first right
answer by edge time starts round 1; a wrong answer knocks that player out of the race (a
:class:`~companion.arbiter.race.Race` with :meth:`~companion.arbiter.race.Race.knock_out`, decided on the
watermark). An answer before the player's own panel showed the question (the screens of a race
are revealed together, :meth:`~.game.GameTable.reveal`) is a false start, right or wrong: it
neither counts nor knocks out, and once the question shows, the panel says "Too early!" for a
while. Right answers within the tie window are a tie: the tied players get a new product
among themselves. If everyone answers wrong, everyone gets a new product. The questions are the
table's own chance and are not journaled; the journal records who starts (``start``).

**Placing**: the mover's station lights a free number (``left``/``right`` move, ``ok`` picks).
In round 2 and later the first card of each player then asks, on that station only, whether it
counts or is the decoy (``left``/``right``, ``ok`` places, ``slap`` goes back); the second card
is whatever the first was not. Other stations see every card as a plain shape, hear the same cue
and read the same words whatever the choice: a decoy is hollow only on its owner's station
until the round is scored.

**Scoring**: every station shows the round's cards with the decoys revealed, who won each number
and the totals; ``ok`` on any station goes on to the next round. After the last round this is
the end screen, with the winner in its title.
"""

from __future__ import annotations

import random
from dataclasses import replace

from PIL import Image

from ..games.base import IllegalAction
from ..games.closest import ClosestState, ScoredRound
from ..arbiter.inputs import InputEvent
from ..record.journal import race_question
from ..arbiter.latepress import LateNote
from ..arbiter.race import READING_NS, Race, RaceResult
from ..screens.canvas import abbreviate, fitting
from ..screens.closest import LineView, QuestionView, number_line, question
from .game import RACE, YOUR_TURN, GameTable, Message

ANSWER_KEYS = ("left", "ok", "right", "slap")
"""The buttons in the order the answers are shown."""
SEED_QUESTION = (17, 34)


def product(rng: random.Random) -> tuple[int, int]:
    """A two-digit product to work out in one's head."""
    return rng.randint(12, 19), rng.randint(21, 49)


def answers(a: int, b: int, rng: random.Random) -> tuple[int, int, int, int]:
    """The right answer among three near misses with the same last digit, shuffled."""
    right = a * b
    misses = [right + d for d in (-100, -20, -10, 10, 20, 100) if right + d > 0]
    shown = [right] + rng.sample(misses, 3)
    rng.shuffle(shown)
    return tuple(shown)


class ClosestTable(GameTable):
    game = "closest"
    message = Message()
    """The line under the question or the number line: who starts, a tie, an illegal move."""
    takeback_words = {"place": "a card"}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rng = random.Random(self.match.seed)
        self.race: Race | None = None
        self.last_race: RaceResult | None = None
        """The start race last decided (a tie too), for the table screen's timeline."""
        self.question: tuple[int, int] | None = SEED_QUESTION
        """The start race's question; None in a resumed game whose journal does not name it."""
        self.answers: tuple[int, int, int, int] = (0, 0, 0, 0)
        self.out: set[int] = set()
        """Stations whose wrong answer has arrived, told so on their own panel."""
        self.message = ""
        self.cursor = 0
        self.picked: int | None = None
        """The number the mover picked, while they choose whether it is their decoy."""
        self.decoy = False
        self.showing: ScoredRound | None = None
        """The round on the scoring screen, until someone presses ok."""
        self.lit: dict[int, str] = {}
        """The start race's winner (on) or tied players (blinking), until the first card."""
        start = self.match.options.start
        if self.state.starter is not None:
            self._pick_up(start)
        elif start == "random":
            self._start(self.rng.randrange(len(self.names)), "drawn at random")
        else:
            self.open_race(self.now_ns)

    def after_takeback(self, seat: int) -> None:
        """The mover taking back a card picks again from the first free number (a decoy asked
        again: the words everyone reads are the same whichever it was). The game's first card
        taken back shows again who starts; a later round's first card, that round waiting for
        it ("Round 2: your turn"), not the last round's scores the players had already left."""
        self.cursor = 0
        self.picked = None
        self.decoy = False
        self.message = ""
        if not self.state.scored:
            self._pick_up(self.match.options.start)

    def open_race(self, opens_ns: int) -> None:
        """The start race from its first product, for everyone: a new game's, and a resumed
        game's whose race was not decided (its tie-breaks and new products are not journaled, so
        it is run again from the start, drawing the same products)."""
        self.rng = random.Random(self.match.seed)
        first = SEED_QUESTION if self.match.options.start == "17x34" else product(self.rng)
        self._ask(first, range(len(self.names)), opens_ns)

    def _pick_up(self, start: str) -> None:
        """A game whose starter is known (seat 1 starts, or resumed from its journal) shows what
        the uninterrupted table would: who starts (lit, if they won the race) until the first
        card, the last round's scores until ``ok`` (again, if the players had left them before
        the box stopped), else the round being played."""
        state = self.state
        if state.cards:
            return
        if state.scored:
            self.showing = state.scored[-1]
            return
        how = {"random": "drawn at random", "seat1": "starts"}.get(start, "answered first")
        self.message = lambda: fitting(lambda w: f"{abbreviate(self.names[state.starter], w)} {how}")
        if start not in ("random", "seat1"):
            self.lit = {state.starter: "on"}

    def resume_race(self, line: dict) -> None:
        """The start race as its journal line tells it, with the question it answered (the
        products are the table's own draw, and the tie-breaks before it are not journaled)."""
        super().resume_race(line)
        self.question = race_question(line)  # None: an older or hand-written journal, the timeline alone

    @property
    def state(self) -> ClosestState:
        return self.match.state

    # --- the start race ---------------------------------------------------------------------

    def _ask(self, numbers: tuple[int, int], contenders, opens_ns: int) -> None:
        self.question = numbers
        self.answers = answers(*numbers, self.rng)
        right = ANSWER_KEYS[self.answers.index(numbers[0] * numbers[1])]
        window = self.match.options.tie_window_ms * 1_000_000
        self.race = Race(opens_ns, window, contenders, key=right, revealed=True, reading_ns=READING_NS)
        self.reveal(self.race)
        self.out = set()
        self.since_ns = opens_ns

    def _answer(self, event: InputEvent) -> None:
        if event.station not in self.race.stations:
            return
        if event.key == self.race.key:
            self.race.press(event)
        elif self.race.knock_out(event.station, event.t_ns) == "knocked_out":
            self._knocked_out(event.station)

    def _knocked_out(self, station: int) -> None:
        if station not in self.out:
            self.out.add(station)
            self.cues.append("wrong")

    def revealed(self, onsets: dict[int, int], light: dict[int, int] | None = None,
                 errors: dict[int, int] | None = None) -> bool:
        """The question's onsets: a wrong answer made between the race's opening and them knocks
        its player out only if it came after their own onset (before, it is a false start)."""
        race = self.revealing
        changed = super().revealed(onsets, light, errors)
        for seat in sorted(race.stations) if race is not None else ():
            if race.knocked_out(seat) and seat not in self.out:
                self._knocked_out(seat)
                changed = True
        return changed

    def waiting_on(self, seat: int) -> str:
        """The start race (a tie-break's to its tied players), until the seat's answer is in; the
        mover's turn to place a card."""
        if self.match.outcome is not None or seat >= len(self.names):
            return ""
        if self.race is not None:
            return RACE if seat in self.race.stations and seat not in self.out else ""
        return YOUR_TURN if self.showing is None and seat == self.state.mover() else ""

    def lights(self) -> dict[int, str]:
        return self.lit

    def tick(self, now_ns: int, watermark_ns: int) -> bool:
        if self.race is None:
            return False
        told = self.told_early_ends(self.now_ns, now_ns)
        self.now_ns = now_ns
        result = self.race.decide(watermark_ns)
        self.last_race = result or self.last_race
        if result is not None and not result.tie:
            self.now_ns = self.since_ns = now_ns
            (winner,) = result.winners
            self._start(winner, "answered first")
            self.lit = {winner: "on"}
            self.cues.append("decided")
        elif result is not None:
            tied = sorted(result.winners)
            self.judged(self.race)
            self._ask(product(self.rng), tied, now_ns)
            self.message = lambda: fitting(lambda w: "Tie: " + " & ".join(abbreviate(self.names[p], w)
                                                                         for p in tied) + " again")
            self.lit = {p: "blink" for p in tied}
            self.cues.append("tie")
        elif self.race.nobody_can_win(watermark_ns):
            self._ask(product(self.rng), self.race.stations, now_ns)
            self.message = "All wrong: new one"
            self.cues.append("wrong")
        else:
            return told  # a "Too early!" told after the question showed goes
        return True

    def wakeup_ns(self) -> int | None:
        if self.race is None:
            return None
        return min((t for t in (self.race.decision_due_ns, self.told_early_due_ns()) if t is not None), default=None)

    def straggler(self, race: Race, event: InputEvent) -> None:
        """A right answer after the decided race is a press, any other answer a wrong one."""
        if event.key == race.key:
            race.press(event)
        elif event.key in ANSWER_KEYS:
            race.knock_out(event.station, event.t_ns)

    def late_press(self, note: LateNote, now_ns: int) -> None:
        """Said where the outcome of the start race is said, until the first card."""
        super().late_press(note, now_ns)
        if not self.state.cards:
            self.message = self.late_note

    def _start(self, player: int, how: str) -> None:
        self.act_after(self.race, {"action": "start", "player": player}, question=list(self.question))
        self.race = None
        self.message = lambda: fitting(lambda w: f"{abbreviate(self.names[player], w)} {how}")

    # --- placing cards ------------------------------------------------------------------------

    def on_input(self, event: InputEvent) -> None:
        if not event.pressed:
            return
        if self.race is not None:
            self._answer(event)
        elif self.showing is not None:
            if event.key == "ok":
                self.changed(event)
                self.showing = None
                self.message = ""
        elif event.station == self.state.mover():
            self._choose(event)

    def _choose(self, event: InputEvent) -> None:
        step = {"left": -1, "right": 1}.get(event.key, 0)
        if self.picked is None:
            free = self.state.free()
            if step:
                self.cursor = (self.cursor + step) % len(free)
            elif event.key == "ok":
                self.changed(event)
                number = free[self.cursor % len(free)]
                rule = self.state.decoy_rule(event.station)
                if rule is None:
                    self.picked, self.decoy = number, False
                else:
                    self._place(number, rule)
        elif step:
            self.decoy = not self.decoy
        elif event.key == "ok":
            self.changed(event)
            self._place(self.picked, self.decoy)
        elif event.key == "slap":
            self.picked = None

    def _place(self, number: int, decoy: bool) -> None:
        self.lit = {}
        rounds = len(self.state.scored)
        try:
            self.match.act({"action": "place", "player": self.state.mover(), "number": number,
                            "decoy": decoy})
        except IllegalAction as e:
            self.message = str(e)
            self.cues.append("illegal")
            return
        self.cursor, self.picked, self.message = 0, None, ""
        if len(self.state.scored) == rounds:
            self.cues.append("move")
            return
        self.showing = self.state.scored[-1]
        outcome = self.match.outcome
        if outcome is None:
            self.cues.append("decided")
        else:
            self.cues.append("win" if len(outcome.winners) == 1 else "draw")

    # --- what each station sees ------------------------------------------------------------------

    def view(self, station: int) -> QuestionView | LineView:
        me = station if station < len(self.names) else None
        if self.race is not None:
            return QuestionView(f"{self.question[0]} x {self.question[1]} = ?", self.answers,
                                self._race_prompt(me))
        if self.showing is not None:
            return self._scoring_view(me)
        return self._play_view(me)

    def _race_prompt(self, me: int | None) -> str:
        if me in self.out:
            return "Wrong: you're out"
        if me is not None and self.too_early(me):
            return "Too early!"
        tie_break = len(self.race.stations) < len(self.names)
        if tie_break and me not in self.race.stations:
            return fitting(lambda w: "Tie-break: " + " & ".join(abbreviate(self.names[p], w)
                                                                for p in sorted(self.race.stations)))
        return self.message or "First right answer"

    def _scoring_view(self, me: int | None) -> LineView:
        played = self.showing
        outcome = self.match.outcome
        if outcome is None:
            heading = f"Round {played.round}: all count" if played.decoys_count else f"Round {played.round} scores"
        elif len(outcome.winners) == 1:
            heading = fitting(lambda w: f"{abbreviate(self.names[outcome.winners[0]], w)} wins!", 20)
        else:
            heading = fitting(lambda w: " & ".join(abbreviate(self.names[p], w) for p in outcome.winners) + " win", 20)
        return LineView(
            title=heading, line=played.line,
            cards=tuple((c.number, c.player, c.decoy) for c in played.cards),
            names=self.names, totals=self.state.totals, me=me,
            verdicts=played.verdicts, points=played.points,
        )

    def _play_view(self, me: int | None) -> LineView:
        state = self.state
        mover = state.mover()
        title = f"Round {state.round}: your turn" if mover == me else \
            fitting(lambda w: f"Round {state.round}: {abbreviate(self.names[mover], w)}'s turn")
        view = LineView(
            title=title, line=state.line,
            cards=tuple((c.number, c.player, c.decoy and c.player == me) for c in state.cards),
            names=self.names, totals=state.totals, me=me, prompt=self.message,
        )
        if mover != me:
            return view
        free = state.free()
        number = free[self.cursor % len(free)] if self.picked is None else self.picked
        rule = state.decoy_rule(me)
        if self.picked is not None:
            return replace(view, cursor=(number, me, self.decoy), menu=("counts", "decoy"),
                         selected=int(self.decoy))
        prompt = {None: "</>: pick  ok: place", True: "This one: your decoy",
                  False: "This one counts" if state.round > 1 else "</>: pick  ok: place"}[rule]
        return replace(view, cursor=(number, me, bool(rule)), prompt=prompt)

    def screen(self, station: int) -> Image.Image:
        view = self.view(station)
        return question(view) if isinstance(view, QuestionView) else number_line(view)
