"""Three-player Pictionary rules: the seed's examples, the skip rule, eligibility, words."""

import itertools
import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from companion.games import get
from companion.games.base import IllegalAction
from companion.games.trio import strict_leader
from companion.record.journal import replay, summary
from companion.words.wordlist import MAX_LENGTH, TIERS, WordListError, parse_words, pool, tier_words

GAME = get("trio")
A, B, C = 0, 1, 2
JOURNALS = Path(__file__).parent / "journals"

# Correct guessers, one round each, from a new game with A drawing first: the artist rotates
# A, B, C, ... and each round the artist and the guesser score. These reach the seed's examples.
TO_7_8_9 = "BAAABCCBCCBC"
TO_8_9_9 = "BAAAAABCBCCBC"


def word(state, rng=None):
    """The state with its word drawn (from the box's words), if one is due."""
    if GAME.chance_needed(state):
        state = GAME.apply_chance(state, GAME.draw_chance(state, rng or random.Random(len(state.used))))
    return state


def play(guessers: str, options=None):
    state = word(GAME.new(3, options or {}))
    for letter in guessers:
        state = word(GAME.apply(state, {"action": "guessed", "player": "ABC".index(letter)}))
    return state


def test_seed_worked_example_c_wins_at_7_9_10():
    state = play(TO_7_8_9)
    assert state.scores == (7, 8, 9) and state.artist == B
    assert state.eligible == C                       # 9 points and strictly ahead
    end = GAME.apply(state, {"action": "guessed", "player": C})
    outcome = GAME.outcome(end)
    assert outcome.winners == (C,) and outcome.scores == (7, 9, 10)
    assert GAME.to_move(end) == () and not GAME.chance_needed(end)


def test_seed_tie_example_b_and_c_reach_10_together_and_the_game_goes_on():
    state = play(TO_8_9_9)
    assert state.scores == (8, 9, 9) and state.artist == B
    assert state.eligible is None and state.skipped is None
    after = word(GAME.apply(state, {"action": "guessed", "player": C}))
    assert after.scores == (8, 10, 10) and GAME.outcome(after) is None
    assert after.artist == C and after.eligible is None   # still nobody strictly ahead


def test_a_guesser_eligible_to_win_scores_only_alone_simultaneous_guesses_are_the_artists():
    state = play(TO_7_8_9)
    both = word(GAME.apply(state, {"action": "both_guessed"}))
    assert both.scores == (7, 9, 9) and GAME.outcome(both) is None
    other = word(GAME.apply(state, {"action": "guessed", "player": A}))
    assert other.scores == (8, 9, 9) and GAME.outcome(other) is None
    timeout = word(GAME.apply(state, {"action": "timeout"}))
    assert timeout.scores == (7, 8, 9) and GAME.outcome(timeout) is None


def test_the_strict_leader_is_skipped_and_the_rotation_goes_on_from_who_drew():
    state = word(GAME.new(3, {}))
    state = word(GAME.apply(state, {"action": "both_guessed"}))   # A draws: (1, 0, 0)
    assert state.artist == B and state.skipped is None           # A just drew anyway
    state = word(GAME.apply(state, {"action": "timeout"}))        # B draws
    state = word(GAME.apply(state, {"action": "timeout"}))        # C draws
    assert state.scores == (1, 0, 0)
    assert state.skipped == A and state.artist == B               # A's turn, but A leads
    assert GAME.detail(state)["skipped"] == GAME.detail(state)["ineligible_to_draw"] == A
    assert state.eligible is None                                 # 1 point is not 9
    state = word(GAME.apply(state, {"action": "timeout"}))
    assert state.artist == C and state.skipped is None


def test_at_most_one_player_is_skipped_and_only_when_it_is_their_turn():
    # Every score triple up to 11 and every seat whose turn it is: only the strict leader is
    # skipped, only on their turn, and the next seat then draws (it cannot lead too).
    base = play("")
    for scores in itertools.product(range(12), repeat=3):
        leader = strict_leader(scores)
        for turn in (A, B, C):
            before = replace(base, scores=scores, artist=(turn - 1) % 3)
            state = GAME.apply(before, {"action": "timeout"})
            if turn == leader:
                assert state.skipped == turn and state.artist == (turn + 1) % 3
            else:
                assert state.skipped is None and state.artist == turn
            assert state.artist != leader


def test_the_artist_cannot_guess_and_is_never_eligible_to_win():
    state = play(TO_7_8_9)
    with pytest.raises(IllegalAction, match="player 1 is the artist"):
        GAME.apply(state, {"action": "guessed", "player": B})
    assert GAME.to_move(state) == (A, C)


def test_eligible_at_is_an_option():
    state = play("BAAAB", {"eligible_at": 5})
    assert state.scores == (4, 4, 2)
    state = word(GAME.apply(state, {"action": "both_guessed"}))   # artist scores alone
    leader = state.scores.index(max(state.scores))
    assert max(state.scores) == 5 and state.eligible == leader and state.skipped in (None, leader)


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(["1", "2", "3"]), st.sampled_from([1, 5, 9]))
def test_random_playouts_never_end_in_a_tie(rng, first, eligible_at):
    state = word(GAME.new(3, {"first_artist": first, "eligible_at": eligible_at}), rng)
    for _ in range(2000):
        eligible, scores = state.eligible, state.scores
        assert state.artist != eligible
        state = word(GAME.apply(state, rng.choice(GAME.legal_actions(state))), rng)
        outcome = GAME.outcome(state)
        if outcome is not None:
            (winner,) = outcome.winners
            assert winner == eligible and scores[winner] >= eligible_at
            assert outcome.scores[winner] > max(s for p, s in enumerate(outcome.scores) if p != winner)
            return
    pytest.fail("no winner after 2000 rounds")


def test_a_new_word_replaces_the_word_before_the_round_and_can_be_switched_off():
    state = play("B")
    first = state.word
    state = GAME.apply(state, {"action": "new_word"})
    assert GAME.chance_needed(state) and GAME.to_move(state) == ()
    state = word(state, random.Random(3))
    assert state.word != first and state.used[-2:] == (first, state.word)
    assert state.artist == B and state.scores == (1, 1, 0)
    strict = word(GAME.new(3, {"allow_new_word": False}))
    assert {"action": "new_word"} not in GAME.legal_actions(strict)
    with pytest.raises(IllegalAction, match="allow_new_word is off"):
        GAME.apply(strict, {"action": "new_word"})


def test_a_random_first_artist_is_a_chance_event():
    state = GAME.new(3, {"first_artist": "random"})
    assert GAME.chance_needed(state) and state.artist is None
    event = GAME.draw_chance(state, random.Random(1))
    assert event["event"] == "first_artist"
    with pytest.raises(IllegalAction, match="'first_artist'"):
        GAME.apply_chance(state, {"event": "word", "word": "kite"})
    state = GAME.apply_chance(state, {"event": "first_artist", "player": C})
    assert state.artist == C and GAME.chance_needed(state)        # now the word
    assert word(GAME.new(3, {"first_artist": "3"})).artist == C


def test_word_events_that_contradict_the_game_are_refused():
    state = play("B")
    with pytest.raises(IllegalAction, match="already drawn"):
        GAME.apply_chance(state, {"event": "word", "word": "kite"})    # not due
    state = GAME.apply(state, {"action": "new_word"})
    with pytest.raises(IllegalAction, match="already drawn in this game"):
        GAME.apply_chance(state, {"event": "word", "word": state.used[0]})
    for bad in ("", " kite", "x" * (MAX_LENGTH + 1), 7, None):
        with pytest.raises(IllegalAction, match="'word' must be"):
            GAME.apply_chance(state, {"event": "word", "word": bad})
    with pytest.raises(IllegalAction, match="the round has no word yet"):
        GAME.apply(state, {"action": "timeout"})


def test_words_do_not_repeat_within_a_game_until_every_word_is_used(tmp_path):
    own = tmp_path / "ours.txt"
    own.write_text("grandma's garden\n# a comment\n\nour dog Biscuit\nthe old bridge  # river\n")
    state = word(GAME.new(3, {"word_file": str(own), "only_word_file": True}))
    drawn = [state.word]
    for _ in range(5):
        state = word(GAME.apply(state, {"action": "timeout"}))
        drawn.append(state.word)
    assert sorted(drawn[:3]) == ["grandma's garden", "our dog Biscuit", "the old bridge"]
    assert sorted(drawn[3:]) == sorted(drawn[:3]) and drawn[3] != drawn[2]
    rng = random.Random(5)
    state = word(GAME.new(3, {}), rng)
    seen = {state.word}
    for _ in range(60):
        state = word(GAME.apply(state, {"action": "timeout"}), rng)
        assert state.word not in seen
        seen.add(state.word)


def test_the_seed_example_replays_from_a_scenario_journal():
    header, match = replay((JOURNALS / "trio-seed-example.jsonl").read_text().splitlines())
    result = summary(header, match)
    assert result["over"] and result["winners"] == [C] and result["scores"] == [7, 9, 10]
    assert result["detail"]["eligible_to_win"] == C and result["detail"]["artist"] == B


# The word source.

def test_the_box_has_over_400_words_in_three_tiers_without_duplicates():
    everything = [w for tier in TIERS for w in tier_words(tier)]
    assert len(everything) >= 400 and all(len(tier_words(t)) >= 130 for t in TIERS)
    assert len({w.casefold() for w in everything}) == len(everything)
    assert all(len(w) <= MAX_LENGTH and w == w.strip() and w.islower() for w in everything)
    assert tier_words("mixed") == tuple(everything)


def test_a_word_file_extends_or_replaces_the_box_words(tmp_path):
    own = tmp_path / "words.txt"
    own.write_text("Kite\nour cat Mittens\n")                    # "kite" is already a box word
    extended = pool("easy", str(own))
    assert extended[: len(tier_words("easy"))] == tier_words("easy")
    assert extended[len(tier_words("easy")):] == ("our cat Mittens",)
    assert pool("hard", str(own), only_word_file=True) == ("Kite", "our cat Mittens")


def test_bad_word_files_are_named_with_the_line_and_the_rule(tmp_path):
    with pytest.raises(WordListError, match="mine line 2: .* 22 characters; .* 21"):
        parse_words("kite\n" + "x" * 22 + "\n", "mine")
    with pytest.raises(WordListError, match="mine line 1: .* Latin-1"):
        parse_words("€uro\n", "mine")
    with pytest.raises(WordListError, match="mine: no words"):
        parse_words("# only a comment\n\n", "mine")
    with pytest.raises(WordListError, match="word file .*missing.txt"):
        pool("easy", str(tmp_path / "missing.txt"))
    with pytest.raises(WordListError, match="tier must be one of easy, medium, hard, mixed"):
        tier_words("spicy")
    assert parse_words("Kite\nkite\n  sail   boat \n", "mine") == ("Kite", "sail boat")


def test_the_word_files_ship_with_the_package():
    import tomllib
    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    assert "words/*.txt" in pyproject["tool"]["setuptools"]["package-data"]["companion"]


def test_correct_rescores_the_last_round_as_a_timeout_and_a_new_artist_gets_a_new_word():
    rules = get("trio")
    state = rules.apply_chance(rules.new(3, {}), {"event": "word", "word": "apple"})
    with pytest.raises(IllegalAction, match="nothing to correct"):
        rules.apply(state, {"action": "correct"})
    state = rules.apply(state, {"action": "guessed", "player": 2})       # Ana draws, Cy guesses
    state = rules.apply_chance(state, {"event": "word", "word": "pear"})
    judged = rules.apply(state, {"action": "guessed", "player": 2})      # Ben draws, Cy guesses
    judged = rules.apply_chance(judged, {"event": "word", "word": "fig"})
    assert judged.scores == (1, 1, 2) and judged.artist == 0 and judged.skipped == 2  # Cy leads
    fixed = rules.apply(judged, {"action": "correct"})
    assert fixed.scores == (1, 0, 1) and fixed.rounds == 2
    assert fixed.artist == 2 and fixed.word is None      # Cy draws after all: a new word for her
    fixed = rules.apply_chance(fixed, {"event": "word", "word": "plum"})
    assert {"action": "correct"} not in rules.legal_actions(fixed)
    timed_out = rules.apply_chance(rules.apply(judged, {"action": "timeout"}), {"event": "word", "word": "kiwi"})
    with pytest.raises(IllegalAction, match="nothing to correct"):
        rules.apply(timed_out, {"action": "correct"})
