"""Quiz night at the table: the host's panel and keys, the buzzer race, early presses, timers.

Seat 0 is the host (chosen on "Who plays?"; the first station when every station plays). The
host reads a question aloud, then **arms** with ``slap``: the box sounds the ``go`` cue and the
race opens at it, on every panel at once (a race that opens with a screen change,
:meth:`~.game.GameTable.reveal`: each station is timed from its own panel's onset; a bare
buzzer without a panel from the opening). Players buzz with ``slap``; the race is decided by
edge times on the watermark (:class:`~companion.arbiter.race.Race`), never by arrival, and
journaled as ``buzz`` with the press order, one press per team (a team mate's later press is
shown, not counted).

**Early presses** (before the cue, or before the player's own panel showed it): with the option
``early = "lockout"`` each one locks its player out for ``lockout_ms`` from that press (another
early press locks again), as on Jeopardy!; with ``early = "prelock"`` its player is out of the
question, re-opens included, until the next question: the table journals it (``early``), so the
match keeps it (:attr:`~companion.games.quiz.QuizState.prelocked`) and a resume too. The
player's panel says so, and their light blinks while they are locked.

**Host keys** (also on the host's bottom line and in the rules pages):
- between questions: ``slap`` arms the next question, ``ok`` opens the score corrections;
- buzzers armed: ``right`` skips the question (nobody knows);
- a player answers: ``ok`` right, ``left`` wrong, ``right`` skip;
- a tie (option ``tie = "host"``): ``left``/``right`` choose among the tied, ``ok`` picks;
- after a wrong answer with nobody left in the press order: ``slap`` re-opens the buzzers for
  the rest, ``right`` skips, ``ok`` opens the corrections;
- corrections: ``left``/``right`` choose a player, ``ok`` edits, then ``left``/``right`` -1/+1,
  ``ok`` saves (a ``correct`` line, shown to all), ``slap`` goes back.

With ``answer_s`` the answering player's buzzer ticks every second; the host judges before it
runs out, or the box writes ``timeout`` (counted wrong). The answering player's light is on; the
players of a tie blink until it is settled.

Resume: a question whose race was not decided is armed again by the box at the resume (the cue
sounds again); prelocks stay (they are journaled), a lockout's early presses before the crash are
forgotten (their ``lockout_ms`` is long over); an answer timer starts again full.
What each station sees is :mod:`.quiz_views`; the host's phone, its page and keys, :mod:`.quiz_host`.
"""

from __future__ import annotations

import logging

from PIL import Image

from ..arbiter.inputs import InputEvent
from ..arbiter.race import Race, RaceResult
from ..games.quiz import HOST, QuizState, prelocking
from ..games.quiz_packs import Pack, PackError, read_pack
from ..record.quiz_night import night_races
from ..screens.quiz import quiz_screen
from .game import RACE, YOUR_TURN, GameTable
from .quiz_host import QuizHostPhone
from .quiz_views import MS, S, QuizViews, delay_ms

PRELOCK_NS = 24 * 3600 * S
"""The race's lockout under the option ``prelock``: longer than any question."""

log = logging.getLogger(__name__)


def _open_pack(path: str | None) -> tuple[Pack | None, str]:
    """The night's pack, read when it starts (and again at a resume, for the questions not yet
    asked); a pack that no longer reads is said to the host, and the night plays on without it."""
    if path is None:
        return None, ""
    try:
        return read_pack(path), ""
    except PackError as e:
        log.warning("the quiz plays without its pack: %s", "; ".join(e.problems))
        return None, "Pack unreadable"


class QuizTable(QuizHostPhone, QuizViews, GameTable):
    game = "quiz"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        options = self.match.options
        self.window_ns = options.tie_window_ms * MS
        self.prelock = options.early == "prelock"
        self.lockout_ns = PRELOCK_NS if self.prelock else options.lockout_ms * MS
        self.pack, self.pack_trouble = _open_pack(options.pack)
        self.races: list[tuple[int, dict]] = []
        """(question, journal line) of every race decided tonight: the night's story at the end."""
        self.race: Race | None = None
        self.result: RaceResult | None = None
        """The race of this question decided last, while the question lasts (its later presses too)."""
        self.waiting: list[InputEvent] = []
        """Presses since the question (or its re-open) was last closed: early, for the next race."""
        self.early: dict[int, int] = {}
        """Seat -> until when it is told it pressed too early (``lockout``; a prelock is the match's)."""
        self.answer_due_ns: int | None = None
        self.seconds_left: int | None = None
        self.cursor = 0
        self.correcting: int | None = None
        """The seat whose score the host edits, once chosen; ``menu`` is True from ``ok``."""
        self.menu = False
        self.edit = 0
        if self.match.needs_chance:  # resumed between a tie's buzz line and its draw
            self.match.draw_chance()
        phase = self.state.phase
        if phase == "open":
            self._open_race(self.now_ns)
        elif phase == "answering":
            self._start_timer()

    @property
    def state(self) -> QuizState:
        return self.match.state

    def resumed_from(self, lines: list[bytes]) -> None:
        """The races before the crash, read again from the journal, for the night's story."""
        self.races = night_races(lines)

    # --- the race ------------------------------------------------------------------------------

    def _open_race(self, t_ns: int) -> None:
        stations = self.state.eligible()  # prelocked players are not
        self.race = Race(t_ns, self.window_ns, stations, "slap", self.lockout_ns, revealed=True)
        self.result = self.race_line = None
        for event in self.waiting:
            self._buzz(event)
        self.waiting = []
        self.reveal(self.race)
        self.cues.append("go")

    def _buzz(self, event: InputEvent) -> None:
        if self.race.press(event) in ("false_start", "locked_out"):
            self._too_early(event)
        if self.result is not None:
            self.result = self.race.decide(event.t_ns)

    def _early_before_arm(self, event: InputEvent) -> None:
        """A press while the question is read: early for the race the host opens next."""
        self.waiting.append(event)
        self._too_early(event)

    def _too_early(self, event: InputEvent) -> None:
        """An early press: its player is out until the question ends (prelock, journaled), or
        for ``lockout_ms`` from this press, each early press again (lockout)."""
        if self.prelock:
            self._prelock(event.station)
        else:
            seat = event.station
            self.early[seat] = max(self.early.get(seat, 0), event.t_ns + self.lockout_ns)

    def _prelock(self, seat: int) -> None:
        """Journal ``seat``'s prelock, unless it is out already (a prelock, a wrong answer)."""
        if prelocking(self.state) and seat in self.state.eligible():
            self.match.act({"action": "early", "player": seat})

    def revealed(self, onsets: dict[int, int], light: dict[int, int] | None = None,
                 errors: dict[int, int] | None = None) -> bool:
        """A press made before its own panel showed the cue is early too: with prelock, it is
        journaled once the onsets tell it. The table screen says the buzzers are armed only now
        (:func:`~companion.tablescreen.public.quiz_view`), so the arming race's onsets always
        change what is shown: left unsaid, the TV and the phones kept "Question N" until the next
        press."""
        race = self.revealing
        changed = super().revealed(onsets, light, errors)
        if self.prelock and race is not None and race is self.race:
            for seat in race.stations:
                if race.early(seat):
                    self._prelock(seat)
        return changed or (race is not None and race is self.race)

    def _decided(self, result: RaceResult) -> None:
        self.result = result
        counted, teams = [], set()
        for press in result.order:
            team = self.state.team(press.station)
            if team not in teams:
                teams.add(team)
                counted.append(press.station)
        tied = [p for p in counted if p in result.winners]
        if len(tied) > 1:
            action = {"action": "buzz", "players": tied, "order": counted}
        else:
            action = {"action": "buzz", "player": counted[0], "order": counted}
        self.act_after(self.race, action)
        if self.race_line is not None:
            self.races.append((self.state.question, self.race_line))
        if len(tied) > 1:
            self.cues.append("tie")
            self.cursor = 0
            if self.match.needs_chance:
                self.match.draw_chance()
        else:
            self.cues.append("decided")
        if self.state.phase == "answering":
            self._start_timer()

    def _start_timer(self) -> None:
        """The answer timer, for the question's own time from its pack, else the option's."""
        if self.state.answer_s:
            self.answer_due_ns = self.now_ns + self.state.answer_s * S
            self.seconds_left = self.state.answer_s

    # --- inputs --------------------------------------------------------------------------------

    def on_input(self, event: InputEvent) -> None:
        if not event.pressed or event.station >= len(self.names):  # a watching station buzzes nothing
            return
        if event.station == HOST:
            self._host(event)
        elif event.key == "slap" and self.state.phase != "over":
            if self.race is not None:
                self._buzz(event)
            elif self.state.phase in ("ready", "reopen"):
                self._early_before_arm(event)

    def _host(self, event: InputEvent) -> None:
        if self.paused:  # any key at the host's station goes on, and does what it does
            self.pause(event.t_ns)
        key, phase = event.key, self.state.phase
        if self.menu:
            self._corrections(event)
        elif phase in ("ready", "reopen") and key == "slap":
            self.match.act(self.arm())
            self._open_race(event.t_ns)
        elif phase in ("ready", "reopen") and key == "ok":
            self.menu, self.correcting, self.cursor = True, None, 0
        elif phase == "tie" and key in ("left", "right"):
            self.cursor = (self.cursor + (1 if key == "right" else -1)) % len(self.state.tied)
        elif phase == "tie" and key == "ok":
            self.match.act({"action": "pick", "target": self.state.tied[self.cursor % len(self.state.tied)]})
            self._start_timer()
        elif phase == "answering" and key in ("ok", "left"):
            self._judge(event, "right" if key == "ok" else "wrong")
        elif phase in ("open", "answering", "reopen") and key == "right":
            self._judge(event, "skip")

    def arm(self) -> dict:
        """The ``arm`` line: a new question's carries the pack's question it asks (``ask``), so
        the journal keeps what was asked and a replay needs no pack."""
        state = self.state
        if state.phase == "ready" and self.pack is not None and state.question < len(self.pack.questions):
            return {"action": "arm", "ask": self.pack.questions[state.question].as_dict()}
        return {"action": "arm"}

    def _judge(self, event: InputEvent | None, kind: str) -> None:
        """``right``, ``wrong``, ``timeout`` or ``skip``; then the next to answer, a re-open or
        the next question."""
        action = {"action": kind}
        if kind in ("wrong", "timeout"):
            later = self._later()
            if later:
                action["later"] = later
        self.match.act(action)
        if event is not None:
            self.changed(event)
        self.answer_due_ns = self.seconds_left = None
        self.cues.append({"right": "correct", "skip": "pass"}.get(kind, "wrong"))
        state = self.state
        if state.phase == "answering":
            self._start_timer()
        elif state.phase == "reopen":
            self.race, self.waiting = None, []
        if state.phase in ("ready", "over"):
            self._question_over()

    def _question_over(self) -> None:
        """Early presses belong to a question: the next starts with none (the match clears
        its prelocks when it closes the question)."""
        self.race = None
        self.waiting = []
        self.early = {}
        outcome = self.match.outcome
        if outcome is not None:
            self.cues.append("win" if len(outcome.winners) == 1 or self.match.options.teams else "draw")

    def _later(self) -> list[int]:
        """Counted presses after the race's verdict, one per team not in the journaled order."""
        state = self.state
        teams = {state.team(p) for p in state.order}
        out = []
        for seat, _, note in self.presses():
            if not note and state.team(seat) not in teams:
                teams.add(state.team(seat))
                out.append(seat)
        return out

    def _corrections(self, event: InputEvent) -> None:
        key = event.key
        players = list(self.state.contestants)
        if self.correcting is None:
            if key in ("left", "right"):
                self.cursor = (self.cursor + (1 if key == "right" else -1)) % len(players)
            elif key == "ok":
                self.correcting = players[self.cursor % len(players)]
                self.edit = self.state.scores[self.correcting]
            elif key == "slap":
                self.menu = False
            return
        if key in ("left", "right"):
            self.edit += 1 if key == "right" else -1
        elif key == "ok":
            if self.edit != self.state.scores[self.correcting]:
                self.match.act({"action": "correct", "target": self.correcting, "score": self.edit})
                self.changed(event)
                self.cues.append("move")
            self.correcting = None
        elif key == "slap":
            self.correcting = None

    # --- time ----------------------------------------------------------------------------------

    def tick(self, now_ns: int, watermark_ns: int) -> bool:
        before, self.now_ns = self.now_ns, now_ns
        changed = any(before < t <= now_ns for t in self.early.values()) or self.told_early_ends(before, now_ns)
        if self.race is not None and self.result is None and self.state.phase == "open":
            result = self.race.decide(watermark_ns)
            if result is not None:
                self._decided(result)
                return True
        if self.answer_due_ns is not None and self.state.phase == "answering":
            if now_ns >= self.answer_due_ns:
                self._judge(None, "timeout")
                self.cues.append("time_up")
                return True
            left = -(-(self.answer_due_ns - now_ns) // S)
            if left != self.seconds_left:
                self.seconds_left = left
                self.cues.append("tick")
                changed = True
        return changed

    def wakeup_ns(self) -> int | None:
        due = [self.told_early_due_ns()]
        due += [t for t in self.early.values() if t > self.now_ns]
        if self.race is not None and self.result is None:
            due.append(self.race.decision_due_ns)
        if self.answer_due_ns is not None:
            left = self.answer_due_ns - self.now_ns
            due.append(self.now_ns + (left % S or S) if left > 0 else self.answer_due_ns)
        return min((t for t in due if t is not None), default=None)

    def waiting_on(self, seat: int) -> str:
        """A contestant's race while the buzzers are open, their turn to answer; the host's turn
        to arm, judge or pick among the tied."""
        state = self.state
        if state.phase == "over" or seat >= len(self.names):
            return ""
        if seat == HOST:
            return YOUR_TURN if state.phase in ("ready", "reopen", "answering", "tie") else ""
        if state.phase == "open":
            return RACE if seat in state.eligible() else ""  # not a prelocked player, nor one out
        return YOUR_TURN if state.phase == "answering" and seat == state.answering else ""

    def lights(self) -> dict[int, str]:
        state = self.state
        lit = dict.fromkeys(self.told_early(), "blink")
        if state.phase == "answering":
            lit[state.answering] = "on"
        elif state.phase == "tie":
            lit.update(dict.fromkeys(state.tied, "blink"))
        return lit

    # --- what each station sees ------------------------------------------------------------------

    def screen(self, station: int) -> Image.Image:
        return quiz_screen(self.view(station))
