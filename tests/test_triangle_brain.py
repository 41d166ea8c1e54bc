"""The Triangle brain's odds against a count of physical cards, and the hard bot against the seed's
basic strategy."""

import itertools
import json

import pytest

from bench.bots import pairing, play_at_table
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
    """What a player claiming at ``slot`` may observe under the basic strategy: whether nobody
    reached before, and which peers could reach just after (those whose two visible cards put
    them in the slot's tier), computed from each peer's own view of the deal."""
    tiers = {p: sum(deal[q] % 2 for q in range(3) if q != p) for p in peers(me)}
    return min(tiers.values()) >= slot, frozenset(p for p, t in tiers.items() if t == slot)


def seen_late(deal, me, slot, late):
    """Whether seeing exactly ``late`` slap after the claim fits ``deal``: nobody reached before
    and each peer seen was in the tier. Silence proves nothing (the box withdraws bots' slaps
    due after the race is decided), so a peer of the tier may be missing from ``late``."""
    nobody_before, tier = observed(deal, me, slot)
    return nobody_before and late <= tier


@pytest.mark.parametrize("cards, seen_before", [
    ((0, 2, 4), []), ((0, 1, 3), [2, 2, 5, 6, 1, 3]), ((0, 5, 6), [6, 6, 1, 3, 5, 5, 2, 4, 4]),
])
def test_odds_match_a_count_of_physical_cards(cards, seen_before):
    me = 0
    view = seat_view(me, cards, seen_before)
    deals = physical_deals(view, seen_before)
    for slot in range(4):
        for rts in range(1, 7):
            for late in {frozenset(), *(observed((v, cards[1], cards[2]), me, slot)[1] for v in range(1, 7))}:
                matching = [v for v, r in deals if r == rts and seen_late((v, cards[1], cards[2]), me, slot, late)]
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
    # Basic peers who see an ace and my card are never in tier 0. Both seen reaching just after
    # a claim at tier 1 means my card is even.
    (fact, _), p, _ = view.best(view.odds(1, frozenset({1, 2}), rts=4))
    assert fact == "greater" and p == 1


def test_a_peer_reaching_just_after_means_my_card_is_even():
    # Peers hold 2 and 4. Peer 1 sees my card and the 4: reaching at tier 0 means mine is even.
    view = seat_view(0, (0, 2, 4), [])
    odds = view.odds(0, frozenset({1, 2}), rts=6)
    assert set(odds) == {2, 4, 6}
    assert view.best(odds)[0][0] in {"even", "among"} and view.best(odds)[1] > 0.6


def test_silence_after_a_claim_is_no_evidence():
    """Nobody seen slapping after my claim rules nothing out: a peer of the tier may have had
    their slap withdrawn (a bot) or held back (a person)."""
    view = seat_view(0, (0, 2, 4), [])
    assert view.odds(0, frozenset(), rts=6) == view.odds(0, None, rts=6)
    assert set(view.odds(0, frozenset(), rts=6)) == {1, 2, 3, 4, 5, 6}


def test_basic_strategy_statements():
    assert basic_statement((2, 6)) == ("peers_even", None)
    assert basic_statement((2, 5)) == ("odd", None)
    assert basic_statement((1, 5)) == ("odd", None)


def test_among_basic_players_the_first_to_reach_is_always_right():
    # The seed's reasoning: whoever's tier comes first (alone) states a true fact, every deal.
    for deal in itertools.product(range(1, 7), repeat=3):
        tiers = [sum(deal[q] % 2 for q in peers(p)) for p in range(3)]
        first = [p for p in range(3) if tiers[p] == min(tiers)]
        for p in first:
            assert fact_true(deal, p, *basic_statement(deal[q] for q in peers(p))), deal


def test_the_hard_bot_leads_two_basic_players_at_the_table():
    """Seated at the real table on a fake clock (bench/bots.py): it leads easy bots."""
    result = pairing("hard", "easy", turns=15, seed=4)
    assert result["turns"] == 45 and result["statements"] > 0
    assert result["lead_ci95"][0] > 0, result


def test_the_speed_matched_counter_states_the_coachs_best_at_the_table():
    from companion.bots.triangle import advice_for_round

    game = play_at_table(["counter", "easy", "counter"], turns=4, seed=8)
    state = game.match.state
    spoken = [advice_for_round(state, i) for i in range(len(state.history))]
    counted = [a for a in spoken if a is not None and a.claimer in (0, 2)]
    assert counted, "the counters spoke"
    assert all(a.said_gain >= a.best_gain for a in counted)


def test_the_coach_counts_the_cards_the_speaker_saw_earlier_in_the_turn():
    from companion.bots.triangle import advise
    from companion.games.triangle import Round

    # Ana (seat 0) saw 6 and 5 as peers, then her own 6 once Ben spoke; then 6 and 6, her own 1
    # and the RtS 3 when she spoke: all four sixes. Now she sees 2 and 2 and the RtS is a 5.
    earlier = [Round((6, 6, 5), 1, claimer=1, fact="odd"), Round((1, 6, 6), 3, claimer=0, fact="odd")]
    done = Round((4, 2, 2), 5, claimer=0, fact="greater")
    advice = advise(earlier, done)
    # Unseen by Ana: 1 x3, 2 x2, 3 x3, 4 x4, 5 x2, 6 x0. "Greater" than two 2s: a 3, 4 or 5.
    assert advice.said_chance == pytest.approx((3 + 4 + 2) / (3 + 2 + 3 + 4 + 2))
    assert advise([], Round((1, 2, 3), 4, draw=(0, 1))) is None


ANALYZED = """\
{"format": "companion-journal/1", "game": "triangle", "players": ["Ana", "Ben", "Cy"], "options": {"turns": 1}}
{"type": "chance", "event": "deal", "cards": [6, 6, 5], "rts": 1}
{"type": "action", "action": "claim", "player": 1}
{"type": "action", "action": "state", "player": 1, "fact": "odd"}
{"type": "chance", "event": "deal", "cards": [1, 2, 2], "rts": 3}
{"type": "action", "action": "draw", "players": [0, 2]}
{"type": "chance", "event": "deal", "cards": [4, 2, 2], "rts": 5}
{"type": "action", "action": "claim", "player": 0}
{"type": "action", "action": "state", "player": 0, "fact": "exact", "value": 4}
"""


def test_companion_analyze_prints_the_coach_for_every_round(tmp_path, capsys):
    from companion.cli import main

    path = tmp_path / "t.jsonl"
    path.write_text(ANALYZED)
    assert main(["analyze", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    # Ben saw 6 and 5 with RtS 1: of the 21 cards left, 4 twos, 4 fours and 3 sixes are even.
    assert out[1] == ("Turn 1 round 1: Ben said I'm odd (false), 48% likely, -0.62 expected; "
                      "best was I'm even, 52% likely, -0.38 expected")
    assert out[2] == "Turn 1 round 2: a draw, nobody spoke"
    # Ana saw 6, 5 and her own 6; then 2, 2 (the draw showed her nothing more); now 2, 2, RtS 5.
    assert out[3].startswith("Turn 1 round 3: Ana said I'm a 4 (true), 25% likely")
    assert out[3].endswith("best was I'm greater, 75% likely, +1.50 expected")


def test_companion_analyze_shows_an_even_bet_as_plus_zero(tmp_path, capsys):
    """By round 4, from the cards Ben has seen this turn, "I'm even" is true 60% of the time:
    0.6 x 2 - 0.4 x 3 is 0, which the odds' sum lands a hair below."""
    from companion.cli import main

    rounds = (([5, 1, 4], 1, 1, "peers_even"), ([2, 5, 6], 4, 1, "peers_even"),
              ([3, 5, 1], 6, 2, "peers_even"), ([3, 2, 6], 6, 1, "even"))
    lines = [{"format": "companion-journal/1", "game": "triangle", "players": ["Ana", "Ben", "Cy"]}]
    for cards, rts, claimer, fact in rounds:
        lines += [{"type": "chance", "event": "deal", "cards": cards, "rts": rts},
                  {"type": "action", "action": "claim", "player": claimer},
                  {"type": "action", "action": "state", "player": claimer, "fact": fact}]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert main(["analyze", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[4].startswith(
        "Turn 1 round 4: Ben said I'm even (true), 60% likely, +0.00 expected")


def test_companion_analyze_names_the_game_it_reads(tmp_path, capsys):
    from companion.cli import main

    path = tmp_path / "p.jsonl"
    path.write_text('{"format": "companion-journal/1", "game": "paytoplay", "players": ["A", "B"]}\n')
    assert main(["analyze", str(path)]) == 2
    assert "reads Triangle journals, and this is a game of Pay-to-Play" in capsys.readouterr().err


def test_trust_mixes_the_timed_odds_with_counting_alone():
    timed = seat_view(0, (0, 2, 4), []).odds(0, frozenset({1, 2}), rts=6)
    counted = seat_view(0, (0, 2, 4), []).odds(rts=6)
    half = seat_view(0, (0, 2, 4), [], trust=0.5).odds(0, frozenset({1, 2}), rts=6)
    assert seat_view(0, (0, 2, 4), [], trust=0).odds(0, frozenset({1, 2}), rts=6) == counted
    for v in range(1, 7):
        assert half.get(v, 0) == pytest.approx((timed.get(v, 0) + counted.get(v, 0)) / 2)
