"""Triangle's rules: every fact and its truth, points, draws, turns and the deck, the end of the
game, the settlement, the seed's strategy examples, and every refusal."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from companion.games import get
from companion.games.base import IllegalAction
from companion.games.options import OptionError, parse_options
from companion.games.triangle import (
    FACTS, POINTS, ROUNDS_PER_TURN, TriangleOptions, fact_true, peers, settlement,
)
from companion.record.journal import JournalError, replay, summary

GAME = get("triangle")
ANA, BEN, CY = 0, 1, 2


def new(**options):
    return GAME.new(3, TriangleOptions(**options))


def deal(state, cards, rts=1):
    state = GAME.apply_chance(state, {"event": "deal", "cards": list(cards), "rts": rts})
    GAME.check_invariants(state)
    return state


def act(state, action):
    assert action in GAME.legal_actions(state)
    state = GAME.apply(state, action)
    GAME.check_invariants(state)
    return state


def claim(p):
    return {"action": "claim", "player": p}


def state_fact(p, fact, value=None):
    action = {"action": "state", "player": p, "fact": fact}
    if value is not None:
        action["value"] = value
    return action


def speak(state, cards, p, fact, value=None, rts=1):
    """Deal ``cards``, let ``p`` take the Right to Speak and state ``fact``."""
    return act(act(deal(state, cards, rts), claim(p)), state_fact(p, fact, value))


VOID = {"action": "void"}
TIE = {"action": "draw", "players": [ANA, BEN]}
"""A round that scores nothing, to move through a turn."""


# --- facts ---------------------------------------------------------------------------------------

# (cards in seat order, speaker, fact, value, true?)
FACT_CASES = [
    ((1, 2, 4), ANA, "peers_even", None, True),
    ((2, 2, 3), ANA, "peers_even", None, False),
    ((2, 1, 3), ANA, "peers_even", None, False),    # "my peers are odd" is no fact: still false
    ((5, 4, 6), BEN, "even", None, True),
    ((5, 3, 6), BEN, "even", None, False),
    ((1, 6, 5), CY, "odd", None, True),
    ((1, 3, 6), CY, "odd", None, False),
    ((2, 1, 5), CY, "greater", None, True),
    ((5, 4, 5), CY, "greater", None, False),        # equal to a peer is not greater
    ((5, 4, 6), ANA, "greater", None, False),
    ((3, 3, 5), ANA, "among", None, True),          # one equal peer
    ((4, 4, 4), BEN, "among", None, True),          # two equal peers
    ((4, 3, 5), ANA, "among", None, False),
    ((6, 1, 2), ANA, "exact", 6, True),
    ((6, 1, 2), ANA, "exact", 5, False),
]


@pytest.mark.parametrize("cards, p, fact, value, truth", FACT_CASES)
def test_every_fact_is_judged_on_the_speakers_own_card(cards, p, fact, value, truth):
    assert fact_true(cards, p, fact, value) is truth
    state = speak(new(), cards, p, fact, value)
    expected = [0, 0, 0]
    if truth:
        expected[p] = POINTS[fact]
    else:
        for q in peers(p):
            expected[q] = 3
    assert list(GAME.scores(state)) == expected
    last = GAME.detail(state)["rounds"][-1]
    assert last["correct"] is truth and last["claimer"] == p


def test_points_by_fact_type():
    assert POINTS == {"peers_even": 1, "even": 2, "odd": 2, "greater": 3, "among": 5, "exact": 8}
    assert FACTS[0] == "peers_even" and FACTS[-1] == "exact"


def test_every_fact_type_appears_in_the_cases_true_and_false():
    judged = Counter((fact, truth) for _, _, fact, _, truth in FACT_CASES)
    assert {(f, t) for f in FACTS for t in (True, False)} <= set(judged)


# --- the seed's strategy section, as plays ------------------------------------------------------


def test_seed_basic_strategy_two_even_peers_earn_one_point():
    # Ana sees Ben's 2 and Cy's 4: "my peers are even" is safe whatever her own card.
    for mine in (1, 2, 3, 4, 5, 6):
        state = speak(new(), (mine, 2, 4), ANA, "peers_even", rts=mine % 6 + 1)
        assert GAME.scores(state) == (1, 0, 0)


def test_seed_basic_strategy_one_even_one_odd_peer_and_nobody_speaks_means_odd():
    # Ana sees 2 and 3 and nobody claims for a while: had she an even card, Cy (seeing Ana's and
    # Ben's cards) would have seen two evens. So Ana states "I am odd" for 2 points.
    state = speak(new(), (5, 2, 3), ANA, "odd")
    assert GAME.scores(state) == (2, 0, 0)


def test_seed_greater_on_low_peers_and_exact_three_or_five():
    # Two aces, an ace and a two, or two twos: "I am greater" right away for 3 points.
    state = speak(new(), (4, 1, 2), ANA, "greater")
    assert GAME.scores(state) == (3, 0, 0)
    # A two and a three, odd but not an ace: guess exactly 3 or 5. Right: +8; wrong: 3 to each
    # other player, the seed's (-3 + 8) / 2 = 2.5 expectation.
    state = speak(state, (3, 2, 3), ANA, "exact", 3, rts=5)
    assert GAME.scores(state) == (11, 0, 0)
    state = speak(state, (5, 2, 3), ANA, "exact", 3, rts=6)
    assert GAME.scores(state) == (11, 3, 3)


def test_a_draw_scores_nothing_and_discards_the_four_cards():
    state = deal(new(), (2, 4, 6), rts=3)
    state = GAME.apply(state, {"action": "draw", "players": [CY, ANA]})   # any order
    assert GAME.scores(state) == (0, 0, 0)
    assert GAME.detail(state)["rounds"] == [{"cards": [2, 4, 6], "rts": 3, "points": [0, 0, 0], "draw": [0, 2]}]
    assert GAME.detail(state)["deck"] == [4, 3, 3, 3, 4, 3]
    assert GAME.chance_needed(state) and GAME.detail(state)["round"] == 2


def test_a_void_round_scores_nothing():
    state = act(deal(new(round_timeout_s=10), (2, 4, 6)), VOID)
    assert GAME.scores(state) == (0, 0, 0) and GAME.detail(state)["rounds"][0]["void"] is True


def test_a_void_needs_the_round_timeout_option():
    """RULES-NOTES: a round is void only when the timeout option expires."""
    state = deal(new(), (2, 4, 6))
    assert VOID not in GAME.legal_actions(state)
    with pytest.raises(IllegalAction, match="void only when the round timeout expires.*round_timeout_s"):
        GAME.apply(state, VOID)
    with pytest.raises(JournalError, match="line 3: a round is void only when the round timeout"):
        replay(journal(chance((2, 4, 6), 1), action(action="void")))


# --- turns, the deck and the end ----------------------------------------------------------------

ONE_TURN = [((1, 2, 3), 4), ((5, 6, 1), 2), ((3, 4, 5), 6), ((1, 2, 3), 4), ((5, 6, 1), 2),
            ((3, 4, 5), 6)]
"""Six deals that use the 24 cards exactly."""


def test_a_turn_uses_the_whole_deck_then_it_is_reshuffled():
    state = new()
    for i, (cards, rts) in enumerate(ONE_TURN):
        assert GAME.detail(state)["turn"] == 1 and GAME.detail(state)["round"] == i + 1
        state = act(deal(state, cards, rts), TIE)
    assert GAME.detail(state)["turn"] == 2 and GAME.detail(state)["round"] == 1
    assert GAME.detail(state)["deck"] == [4] * 6
    state = deal(state, (1, 1, 1), rts=1)            # all four aces again, in the new turn
    assert GAME.detail(state)["deck"] == [0, 4, 4, 4, 4, 4]


def test_the_description_of_a_turn_lists_only_that_turns_rounds():
    state = new(target=25)
    for cards, rts in ONE_TURN[:2]:
        state = act(deal(state, cards, rts), TIE)
    assert GAME.describe(state)[0] == "Turn 1, round 3 of 6" and len(GAME.describe(state)) == 3
    for cards, rts in ONE_TURN[2:]:
        state = act(deal(state, cards, rts), TIE)
    assert GAME.describe(state) == ["Turn 2, round 1 of 6"]          # the last turn's rounds are not under it
    state = deal(state, (1, 1, 1), rts=1)
    assert GAME.describe(state)[1].startswith("  dealt ")


def test_a_card_no_longer_in_the_deck_is_refused():
    state = deal(new(), (4, 4, 4), rts=5)
    with pytest.raises(IllegalAction, match="value 4, but only 1 of the four are left in turn 1"):
        GAME.apply_chance(act(state, TIE), {"event": "deal", "cards": [4, 1, 4], "rts": 2})
    state = deal(act(state, TIE), (4, 1, 2), rts=3)   # the fourth 4 is still there
    assert GAME.detail(state)["deck"][3] == 0


def test_drawn_deals_use_each_value_four_times_a_turn():
    rng = random.Random(5)
    state = new()
    for _ in range(3 * ROUNDS_PER_TURN):
        event = GAME.draw_chance(state, rng)
        state = act(deal(state, event["cards"], event["rts"]), TIE)
        if GAME.detail(state)["round"] == 1:
            turn = GAME.detail(state)["rounds"][-ROUNDS_PER_TURN:]
            used = Counter(c for r in turn for c in r["cards"] + [r["rts"]])
            assert used == Counter({v: 4 for v in range(1, 7)})


def test_crossing_the_target_in_round_2_does_not_end_the_game_before_round_6():
    state = speak(new(target=10), (6, 1, 2), ANA, "exact", 6, rts=3)
    state = speak(state, (6, 1, 2), ANA, "exact", 6, rts=3)
    assert GAME.scores(state) == (16, 0, 0)
    rest = [((4, 5, 4), 5), ((4, 5, 4), 5), ((6, 1, 2), 3), ((6, 1, 2), 3)]
    for round_, (cards, rts) in enumerate(rest, start=3):
        assert GAME.outcome(state) is None and GAME.detail(state)["round"] == round_
        state = act(deal(state, cards, rts), TIE)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (ANA,) and outcome.scores == (16, 0, 0)
    assert GAME.detail(state)["turn"] == 1 and GAME.detail(state)["round"] == 6


def test_without_anyone_at_the_target_the_game_goes_on_to_another_turn():
    state = new(target=25)
    for cards, rts in ONE_TURN:
        state = act(deal(state, cards, rts), TIE)
    assert GAME.outcome(state) is None and GAME.chance_needed(state)


def test_a_fixed_number_of_turns_ignores_the_target_and_shares_a_tied_win():
    state = new(turns=1, target=1)
    state = speak(state, (1, 2, 3), ANA, "exact", 1, rts=4)   # Ana right, +8
    state = speak(state, (5, 6, 1), BEN, "exact", 6, rts=2)   # Ben right, +8
    for cards, rts in ONE_TURN[2:]:
        assert GAME.outcome(state) is None
        state = act(deal(state, cards, rts), TIE)
    outcome = GAME.outcome(state)
    assert outcome.winners == (ANA, BEN) and outcome.scores == (8, 8, 0)


def test_settlement_each_pair_pays_the_difference():
    assert settlement((27, 19, 21)) == [(1, 0, 8), (2, 0, 6), (1, 2, 2)]
    assert settlement((5, 5, 0)) == [(0, 1, 0), (2, 0, 5), (2, 1, 5)]
    state = new(turns=1, settlement=True)
    for cards, rts in ONE_TURN:
        state = act(deal(state, cards, rts), TIE)
    assert GAME.detail(state)["settlement"] == [[0, 1, 0], [0, 2, 0], [1, 2, 0]]
    assert "settlement" not in GAME.detail(new())


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize("event, rule", [
    ({"event": "shuffle"}, "unknown chance event 'shuffle': triangle has deal"),
    ({"event": "deal", "cards": [1, 2], "rts": 3}, "one card per player"),
    ({"event": "deal", "cards": [1, 2, 7], "rts": 3}, "card 2 must be a card value from 1 to 6"),
    ({"event": "deal", "cards": [1, 2, 3], "rts": True}, "'rts' must be a card value"),
    ({"event": "deal", "cards": [1, 2, 3], "rts": 4, "seen": 1}, "unknown field 'seen'"),
    ({"event": "deal", "cards": [5, 5, 5], "rts": 5}, None),
])
def test_bad_deals_are_refused_naming_the_field(event, rule):
    if rule is None:
        deal(new(), event["cards"], event["rts"])
        return
    with pytest.raises(IllegalAction, match=rule):
        GAME.apply_chance(new(), event)


def test_a_second_deal_before_the_round_ends_is_refused():
    with pytest.raises(IllegalAction, match="no deal is due"):
        deal(deal(new(), (1, 2, 3)), (1, 2, 3))


@pytest.mark.parametrize("action, rule", [
    ({"action": "state", "player": 0, "fact": "odd"}, "nobody has the Right to Speak"),
    ({"action": "draw", "players": [1]}, "2 or 3 players"),
    ({"action": "draw", "players": [1, 1]}, "each player once"),
    ({"action": "draw", "players": [0, 3]}, "'players' must be a player index"),
    ({"action": "claim", "player": 3}, "'player' must be a player index from 0 to 2"),
    ({"action": "shout"}, "unknown action 'shout'"),
])
def test_bad_race_actions_are_refused(action, rule):
    with pytest.raises(IllegalAction, match=rule):
        GAME.apply(deal(new(), (1, 2, 3)), action)


@pytest.mark.parametrize("action, rule", [
    (claim(BEN), "player 0 already has the Right to Speak"),
    ({"action": "void"}, "already has the Right to Speak"),
    (state_fact(BEN, "odd"), "only player 0, who has the Right to Speak"),
    (state_fact(ANA, "peers_odd"), "not facts of the game"),
    (state_fact(ANA, "less"), "'fact' must be one of peers_even, even, odd, greater, among, exact"),
    (state_fact(ANA, "exact"), "'exact' needs a 'value' from 1 to 6"),
    (state_fact(ANA, "exact", 7), "'exact' needs a 'value' from 1 to 6, not 7"),
    (state_fact(ANA, "odd", 3), "only 'exact' takes a 'value'"),
])
def test_bad_statements_are_refused(action, rule):
    with pytest.raises(IllegalAction, match=rule):
        GAME.apply(act(deal(new(), (1, 2, 3)), claim(ANA)), action)


def test_nothing_happens_before_the_deal():
    with pytest.raises(IllegalAction, match="no round is dealt yet"):
        GAME.apply(new(), claim(ANA))


@pytest.mark.parametrize("given, field", [
    ({"tie_window_ms": 0}, "tie_window_ms"),
    ({"target": 0}, "target"),
    ({"turns": 0}, "turns"),
    ({"countdown_ms": 50}, "countdown_ms"),
    ({"false_start_lockout_ms": -1}, "false_start_lockout_ms"),
    ({"round_timeout_s": 1.5}, "round_timeout_s"),
    ({"dealer": 1}, "dealer"),
])
def test_bad_options_name_their_field(given, field):
    with pytest.raises(OptionError, match=repr(field)):
        parse_options(TriangleOptions, given)


# --- journals ------------------------------------------------------------------------------------


def journal(*events, options=None):
    header = {"format": "companion-journal/1", "game": "triangle", "players": ["Ana", "Ben", "Cy"],
              "options": options or {}}
    return [json.dumps(header)] + [json.dumps(e) for e in events]


def chance(cards, rts):
    return {"type": "chance", "event": "deal", "cards": list(cards), "rts": rts}


def action(**fields):
    return {"type": "action", **fields}


def test_replay_of_a_game_reports_scores_turn_and_round():
    lines = journal(
        chance((3, 2, 3), 5), action(action="claim", player=0),
        action(action="state", player=0, fact="exact", value=3),
        chance((2, 4, 6), 1), action(action="draw", players=[1, 2]),
        chance((1, 1, 2), 4), action(action="claim", player=2),
        action(action="state", player=2, fact="greater"),
    )
    header, match = replay(lines)
    result = summary(header, match)
    assert result["scores"] == [8, 0, 3] and not result["over"]
    assert result["detail"]["turn"] == 1 and result["detail"]["round"] == 4


def test_replay_refuses_a_fifth_card_of_a_value_in_a_turn():
    lines = journal(
        chance((4, 4, 1), 4), action(action="void"),
        chance((2, 4, 3), 5), action(action="void"),      # the fourth 4: fine
        chance((2, 3, 4), 5),                              # a fifth 4: refused
        options={"round_timeout_s": 10},
    )
    with pytest.raises(JournalError) as err:
        replay(lines)
    assert err.value.line == 6
    assert "value 4, but only 0 of the four are left in turn 1's deck" in str(err.value)


def test_replay_after_a_reshuffle_accepts_values_used_up_last_turn():
    events = []
    for cards, rts in ONE_TURN:
        events += [chance(cards, rts), action(action="void")]
    events += [chance((1, 1, 1), 1), action(action="claim", player=1)]
    header, match = replay(journal(*events, options={"round_timeout_s": 10}))
    assert summary(header, match)["detail"]["turn"] == 2
