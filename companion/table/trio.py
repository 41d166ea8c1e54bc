"""Three-player Pictionary at the table: the box is the word source, the timer and the scorer.

A round: the artist's station shows the word (``left`` asks for another, if allowed) and the
timer starts on the artist's ``ok``. From the second round on, the new artist first sees how the
last round ended and its word, as the guessers do; their ``ok`` then shows them their own word. Every station counts down; the buzzer ticks through the last
ten seconds and sounds the alarm at zero. A guesser calls out a guess and slaps; the artist hears
it and judges it with ``ok`` (right) or ``left`` (wrong). A wrong guess does not stop the round.

Claims are judged in the order of their slaps' edge times, never in the order they reached the
box: a claim is put to the artist only once the watermark says every slap up to ``first claim +
tie window`` has arrived. The other guesser's claim within that window is simultaneous: the
artist judges both, and if both are right only the artist scores. A guesser has one claim at a
time; slaps while it waits, or before their last wrong guess was judged, are not new claims.

A slap made before the timer ran out is judged even after the alarm; the round times out once
the watermark has passed the deadline and no claim is left.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from PIL import Image

from ..games.base import IllegalAction
from ..games.trio import strict_leader
from ..arbiter.inputs import InputEvent
from ..screens.canvas import abbreviate, fitting
from ..screens.trio import TrioView, screen
from ..words.wordlist import WordListError
from .game import RACE, YOUR_TURN, GameTable

log = logging.getLogger(__name__)

SECOND_NS = 1_000_000_000
LAST_SECONDS = 10
"""The buzzer ticks once a second through these last seconds."""


def clock(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


class TrioTable(GameTable):
    game = "trio"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        options = self.match.options
        self.round_s = options.seconds
        self.tie_window_ns = options.tie_window_ms * 1_000_000
        self.problem = ""
        """Why no word could be drawn from the players' word file (logged; the screens say
        which file to check)."""
        self._new_round()
        self._draw_word()
        if self.match.state.timing:  # resumed: the timer line is the journal's last line
            self.deadline_ns = self.now_ns + self.round_s * SECOND_NS

    @property
    def last_word(self) -> str:
        """The word of the last round that ended ("" before the first)."""
        ended = self.match.state.ended
        return ended[3] or "" if ended else ""

    @property
    def result(self) -> tuple[str, str]:
        """How the last round ended, for the guessers until the next timer starts: from the
        match, so a resumed game says it too."""
        ended = self.match.state.ended
        if ended is None:
            return "", ""
        kind, artist, guesser, word = ended
        names = self.names
        if kind == "guessed":
            headline = fitting(lambda w: f"{abbreviate(names[guesser], w)} guessed it!")
        elif kind == "both_guessed":
            headline = fitting(lambda w: f"Tie! {abbreviate(names[artist], w)} +1")
        elif kind == "correct":
            headline = "Undone: no points"
        else:
            headline = "Time up! It was:"
        return headline, word or ""

    def _new_round(self) -> None:
        self.deadline_ns: int | None = None
        """None until the artist starts the timer."""
        self.remaining = self.round_s
        self.claims: dict[int, int] = {}
        """Guesser -> edge time of their claim waiting to be put to the artist."""
        self.judging: tuple[int, ...] = ()
        """Claims put to the artist, in edge-time order; two are simultaneous."""
        self.tie = False
        self.judging_since_ns = 0
        self.correct: list[int] = []
        self.wrong_at: dict[int, int] = {}
        """Guesser -> when their last claim was judged wrong: earlier slaps are spent."""
        self.last_wrong: int | None = None
        """The guesser the artist last judged wrong, while the artist may still correct it."""
        self.slaps: dict[int, int] = {}
        """Guesser -> edge time of their claim last put to the artist (the table screen's race)."""
        self.artist_told = self.match.state.ended is None
        """Whether the artist has seen how the last round ended (their ``ok`` turns from it to
        their word); True in the first round, which follows none."""

    def _draw_word(self) -> None:
        try:
            while self.match.needs_chance:
                self.match.draw_chance()
        except WordListError as e:
            log.warning("%s", e)
            self.problem = str(e)
            self.cues.append("illegal")

    # Inputs

    def on_input(self, event: InputEvent) -> None:
        state = self.match.state
        if not event.pressed or self.problem:
            return
        if event.key == "right" and self._correct(event):
            return
        if event.station == state.artist:
            self._artist_press(event)
        elif event.key == "slap" and event.station in state.guessers and self.deadline_ns is not None:
            self._claim(event)

    def _artist_press(self, event: InputEvent) -> None:
        if self.deadline_ns is None and not self.artist_told:
            if event.key == "ok":
                self.changed(event)
                self.artist_told = True
        elif self.deadline_ns is None:
            if event.key == "ok":
                self.changed(event)
                self.match.act({"action": "timer"})
                self.deadline_ns = event.t_ns + self.round_s * SECOND_NS
                self.cues.append("go")
            elif event.key == "left" and self.match.options.allow_new_word:
                self.changed(event)
                self.match.act({"action": "new_word"})
                self._draw_word()
        elif event.key in ("ok", "left") and self.judging and event.t_ns >= self.judging_since_ns:
            self._judge(event, right=event.key == "ok")

    def corrector(self) -> int | None:
        """Who may take back the last judgement with ``right`` now: the artist who judged a guess
        right, until the next timer starts; or the artist who just judged a guess wrong, while
        nothing else is being judged in that round."""
        state = self.match.state
        if self.deadline_ns is None:
            return state.judged[0] if state.judged is not None else None
        return state.artist if self.last_wrong is not None and not self.judging else None

    def takeback_refusal(self, seat: int) -> str | None:
        """The artist's take-back is the judgement correction: allowed to :meth:`corrector`."""
        if seat == self.corrector():
            return None
        if self.match.outcome is not None:
            return "the game is over"
        return "only the artist's last judgement can be taken back"

    def takeback_word(self, seat: int) -> str:
        return "a judgement"

    def take_back(self, seat: int, event: InputEvent) -> str:
        """Journaled as the game's own correction (``correct``, or ``guessed`` for a guess judged
        wrong), as with ``right``: a judgement right taken back is scored as if time ran out, since
        the next word is out."""
        refusal = self.takeback_refusal(seat)
        if refusal is not None:
            raise IllegalAction(refusal)
        self.now_ns = max(self.now_ns, event.t_ns)
        self._correct(replace(event, station=seat))
        return "a judgement"

    def _correct(self, event: InputEvent) -> bool:
        if event.station != self.corrector():
            return False
        self.changed(event)
        if self.deadline_ns is not None:  # the guess judged wrong was right after all
            guesser, self.last_wrong = self.last_wrong, None
            self.wrong_at.pop(guesser, None)
            self.claims.pop(guesser, None)
            self._end_round(event.t_ns, {"action": "guessed", "player": guesser})
            return True
        self.match.act({"action": "correct"})
        self.cues.append("wrong")
        self._draw_word()
        return True

    def _claim(self, event: InputEvent) -> None:
        station, t = event.station, event.t_ns
        if t >= self.deadline_ns or t < self.wrong_at.get(station, t) or station in self.judging:
            return
        self.claims[station] = min(t, self.claims.get(station, t))

    def _judge(self, event: InputEvent, right: bool) -> None:
        guesser, self.judging = self.judging[0], self.judging[1:]
        self.last_wrong = None if right else guesser
        if right:
            self.correct.append(guesser)
        else:
            self.wrong_at[guesser] = event.t_ns
            self.cues.append("wrong")
        if self.judging:
            return
        if len(self.correct) == 2:
            self._end_round(event.t_ns, {"action": "both_guessed"})
        elif self.correct:
            self._end_round(event.t_ns, {"action": "guessed", "player": self.correct[0]})

    def _end_round(self, t_ns: int, action: dict[str, Any]) -> None:
        self.since_ns = self.now_ns = t_ns
        self.match.act(action)
        kind = action["action"]
        if self.match.outcome is not None:
            self.cues.append("win")
            return
        if kind != "timeout":
            self.cues.append("correct")
        self._new_round()
        self._draw_word()

    # Time

    def tick(self, now_ns: int, watermark_ns: int) -> bool:
        if self.deadline_ns is None or self.match.outcome is not None:
            return False
        changed = False
        remaining = max(0, -((now_ns - self.deadline_ns) // SECOND_NS))
        if remaining < self.remaining:
            self.remaining = remaining
            changed = True
            if remaining == 0:
                self.cues.append("time_up")
            elif remaining <= LAST_SECONDS:
                self.cues.append("last_seconds")
        if self.claims and not self.judging:
            first = min(self.claims.values())
            if watermark_ns >= first + self.tie_window_ns:
                self.judging = tuple(sorted((s for s, t in self.claims.items()
                                             if t - first < self.tie_window_ns),
                                            key=lambda s: (self.claims[s], s)))
                self.slaps.update(self.claims)
                self.claims = {s: t for s, t in self.claims.items() if s not in self.judging}
                self.tie = len(self.judging) > 1
                self.judging_since_ns = now_ns
                self.cues.append("tie" if self.tie else "decided")
                changed = True
        if not self.claims and not self.judging and watermark_ns >= self.deadline_ns:
            self._end_round(now_ns, {"action": "timeout"})
            changed = True
        return changed

    def wakeup_ns(self) -> int | None:
        if self.deadline_ns is None or self.match.outcome is not None:
            return None
        times = []
        if self.remaining > 0:
            times.append(self.deadline_ns - (self.remaining - 1) * SECOND_NS)
        if self.claims and not self.judging:
            times.append(min(self.claims.values()) + self.tie_window_ns)
        elif not self.judging:
            times.append(self.deadline_ns)
        return min(times, default=None)

    def waiting_on(self, seat: int) -> str:
        """The artist's turn to read the word and start the timer, and to judge a guess; a
        guesser's race to slap a guess while the timer runs."""
        state = self.match.state
        if self.match.outcome is not None or self.problem or seat >= len(self.names):
            return ""
        if seat == state.artist:
            return YOUR_TURN if self.deadline_ns is None or self.judging else ""
        timing = self.deadline_ns is not None and not self.judging
        return RACE if timing and seat in state.guessers and seat not in self.wrong_at else ""

    def lights(self) -> dict[int, str]:
        """The guesser the artist is judging, or both of a simultaneous pair blinking."""
        return {p: "blink" if self.tie else "on" for p in self.judging}

    # Screens

    def view(self, station: int) -> TrioView:
        state = self.match.state
        names = self.names
        outcome = self.match.outcome
        if outcome is not None:
            winner = outcome.winners[0]
            return TrioView(names, state.scores, winner, fitting(lambda w: f"{abbreviate(names[winner], w)} wins!"),
                            lines=(fitting(lambda w: f"{abbreviate(names[winner], w)} guessed it:"), self.last_word),
                            footer="ok: back to lobby")
        if self.problem:
            return TrioView(names, state.scores, None, "No words to draw",
                            lines=("Check the word file", Path(self.match.options.word_file).name),
                            footer="hold left+right: quit")
        artist = state.artist
        timing = self.deadline_ns is not None
        view = TrioView(
            names, state.scores, artist,
            heading="You draw" if station == artist else f"{abbreviate(names[artist], 9)} draws",
            clock=clock(self.remaining), hurry=timing and self.remaining <= LAST_SECONDS,
            eligible=state.eligible, leader=strict_leader(state.scores),
        )
        if station == artist and not self.artist_told and not timing:
            return replace(view, heading="You draw next", lines=self.result, footer="ok: your word")
        if station == artist:
            return self._artist_view(view, state.word)
        return replace(view, lines=self._guesser_lines(station))

    def _artist_view(self, view: TrioView, word: str) -> TrioView:
        """The word, and what the artist's keys do now; a claim to judge takes the heading."""
        heading = view.heading
        if self.deadline_ns is None:
            line = "ok:start  left:new" if self.match.options.allow_new_word else "ok: start the timer"
        elif self.judging:
            name = self.names[self.judging[0]]
            heading = fitting(lambda w: ("Tie: " if self.tie else "Is ") + f"{abbreviate(name, w)} right?", 15)
            line = "ok: yes   left: no"
        elif self.corrector() == self.match.state.artist:
            line = ">: call it right"  # the right key undoes the "wrong" just given
        else:
            line = "Time up!" if self.remaining == 0 else ""
        return replace(view, heading=heading, word=word, lines=(line,))

    def _guesser_lines(self, station: int) -> tuple[str, str]:
        names = self.names
        if self.deadline_ns is None:
            if station == self.corrector():
                return self.result[0], ">: call it wrong"  # the right key undoes the "right"
            if self.result[0]:
                return self.result
            if station >= len(names):  # a station that watches guesses nothing
                return fitting(lambda w: f"{abbreviate(names[self.match.state.artist], w)} reads the word"), ""
            return "Get ready to guess", ""
        if station in self.correct:
            mine = "You were right!"
        elif station in self.judging:
            mine = "Your guess: judging"
        elif station in self.claims:
            mine = "Your guess: wait"
        elif self.remaining == 0:
            mine = "Time up!"
        elif station in self.wrong_at:
            mine = "Wrong! Guess again"
        else:
            mine = "Slap to guess!" if station < len(names) else ""
        public = ""
        if len(self.judging) > 1:
            public = "Tie: judging both"
        elif self.judging and self.judging[0] != station:
            public = f"Judging {abbreviate(names[self.judging[0]], 12)}"
        return mine, public

    def screen(self, station: int) -> Image.Image:
        return screen(self.view(station))
