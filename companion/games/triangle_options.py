"""Triangle's lobby options: how long a game lasts and how the table referees it.

Separate from the rules because most of them are the table's timing (tie window, countdown pace,
false-start lockout, round timeout), carried by the game only so that a journal's header records
how the game was refereed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .options import SCREEN_TIE_WINDOW_MS

@dataclass(frozen=True)
class TriangleOptions:
    """How long a game lasts and how the table referees it (see :mod:`companion.games.triangle`)."""

    target: int = field(default=25, metadata={
        "min": 1, "choices": (15, 25, 40, 50),
        "help": "the game ends at the end of a turn once a player has this many points",
        "label": "target", "brief": "points to win",
    })
    turns: int | None = field(default=None, metadata={
        "min": 1, "choices": (None, 1, 2, 3, 5),
        "help": "play exactly this many turns of six rounds instead of playing to the target",
        "label": "turns", "brief": "play N turns instead",
    })
    tie_window_ms: int = field(default=SCREEN_TIE_WINDOW_MS, metadata={
        "min": 1, "max": 1000, "choices": (5, SCREEN_TIE_WINDOW_MS, 20, 50),
        "help": "slaps this close to the first one are a tie: the round is a draw",
        "label": "tie window", "brief": "slaps this close: tie",
    })
    false_start_lockout_ms: int = field(default=0, metadata={
        "min": 0, "max": 5000, "choices": (0, 250, 500),
        "help": "a slap before 0 locks that player out of the race for this long",
        "label": "lockout", "brief": "slap before 0: wait", "off": 0,
    })
    round_timeout_s: int | None = field(default=None, metadata={
        "min": 1, "choices": (None, 10, 20, 30, 60),
        "help": "a round nobody claims within this many seconds after 0 is void",
        "label": "timeout", "brief": "void if nobody slaps",
    })
    countdown_ms: int = field(default=1000, metadata={
        "min": 100, "max": 3000, "choices": (250, 500, 750, 1000),
        "help": "time between the counts 3, 2, 1 and 0",
        "label": "count pace", "brief": "time between counts",
    })
    settlement: bool = field(default=False, metadata={
        "choices": (False, True),
        "help": "end screen: what each player pays each other player (the score difference)",
        "label": "settlement", "brief": "end: who pays whom",
    })
    coach: bool = field(default=False, metadata={
        "choices": (False, True),
        "help": "after each round, the speaker's station shows the best statement by counting",
        "label": "coach", "brief": "speaker: best by odds",
    })
    counting_aid: bool = field(default=False, metadata={
        "choices": (False, True),
        "help": "hold left to see which cards of this turn you have seen",
        "label": "counting aid", "brief": "hold left: cards seen",
    })
