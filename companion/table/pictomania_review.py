"""Pictomania's reveal at the table: each station walks through every drawing's stack in guess
order, then the round's scores and the totals, and says ready for the next round; a drawer may
still declare, on their own stack's page, that they drew the wrong word.

Separate from the drawing and guessing (:mod:`.pictomania`) because nobody races here: every
station turns its own pages at its own pace, and a wrong word declared now is applied at once
and rescores the round for everyone.
"""

from __future__ import annotations

from PIL import Image

from .. import words as decks
from ..arbiter.inputs import InputEvent
from ..games.base import IllegalAction
from ..games.pictomania import RoundScore
from ..screens import pictomania as screens
from ..screens.canvas import WIDTH, abbreviate, fitting, measure
from .pictomania_station import Station


def wrong_word_screen() -> Image.Image:
    """The confirmation, while drawing and at the reveal alike."""
    return screens.choice(screens.ChoiceView("Drew the wrong word?", "ok: yes, I did", (
        "your drawing scores", "nothing; slap: back")))


class Review:
    """The Pictomania table's part that walks each station through the round's stacks and scores."""

    def may_declare_at_reveal(self, station: int) -> bool:
        """On its own stack's page, a drawer who has not said so yet may declare a wrong word."""
        seat = self.seats[station]
        return (self.phase == "review" and seat.page == station
                and station in self.match.rules.to_move(self.state))

    def _review(self, event: InputEvent, seat: Station) -> None:
        if seat.mode == "wrong":
            seat.mode = "menu"
            if event.key == "ok":
                self._declare_at_reveal(event)
            return
        if event.key == "slap" and self.may_declare_at_reveal(event.station):
            seat.mode = "wrong"
            return
        last = len(self.review_pages()) - 1
        if event.key == "left":
            seat.page = max(0, seat.page - 1)
        elif event.key in ("right", "ok") and seat.page < last:
            seat.page += 1
        elif event.key == "ok":
            seat.ready = True
            if not all(s.ready for s in self.seats):
                return
            if self.match.outcome is not None:
                self.finished = True  # everyone has seen the totals
                return
            self.changed(event)
            self._start_round()

    def _declare_at_reveal(self, event: InputEvent) -> None:
        """Applied at once: at the reveal nobody races for anything."""
        seat = self.seats[event.station]
        try:
            self.match.act({"action": "wrong_word", "player": event.station})
        except IllegalAction as e:
            seat.message = str(e)
            self.cues.append("illegal")
            return
        self.changed(event)
        self.cues.append("move")
        name = self.names[event.station]
        self.rescored = f"{name} drew the wrong word: the round is scored again without it"
        for other, s in enumerate(self.seats):  # every total may have changed: everyone is told,
            s.ready = False                      # and says ready again on the new scores
            if other != event.station:
                s.message = lambda: fitting(lambda w: f"{abbreviate(name, w)} void: rescored")

    @property
    def last_result(self) -> RoundScore:
        return self.state.results[-1]

    def review_pages(self) -> list[str]:
        """Each drawing's stack, the round's scores, and the final result after the last round."""
        if self.phase != "review":
            return []
        return ["stack"] * self.players + ["scores"] + (["final"] if self.match.outcome else [])

    def _review_screen(self, station: int, seat: Station) -> Image.Image:
        r = self.last_result
        page = self.review_pages()[seat.page]
        if seat.mode == "wrong":
            return wrong_word_screen()
        if page == "stack":
            return self._stack_screen(r, r.stacks[seat.page], station)
        totals = self.state.totals
        if page == "final":
            outcome = self.match.outcome
            ending = " wins!" if len(outcome.winners) == 1 else " win!"
            winners = fitting(lambda w: " & ".join(abbreviate(self.names[p], w) for p in outcome.winners) + ending)
            if measure(winners) > WIDTH - 2:
                winners = f"shared by {len(outcome.winners)} players"
            rows = tuple((self.names[p], None, totals[p]) for p in range(self.players))
            if seat.ready:
                winners = self._waiting_line()
            winners = seat.told() or winners
            return screens.scores(screens.ScoresView("Totals  ok: lobby", rows, winners))
        rows = tuple((self.names[p], r.scores[p], totals[p]) for p in range(self.players))
        if seat.told():
            footer = seat.told()
        elif seat.ready:
            footer = self._waiting_line()
        elif self.learning(r):
            footer = "learning: all black +"
        elif r.black_sheep is None:
            footer = "no black sheep"
        else:
            footer = fitting(lambda w: f"black sheep: {abbreviate(self.names[r.black_sheep], w)}")
        heading = f"Round {r.number}  ok: " + ("totals" if self.match.outcome else "next")
        return screens.scores(screens.ScoresView(heading, rows, footer))

    def learning(self, r: RoundScore) -> bool:
        """Whether ``r`` was the learning round: every black token taken counted plus."""
        return r.number == 1 and self.state.options.learning_round

    def _stack_screen(self, r: RoundScore, s, station: int) -> Image.Image:
        """One drawing turned over: who drew which word, each guess in time order with the token
        it took (``x`` a wrong guess), and what the drawer's tokens did to their score (the
        drawer's own page too); on the drawer's own station, while they may still say so, the
        heading says how to declare a wrong word."""
        word = decks.card(r.cards["ABC".index(s.letter)]).word(s.number) if r.cards else ""
        guesses = tuple(f"{abbreviate(self.names[c.player], 4)} {c.number} "
                        + ("-" if s.void else f"+{c.token}" if c.token else "x")
                        for c in s.guesses)
        footer = self.seats[station].told() or drawer_result(r, s)
        if self.may_declare_at_reveal(station):
            heading = "ok: next slap: wrong?"
        elif s.drawer == station:
            heading = "You drew  ok: next"
        else:
            heading = fitting(lambda w: f"{abbreviate(self.names[s.drawer], w)} drew  ok: next")
        return screens.stack(screens.StackView(heading, f"{s.letter}{s.number} {word}".strip(), guesses, footer))


def drawer_result(r: RoundScore, s) -> str:
    """What a drawing did to its drawer's score, in the words of the rules: the tokens nobody
    took (minus), then the black token: its count, ``no black`` (none taken), or ``black 0``
    with why when nobody guessed the word (outside the learning round)."""
    black, took = r.black_counts[s.drawer], r.black[s.drawer]
    if s.void:
        return "wrong word: no score"
    kept = f"not taken -{sum(s.kept)}" if s.kept else "all taken,"
    if took is None:
        return f"{kept} no black"
    if black == 0 and not any(c.token for c in s.guesses):
        return f"unguessed -{sum(s.kept)}, black 0"
    return f"{kept} black {black:+d}"
