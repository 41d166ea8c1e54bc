"""Every registered game keeps the rules protocol, checked by seeded random playouts.

For each game, player count and option set (defaults, then each lobby choice of each option on
its own), random legal playouts must never raise, accept everything ``legal_actions`` lists (all
of it, or a random sample of :data:`CHECKED_PER_STEP` when everybody acts at once and the list is
long), hold ``check_invariants`` after every step, finish within a step cap, and refuse bad
actions with :class:`IllegalAction` only: actions reach the rules from buttons and wires. Once
over, a game takes only its ``reveal_actions`` (a correction while the last result is revealed).
"""

from __future__ import annotations

import random
from dataclasses import fields

import pytest

from companion.games import all_games, get
from companion.games.base import IllegalAction, Outcome
from companion.games.options import lobby_choices, parse_options

PLAYOUTS_PER_GAME = 2000
LONG_GAMES = {"pictomania": 200, "triangle": 200}
"""Games whose playouts are long (Pictomania: a hundred steps of a hundred legal actions, as
everybody acts at once; Triangle: dozens of rounds to the target): their own, smaller budget of
playouts, so the suite stays fast."""
MIN_PLAYOUTS = 4
CHECKED_PER_STEP = 16
STEP_CAP = 5000
GARBAGE = [{}, {"action": "nope"}, {"action": None}, {"action": 7}, {"action": ["x"]}]
BAD_PLAYERS = [-1, "0", True, None, 1.0]


def option_sets(game):
    """Defaults, then each lobby choice that differs from the default, one option at a time."""
    defaults = {f.name: f.default for f in fields(game.Options)}
    sets = [{}]
    for name, choices, _ in lobby_choices(game.Options):
        sets += [{name: value} for value in choices if value != defaults[name]]
    return sets


CONFIGS = [
    pytest.param(game.name, players, options, id=f"{game.name}-{players}p-{options or 'defaults'}")
    for game in all_games()
    for players in range(game.min_players, game.max_players + 1)
    for options in option_sets(game)
]


def playouts(name: str) -> int:
    configs = sum(1 for c in CONFIGS if c.values[0] == name)
    return max(MIN_PLAYOUTS, LONG_GAMES.get(name, PLAYOUTS_PER_GAME) // configs)


def other_players(action, players, to_move):
    """``action`` signed by each player who may not act now."""
    if "player" not in action:
        return []
    return [dict(action, player=p) for p in range(players) if p not in to_move]


def check_refusals(game, state, players, legal):
    """Bad actions raise IllegalAction, and nothing else (pytest.raises lets others through)."""
    to_move = game.to_move(state)
    bad = list(GARBAGE)
    for action in legal[:3]:
        bad += other_players(action, players, to_move)
        if "player" in action:
            bad += [dict(action, player=p) for p in BAD_PLAYERS + [players]]
    for action in bad:
        with pytest.raises(IllegalAction):
            game.apply(state, action)
    if not game.chance_needed(state):
        with pytest.raises(IllegalAction):
            game.apply_chance(state, {})


def playout(game, players, options, rng):
    state = game.new(players, options)
    game.check_invariants(state)
    last_action = None
    for _ in range(STEP_CAP):
        outcome = game.outcome(state)
        if outcome is not None:
            return state, outcome, last_action
        to_move = game.to_move(state)
        legal = game.legal_actions(state)
        assert {a["player"] for a in legal if "player" in a} <= set(to_move), "only movers act"
        checked = legal if len(legal) <= CHECKED_PER_STEP else rng.sample(legal, CHECKED_PER_STEP)
        for action in checked:
            game.apply(state, action)
        if rng.random() < 0.05:
            check_refusals(game, state, players, legal)
        if game.chance_needed(state):
            state = game.apply_chance(state, game.draw_chance(state, rng))
        elif (auto := game.auto_action(state)) is not None:
            assert auto in legal, "an automatic action is a legal one"
            state = game.apply(state, auto)
        else:
            assert legal, "a game that is not over has something to happen"
            last_action = rng.choice(legal)
            after = game.apply(state, last_action)
            assert after == game.apply(state, last_action), "apply is deterministic"
            state = after
        hash(state)
        game.check_invariants(state)
    pytest.fail(f"no outcome after {STEP_CAP} steps")


@pytest.mark.parametrize("name, players, given", CONFIGS)
def test_random_playouts_keep_the_protocol(name, players, given):
    game = get(name)
    options = parse_options(game.Options, given)
    rng = random.Random(f"{name}/{players}/{sorted(given.items())}")
    for _ in range(playouts(name)):
        state, outcome, last_action = playout(game, players, options, rng)
        assert isinstance(outcome, Outcome)
        assert outcome.winners and set(outcome.winners) <= set(range(players))
        assert len(outcome.scores) == players
        assert tuple(game.scores(state)) == tuple(outcome.scores)
        # Over: only a correction at the reveal of the last result remains (reveal_actions).
        after = game.legal_actions(state)
        assert {a["action"] for a in after} <= set(game.reveal_actions)
        assert {a["player"] for a in after} == set(game.to_move(state))
        assert game.auto_action(state) is None and not game.chance_needed(state)
        for action in GARBAGE + ([last_action] if last_action else []):
            with pytest.raises(IllegalAction):
                game.apply(state, action)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_games_describe_themselves(game):
    assert get(game.name) is game
    assert game.title and 1 <= game.min_players <= game.max_players
    for f in fields(game.Options):
        assert f.metadata.get("help"), f"option {f.name!r} has no help"
    assert parse_options(game.Options, {}) == game.Options()
    for given in option_sets(game):
        parse_options(game.Options, given)
