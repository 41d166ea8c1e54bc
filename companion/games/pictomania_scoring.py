"""Pictomania's scoring: a round's guesses, turned over stack by stack, and the black sheep.

Separate from the rules (:mod:`companion.games.pictomania`) because it is the part players argue
about at the end of a round: which token each correct guess took, what a drawer kept, who is the
black sheep and what each black token counted. It is a pure function of one round's play
(:func:`score_round`), tested and shown (the table's review walk-through) on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

PLAYER_TOKENS = {3: (2, 1), 4: (2, 1, 1), 5: (3, 2, 1, 1), 6: (3, 2, 1, 1, 1)}
"""Each player's own scoring tokens, one per opponent. Verified for 3 players; 4-6 follow the
component set (five per colour valued 3, 2, 1, 1, 1)."""
BLACK_TOKENS = {3: (2, 2, 1), 4: (3, 2, 2, 1), 5: (3, 3, 2, 2, 1), 6: (3, 3, 2, 2, 1, 1)}
"""Black tokens in the middle, one per player (the competitive variant drops the lowest)."""
@dataclass(frozen=True)
class Tokens:
    """The token values a game uses, highest first."""

    player: tuple[int, ...]
    black: tuple[int, ...]


@dataclass(frozen=True)
class Guess:
    player: int
    target: int
    number: int


@dataclass(frozen=True)
class RoundPlay:
    """A round in progress. ``cards`` (A, B, C) is empty until dealt and in physical mode;
    ``letters``/``numbers`` are empty until assigned; ``guesses`` in time order."""

    number: int
    deck: str
    pool: tuple[int, ...]
    """Black tokens left in the middle, highest first."""
    done: tuple[bool, ...]
    black: tuple[int | None, ...]
    """The black token each player took (None: not yet, or finished without one)."""
    wrong_word: tuple[bool, ...]
    cards: tuple[str, ...] = ()
    letters: tuple[str, ...] = ()
    numbers: tuple[int, ...] = ()
    guesses: tuple[Guess, ...] = ()

    @property
    def assigned(self) -> bool:
        return bool(self.numbers)

    def guessed(self, player: int, target: int) -> bool:
        return any(g.player == player and g.target == target for g in self.guesses)


@dataclass(frozen=True)
class StackCard:
    """One guess on a drawing, as its stack is turned over: ``token`` is what it earned."""

    player: int
    number: int
    correct: bool
    token: int | None


@dataclass(frozen=True)
class Stack:
    """One drawing's stack, guesses in time order, and the tokens its drawer kept."""

    drawer: int
    letter: str
    number: int
    guesses: tuple[StackCard, ...]
    kept: tuple[int, ...]
    void: bool
    """The drawer drew the wrong word: its guesses gave nothing and do not count as wrong."""


@dataclass(frozen=True)
class RoundScore:
    number: int
    deck: str
    cards: tuple[str, ...]
    stacks: tuple[Stack, ...]
    wrong: tuple[int, ...]
    """Each player's wrong guesses that count for the black sheep."""
    black_sheep: int | None
    black: tuple[int | None, ...]
    black_counts: tuple[int, ...]
    """What each player's black token added: its value, minus it, or 0."""
    scores: tuple[int, ...]

    def gained(self, player: int) -> tuple[int, ...]:
        """The tokens ``player`` won with correct guesses, drawing by drawing."""
        return tuple(c.token for s in self.stacks for c in s.guesses
                     if c.player == player and c.token is not None)


def _black_sheep(wrong: tuple[int, ...]) -> int | None:
    """The player with strictly the most wrong guesses; None on a tie for most."""
    most = max(wrong)
    leaders = [p for p, w in enumerate(wrong) if w == most]
    return leaders[0] if most > 0 and len(leaders) == 1 else None


def score_round(rnd: RoundPlay, tokens: Tokens, learning: bool) -> RoundScore:
    """Turn over every stack in guess order and count the round (see :mod:`companion.games.pictomania`)."""
    players = len(rnd.numbers)
    stacks = []
    wrong = [0] * players
    for drawer in range(players):
        left = list(tokens.player)
        cards = []
        void = rnd.wrong_word[drawer]
        for g in rnd.guesses:
            if g.target != drawer:
                continue
            correct = g.number == rnd.numbers[drawer]
            token = left.pop(0) if correct and not void else None
            wrong[g.player] += not correct and not void
            cards.append(StackCard(g.player, g.number, correct, token))
        stacks.append(Stack(drawer, rnd.letters[drawer], rnd.numbers[drawer], tuple(cards),
                            tuple(left), void))
    sheep = None if learning else _black_sheep(tuple(wrong))
    counts = []
    for p in range(players):
        value = rnd.black[p] or 0
        guessed = any(c.token is not None for c in stacks[p].guesses)
        if rnd.wrong_word[p]:
            counts.append(0)
        elif learning:
            counts.append(value)
        elif p == sheep:
            counts.append(-value)
        else:
            counts.append(value if guessed else 0)
    gained = [0] * players
    for s in stacks:
        for c in s.guesses:
            gained[c.player] += c.token or 0
    scores = tuple(gained[p] - sum(stacks[p].kept) + counts[p] for p in range(players))
    return RoundScore(rnd.number, rnd.deck, rnd.cards, tuple(stacks), tuple(wrong), sheep,
                      rnd.black, tuple(counts), scores)
