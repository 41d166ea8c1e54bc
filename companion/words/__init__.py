"""Word decks for Pictomania: cards of seven closely related words, in decks by difficulty.

The box ships four decks (``green``, ``yellow``, ``orange``, ``red``, easiest first), written for
this product; players may add their own decks from a file in the same format. A deck file is
TOML with one ``[[deck]]`` table per deck::

    [[deck]]
    name = "kitchen"            # lowercase letters, digits and dashes; not a built-in name
    title = "Kitchen words"     # optional; shown on printed sheets
    cards = [
      ["spoon", "fork", "knife", "ladle", "whisk", "spatula", "tongs"],
      ["pan", "pot", "kettle", "wok", "oven", "toaster", "grill"],
      ["cup", "mug", "glass", "bowl", "plate", "jug", "teapot"],
    ]

Every card has exactly seven words (a word is numbered 1 to 7 by its place), each at most
:data:`WORD_MAX` characters so a station can show it; no word appears twice in a deck; a deck
has at least three cards (one round shows three). A card's id is the deck name and its place,
``kitchen-02``: journals record ids, so a journal of a game with a user deck replays with the
same file.

:class:`DeckError` lists every problem of a file at once, each naming its place
(``deck 1 card 4 word 2: ...``, each counted from 1), so a maker fixes them in one pass.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..untrusted import DECK_BYTES, Unreadable, read_toml

WORDS_PER_CARD = 7
CARDS_PER_ROUND = 3
WORD_MAX = 18
"""A station shows ``B5 `` and the word on one 21-character line."""
BUILTIN = ("green", "yellow", "orange", "red")
"""The box's own decks, easiest first: the default order of Pictomania's four rounds."""
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,15}")


class DeckError(ValueError):
    """Every problem found in a deck file, one per line, each naming its place."""

    def __init__(self, source: str, problems: list[str]) -> None:
        super().__init__(f"{source}:\n" + "\n".join(f"  {p}" for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class Card:
    id: str
    words: tuple[str, ...]
    """Seven words; word ``n`` (1-7) is ``words[n - 1]``."""

    def word(self, number: int) -> str:
        return self.words[number - 1]


@dataclass(frozen=True)
class Deck:
    name: str
    title: str
    cards: tuple[Card, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(card.id for card in self.cards)


def card_id(deck: str, place: int) -> str:
    """The id of the deck's card at ``place`` (from 1)."""
    return f"{deck}-{place:02d}"


def _check_card(words: Any, where: str, seen: dict[str, str], problems: list[str]) -> tuple[str, ...]:
    if not isinstance(words, list):
        problems.append(f"{where}: a card is a list of exactly {WORDS_PER_CARD} words, not {words!r}")
        return ()
    if len(words) != WORDS_PER_CARD:  # its count, not the whole list back: the maker has it open
        first = f" (starting {words[0]!r})" if words else ""
        problems.append(f"{where}: a card needs exactly {WORDS_PER_CARD} words; this one has {len(words)}{first}")
        return ()
    good = []
    for i, word in enumerate(words):
        here = f"{where} word {i + 1}"
        if not isinstance(word, str) or not word.strip():
            problems.append(f"{here}: a word must be non-empty text, not {word!r}")
            continue
        word = " ".join(word.split())
        if len(word) > WORD_MAX:
            problems.append(f"{here}: {word!r} is longer than {WORD_MAX} characters")
        elif not word.isprintable():
            problems.append(f"{here}: {word!r} has characters a station cannot show")
        elif word.casefold() in seen:
            problems.append(f"{here}: {word!r} is already in this deck at {seen[word.casefold()]}")
        else:
            seen[word.casefold()] = here
        good.append(word)
    return tuple(good)


def parse_decks(data: dict[str, Any], source: str = "decks", reserved: tuple[str, ...] = ()) -> list[Deck]:
    """Check a deck file's mapping (from TOML) and build its decks; :class:`DeckError` lists every
    problem. ``reserved`` names that may not be used (the built-in decks, for a user file)."""
    problems: list[str] = []
    for extra in sorted(set(data) - {"deck"}):
        problems.append(f"{extra}: unknown field; a deck file has only [[deck]] tables")
    tables = data.get("deck")
    if not isinstance(tables, list) or not tables:
        raise DeckError(source, problems + ["deck: at least one [[deck]] table is needed"])
    decks, names = [], set()
    for d, table in enumerate(tables):
        where = f"deck {d + 1}"  # counted from 1, as the cards' ids count
        if not isinstance(table, dict):
            problems.append(f"{where}: must be a [[deck]] table with name and cards, not {type(table).__name__}")
            continue
        for extra in sorted(set(table) - {"name", "title", "cards"}):
            problems.append(f"{where} {extra}: unknown field; known fields are name, title, cards")
        name = table.get("name")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            problems.append(f"{where} name: must be 1-16 lowercase letters, digits or dashes, not {name!r}")
            name = f"deck{d}"
        elif name in reserved:
            problems.append(f"{where} name: {name!r} is a built-in deck; choose another name")
        elif name in names:
            problems.append(f"{where} name: {name!r} is already a deck in this file")
        names.add(name)
        title = table.get("title", name)
        if not isinstance(title, str) or not title.strip():
            problems.append(f"{where} title: must be text, not {title!r}")
        cards = table.get("cards")
        if not isinstance(cards, list) or len(cards) < CARDS_PER_ROUND:
            problems.append(f"{where} cards: a deck needs a list of at least {CARDS_PER_ROUND} cards")
            cards = cards if isinstance(cards, list) else []
        seen: dict[str, str] = {}
        built = [Card(card_id(name, c + 1), _check_card(words, f"{where} card {c + 1}", seen, problems))
                 for c, words in enumerate(cards)]
        decks.append(Deck(name, str(title), tuple(built)))
    if problems:
        raise DeckError(source, problems)
    return decks


def load_decks(path: Path | str, reserved: tuple[str, ...] = BUILTIN) -> list[Deck]:
    """Read and check a user's deck file; :class:`DeckError` for a bad file (also bad TOML)."""
    path = Path(path)
    try:
        data = read_toml(path, DECK_BYTES)
    except Unreadable as e:
        raise DeckError(str(path), [e.detail]) from None
    return parse_decks(data, str(path), reserved)


def deck_warnings(decks: list[Deck]) -> list[str]:
    """Words the screens cannot show as typed (drawn with stand-ins, see
    :func:`~companion.screens.canvas.shown`): players would not recognise them."""
    from ..screens.canvas import unshowable

    return [f"{deck.name} {card.id} word {n}: {word!r} has characters the screens cannot show "
            f"({missing}); they are drawn as their plain letter or '?'"
            for deck in decks for card in deck.cards for n, word in enumerate(card.words, start=1)
            if (missing := unshowable(word))]


@lru_cache(maxsize=1)
def builtin() -> dict[str, Deck]:
    """The box's own decks, read once from the package's data files."""
    decks = {}
    for name in BUILTIN:
        text = resources.files(__name__).joinpath(f"{name}.toml").read_text(encoding="utf-8")
        (deck,) = parse_decks(tomllib.loads(text), f"{name}.toml")
        decks[deck.name] = deck
    return decks


_user: dict[str, Deck] = {}


def use_user_decks(decks: list[Deck]) -> None:
    """Make these user decks (and only these) known beside the built-in ones."""
    _user.clear()
    _user.update((deck.name, deck) for deck in decks)


def catalogue() -> dict[str, Deck]:
    """Every deck a game may use: the built-in ones, then the user's."""
    return {**builtin(), **_user}


def find(name: str) -> Deck:
    """The deck called ``name``; KeyError naming the known decks otherwise."""
    decks = catalogue()
    if name not in decks:
        raise KeyError(f"unknown deck {name!r}; known decks are {', '.join(decks)}")
    return decks[name]


def card(card_id: str) -> Card:
    """The card with this id, from whichever known deck holds it."""
    deck = find(card_id.rsplit("-", 1)[0])
    for c in deck.cards:
        if c.id == card_id:
            return c
    raise KeyError(f"deck {deck.name!r} has no card {card_id!r}")
