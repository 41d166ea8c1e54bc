"""The Triangle brain's odds against a count of physical cards, and the hard bot against the seed's
basic strategy."""

import itertools

import pytest

from bench.bots import play_turn, triangle_hard_vs_basic
from companion.bots.triangle import STATEMENTS, basic_statement, seat_view
from companion.games.triangle import fact_true, peers


def physical_deals(view, seen_before):
    """Every (my card, RtS card) pair as two distinct physical cards of the deck not yet seen."""
    deck = [(v, copy) for v in range(1, 7) for copy in range(4)]
    gone = list(seen_before) + list(view.cards.values())
    pool = []
    for card in deck:
        if card[0] in gone:
            gone.remove(card[0])
        else:
            pool.append(card)
    return [(a[0], b[0]) for a, b in itertools.permutations(pool, 2)]


def observed(deal, me, slot):
    """What a player claiming at ``slot`` observes under the basic strategy: whether nobody reached
    before, and which peers reached just after (those whose two visible cards put them in the
    slot's tier), computed from each peer's own view of the deal."""
    tiers = {p: sum(deal[q] % 2 for q in range(3) if q != p) for p in peers(me)}
    return min(tiers.values()) >= slot, frozenset(p for p, t in tiers.items() if t == slot)


@pytest.mark.parametrize("cards, seen_before", [
    ((0, 2, 4), []), ((0, 1, 3), [2, 2, 5, 6, 1, 3]), ((0, 5, 6), [6, 6, 1, 3, 5, 5, 2, 4, 4]),
])
def test_odds_match_a_count_of_physical_cards(cards, seen_before):
    me = 0
    view = seat_view(me, cards, seen_before)
    deals = physical_deals(view, seen_before)
    for slot in range(4):
        for rts in range(1, 7):
            for late in {observed((v, cards[1], cards[2]), me, slot)[1] for v in range(1, 7)}:
                matching = [v for v, r in deals if r == rts
                            and observed((v, cards[1], cards[2]), me, slot) == (True, late)]
                if not matching:
                    continue
                odds = view.odds(slot, late, rts)
                for v in range(1, 7):
                    assert odds.get(v, 0) == pytest.approx(matching.count(v) / len(matching))
                for statement in STATEMENTS:
                    truth = sum(fact_true((v, cards[1], cards[2]), me, *statement) for v in matching)
                    assert view.worth(statement, odds)[0] == pytest.approx(truth / len(matching))


def test_counting_alone_matches_the_cards_left():
    view = seat_view(2, (3, 3, 0), [3, 3, 6, 6, 6])
    # Unseen: 1 x4, 2 x4, 3 x0, 4 x4, 5 x4, 6 x1: seventeen cards.
    assert view.odds() == pytest.approx({1: 4 / 17, 2: 4 / 17, 4: 4 / 17, 5: 4 / 17, 6: 1 / 17})


def test_two_aces_make_greater_the_best_statement_as_the_seed_advises():
    view = seat_view(0, (0, 1, 1), [])
    (fact, _), p, gain = view.best(view.odds())
    assert fact == "greater" and p > 0.9 and gain > 2
    # Basic peers who see an ace and my card are never in tier 0: waiting to the next slot costs
    # nothing and tells more. Both reaching just after that claim means my card is even.
    assert view.claim_slot() == 1
    (fact, _), p, _ = view.best(view.odds(1, frozenset({1, 2}), rts=4))
    assert fact == "greater" and p == 1


def test_a_peer_reaching_just_after_means_my_card_is_even():
    # Peers hold 2 and 4. Peer 1 sees my card and the 4: reaching at tier 0 means mine is even.
    view = seat_view(0, (0, 2, 4), [])
    odds = view.odds(0, frozenset({1, 2}), rts=6)
    assert set(odds) == {2, 4, 6}
    assert view.best(odds)[0][0] in {"even", "among"} and view.best(odds)[1] > 0.6


def test_basic_strategy_statements():
    assert basic_statement((2, 6)) == ("peers_even", None)
    assert basic_statement((2, 5)) == ("odd", None)
    assert basic_statement((1, 5)) == ("odd", None)


def test_basic_players_alone_never_state_a_false_peers_even():
    import random

    rng = random.Random(3)
    totals = [sum(p) for p in (play_turn(rng, ("basic",) * 3) for _ in range(200))]
    assert max(totals) <= 6 * 8 and min(totals) >= 0


def test_the_hard_bot_leads_two_basic_players():
    result = triangle_hard_vs_basic(300, seed=4)
    assert result["lead_ci95"][0] > 0, result
    assert result["hard_points_per_turn"] > result["basic_points_per_turn"]
