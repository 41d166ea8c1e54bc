"""One game in progress: the rules, the state, the chance RNG and the journal, kept in step.

Both the live table and ``companion replay`` drive games through a :class:`Match`, so the
order "validate, journal, then show" and the re-derivation of automatic actions (forced
passes) live in one place.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

from ..games.base import Action, IllegalAction, Outcome, Rules

UNDO = "undo"
"""The action that takes back a player's last action (docs/JOURNAL.md, "Taking back"): the
match, not a game's rules, takes it, so every game has it and no game's rules know of it."""


@dataclass(frozen=True)
class Step:
    """A player's action that may still be taken back, with the game as it was just before it:
    taking it back puts this back (the games are pure, so that is the game as if the action had
    never been made, the automatic actions it led to gone with it)."""

    player: int
    action: dict[str, Any]
    line: int | None
    """The journal line it was written on (None without a journal): the ``undo`` names it."""
    state: Any
    after: Any
    chances: int
    moves: int
    trail: int


@dataclass
class Match:
    rules: Rules
    options: Any
    players: tuple[str, ...]
    seed: int | None = None
    record: Callable[[dict[str, Any]], int | None] | None = None
    """Called with each journal event (``type`` included) before the state moves on; it returns
    the number of the journal line it was written on (or None). Attach it, then call
    :meth:`settle` for any automatic action due at the very start."""
    state: Any = field(init=False)
    chances: int = field(init=False, default=0)
    """Chance events applied so far: with the seed, it names the next draw."""
    moves: int = field(init=False, default=0)
    """Actions applied so far, the automatic ones too: with :attr:`chances`, the place in the
    journal, the same in a game resumed from it (the table's own draws are seeded by it)."""
    trail: list[tuple[Any, ...]] = field(init=False)
    """The scores at the start and after every chance event or action (with the automatic
    actions it led to) that changed them: the game's score over time, the same in a game
    resumed from its journal, which replays the same events."""
    steps: list[Step] = field(init=False, default_factory=list)
    """Players' actions since the last chance event (a deal reveals what no take-back can hide
    again), the latest last: what :meth:`undo` may take back."""
    acted: dict[int, int] = field(init=False, default_factory=dict)
    """How many actions each player has made (and not taken back), automatic ones aside."""

    def __post_init__(self) -> None:
        n = len(self.players)
        if not self.rules.min_players <= n <= self.rules.max_players:
            raise IllegalAction(f"{self.rules.title} is for {self.rules.players_allowed()} players, not {n}")
        self.state = self.rules.new(n, self.options)
        self.trail = [tuple(self.rules.scores(self.state))]

    def _scored(self) -> None:
        """Note the scores in :attr:`trail` if the last events changed them."""
        scores = tuple(self.rules.scores(self.state))
        if scores != self.trail[-1]:
            self.trail.append(scores)

    @property
    def outcome(self) -> Outcome | None:
        return self.rules.outcome(self.state)

    @property
    def needs_chance(self) -> bool:
        return self.rules.outcome(self.state) is None and self.rules.chance_needed(self.state)

    def chance(self, event: Action) -> None:
        """Apply a chance event (recorded or just drawn), journaling it first."""
        if not self.needs_chance:
            raise IllegalAction("no chance event is due here")
        new = self.rules.apply_chance(self.state, event)
        self._record({"type": "chance", **event})
        self.state = new
        self.chances += 1
        self.steps.clear()
        self.settle()

    def draw_chance(self) -> dict[str, Any]:
        """Draw the due chance event and apply it.

        Each draw has its own generator, seeded by the game's seed and the draw's number, so a
        game resumed from its journal draws exactly what the uninterrupted game would have.
        """
        if self.seed is None:
            raise IllegalAction("a chance event is due and there is no seed to draw it from")
        event = self.rules.draw_chance(self.state, self._rng())
        self.chance(event)
        return event

    def table_rng(self, purpose: str) -> random.Random:
        """A generator for a draw the table makes itself (a replacement word card), from the seed,
        the purpose and the chance events applied so far, all of which the journal holds: a game
        resumed from its journal draws what the uninterrupted game would have."""
        return random.Random(f"{self.seed}/{purpose}/{self.chances}")

    def due_event(self) -> str | None:
        """The kind of chance event due now (``cards``, ``assign``, ``deal``), as the seed
        would draw it; None when none is due or there is no seed."""
        if not self.needs_chance or self.seed is None:
            return None
        return self.rules.draw_chance(self.state, self._rng()).get("event")

    def chance_or_draw(self, event: Action) -> None:
        """Apply a recorded chance event, first drawing from the seed every earlier one the
        journal left out (a Pictomania ``assign`` with no ``cards`` before it: the cards are
        drawn, then the assignment applied). An event refused for its own sake stays refused."""
        while True:
            try:
                self.chance(event)
                return
            except IllegalAction:
                due = self.due_event()
                if due is None or due == event.get("event"):
                    raise
                self.draw_chance()

    def act_or_draw(self, action: Action) -> list[dict[str, Any]]:
        """Apply a recorded action, first drawing from the seed every chance event due before
        it that the journal left out (a deal, a word, a round's cards and assignment). A take-back
        comes before any: it is refused if a chance event is due (its action led to a deal)."""
        while action.get("action") != UNDO and self.needs_chance and not self.rules.acts_before_chance(self.state, action):
            self.draw_chance()
        return self.act(action)

    def _rng(self) -> random.Random:
        return random.Random(f"{self.seed}/{self.chances}")

    def act(self, action: Action) -> list[dict[str, Any]]:
        """Apply a player's action, then every automatic action it leads to.

        Returns what was applied, automatic actions marked ``"auto": True``. Nothing is applied
        or journaled if the action is illegal.
        """
        if action.get("action") == UNDO:
            return [self.undo(action)]
        if self.needs_chance and not self.rules.acts_before_chance(self.state, action):
            raise IllegalAction("a chance event is due before any action")
        new = self.rules.apply(self.state, action)
        applied = [{"type": "action", **action}]
        before = (self.state, self.chances, self.moves, len(self.trail))
        line = self._record(applied[0])
        self.state = new
        self.moves += 1
        applied.extend(self.settle())
        player = self.rules.actor(before[0], action)
        if player is not None:
            self.steps.append(Step(player, dict(action), line, before[0], self.state, *before[1:]))
            self.acted[player] = self.acted.get(player, 0) + 1
        return applied

    def takeback_refusal(self, player: int) -> str | None:
        """Why ``player`` may not take back their last action now, in players' words ("Ben has
        played since", "the cards are dealt"), or None if they may: it is the last action
        anyone made, no chance event has come since, the game is not over, and the game's rules
        allow taking it back (:meth:`~companion.games.base.Rules.takeback_refusal`)."""
        if self.outcome is not None:
            return "the game is over"
        mine = [step for step in self.steps if step.player == player]
        if mine:  # what the rules never take back says so first ("a guess is final"), not "Ben has played since"
            last = mine[-1]
            refusal = self.rules.takeback_refusal(last.state, last.action, last.after)
            if refusal is not None:
                return refusal
        if mine and mine[-1] is self.steps[-1]:
            return self.rules.dealt_since if self.needs_chance else None  # a deal: the cards are as good as seen
        if not self.acted.get(player):
            return "you have made no move to take back"
        if self.steps:
            return f"{self.players[self.steps[-1].player]} has played since"
        return self.rules.dealt_since

    def takeback_line(self, player: int) -> dict[str, Any]:
        """The ``undo`` action that takes back ``player``'s last action, naming its line;
        IllegalAction with the reason if it may not be taken back."""
        reason = self.takeback_refusal(player)
        if reason is not None:
            raise IllegalAction(reason)
        return {"action": UNDO, "player": player, "line": self.steps[-1].line}

    def undo(self, action: Action) -> dict[str, Any]:
        """Take back a player's last action (an ``undo`` line): the game goes back to just before
        it, the chance count, the moves and the score trail too. The line must name the journal
        line of the action it takes back (when the match knows it)."""
        player = action.get("player")
        if player not in range(len(self.players)) or isinstance(player, bool):
            raise IllegalAction(f"'player' must be a player index from 0 to {len(self.players) - 1}, not {player!r}")
        unknown = sorted(set(action) - {"action", "player", "line"})
        if unknown:
            raise IllegalAction(f"undo has no field {unknown[0]!r}: it names the player and the line taken back")
        line = self.takeback_line(player)
        named = action.get("line")
        if named is not None and line["line"] is not None and named != line["line"]:
            raise IllegalAction(f"undo names line {named!r}, but {self.players[player]}'s last action "
                                f"is on line {line['line']}")
        applied = {"type": "action", **line, "line": line["line"] if named is None else named}
        self._record(applied)
        step = self.steps.pop()
        self.acted[player] -= 1
        self.state, self.chances, self.moves = step.state, step.chances, step.moves
        del self.trail[step.trail:]
        return applied

    def settle(self) -> list[dict[str, Any]]:
        """Apply and journal the automatic actions the rules make now (e.g. forced passes), then
        note the scores (every event ends here)."""
        applied = []
        while self.rules.outcome(self.state) is None and not self.rules.chance_needed(self.state):
            auto = self.rules.auto_action(self.state)
            if auto is None:
                break
            new = self.rules.apply(self.state, auto)
            line = {"type": "action", **auto, "auto": True}
            self._record(line)
            self.state = new
            self.moves += 1
            applied.append(line)
        self._scored()
        return applied

    def _record(self, line: dict[str, Any]) -> int | None:
        return self.record(line) if self.record is not None else None
