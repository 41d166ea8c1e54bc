"""The word list for three-player Pictionary: the box's own words in three tiers, and the players' own.

The box ships ``easy.txt``, ``medium.txt`` and ``hard.txt`` beside this module (package data,
read with :mod:`importlib.resources`, so an installed box has them too). Players may add a word
file of their own, or play with theirs only. Every file is one word or short phrase per line;
blank lines and ``#`` comments are skipped. A word must fit one line of a station screen, in
the screens' Latin-1 font.

The rules draw from :func:`pool` and journal each word they draw, so a replay never needs the
word files again (only to draw a word the journal does not record).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from ..untrusted import WORD_FILE_BYTES, Unreadable, read_text

TIERS = ("easy", "medium", "hard")
MIXED = "mixed"
"""Every tier together."""
MAX_LENGTH = 21
"""Characters on one line of a station screen."""


class WordListError(ValueError):
    """A word file the box cannot use: names the file, the line and what is wrong."""


def parse_words(text: str, source: str) -> tuple[str, ...]:
    """The words of a word file's text, in file order, each once (the first spelling kept)."""
    words: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        word = " ".join(line.split("#", 1)[0].split())
        if not word:
            continue
        if len(word) > MAX_LENGTH:
            raise WordListError(
                f"{source} line {number}: {word!r} is {len(word)} characters; "
                f"a word must fit a screen line of {MAX_LENGTH}")
        if not word.isprintable() or max(map(ord, word)) > 0xFF:
            raise WordListError(
                f"{source} line {number}: {word!r} has a character the screens cannot show "
                "(they show Latin-1 letters)")
        if word.casefold() not in seen:
            seen.add(word.casefold())
            words.append(word)
    if not words:
        raise WordListError(f"{source}: no words (one word or short phrase per line)")
    return tuple(words)


@lru_cache(maxsize=None)
def tier_words(tier: str) -> tuple[str, ...]:
    """The box's own words of one tier, or of all of them for ``mixed``."""
    if tier == MIXED:
        return tuple(w for t in TIERS for w in tier_words(t))
    if tier not in TIERS:
        raise WordListError(f"tier must be one of {', '.join(TIERS + (MIXED,))}, not {tier!r}")
    text = resources.files(__package__).joinpath(f"{tier}.txt").read_text(encoding="utf-8")
    return parse_words(text, f"{tier}.txt")


def read_word_file(path: str | Path) -> tuple[str, ...]:
    """A player's word file. Read afresh each time, so edits count from the next word drawn."""
    try:
        text = read_text(Path(path).expanduser(), WORD_FILE_BYTES)
    except Unreadable as e:
        raise WordListError(f"word file {path}: {e.detail}") from None
    return parse_words(text, f"word file {path}")


def pool(tier: str, word_file: str | None = None, only_word_file: bool = False) -> tuple[str, ...]:
    """The words a game draws from: a tier of the box's words, plus or instead of a word file."""
    if word_file is None:
        return tier_words(tier)
    own = read_word_file(word_file)
    if only_word_file:
        return own
    box = tier_words(tier)
    known = {w.casefold() for w in box}
    return box + tuple(w for w in own if w.casefold() not in known)
