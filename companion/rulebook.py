"""The rules on the box: each game's short name and how to play it, in the players' words.

Shown a page at a time on a station (``left``/``right`` turn the pages, ``ok`` or ``slap`` go
back): from the lobby's game menu with ``slap``, and during a game by holding ``right`` and
pressing ``ok``. Every option's one-line explanation lives with the option itself
(``brief`` in its metadata, :mod:`companion.games.options`).
"""

from __future__ import annotations

import textwrap

SHORT_TITLES = {
    "triangle": "Triangle",
    "closest": "Closest number",
    "trio": "Pictionary",
    "pictomania": "Pictomania",
    "paytoplay": "Pay-to-Play",
    "quiz": "Quiz",
}
"""A name that fits a title bar with room to spare."""

RULES = {
    "triangle": (
        "3 players. The box deals each a card 1-6 and counts 3-2-1-0.",
        "At 0 you see your two peers' cards, never your own. Slap first to speak.",
        "Deck: 4 each of 1-6. The speaker also sees a 4th: Right to Speak.",
        "Then state a fact about your own card. A false one: others +3 each.",
        "peers even +1: both other cards are even. I'm even +2, I'm odd +2.",
        "I'm greater +3: above both others. I'm among +5: equal to one of them.",
        "I'm exactly N +8. Slaps within the tie window: a draw, no points.",
        "6 rounds make a turn. The game ends after the turn someone reaches the target.",
        "Take back (hold left, ok): nothing. A slap is a race; a fact shows the cards.",
    ),
    "closest": (
        "3 players, each a shape: circle, square, triangle.",
        "First right answer to the product starts: one answer per button.",
        "In turn, put a card on a free number of the line: </> pick, ok places.",
        "Round 1: one card each. Round 2: two each; one is your secret decoy.",
        "A decoy is hollow on your screen only. It does not count at scoring.",
        "Each number: 1 point to the nearest counting card. = two players tie.",
        "Most points after round 2 wins. A shared lead plays another round.",
        "Take back your card (hold left, ok) until the next card. Not a round's last.",
    ),
    "trio": (
        "3 players take turns to draw. Only the artist sees the word.",
        "Artist: left for another word, ok starts the timer. Draw on paper.",
        "Guessers call out a guess and slap. The artist: ok right, left wrong.",
        "Right: guesser and artist +1. Both right at once: artist +1 only.",
        "A player strictly ahead skips drawing. Leading with enough points wins.",
        "Misjudged? The artist takes it back: right, or hold left and press ok.",
    ),
    "pictomania": (
        "3-6 players, all at once. Read the 21 words: </> pages.",
        "slap swaps a card nobody knows. ok when ready.",
        "Your screen shows your letter, number and word: draw it.",
        "Guess others: menu Guess <name>, </> number, ok, ok again. Earlier is better.",
        "Right guesses take the drawer's tokens. What nobody takes counts minus.",
        "Done: take a black token. Guessed wrong most often? Then it counts minus.",
        "Nobody guessed your word right? Then your black token counts 0.",
        "Round 1 is a learning round (an option): black tokens always count plus.",
        "After the round, ok shows each drawing's guesses, then the scores.",
        "A guess is final: it is never taken back. Nor is Done, nor a wrong word.",
    ),
    "paytoplay": (
        "2 players: tic-tac-toe where every mark costs points.",
        "Each turn you earn 2 points (X: 1 on the first).",
        "Edge costs 2, corner 3, centre 4. Place only with a positive balance.",
        "</> choose a cell, Pass or Draw?. ok confirms. Passing is always allowed.",
        "Three in a row wins. Full board: the higher balance wins.",
        "Hold left, press ok: take back your mark or pass until the other moves.",
    ),
    "quiz": (
        "A host and 2-16 players. Who plays?: the host takes the name Host.",
        "The host reads a question, then slap arms: a cue sounds. Then slap!",
        "First press answers. Too early: locked out a moment, or all question.",
        "Host: ok right, left wrong, right skips. Wrong: next presser answers.",
        "Host between questions: ok corrects a score (</> player, ok, -/+, ok).",
        "Teams: one press per team. Most points after the questions wins.",
    ),
}

KEYS = "</> turn pages, ok or slap: back. In a game: hold right, press ok."

LINES_PER_PAGE = 4
COLUMNS = 21


def pages(game: str) -> list[tuple[str, ...]]:
    """The game's rules a paragraph a page, then the keys: up to four 21-character lines each."""
    return [tuple(textwrap.wrap(paragraph, COLUMNS)) for paragraph in (*RULES[game], KEYS)]
