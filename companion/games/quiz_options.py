"""Quiz night's lobby options: the question pack, how many questions, to what target, the points
and penalties, what happens after a wrong answer, the tie window, the answer timer and the teams.

Separate from the rules because the host sets them before the night starts and the journal's
header keeps them; the rules only read the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .quiz_packs import SHELF, pack_problem

@dataclass(frozen=True)
class QuizOptions:
    """The lobby's choices (see :mod:`companion.games.quiz`)."""

    questions: int = field(default=10, metadata={
        "min": 1, "max": 200, "choices": (5, 10, 15, 20, 30),
        "help": "the game ends after this many questions",
        "label": "questions", "brief": "questions in a game",
    })
    target: int | None = field(default=None, metadata={
        "min": 1, "max": 1000, "choices": (None, 5, 10, 20),
        "help": "the game ends once a player (or team) has this many points",
        "label": "target", "brief": "points that win",
    })
    points: int = field(default=1, metadata={
        "min": 1, "max": 100, "choices": (1, 2, 5, 10),
        "help": "points for a right answer",
        "label": "right", "brief": "points when right",
    })
    penalty: int = field(default=0, metadata={
        "min": 0, "max": 100, "choices": (0, 1, 2, 5),
        "help": "points lost for a wrong answer or a timeout",
        "label": "wrong", "brief": "lost when wrong",
    })
    after_wrong: str = field(default="next", metadata={
        "choices": ("next", "reopen"), "strict": True,
        "help": "after a wrong answer: the next in press order answers, or the buzzers re-open",
        "label": "after wrong", "brief": "next, or re-open",
    })
    early: str = field(default="lockout", metadata={
        "choices": ("lockout", "prelock"), "strict": True,
        "help": "a press before the cue: locked out lockout_ms, or until the next question",
        "label": "early press", "brief": "lockout or prelock",
    })
    lockout_ms: int = field(default=250, metadata={
        "min": 1, "max": 5000, "choices": (100, 250, 500, 1000),
        "help": "with early = lockout: how long each early press locks its player out",
        "label": "lockout", "brief": "ms per early press",
    })
    tie: str = field(default="host", metadata={
        "choices": ("host", "draw"), "strict": True,
        "help": "a tie: the host picks who answers, or the box draws one of the tied",
        "label": "tie", "brief": "host picks or a draw",
    })
    tie_window_ms: int = field(default=10, metadata={
        "min": 1, "max": 1000, "choices": (2, 5, 10, 20),
        "help": "presses this close together are a tie",
        "label": "tie window", "brief": "close presses: a tie",
    })
    answer_s: int | None = field(default=None, metadata={
        "min": 1, "max": 120, "choices": (None, 5, 10, 20),
        "help": "seconds the host has to judge an answer before it counts as wrong",
        "label": "answer timer", "brief": "time to judge",
    })
    teams: int | None = field(default=None, metadata={
        "min": 2, "max": 4, "choices": (None, 2, 3, 4),
        "help": "players in this many teams, in seat order (off: everyone for themselves)",
        "label": "teams", "brief": "teams in seat order",
    })
    pack: str | None = field(default=None, metadata={
        "help": "a question pack (CSV or JSON) the host reads from: one of the packs folder's, or a file",
        "label": "pack", "brief": "host reads from paper",
        "show": lambda path: Path(path).stem,
        "brief_of": lambda path: SHELF.brief(path),
        "typed_check": pack_problem,
    })
    tv_question: bool = field(default=False, metadata={
        "help": "with a pack: the table screen shows each question once the host has read it and armed",
        "label": "TV question", "briefs": {False: "TV: category only", True: "TV shows it once read"},
    })
