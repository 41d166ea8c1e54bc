"""The game protocol every rules engine follows.

A game is pure rules: a frozen state, the legal actions, ``apply(state, action)`` returning a new
state or raising :class:`IllegalAction` with the rule that forbids it, and ``outcome(state)``,
``None`` while play continues. Actions are plain mappings spelled exactly as the journal spells
them (``{"action": "play", "player": 0, "cell": 4}``), so the journal, the table and the tests
speak one language and nothing needs translating.

Randomness is *chance events* (a deal, a word): the table draws them with a seeded RNG and
journals them, and a replay applies the recorded ones instead of drawing again. Games never read
a clock, a global RNG or a file.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

from .options import lobby_choices, parse_options, show_value

Action = Mapping[str, Any]
"""A game action or chance event, as in the journal (without the ``type`` key)."""


class IllegalAction(Exception):
    """An action the rules forbid. ``str()`` names the rule, in players' words."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: winners (several on a shared win or a draw), final scores."""

    winners: tuple[int, ...]
    scores: tuple[Any, ...]
    detail: Mapping[str, Any] = field(default_factory=dict)


class Rules:
    """Base class of a game's rules. Subclasses are stateless; all state is in ``state``."""

    name: ClassVar[str]
    """Code name used in journals (``paytoplay``)."""
    title: ClassVar[str]
    """Name shown to players."""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    Options: ClassVar[type]
    """Frozen dataclass of the game's options (see :mod:`companion.games.options`)."""
    actions: ClassVar[tuple[str, ...]]
    """Every ``action`` the game takes, as docs/JOURNAL.md lists them: :meth:`action_kind`
    refuses any other, so the code cannot accept what the published format does not list."""
    chance_events: ClassVar[tuple[str, ...]] = ()
    """Every chance ``event`` the game takes (docs/JOURNAL.md), checked by :meth:`event_kind`."""
    host_seat: ClassVar[bool] = False
    """True for a game whose seat 0 is a host who referees and does not play (the quiz): on
    "Who plays?" a station takes it by choosing the name ``Host``."""
    bots_play: ClassVar[bool] = False
    """True for a game a bot can play a seat of (:mod:`companion.bots` has its moves): the lobby
    seats bots in it, a leaving player's seat goes to one, and its journal may have seat lines."""
    scores_are: ClassVar[str] = ""
    """What a game's scores are when they are not points (Pay-to-Play's are ``balances``,
    money left, which a winner by three in a row may trail in): said beside them in lists."""
    reveal_actions: ClassVar[tuple[str, ...]] = ()
    """Actions a finished game still takes while its last result is revealed (Pictomania's
    wrong word found when a stack is turned over): the result is then counted again."""

    def lobby_options(self, players: int) -> list[tuple[str, tuple[Any, ...], str]]:
        """(field, values the lobby offers, help) for a game of ``players``.

        By default the ``choices`` of the options; a game whose sensible values depend on the
        player count (a token table) offers them here. A row's first value is preselected when
        the option's default is not among its values.
        """
        return lobby_choices(self.Options)

    def lobby_start(self, values: dict[str, Any]) -> dict[str, Any]:
        """The options a game starts with from the lobby's ``values`` (Start pressed): by default
        those values; a game whose option depends on another's value changes it here."""
        return values

    def shown_option(self, name: str, values: Mapping[str, Any]) -> str:
        """Option ``name``'s value as the table screen's lobby lists it, given all the lobby's
        ``values``: by default as the station shows it; a game whose options change one another
        (Pictomania's competitive variant leaves a black token out) says what is in play."""
        return show_value(self.Options, name, values[name])

    def players_allowed(self) -> str:
        """``2`` or ``3 to 6``: the player counts, for messages."""
        low, high = self.min_players, self.max_players
        return str(low) if low == high else f"{low} to {high}"

    def checked_options(self, players: int, options: Any) -> Any:
        """What :meth:`new` starts from: ``options`` as the Options dataclass (parsed if it is a
        mapping), once ``players`` is a count the game is for (ValueError otherwise)."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.title} is for {self.players_allowed()} players, not {players}")
        return options if isinstance(options, self.Options) else parse_options(self.Options, options)

    def action_kind(self, action: Action) -> str:
        """The name of ``action``, once it is a mapping naming one of :attr:`actions`."""
        return self._kind(action, "action", self.actions, "an", "action")

    def event_kind(self, event: Action) -> str:
        """The name of chance ``event``, once it is a mapping naming one of :attr:`chance_events`."""
        return self._kind(event, "event", self.chance_events, "a", "chance event")

    def _kind(self, value: Action, field: str, names: tuple[str, ...], article: str, noun: str) -> str:
        """``value[field]`` if ``value`` is a mapping and that is one of ``names``; ``noun`` (with
        its ``article``) names it in the refusal. Every action and chance event replayed or played
        passes here, so the refusals' messages are only built for a refusal (not with
        :func:`need`, which takes them ready-made)."""
        if not _is_mapping(value):
            raise IllegalAction(f"{article} {noun} must be a mapping, not {value!r}")
        kind = value.get(field)
        if kind not in names:
            raise IllegalAction(f"unknown {noun} {kind!r}: {self.name} has {_listing(names)}")
        return kind

    def new(self, players: int, options: Any) -> Any:
        """The state before the first chance event or action."""
        raise NotImplementedError

    def chance_needed(self, state: Any) -> bool:
        """True when the next thing to happen is a chance event (a deal)."""
        return False

    def draw_chance(self, state: Any, rng: random.Random) -> dict[str, Any]:
        """Draw the chance event the state needs, with ``rng``; the caller applies it."""
        raise IllegalAction("this game has no chance events")

    def apply_chance(self, state: Any, event: Action) -> Any:
        """Apply a recorded chance event, refusing one that contradicts the state."""
        raise IllegalAction("this game has no chance events")

    def acts_before_chance(self, state: Any, action: Action) -> bool:
        """True for an action the rules take while a chance event is due: Pictomania's wrong word
        declared at the reveal, before the next round's cards. Replay draws a missing chance
        event before any other action."""
        return False

    def to_move(self, state: Any) -> tuple[int, ...]:
        """Players who may act now (empty when nobody, e.g. between rounds or at the end)."""
        raise NotImplementedError

    def legal_actions(self, state: Any) -> list[dict[str, Any]]:
        """Every action ``apply`` would accept now, for menus and random playouts."""
        raise NotImplementedError

    def apply(self, state: Any, action: Action) -> Any:
        """The state after ``action``; raises :class:`IllegalAction` naming the rule."""
        raise NotImplementedError

    def auto_action(self, state: Any) -> dict[str, Any] | None:
        """An action the box makes by itself (a forced pass), or None.

        Journals mark these ``"auto": true`` and replay re-derives them instead of reading them.
        """
        return None

    dealt_since: ClassVar[str] = "new cards are dealt"
    """Why a player's action before the last chance event may not be taken back, in players'
    words: a deal (a word, the letters) showed what no take-back can hide again."""

    def actor(self, state: Any, action: Action) -> int | None:
        """The player who made ``action`` (so may take it back), None for an action that is
        nobody's own (a judgement of the table). By default the action's ``player``."""
        player = action.get("player")
        return player if isinstance(player, int) and not isinstance(player, bool) else None

    def takeback_refusal(self, before: Any, action: Action, after: Any) -> str | None:
        """Why ``action`` (which took the game from ``before`` to ``after``, with the automatic
        actions it led to) may not be taken back, or None if it may. Asked only when it is the
        last action anyone made and no chance event came since (:class:`~companion.record.match.Match`
        refuses the rest). By default nothing is taken back: a game says what may be."""
        return f"a {self.title} {action.get('action')} cannot be taken back"

    def outcome(self, state: Any) -> Outcome | None:
        """The result once the game is over, else None."""
        raise NotImplementedError

    def scores(self, state: Any) -> tuple[Any, ...]:
        """Per-player scores as ``companion replay --json`` reports them."""
        raise NotImplementedError

    def detail(self, state: Any) -> dict[str, Any]:
        """Game-specific detail for ``companion replay --json``."""
        return {}

    def teams(self, state: Any) -> list[list[int]]:
        """The seats that score together, a list per team, in a game played in teams; empty when
        each player plays for themselves. A team's score is its players' added up, so a chart
        of the game draws the team, not its players one by one."""
        return []

    def describe(self, state: Any) -> list[str]:
        """A few text lines picturing the state for ``companion replay`` (a board, the cards);
        players by index (``player 1``), which the replay turns into names."""
        return []


    def check_invariants(self, state: Any) -> None:
        """Raise AssertionError if the state breaks a rule that must always hold."""


def each_player(values) -> str:
    """``player 0 +3, player 1 -1``: one value per player, not a bare list (the replay names them)."""
    return ", ".join(f"player {p} {v}" for p, v in enumerate(values))


def standing(rules: Rules, names: tuple[str, ...], scores: tuple[Any, ...]) -> str:
    """``Ana 3, Ben 1``: each player's score by name, and what the scores are if not points
    (``Ana -1, Ben 3 (balances)``); a game with a host names the host apart,
    ``Ben 2, Cy 1 (host Ana)``, since the host's seat never scores."""
    what = f" ({rules.scores_are})" if rules.scores_are else ""
    if not rules.host_seat:
        return ", ".join(f"{n} {s}" for n, s in zip(names, scores)) + what
    return ", ".join(f"{n} {s}" for n, s in list(zip(names, scores))[1:]) + what + f" (host {names[0]})"


def _is_mapping(value: Any) -> bool:
    """``isinstance(value, Mapping)``, answered at once for a dict (what journals and the table
    hand in): ``typing.Mapping``'s own check goes through the ABC machinery every time."""
    return isinstance(value, dict) or isinstance(value, Mapping)


def _listing(names: tuple[str, ...]) -> str:
    """``play, pass and draw``."""
    return " and ".join(filter(None, (", ".join(names[:-1]), names[-1]))) if names else "none"


def need(condition: bool, rule: str) -> None:
    """Raise :class:`IllegalAction` with ``rule`` unless ``condition`` holds."""
    if not condition:
        raise IllegalAction(rule)


def player_field(action: Action, players: int, key: str = "player") -> int:
    """The player index an action names, checked against the number of players."""
    p = action.get(key)
    if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < players:
        raise IllegalAction(f"{key!r} must be a player index from 0 to {players - 1}, not {p!r}")
    return p
