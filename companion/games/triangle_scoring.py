"""Triangle's scoring: whether a stated fact is true of the cards, what a statement scores, and
the settlement at the end (who pays whom).

Separate from the rules (:mod:`companion.games.triangle`) because these are the numbers the
players check and the bots reckon with: the odds and the coach (:mod:`companion.bots`) and the
table's screens read them without a game state.
"""

from __future__ import annotations

import itertools

from .base import IllegalAction

PLAYERS = 3
WRONG_POINTS = 3

FACTS = ("peers_even", "even", "odd", "greater", "among", "exact")
"""The only facts a player may state, in the order the claimer's menu offers them."""
POINTS = {"peers_even": 1, "even": 2, "odd": 2, "greater": 3, "among": 5, "exact": 8}
SAID = {"peers_even": "both my peers' cards are even", "even": "my card is even", "odd": "my card is odd",
        "greater": "my card is greater than both peers'", "among": "my card equals a peer's"}
"""Each fact as the claimer says it at the table."""


def said(fact: str, value: int | None = None) -> str:
    """A statement in the claimer's words: ``my card is exactly 5``, ``my card is odd``."""
    return f"my card is exactly {value}" if fact == "exact" else SAID[fact]


def peers(player: int) -> tuple[int, int]:
    """The other two players, in seat order after ``player``."""
    return (player + 1) % PLAYERS, (player + 2) % PLAYERS


def fact_true(cards: tuple[int, ...], player: int, fact: str, value: int | None = None) -> bool:
    """Whether ``player`` stating ``fact`` (``value`` for ``exact``) about these cards is true."""
    mine = cards[player]
    theirs = [cards[p] for p in peers(player)]
    if fact == "peers_even":
        return all(c % 2 == 0 for c in theirs)
    if fact == "even":
        return mine % 2 == 0
    if fact == "odd":
        return mine % 2 == 1
    if fact == "greater":
        return all(mine > c for c in theirs)
    if fact == "among":
        return mine in theirs
    if fact == "exact":
        return mine == value
    raise IllegalAction(f"unknown fact {fact!r}: the facts are {', '.join(FACTS)}")


def round_points(cards: tuple[int, ...], player: int, fact: str, value: int | None) -> tuple[int, int, int]:
    """What a statement scores: its points to the speaker if true, else 3 to each other player."""
    if fact_true(cards, player, fact, value):
        return tuple(POINTS[fact] if p == player else 0 for p in range(PLAYERS))
    return tuple(0 if p == player else WRONG_POINTS for p in range(PLAYERS))


def settlement(scores: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """(payer, payee, amount) for each pair of players: the lower score pays the difference.

    Equal scores settle at 0 and are listed with the earlier seat as payer.
    """
    out = []
    for a, b in itertools.combinations(range(len(scores)), 2):
        payer, payee = (a, b) if scores[a] <= scores[b] else (b, a)
        out.append((payer, payee, scores[payee] - scores[payer]))
    return out
