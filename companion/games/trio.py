"""Three-player Pictionary (``pictionary-trio.html``, code name ``trio``): symmetric roles.

Each round one player draws a word the box shows only to them, and the other two guess. One
correct guesser: that guesser and the artist score 1 each. Both correct at the same time: only
the artist scores. Time up: nobody scores.

Two rules keep the game fair, and both are fixed when a round starts, from the scores then:

- *Ineligible to draw*: the artist role cycles through the seats, but a player whose score is
  strictly greater than each other player's is skipped. Only one player can lead strictly, so at
  most one player is skipped, and the artist is never the strict leader.
- *Eligible to win*: a player with at least ``eligible_at`` points and strictly more than each
  other player. If they score in that round, the game ends and they win. Being the strict
  leader, they never draw; they score only by guessing alone, and then they are still strictly
  ahead, so the game can never end in a tie.

Actions (JOURNAL.md): ``guessed`` (``player`` is the correct guesser), ``both_guessed`` and
``timeout``, each ending the round; the round's word is a ``word`` chance event. This module
adds these entries to that vocabulary:

- ``{"action": "new_word"}``: the artist asks for another word before the timer starts (option
  ``allow_new_word``); the next line is then another ``word`` chance event.
- ``{"type": "chance", "event": "first_artist", "player": p}``: who draws first when the option
  ``first_artist`` is ``random``.
- ``{"action": "timer"}``: the artist starts the round's timer (their ``ok``). Journaled so a
  game resumed from its journal carries on with the timer running; a guess may be judged without
  it (journals from before it have none). Once the timer runs, ``new_word`` is refused.
- ``{"action": "correct"}``: the artist of the round just ended by a judgement (``guessed`` or
  ``both_guessed``) takes it back: that round is scored as if time ran out (nobody scores), and
  the round after it starts again from the scores so corrected (the strict leader may change, and
  with it who draws: a new artist gets a new word, the next line is then a ``word`` chance event).
  It is legal until the next round's first judgement or timeout; the table offers it only until
  the next timer starts, and never once the judgement ended the game.

Words are not repeated within a game while the word source has unused words; once every word
has been drawn, the source starts over (like reshuffling a deck).

Who may act (:meth:`Trio.to_move`) is the two guessers: every action is the artist's verdict on
their guesses, and the guessers are the ones it can name.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from . import register
from .base import Action, Outcome, Rules, need, player_field
from ..words.wordlist import MAX_LENGTH, MIXED, TIERS, WordListError, pool, read_word_file

PLAYERS = 3
RANDOM = "random"


@dataclass(frozen=True)
class TrioOptions:
    """The lobby's choices (RULES-NOTES.md), plus a word file of the players' own."""

    seconds: int = field(default=60, metadata={
        "min": 10, "max": 600, "choices": (30, 45, 60, 90, 120),
        "help": "seconds the artist has to draw, from their ok",
        "label": "time", "brief": "time to draw", "unit": "s",
    })
    eligible_at: int = field(default=9, metadata={
        "min": 1, "choices": (5, 7, 9, 12),
        "help": "points (with a strict lead at the start of a round) to be eligible to win",
        "label": "win at", "brief": "points to win (lead)",
    })
    tie_window_ms: int = field(default=10, metadata={
        "min": 1, "max": 1000, "choices": (5, 10, 20, 50, 100),
        "help": "two guessers' slaps this close are simultaneous",
        "label": "tie window", "brief": "slaps this close: tie",
    })
    first_artist: str = field(default="1", metadata={
        "choices": ("1", "2", "3", RANDOM), "strict": True,
        "help": "the seat that draws first, or random",
        "label": "first artist", "brief": "seat that draws first",
    })
    allow_new_word: bool = field(default=True, metadata={
        "choices": (False, True),
        "help": "the artist may ask for another word before starting the timer",
        "label": "new word", "brief": "artist may swap word",
    })
    tier: str = field(default=MIXED, metadata={
        "choices": TIERS + (MIXED,), "strict": True,
        "help": "which of the box's words: easy, medium, hard or mixed",
        "label": "words", "brief": "how hard the words",
    })
    word_file: str | None = field(default=None, metadata={
        "help": "a text file of your own words, one word or short phrase per line",
        "typed_check": lambda path: _word_file_problem(path),  # defined below the options
    })
    only_word_file: bool = field(default=False, metadata={
        "help": "draw only from word_file instead of adding it to the box's words",
    })


@dataclass(frozen=True)
class TrioState:
    """One moment of a game. ``artist``, ``eligible`` and ``skipped`` belong to the current round
    and were fixed when it started; ``artist`` is None only before a random first artist is
    drawn. ``word`` is None while the round's word is still to be drawn. ``used`` holds the
    words drawn since the word source last started over, in order."""

    options: TrioOptions
    scores: tuple[int, int, int]
    artist: int | None
    eligible: int | None
    skipped: int | None
    word: str | None
    used: tuple[str, ...]
    rounds: int
    """Rounds finished."""
    winner: int | None = None
    judged: tuple[int, tuple[int, int, int]] | None = None
    """The artist of the last round and the scores before it, while its ending judgement can
    still be corrected (see the ``correct`` action)."""
    timing: bool = False
    """The artist has started this round's timer (the ``timer`` action)."""
    ended: tuple[str, int, int | None, str | None] | None = None
    """How the last round ended: the action (``guessed``, ``both_guessed``, ``timeout``, or
    ``correct`` for one taken back), its artist, the guesser for ``guessed``, and its word; None
    before the first round ends. The guessers' screens say it until the next timer starts."""

    @property
    def guessers(self) -> tuple[int, ...]:
        return tuple(p for p in range(PLAYERS) if p != self.artist)


def strict_leader(scores: tuple[int, ...]) -> int | None:
    """The player with strictly more points than each other player, if there is one."""
    top = max(scores)
    leaders = [p for p, s in enumerate(scores) if s == top]
    return leaders[0] if len(leaders) == 1 else None


def _start_round(state: TrioState, scores: tuple[int, ...], turn: int, **changes: Any) -> TrioState:
    """A new round at ``turn``'s turn to draw, skipping them if they lead strictly."""
    leader = strict_leader(scores)
    artist, skipped = (turn, None) if turn != leader else ((turn + 1) % PLAYERS, turn)
    eligible = leader if leader is not None and scores[leader] >= state.options.eligible_at else None
    return replace(state, scores=scores, artist=artist, eligible=eligible, skipped=skipped, word=None,
                   timing=False, **changes)


def _word_file_problem(path: str) -> str | None:
    """What is wrong with a word file named on the command line, read as a game would read it."""
    try:
        read_word_file(path)
    except WordListError as e:
        return str(e)
    return None


def _word_source(options: TrioOptions) -> tuple[str, ...]:
    return pool(options.tier, options.word_file, options.only_word_file)


class Trio(Rules):
    name = "trio"
    title = "Three-player Pictionary"
    min_players = PLAYERS
    max_players = PLAYERS
    Options = TrioOptions
    actions = ("guessed", "both_guessed", "timeout", "new_word", "timer", "correct")

    def actor(self, state: TrioState, action: Action) -> int | None:
        """Nobody's own: the artist judges, and takes a judgement back with ``correct`` (the next
        word is out by then, so the round is not played again), never with a generic take-back."""
        return None
    chance_events = ("first_artist", "word")

    def new(self, players: int, options: Any) -> TrioState:
        options = self.checked_options(players, options)
        state = TrioState(options=options, scores=(0, 0, 0), artist=None, eligible=None,
                          skipped=None, word=None, used=(), rounds=0)
        if options.first_artist == RANDOM:
            return state
        return _start_round(state, state.scores, int(options.first_artist) - 1)

    def chance_needed(self, state: TrioState) -> bool:
        return state.winner is None and (state.artist is None or state.word is None)

    def draw_chance(self, state: TrioState, rng: random.Random) -> dict[str, Any]:
        need(self.chance_needed(state), "no chance event is due")
        if state.artist is None:
            return {"event": "first_artist", "player": rng.randrange(PLAYERS)}
        words = _word_source(state.options)
        used = set(state.used)
        fresh = [w for w in words if w not in used] or [w for w in words if w != state.used[-1]] or list(words)
        return {"event": "word", "word": rng.choice(fresh)}

    def apply_chance(self, state: TrioState, event: Action) -> TrioState:
        kind = self.event_kind(event)
        need(self.chance_needed(state), "no chance event is due: the round's word is already drawn")
        if state.artist is None:
            need(kind == "first_artist",
                 f"the first chance event of a game with a random first artist is 'first_artist', not {kind!r}")
            return _start_round(state, state.scores, player_field(event, PLAYERS))
        need(kind == "word", f"the chance event due is a 'word', not {kind!r}")
        word = event.get("word")
        need(isinstance(word, str) and word == " ".join(word.split()) and 0 < len(word) <= MAX_LENGTH,
             f"'word' must be a word or phrase of 1 to {MAX_LENGTH} characters, not {word!r}")
        used = state.used + (word,)
        if word in state.used:
            need(set(_word_source(state.options)) <= set(state.used),
                 f"{word!r} was already drawn in this game; words repeat only once every word is used")
            used = (word,)
        return replace(state, word=word, used=used)

    def to_move(self, state: TrioState) -> tuple[int, ...]:
        if self.chance_needed(state) or state.winner is not None:
            return ()
        return state.guessers

    def legal_actions(self, state: TrioState) -> list[dict[str, Any]]:
        if not self.to_move(state):
            return []
        actions: list[dict[str, Any]] = [{"action": "guessed", "player": p} for p in state.guessers]
        actions += [{"action": "both_guessed"}, {"action": "timeout"}]
        if not state.timing:
            actions.append({"action": "timer"})
            if state.options.allow_new_word:
                actions.append({"action": "new_word"})
        if state.judged is not None:
            actions.append({"action": "correct"})
        return actions

    def apply(self, state: TrioState, action: Action) -> TrioState:
        kind = self.action_kind(action)
        need(state.winner is None, "the game is over")
        need(not self.chance_needed(state), "the round has no word yet: a 'word' chance event is due")
        if kind in ("new_word", "timer"):
            need(not state.timing, f"the timer is running: no {kind} until the next round")
        if kind == "new_word":
            need(state.options.allow_new_word, "option allow_new_word is off: the artist draws the word given")
            return replace(state, word=None)
        if kind == "timer":
            return replace(state, timing=True)
        if kind == "correct":
            need(state.judged is not None, "nothing to correct: only the judgement that ended the last "
                                           "round, before the next round's own judgement or timeout")
            artist, scores = state.judged
            word = state.ended[3] if state.ended else None
            fixed = _start_round(state, scores, (artist + 1) % PLAYERS, judged=None,
                                 ended=("correct", artist, None, word))
            return replace(fixed, word=state.word) if fixed.artist == state.artist else fixed
        judged = (state.artist, state.scores)
        if kind == "guessed":
            p = player_field(action, PLAYERS)
            need(p != state.artist, f"player {p} is the artist: only a guesser can guess the word")
            scores = tuple(s + (q in (p, state.artist)) for q, s in enumerate(state.scores))
            return self._end_round(state, scores, (kind, state.artist, p, state.word),
                                   winner=p if p == state.eligible else None, judged=judged)
        if kind == "both_guessed":
            scores = tuple(s + (q == state.artist) for q, s in enumerate(state.scores))
            return self._end_round(state, scores, (kind, state.artist, None, state.word), judged=judged)
        return self._end_round(state, state.scores, (kind, state.artist, None, state.word))

    def _end_round(self, state: TrioState, scores: tuple[int, ...], ended: tuple[str, int, int | None, str | None],
                   winner: int | None = None, judged: tuple[int, tuple[int, ...]] | None = None) -> TrioState:
        """The round is over (``ended`` says how); ``judged`` (its artist and the scores before
        it) while its ending judgement may be corrected."""
        if winner is not None:
            return replace(state, scores=scores, rounds=state.rounds + 1, winner=winner, judged=None, ended=ended,
                           timing=False)
        return _start_round(state, scores, (state.artist + 1) % PLAYERS, rounds=state.rounds + 1,
                            judged=judged, ended=ended)

    def outcome(self, state: TrioState) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome((state.winner,), state.scores, self.detail(state))

    def scores(self, state: TrioState) -> tuple[int, int, int]:
        return state.scores

    def detail(self, state: TrioState) -> dict[str, Any]:
        return {
            "round": state.rounds + (state.winner is None),
            "artist": state.artist,
            "word": state.word,
            "eligible_to_win": state.eligible,
            "ineligible_to_draw": strict_leader(state.scores) if state.winner is None else None,
            "skipped": state.skipped,
            "words_drawn": len(state.used),
        }

    def describe(self, state: TrioState) -> list[str]:
        if state.artist is None:
            return ["The first artist is still to be drawn."]
        lines = [f"Round {state.rounds + (state.winner is None)}: player {state.artist} draws"
                 + (f" {state.word!r}" if state.word else "")]
        if state.skipped is not None:
            lines.append(f"Player {state.skipped} leads and is ineligible to draw this round.")
        if state.eligible is not None:
            lines.append(f"Player {state.eligible} is eligible to win this round.")
        return lines

    def check_invariants(self, state: TrioState) -> None:
        assert len(state.scores) == PLAYERS and min(state.scores) >= 0, "three scores, never negative"
        assert 2 * state.rounds >= sum(state.scores), "a round gives at most two points"
        assert len(set(state.used)) == len(state.used), "no word repeats within a pass of the words"
        if state.word is not None:
            assert state.used and state.used[-1] == state.word, "the round's word is the last drawn"
        if state.artist is None:
            assert state.rounds == 0 and state.scores == (0, 0, 0), "the first artist comes first"
            return
        if state.winner is not None:
            others = [s for p, s in enumerate(state.scores) if p != state.winner]
            assert state.winner == state.eligible, "only the player eligible to win can win"
            assert state.scores[state.winner] > max(others), "a winner leads strictly: never a tie"
            return
        leader = strict_leader(state.scores)
        assert state.artist != leader, "the strict leader is ineligible to draw"
        assert state.skipped in (None, leader), "only the strict leader is skipped"
        assert state.eligible != state.artist, "the artist is never eligible to win"
        expected = leader if leader is not None and state.scores[leader] >= state.options.eligible_at else None
        assert state.eligible == expected, "eligible to win: a strict lead of at least eligible_at"


register(Trio())
