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


@dataclass
class Match:
    rules: Rules
    options: Any
    players: tuple[str, ...]
    seed: int | None = None
    record: Callable[[dict[str, Any]], None] | None = None
    """Called with each journal event (``type`` included) before the state moves on. Attach it,
    then call :meth:`settle` for any automatic action due at the very start."""
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
        it that the journal left out (a deal, a word, a round's cards and assignment)."""
        while self.needs_chance and not self.rules.acts_before_chance(self.state, action):
            self.draw_chance()
        return self.act(action)

    def _rng(self) -> random.Random:
        return random.Random(f"{self.seed}/{self.chances}")

    def act(self, action: Action) -> list[dict[str, Any]]:
        """Apply a player's action, then every automatic action it leads to.

        Returns what was applied, automatic actions marked ``"auto": True``. Nothing is applied
        or journaled if the action is illegal.
        """
        if self.needs_chance and not self.rules.acts_before_chance(self.state, action):
            raise IllegalAction("a chance event is due before any action")
        new = self.rules.apply(self.state, action)
        applied = [{"type": "action", **action}]
        self._record(applied[0])
        self.state = new
        self.moves += 1
        applied.extend(self.settle())
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

    def _record(self, line: dict[str, Any]) -> None:
        if self.record is not None:
            self.record(line)
