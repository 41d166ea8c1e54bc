"""Pictomania at the table: every station is a player; all of them act at once.

A round has three phases on every station:

- **Reading**: the three word cards, half a card a page (``left``/``right``); ``slap`` on a
  page of words replaces that card (someone does not know a word); ``ok`` says ready. When every
  player is ready the box deals the secret letters and numbers. With physical cards the box only
  asks players to lay out their cards and say ready.
- **Drawing and guessing**: the station shows its own letter, number and word on top and what it
  has guessed, and a menu whose items keep their places all round (:mod:`.pictomania_guessing`).
- **Scoring**: each station walks through every drawing's stack in guess order, then the round's
  scores and the running totals; ``ok`` on the last page says ready for the next round. After the
  last round a final page shows the totals and the winners; ``ok`` there says the player has seen
  them, and the table returns to the lobby once every player has (a watching station's ``ok``
  takes it back at once). The table screen follows the slowest station's walk-through.
  A drawer who finds at the reveal that they drew the wrong word says so on their own stack's
  page (its bottom line reads ``slap: wrong word?``; ``slap``, then ``ok`` to confirm): the round
  is counted again with that drawing void, until the next round's cards are shown
  (:mod:`.pictomania_review`).

Fairness: a sent guess (or done, or wrong word) is not applied when its press arrives. It waits
until the watermark has passed its press's edge time, so every press made before it has been
delivered, then the waiting actions are applied in edge-time order (exact-nanosecond ties in a
random order drawn at the press). Two guesses on one drawing 2 ms apart take its tokens in the
order they were pressed, whichever reached the box first.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from .. import words as decks
from ..games.base import IllegalAction
from ..games.pictomania import NUMBERS, PictomaniaState
from ..arbiter.inputs import InputEvent
from ..screens import pictomania as screens
from ..screens.canvas import WIDTH, abbreviate, fitting, measure
from .game import YOUR_TURN, GameTable
from .pictomania_guessing import Guessing
from .pictomania_review import Review
from .pictomania_station import Station

log = logging.getLogger(__name__)

WORDS_PER_PAGE = screens.LINES


@dataclass(order=True)
class Pending:
    """An action sent from a station, waiting for every earlier press to be delivered."""

    t_ns: int
    tiebreak: float
    station: int = field(compare=False)
    action: dict[str, Any] = field(compare=False)


class PictomaniaTable(Guessing, Review, GameTable):
    game = "pictomania"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.players = len(self.names)
        self.rng = random.Random(self.match.seed)
        """The order of exactly simultaneous presses (replacement cards come from the match)."""
        self.pending: list[Pending] = []
        self.seats = [Station() for _ in range(self.players)]
        self.rescored = ""
        """Who declared a wrong word at the reveal, while that round's results show."""
        self.phase = self._phase_of_state()
        if self.phase == "reading":
            self._start_round()

    def _phase_of_state(self) -> str:
        """Where a table picks up a game, new or resumed from its journal: the last round's
        review between rounds and at the end, reading before the deal, play after it."""
        if self.match.outcome is not None:
            return "review"
        if not self.match.needs_chance:
            return "play"
        return "review" if self.state.results and not self.state.round.cards else "reading"

    # --- the state, as stations need it -----------------------------------------------------

    @property
    def state(self) -> PictomaniaState:
        return self.match.state

    @property
    def box_words(self) -> bool:
        return self.state.options.words == "box"

    def word(self, letter: str, number: int) -> str | None:
        """The word at ``letter`` and ``number`` on this round's cards; None with physical cards."""
        cards = self.state.round.cards
        if not cards:
            return None
        return decks.card(cards["ABC".index(letter)]).word(number)

    def word_lines(self) -> list[str]:
        """The round's 21 words as ``A1 apple`` lines."""
        return [f"{letter}{n} {self.word(letter, n)}"
                for letter in "ABC"[:len(self.state.round.cards)] for n in NUMBERS]

    def _start_round(self) -> None:
        if self.match.needs_chance and self.box_words and not self.state.round.cards:
            self.match.draw_chance()
        self.phase = "reading"
        self.rescored = ""
        for seat in self.seats:
            seat.__init__()

    # --- inputs -------------------------------------------------------------------------------

    def showing_end(self, station: int) -> bool:
        """Only a watching station ends the game with ``ok``: each player walks through the last
        round to the final page, where ``ok`` says they have seen it (:meth:`_review`)."""
        return station >= self.players

    def slowest_page(self) -> str | None:
        """The review page every player has reached (``stack``, ``scores``, ``final``) and the
        stack number, as ``stack 2``: what the table screen may show without spoiling a page a
        player has not turned to yet. None outside the review."""
        pages = self.review_pages()
        if not pages:
            return None
        page = min(seat.page for seat in self.seats)
        return f"stack {page}" if pages[page] == "stack" else pages[page]

    def waiting_for(self) -> str:
        """The players not ready yet, by name: ``Ben, Cy``."""
        return ", ".join(self.names[p] for p, s in enumerate(self.seats) if not s.ready)

    def waiting_on(self, seat: int) -> str:
        """Everybody plays at once: while the round is on, it is the turn of every player who is
        not done yet (guesses to make, a black token to take)."""
        if self.match.outcome is not None or seat >= self.players or self.phase != "play":
            return ""
        return YOUR_TURN if not self.state.round.done[seat] else ""

    def on_input(self, event: InputEvent) -> None:
        if not event.pressed or event.station >= self.players:
            return
        seat = self.seats[event.station]
        seat.message = ""
        if self.phase == "reading":
            self._reading(event, seat)
        elif self.phase == "play":
            self._play(event, seat)
        else:
            self._review(event, seat)

    def _reading(self, event: InputEvent, seat: Station) -> None:
        pages = 1 + 2 * len(self.state.round.cards)
        if event.key in ("left", "right"):
            seat.page = (seat.page + (1 if event.key == "right" else -1)) % pages
        elif event.key == "slap" and seat.page > 0:
            self._replace_card((seat.page - 1) // 2, event)
        elif event.key == "ok":
            seat.ready, seat.unready = True, False
            if all(s.ready for s in self.seats):
                self.changed(event)
                self.match.draw_chance()
                self.phase = "play"
                for s in self.seats:
                    s.__init__()
                self.cues.append("go")

    def _replace_card(self, index: int, event: InputEvent) -> None:
        rnd = self.state.round
        unused = self.match.rules.unused_cards(self.state)
        seat = self.seats[event.station]
        if not unused:
            seat.message = "no cards left"
            self.cues.append("illegal")
            return
        cards = list(rnd.cards)
        cards[index] = self.match.table_rng("replace").choice(unused)
        self.changed(event)
        self.match.chance({"event": "cards", "deck": rnd.deck, "cards": cards})
        for i, s in enumerate(self.seats):
            s.unready = s.unready or s.ready
            s.ready = False
            who = "You" if i == event.station else self.names[event.station]
            s.message = lambda who=who: fitting(lambda w: f"{abbreviate(who, w)} swapped card {'ABC'[index]}")
        self.cues.append("move")

    def _send(self, event: InputEvent, action: dict[str, Any]) -> None:
        """Queue the action at its press's edge time; :meth:`tick` applies it in time order."""
        self.pending.append(Pending(event.t_ns, self.rng.random(), event.station, action))
        seat = self.seats[event.station]
        seat.mode = "menu"
        seat.cursor = 0

    # --- time: sent actions in edge-time order ------------------------------------------------

    def tick(self, now_ns: int, watermark_ns: int) -> bool:
        applied = False
        while self.pending and (p := min(self.pending)).t_ns < watermark_ns:
            self.pending.remove(p)
            self._apply(p)
            applied = True
        return applied

    def wakeup_ns(self) -> int | None:
        return min(p.t_ns for p in self.pending) + 1 if self.pending else None

    def _apply(self, p: Pending) -> None:
        seat = self.seats[p.station]
        rounds_scored = len(self.state.results)
        self.now_ns = p.t_ns
        try:
            self.match.act(p.action)
        except IllegalAction as e:
            log.info("%s: %s", self.names[p.station], e)
            seat.message = "void: drew wrong word" if "wrong word" in str(e) else "not allowed now"
            self.cues.append("illegal")
            return
        self.cues.append("pass" if p.action["action"] == "done" else "move")
        if len(self.state.results) > rounds_scored:
            # Whatever was sent after the round's last black token came too late.
            self.since_ns = p.t_ns
            self.phase = "review"
            self.pending.clear()
            for s in self.seats:
                s.__init__()
            outcome = self.match.outcome
            self.cues.append("decided" if outcome is None else "draw" if len(outcome.winners) > 1 else "win")

    # --- screens ------------------------------------------------------------------------------

    def screen(self, station: int) -> Image.Image:
        if station >= self.players:
            return screens.panel("Pictomania", ("players only",))
        seat = self.seats[station]
        if self.phase == "reading":
            return self._reading_screen(seat)
        if self.phase == "review":
            return self._review_screen(station, seat)
        return self._play_screen(station, seat)

    def _reading_screen(self, seat: Station) -> Image.Image:
        rnd = self.state.round
        status = self._waiting_line() if seat.ready else \
            "new card: ok again" if seat.unready else "ok: ready"
        if seat.page == 0:
            heading = seat.told() or f"Round {rnd.number}: {rnd.deck}"
            if not self.box_words:
                return screens.panel(heading, (
                    "lay out 3 cards", f"of the {rnd.deck} deck", "as A, B and C", status))
            return screens.panel(heading, (
                "read the 21 words", "</>: turn pages", "slap: swap a card", status))
        lines = self.word_lines()
        index = seat.page - 1
        letter, half = "ABC"[index // 2], index % 2
        start = (index // 2) * len(NUMBERS) + half * WORDS_PER_PAGE
        heading = f"Card {letter} {half + 1}/2" + (" ready" if seat.ready else "")
        if seat.told():
            heading = seat.told()
        elif seat.unready:
            heading = f"Card {letter} {half + 1}/2 new card"
        return screens.words(screens.WordsView(heading, tuple(lines[start:start + WORDS_PER_PAGE - half])))

    def _waiting_line(self) -> str:
        """``waiting: Ben, Cy`` on a panel (the names shortened as the line needs), or how
        many when even three letters each do not fit."""
        waiting = [self.names[p] for p, s in enumerate(self.seats) if not s.ready]
        line = fitting(lambda w: "waiting: " + ", ".join(abbreviate(n, w) for n in waiting))
        return line if measure(line) <= WIDTH - 2 else f"waiting for {len(waiting)} more"
