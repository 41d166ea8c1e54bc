"""Pictomania's lobby options: the word decks by round, the learning round, the competitive
variant and the token tables players may change.

Separate from the rules because options are read from untrusted places (the lobby, the command
line, a journal's header) and each gets its own clear error; the rules only read the result.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .. import words as decks
from .options import OptionError, lobby_choices, show_value
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
        "help": "one black token fewer than players, and the round ends as soon as the last one is "
                "taken: one player gets none and cannot finish guessing",
        "label": "competitive", "brief": "last black ends round",
        "briefs": {False: "one black per player", True: "last black ends round"},
    })
    tokens: str = field(default="", metadata={
        "check": _token_problem,
        "help": "each player's tokens, e.g. 2,1,1 (one per opponent); empty: the standard table",
        "label": "tokens", "brief": "your tokens' values",
    })
    black: str = field(default="", metadata={
        "check": _token_problem,
        "help": "black tokens, e.g. 3,2,2,1 (one per player; competitive leaves the lowest out); empty: the standard table",
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
    return Tokens(player, in_play(black, options.competitive))


def in_play(black: tuple[int, ...], competitive: bool) -> tuple[int, ...]:
    """The black tokens put in the middle: one per player, the lowest left out in the
    competitive variant (the rules' table for it has one fewer)."""
    return black[:-1] if competitive else black


def shown_black(values: dict) -> str:
    """The lobby's ``black`` tokens as played: with ``competitive`` on, those in the middle and
    the one left out (the lobby keeps one per player, as the option is typed)."""
    text = values["black"]
    if not values.get("competitive") or not text:
        return show_value(PictomaniaOptions, "black", text)
    tokens = parse_tokens(text)
    return f"{','.join(map(str, in_play(tokens, True)))} in play (competitive: a {tokens[-1]} left out)"


def lobby_rows(players: int) -> list[tuple[str, tuple, str]]:
    """The lobby's rows: the static choices, user decks added to ``decks``, and the token tables
    for ``players``: the standard one first, then a flat and a steep alternative."""
    rows = []
    for name, choices, help in lobby_choices(PictomaniaOptions):
        if name == "decks":
            choices += tuple(d for d in decks.catalogue() if d not in choices)
        rows.append((name, choices, help))
    fields = {f: PictomaniaOptions.__dataclass_fields__[f].metadata["help"] for f in ("tokens", "black")}
    for name, standard, count in (("tokens", PLAYER_TOKENS[players], players - 1),
                                  ("black", BLACK_TOKENS[players], players)):
        tables = (standard, (1,) * count, tuple(range(count, 0, -1)))
        choices = tuple(dict.fromkeys(",".join(map(str, t)) for t in tables))
        rows.append((name, choices, fields[name]))
    return rows


def round_deck(options: PictomaniaOptions, number: int) -> str:
    """The deck round ``number`` deals from: the option's names in turn, the last for the rest."""
    names = deck_names(options.decks)
    return names[min(number, len(names)) - 1]


def decks_short(options: PictomaniaOptions) -> str | None:
    """Why the decks cannot deal every round three cards never shown before, or None."""
    if options.words != "box":
        return None
    uses = Counter(round_deck(options, r) for r in range(1, options.rounds + 1))
    for name, rounds in uses.items():
        size = len(decks.find(name).cards)
        if size < decks.CARDS_PER_ROUND * rounds:
            return f"deck {name!r} has {size} cards, too few for {rounds} rounds of {decks.CARDS_PER_ROUND}"
    return None
