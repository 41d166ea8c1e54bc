"""docs/JOURNAL.md is the published format: the code accepts exactly the names it lists.

Each game declares its action and chance event names (``Rules.actions``, ``Rules.chance_events``)
and its validator refuses any other, so comparing the declarations with the document's tables,
and checking that the validator really refuses an undeclared name, keeps code and document
together. Random playouts then check that nothing the rules offer or draw is outside the tables.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from pathlib import Path

import pytest

from companion.games import all_games
from companion.games.base import IllegalAction

DOC = Path(__file__).resolve().parent.parent / "docs" / "JOURNAL.md"
ROW = re.compile(r"^\| (\w+) \| `(\w+)` \|")


def documented(section: str) -> dict[str, set[str]]:
    """{game: names} from the table under the ``## section`` heading."""
    text = DOC.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    names: dict[str, set[str]] = defaultdict(set)
    for line in body.splitlines():
        if m := ROW.match(line):
            names[m.group(1)].add(m.group(2))
    return names


ACTIONS = documented("Actions")
EVENTS = documented("Chance events")
GAMES = all_games()


def test_the_document_lists_every_game():
    assert set(ACTIONS) == {g.name for g in GAMES}
    assert set(EVENTS) <= {g.name for g in GAMES}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_each_game_takes_exactly_the_documented_names(game):
    assert set(game.actions) == ACTIONS[game.name]
    assert set(game.chance_events) == EVENTS.get(game.name, set())
    assert set(game.reveal_actions) <= set(game.actions)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_an_undocumented_name_is_refused_by_the_rules(game):
    """The validator is the declaration: a name outside it never reaches a game's rules."""
    state = game.new(game.min_players, {})
    for name in ("shout", "vote", "undo"):
        with pytest.raises(IllegalAction, match=f"unknown action '{name}': {game.name} has"):
            game.apply(state, {"action": name, "player": 0})
    if game.chance_needed(state):
        with pytest.raises(IllegalAction, match=f"unknown chance event 'shuffle': {game.name} has"):
            game.apply_chance(state, {"event": "shuffle"})


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_everything_the_rules_offer_or_draw_is_documented(game):
    rng = random.Random(game.name)
    seen_actions, seen_events = set(), set()
    for players in range(game.min_players, game.max_players + 1):
        for _ in range(3):
            state = game.new(players, {})
            for _ in range(2000):
                if game.outcome(state) is not None:
                    break
                if game.chance_needed(state):
                    event = game.draw_chance(state, rng)
                    seen_events.add(event["event"])
                    state = game.apply_chance(state, event)
                    continue
                legal = game.legal_actions(state)
                seen_actions |= {a["action"] for a in legal}
                state = game.apply(state, game.auto_action(state) or rng.choice(legal))
    assert seen_actions <= ACTIONS[game.name]
    assert seen_events <= EVENTS.get(game.name, set())


FIELD_ROW = re.compile(r"^\| `(\w+)` \|")


def documented_fields(section: str) -> list[str]:
    """The field names of the table under the ``## section`` heading, in order."""
    text = DOC.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [m.group(1) for line in body.splitlines() if (m := FIELD_ROW.match(line))]


def test_the_race_fields_replay_reads_past_are_the_documented_ones():
    from companion.record.journal import IGNORED, NOTES

    assert documented_fields("Race fields") == list(NOTES)
    assert set(NOTES) <= set(IGNORED)


def test_a_late_line_has_exactly_the_documented_fields():
    from companion.arbiter.latepress import FIELDS, LATE
    from companion.arbiter.race import LATE_KINDS

    assert documented_fields("Late presses") == list(FIELDS)
    text = DOC.read_text(encoding="utf-8")
    assert f'"type": "{LATE}"' in text
    kinds = text.split("\n## Late presses\n", 1)[1].split("| `press` |", 1)[1].split("\n", 1)[0]
    assert re.findall(r"`(\w+)` \(", kinds) == list(LATE_KINDS)
