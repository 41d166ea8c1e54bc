"""Pictomania (``pictomania.txt``): everybody draws a secret word at once and guesses the others'.

A round shows three word cards of seven related words (letters A, B, C; numbers 1-7). Each
player is secretly dealt a letter (two cards of each letter, so two players may share one) and a
number (each number at most once), and draws that word. Everyone guesses the others' drawings by
number only, at any time, in any order: one guess per drawing, never their own, never taken back.
A player who has finished guessing takes a black token from the middle (the highest remaining by
default; any remaining one, or none at all) and is done. The round ends when everybody is done.

Scoring, per drawing, in the time order of its guesses: each correct guess takes the drawer's
highest remaining token; tokens the drawer still holds count against them. The black sheep (the
player with strictly the most wrong guesses; nobody on a tie for most) counts their black token
against them; a drawer nobody guessed, who is not the black sheep, scores their black token 0.
In the learning round (round 1, option ``learning_round``) the black token counts for its
owner, except a wrong word's (below). A drawer who declares they drew the wrong word (``wrong_word``) voids their drawing: its
guesses give nothing and are ignored for the black sheep, the drawer keeps and subtracts all their
tokens and their black token counts 0; their own guesses still score. Four rounds; the highest
total wins; equal totals share the win.

Readings where the seed and RULES-NOTES are silent:

- Wrong word may be declared by a drawer at any time during the round, also after taking a black
  token (they still know what they drew); once declared, the drawing takes no more guesses.
- The seed has the wrong word found when the stack is turned over, so it may also be declared at
  the reveal: from the end of the round (everybody done) until the next round's word cards are
  shown, or after the last round while the table shows the result. The round is scored again
  with that drawing void (:attr:`PictomaniaState.review`); the table offers it on the drawer's
  screen when their own stack is turned over, before it is counted.
- The learning round relaxes only the complete scoring rules (black sheep, a drawing nobody
  guessed). The wrong word is a rule of its own, told to every player from the first round: its
  black token goes back to the middle and counts 0 in the learning round too.
- A wrong-word drawer who is also the black sheep scores their black token 0: it went back to
  the middle when they admitted the wrong word, so there is nothing to move to the left.
- Competitive variant: one black token fewer; the round ends as soon as the last one is taken,
  or when everybody is done (when several players finish without a token).

Token tables are data (:data:`PLAYER_TOKENS`, :data:`BLACK_TOKENS`); options ``tokens``
and ``black`` replace them with comma-separated values ("3,2,1"), one player token per
opponent and one black token per player. Word decks come from :mod:`companion.words`; option
``words = "physical"`` deals only letters and numbers, for groups playing with printed cards.
The scoring is :mod:`.pictomania_scoring`, the options :mod:`.pictomania_options`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Mapping

from .. import words as decks
from . import register
from .base import Action, IllegalAction, Outcome, Rules, each_player, need, player_field
from .options import OptionError, parse_options
from .pictomania_options import (PictomaniaOptions, deck_names, decks_short, lobby_rows, round_deck, shown_black,
                                 token_tables)
from .pictomania_scoring import Guess, RoundPlay, RoundScore, Tokens, score_round

LETTERS = ("A", "B", "C")
LETTER_CARDS = 2
"""Two black letter cards of each letter: at most two players share a word card."""
NUMBERS = range(1, 8)


def word_at(cards: tuple[str, ...], letter: str, number: int) -> str:
    """The word a secret letter and number point at on the round's word cards (the ids shown as
    cards A, B and C): ``B5`` is the fifth word of card B."""
    return decks.card(cards[LETTERS.index(letter)]).word(number)


def card_told(cards: tuple[str, ...], letter: str) -> str:
    """A word card as players know it at the table, by its letter and its words in order (1 to
    7): ``card A (apple, pear, ...)``; the journal's ids (``green-01``) mean nothing to them."""
    return f"card {letter} ({', '.join(decks.card(cards[LETTERS.index(letter)]).words)})"


@dataclass(frozen=True)
class PictomaniaState:
    options: PictomaniaOptions
    players: int
    tokens: Tokens
    round: RoundPlay | None
    """The round in progress; None once the last round is scored."""
    used: tuple[str, ...] = ()
    """Every word card shown in this game (replaced ones too): none comes back."""
    results: tuple[RoundScore, ...] = ()
    review: RoundPlay | None = None
    """The round last scored, while its stacks are being turned over: a drawer may still declare
    a wrong word on it. Closed by the next round's first chance event."""

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r.scores[p] for r in self.results) for p in range(self.players))


def _start_round(options: PictomaniaOptions, players: int, tokens: Tokens, number: int) -> RoundPlay:
    return RoundPlay(
        number=number, deck=round_deck(options, number), pool=tokens.black,
        done=(False,) * players, black=(None,) * players, wrong_word=(False,) * players,
    )


def _learning(options: PictomaniaOptions, number: int) -> bool:
    return options.learning_round and number == 1


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


class Pictomania(Rules):
    name = "pictomania"
    title = "Pictomania"
    min_players = 3
    max_players = 6
    Options = PictomaniaOptions
    actions = ("guess", "done", "wrong_word")
    chance_events = ("cards", "assign")
    reveal_actions = ("wrong_word",)

    def takeback_refusal(self, before: PictomaniaState, action: Action, after: PictomaniaState) -> str | None:
        """Nothing a player does is taken back: "once you have made a guess, you cannot take it
        back" (the seed), a player who took a black token is done, and a wrong word declared
        voids a drawing for good. A misclick is for the menu to prevent (it asks before a guess)."""
        return {"guess": "a guess is final", "done": "done guessing is final"}.get(
            action.get("action"), "a wrong word cannot be taken back")

    def new(self, players: int, options: Any) -> PictomaniaState:
        """Round 1 waiting for its word cards; ``options`` may also be a mapping to parse.

        OptionError for a token table that does not fit the player count, or a deck too small
        for the rounds that use it.
        """
        options = self.checked_options(players, options)
        tokens = token_tables(players, options)
        if problem := decks_short(options):
            raise OptionError("decks", problem)
        return PictomaniaState(options, players, tokens, _start_round(options, players, tokens, 1))

    def lobby_start(self, values: dict[str, Any]) -> dict[str, Any]:
        """Decks too small for the rounds chosen (a table's own deck of three cards, ``--decks``,
        for the lobby's four rounds) make the game as many rounds as they can deal, as a quiz
        pack makes the night its questions: started as chosen, it could not even begin."""
        try:
            options = parse_options(self.Options, values)
        except OptionError:
            return values  # refused by new(), with the option's own reason
        while options.rounds > 1 and decks_short(options):
            options = replace(options, rounds=options.rounds - 1)
        return {**values, "rounds": options.rounds}

    # --- chance: the word cards, then the secret letters and numbers --------------------------

    def _needs_cards(self, state: PictomaniaState) -> bool:
        return state.options.words == "box" and not state.round.cards

    def chance_needed(self, state: PictomaniaState) -> bool:
        return state.round is not None and not state.round.assigned

    def acts_before_chance(self, state: PictomaniaState, action: Action) -> bool:
        """A wrong word at the reveal comes before the next round's cards."""
        if not isinstance(action, Mapping) or action.get("action") != "wrong_word":
            return False
        p = action.get("player")
        return _int(p) and p in self._revealing(state)

    @staticmethod
    def _revealing(state: PictomaniaState) -> tuple[int, ...]:
        """Drawers of the round being revealed who may still declare a wrong word."""
        rnd = state.review
        return () if rnd is None else tuple(p for p, w in enumerate(rnd.wrong_word) if not w)

    def unused_cards(self, state: PictomaniaState) -> list[str]:
        """The round's deck's cards not yet shown in this game."""
        return [c for c in decks.find(state.round.deck).ids if c not in state.used]

    def draw_chance(self, state: PictomaniaState, rng) -> dict[str, Any]:
        need(self.chance_needed(state), "no chance event is due")
        if self._needs_cards(state):
            unused = self.unused_cards(state)
            need(len(unused) >= decks.CARDS_PER_ROUND,
                 f"the {state.round.deck} deck has only {len(unused)} unused cards left")
            return {"event": "cards", "deck": state.round.deck,
                    "cards": rng.sample(unused, decks.CARDS_PER_ROUND)}
        return {"event": "assign",
                "letters": rng.sample([x for x in LETTERS for _ in range(LETTER_CARDS)], state.players),
                "numbers": rng.sample(list(NUMBERS), state.players)}

    def apply_chance(self, state: PictomaniaState, event: Action) -> PictomaniaState:
        """``cards`` shows the round's word cards; another ``cards`` before the assignment
        replaces some of them (someone did not know a word): cards on display may stay, no other
        card shown in this game may come back. ``assign`` deals letters and numbers."""
        kind = self.event_kind(event)
        need(self.chance_needed(state), "no chance event is due: the round is already dealt")
        rnd = state.round
        if kind == "cards":
            need(state.options.words == "box", "physical cards: the box shows no word cards")
            need(event.get("deck") == rnd.deck,
                 f"round {rnd.number} uses the {rnd.deck} deck, not {event.get('deck')!r}")
            cards = event.get("cards")
            need(_strings(cards) and len(cards) == decks.CARDS_PER_ROUND and len(set(cards)) == len(cards),
                 f"'cards' must be {decks.CARDS_PER_ROUND} different card ids, not {cards!r}")
            known = decks.find(rnd.deck).ids
            for card in cards:
                need(card in known, f"the {rnd.deck} deck has no card {card!r}")
                need(card not in state.used or card in rnd.cards,
                     f"card {card!r} was already shown in this game")
            new = tuple(c for c in cards if c not in rnd.cards)
            return replace(state, round=replace(rnd, cards=tuple(cards)), used=state.used + new,
                           review=None)
        need(not self._needs_cards(state), "the word cards are shown before letters and numbers are dealt")
        letters, numbers = event.get("letters"), event.get("numbers")
        n = state.players
        need(_strings(letters) and len(letters) == n and set(letters) <= set(LETTERS),
             f"'letters' must be {n} of {', '.join(LETTERS)}, not {letters!r}")
        need(max(Counter(letters).values()) <= LETTER_CARDS,
             f"there are only {LETTER_CARDS} letter cards of each letter: {letters!r}")
        need(isinstance(numbers, list) and len(numbers) == n and all(_int(x) and x in NUMBERS for x in numbers),
             f"'numbers' must be {n} numbers from 1 to 7, not {numbers!r}")
        need(len(set(numbers)) == n, f"each number is dealt at most once: {numbers!r}")
        return replace(state, round=replace(rnd, letters=tuple(letters), numbers=tuple(numbers)),
                       review=None)

    # --- actions ------------------------------------------------------------------------------

    def _in_play(self, state: PictomaniaState) -> RoundPlay:
        need(state.round is not None, "the game is over")
        need(state.round.assigned, "the round has not been dealt yet")
        return state.round

    def to_move(self, state: PictomaniaState) -> tuple[int, ...]:
        """Players still guessing, and done players who may still admit a wrong word; between
        rounds and after the last, the drawers who may still declare one at the reveal."""
        rnd = state.round
        if rnd is None or not rnd.assigned:
            return self._revealing(state)
        return tuple(p for p in range(state.players) if not rnd.done[p] or not rnd.wrong_word[p])

    def legal_actions(self, state: PictomaniaState) -> list[dict[str, Any]]:
        rnd = state.round
        if rnd is None or not rnd.assigned:
            return [{"action": "wrong_word", "player": p} for p in self._revealing(state)]
        actions: list[dict[str, Any]] = []
        for p in range(state.players):
            if not rnd.done[p]:
                for q in range(state.players):
                    if q != p and not rnd.wrong_word[q] and not rnd.guessed(p, q):
                        actions += [{"action": "guess", "player": p, "target": q, "number": n} for n in NUMBERS]
                actions.append({"action": "done", "player": p})
                actions += [{"action": "done", "player": p, "token": v} for v in sorted(set(rnd.pool))]
                actions.append({"action": "done", "player": p, "token": None})
            if not rnd.wrong_word[p]:
                actions.append({"action": "wrong_word", "player": p})
        return actions

    def apply(self, state: PictomaniaState, action: Action) -> PictomaniaState:
        kind = self.action_kind(action)
        if self.acts_before_chance(state, action):
            return self._wrong_word_at_reveal(state, action["player"])
        between = state.round is None or not state.round.assigned
        if state.review is not None and kind == "wrong_word" and between:
            player_field(action, state.players)
            raise IllegalAction("you have already said you drew the wrong word")
        rnd = self._in_play(state)
        n = state.players
        p = player_field(action, n)
        if kind == "wrong_word":
            need(not rnd.wrong_word[p], "you have already said you drew the wrong word")
            flags = tuple(w or q == p for q, w in enumerate(rnd.wrong_word))
            return replace(state, round=replace(rnd, wrong_word=flags))
        need(not rnd.done[p], "you are done: after taking a black token (or finishing) you make no more guesses")
        if kind == "guess":
            target = player_field(action, n, "target")
            need(target != p, "you do not guess your own drawing")
            need(not rnd.wrong_word[target],
                 f"player {target} drew the wrong word: their drawing takes no guesses")
            need(not rnd.guessed(p, target),
                 f"you already guessed player {target}'s drawing: a guess cannot be changed or repeated")
            number = action.get("number")
            need(_int(number) and number in NUMBERS, f"'number' must be from 1 to 7, not {number!r}")
            return replace(state, round=replace(rnd, guesses=rnd.guesses + (Guess(p, target, number),)))
        if "token" not in action:
            token = rnd.pool[0] if rnd.pool else None
        else:
            token = action["token"]
            need(token is None or (_int(token) and token in rnd.pool),
                 f"'token' must be a black token still in the middle ({', '.join(map(str, rnd.pool)) or 'none left'}) "
                 f"or null to finish without one, not {token!r}")
        pool = list(rnd.pool)
        if token is not None:
            pool.remove(token)
        rnd = replace(rnd, pool=tuple(pool),
                      done=tuple(d or q == p for q, d in enumerate(rnd.done)),
                      black=tuple(token if q == p else b for q, b in enumerate(rnd.black)))
        last_taken = state.options.competitive and token is not None and not pool
        if all(rnd.done) or last_taken:
            return self._end_round(state, rnd)
        return replace(state, round=rnd)

    def _end_round(self, state: PictomaniaState, rnd: RoundPlay) -> PictomaniaState:
        score = score_round(rnd, state.tokens, _learning(state.options, rnd.number))
        nxt = None
        if rnd.number < state.options.rounds:
            nxt = _start_round(state.options, state.players, state.tokens, rnd.number + 1)
        return replace(state, round=nxt, results=state.results + (score,), review=rnd)

    def _wrong_word_at_reveal(self, state: PictomaniaState, player: int) -> PictomaniaState:
        """The round being revealed, scored again with ``player``'s drawing void."""
        rnd = state.review
        rnd = replace(rnd, wrong_word=tuple(w or q == player for q, w in enumerate(rnd.wrong_word)))
        score = score_round(rnd, state.tokens, _learning(state.options, rnd.number))
        return replace(state, results=state.results[:-1] + (score,), review=rnd)

    # --- results ------------------------------------------------------------------------------

    def outcome(self, state: PictomaniaState) -> Outcome | None:
        if state.round is not None:
            return None
        totals = state.totals
        winners = tuple(p for p, t in enumerate(totals) if t == max(totals))
        return Outcome(winners, totals, self.detail(state))

    def scores(self, state: PictomaniaState) -> tuple[int, ...]:
        """Totals over the rounds scored so far."""
        return state.totals

    def detail(self, state: PictomaniaState) -> dict[str, Any]:
        rnd = state.round
        return {
            "round": rnd.number if rnd else len(state.results),
            "rounds": [{
                "deck": r.deck, "cards": list(r.cards),
                "letters": [s.letter for s in r.stacks], "numbers": [s.number for s in r.stacks],
                "scores": list(r.scores), "black_sheep": r.black_sheep,
                "black": list(r.black), "black_counts": list(r.black_counts), "wrong": list(r.wrong),
                "wrong_word": [s.drawer for s in r.stacks if s.void],
            } for r in state.results],
            "black_sheep": [r.black_sheep for r in state.results],
            "player_tokens": list(state.tokens.player),
            "black_tokens": list(state.tokens.black),
        }

    def describe(self, state: PictomaniaState) -> list[str]:
        lines = []
        for r in state.results:
            sheep = f", black sheep: player {r.black_sheep}" if r.black_sheep is not None else ""
            lines.append(f"Round {r.number} ({r.deck} deck): {each_player(f'{s:+d}' for s in r.scores)}{sheep}")
        if state.round is not None and state.round.assigned:
            rnd = state.round
            lines.append(f"Round {rnd.number}: {len(rnd.guesses)} guesses, "
                         f"{sum(rnd.done)} of {state.players} done")
        return lines

    def check_invariants(self, state: PictomaniaState) -> None:
        n = state.players
        assert len(state.results) <= state.options.rounds, "no more rounds than the game has"
        assert len(state.used) == len(set(state.used)), "no word card is shown twice"
        for r in state.results:
            for s in r.stacks:
                won = [c for c in s.guesses if c.token is not None]
                assert len(won) + len(s.kept) == len(state.tokens.player), "every token is won or kept"
                assert sorted((c.token for c in won), reverse=True) == [c.token for c in won], \
                    "correct guesses take the drawer's tokens highest first"
                assert len({c.player for c in s.guesses}) == len(s.guesses), "one guess per drawing"
                assert s.drawer not in {c.player for c in s.guesses}, "nobody guesses their own drawing"
            assert Counter(b for b in r.black if b is not None) <= Counter(state.tokens.black), \
                "each black token is taken at most once"
            assert all(abs(c) == (b or 0) or c == 0 for c, b in zip(r.black_counts, r.black)), \
                "a black token counts its value, minus it, or nothing"
        if state.review is not None:
            assert state.results and state.results[-1] == score_round(
                state.review, state.tokens, _learning(state.options, state.review.number)), \
                "the round being revealed is the one last scored"
        rnd = state.round
        if rnd is None:
            assert len(state.results) == state.options.rounds, "the game ends after its last round"
            return
        assert rnd.number == len(state.results) + 1, "rounds follow one another"
        taken = [b for b in rnd.black if b is not None]
        assert Counter(taken) + Counter(rnd.pool) == Counter(state.tokens.black), \
            "black tokens are in the middle or with one player"
        assert not all(rnd.done), "a round where everybody is done is scored"
        assert all(b is None or d for b, d in zip(rnd.black, rnd.done)), "only a done player holds a black token"
        if rnd.assigned:
            assert len(set(rnd.numbers)) == n and all(c <= LETTER_CARDS for c in Counter(rnd.letters).values())
        else:
            assert not rnd.guesses and not any(rnd.done), "nobody acts before the deal"
        pairs = [(g.player, g.target) for g in rnd.guesses]
        assert len(pairs) == len(set(pairs)) and all(p != q for p, q in pairs), \
            "one guess per drawing, never on your own"

    def shown_option(self, name: str, values: Mapping[str, Any]) -> str:
        """The black tokens as played (:func:`.pictomania_options.shown_black`)."""
        return shown_black(values) if name == "black" else super().shown_option(name, values)

    def lobby_options(self, players: int) -> list[tuple[str, tuple[Any, ...], str]]:
        """See :func:`.pictomania_options.lobby_rows`."""
        return lobby_rows(players)

register(Pictomania())
