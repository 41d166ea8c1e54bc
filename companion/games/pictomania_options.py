"""Pictomania's lobby options: the word decks by round, the learning round, the competitive
variant and the token tables players may change.

Separate from the rules because options are read from untrusted places (the lobby, the command
line, a journal's header) and each gets its own clear error; the rules only read the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import words as decks
from .options import OptionError
from .pictomania_scoring import BLACK_TOKENS, PLAYER_TOKENS, Tokens

RISING = "rising"


def parse_tokens(text: str) -> tuple[int, ...]:
    """``"3,2,1"`` as token values, highest first; ValueError for anything else."""
    values = tuple(int(v) for v in text.split(",")) if text.strip() else ()
    if not values or any(v < 1 or v > 9 for v in values):
        raise ValueError(text)
    return tuple(sorted(values, reverse=True))


def _token_problem(text: str) -> str | None:
    if text == "":
        return None
    try:
        parse_tokens(text)
    except ValueError:
        return f"must be token values from 1 to 9 separated by commas (\"3,2,1\"), or empty for the standard table, not {text!r}"
    return None


def deck_names(text: str) -> tuple[str, ...]:
    """The option ``decks`` as deck names: ``rising`` is the four built-in decks, easiest first."""
    return decks.BUILTIN if text == RISING else tuple(n.strip() for n in text.split(","))


def _decks_problem(text: str) -> str | None:
    known = decks.catalogue()
    unknown = [n for n in deck_names(text) if n not in known]
    if unknown:
        return (f"unknown deck {unknown[0]!r}: use {RISING!r}, a deck name or deck names separated "
                f"by commas; known decks are {', '.join(known)}")
    return None


@dataclass(frozen=True)
class PictomaniaOptions:
    """The lobby's choices (see :mod:`companion.games.pictomania` and RULES-NOTES.md)."""

    words: str = field(default="box", metadata={
        "choices": ("box", "physical"), "strict": True,
        "help": "box: the box shows its own word cards; physical: printed cards, the box deals only letter and number",
        "label": "words", "brief": "box words or printed",
    })
    decks: str = field(default=RISING, metadata={
        "choices": (RISING,) + decks.BUILTIN, "check": _decks_problem,
        "help": "word decks by round: rising (green, yellow, orange, red), one deck for every round, or names by commas",
        "label": "decks", "brief": "word decks by round",
    })
    rounds: int = field(default=4, metadata={
        "min": 1, "max": 4, "choices": (1, 2, 3, 4),
        "help": "rounds in a game (the rules play four)",
        "label": "rounds", "brief": "rounds in a game",
    })
    learning_round: bool = field(default=True, metadata={
        "choices": (False, True),
        "help": "round 1 teaches: the black token always counts positive, no black sheep",
        "label": "learning round", "brief": "easier first round",
    })
    competitive: bool = field(default=False, metadata={
        "choices": (False, True),
        "help": "one black token fewer; the round ends when the last one is taken",
        "label": "competitive", "brief": "1 black token fewer",
    })
    tokens: str = field(default="", metadata={
        "check": _token_problem,
        "help": "each player's tokens, e.g. 2,1,1 (one per opponent); empty: the standard table",
        "label": "tokens", "brief": "your tokens' values",
    })
    black: str = field(default="", metadata={
        "check": _token_problem,
        "help": "black tokens, e.g. 3,2,2,1 (one per player); empty: the standard table",
        "label": "black", "brief": "black tokens' values",
    })


def token_tables(players: int, options: PictomaniaOptions) -> Tokens:
    """The tables for ``players``: the standard ones unless the options give others."""
    player = parse_tokens(options.tokens) if options.tokens else PLAYER_TOKENS[players]
    black = parse_tokens(options.black) if options.black else BLACK_TOKENS[players]
    if len(player) != players - 1:
        raise OptionError("tokens", f"needs {players - 1} values for {players} players "
                                           f"(one per opponent), not {len(player)}")
    if len(black) != players:
        raise OptionError("black", f"needs {players} values for {players} players "
                                          f"(one per player), not {len(black)}")
    return Tokens(player, black[:-1] if options.competitive else black)
