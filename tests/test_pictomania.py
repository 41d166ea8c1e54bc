"""Pictomania's rules: the seed's worked example, every scoring rule, the variants, bad input."""

from __future__ import annotations

import json
import random

import pytest

from companion import words
from companion.games import get
from companion.games.base import IllegalAction
from companion.games.options import OptionError, parse_options
from companion.games.pictomania import Pictomania, PictomaniaOptions, token_tables
from companion.games.pictomania_scoring import BLACK_TOKENS, PLAYER_TOKENS
from companion.record.journal import JournalError, replay, summary

GAME = get("pictomania")
YELLOW, RED, GREEN, BLUE = 0, 1, 2, 3
CARDS = {"green": ["green-01", "green-02", "green-03"], "yellow": ["yellow-01", "yellow-02", "yellow-03"],
         "orange": ["orange-01", "orange-02", "orange-03"], "red": ["red-01", "red-02", "red-03"]}


def dealt(players=4, numbers=(1, 2, 3, 4), letters=None, state=None, **options):
    """A round dealt with chosen numbers (and letters A, B, C, A, ...), ready for guesses."""
    state = state or GAME.new(players, options)
    if not state.round.cards and state.options.words == "box":
        state = GAME.apply_chance(state, {"event": "cards", "deck": state.round.deck,
                                          "cards": CARDS[state.round.deck]})
    letters = letters or ["ABC"[i % 3] for i in range(players)]
    return GAME.apply_chance(state, {"event": "assign", "letters": letters, "numbers": list(numbers)})


def guess(player, target, number):
    return {"action": "guess", "player": player, "target": target, "number": number}


def done(player, **token):
    return {"action": "done", "player": player, **token}


def play(state, *actions):
    for action in actions:
        state = GAME.apply(state, action)
        GAME.check_invariants(state)
    return state


# Yellow draws 1, Red 2, Green 3, Blue 4. In time order:
SEED_GUESSES = [
    guess(RED, YELLOW, 1),     # correct, first on Yellow: Yellow's 2
    guess(YELLOW, RED, 2),     # correct, first on Red: Red's 2
    guess(YELLOW, GREEN, 3),   # correct, first on Green: Green's 2
    guess(BLUE, GREEN, 3),     # correct, second on Green: Green's 1
    guess(GREEN, YELLOW, 1),   # correct, second on Yellow: Yellow's 1
    guess(RED, BLUE, 4),       # correct, first on Blue: Blue's 2
    guess(YELLOW, BLUE, 4),    # correct, second on Blue: Blue's 1
    guess(BLUE, YELLOW, 5),    # wrong: Yellow keeps her last 1
]
SEED_DONE = [done(RED), done(YELLOW), done(GREEN), done(BLUE)]   # black tokens 3, 2, 2, 1


def test_the_seeds_worked_example_yellow_nets_6():
    """5 stars for guesses, 2 for the black token, 1 penalty: net 6 (a 4-player learning round)."""
    state = play(dealt(), *SEED_GUESSES, *SEED_DONE)
    [r] = state.results
    assert r.gained(YELLOW) == (2, 2, 1)
    assert r.stacks[YELLOW].kept == (1,)
    assert r.black == (2, 3, 2, 1) and r.black_counts == (2, 3, 2, 1)
    assert r.scores[YELLOW] == 5 + 2 - 1 == 6
    # Red: Yellow's 2 and Blue's 2, black 3, kept 1+1 (Green and Blue missed Red's drawing).
    assert r.scores == (6, 4 + 3 - 2, 1 + 2 - 1, 1 + 1 - 1)
    assert r.black_sheep is None                      # the learning round has no black sheep
    assert state.totals == r.scores and state.round.number == 2


def test_the_seed_example_in_a_full_round_makes_blue_the_black_sheep():
    state = play(dealt(learning_round=False), *SEED_GUESSES, *SEED_DONE)
    [r] = state.results
    assert r.wrong == (0, 0, 0, 1)
    assert r.black_sheep == BLUE
    assert r.black_counts == (2, 3, 2, -1)
    assert r.scores == (6, 5, 2, 1 - 1 - 1)


def test_stacks_are_turned_over_in_guess_order():
    state = play(dealt(), *SEED_GUESSES, *SEED_DONE)
    yellow = state.results[0].stacks[YELLOW]
    assert [(c.player, c.number, c.correct, c.token) for c in yellow.guesses] == [
        (RED, 1, True, 2), (GREEN, 1, True, 1), (BLUE, 5, False, None)]
    assert (yellow.letter, yellow.number) == ("A", 1)


def test_a_later_correct_guess_gets_a_lower_token_whoever_makes_it():
    first = play(dealt(), guess(RED, YELLOW, 1), guess(GREEN, YELLOW, 1), *SEED_DONE)
    swapped = play(dealt(), guess(GREEN, YELLOW, 1), guess(RED, YELLOW, 1), *SEED_DONE)
    assert first.results[0].gained(RED) == (2,) and first.results[0].gained(GREEN) == (1,)
    assert swapped.results[0].gained(RED) == (1,) and swapped.results[0].gained(GREEN) == (2,)


def full_round(*actions, **options):
    return play(dealt(learning_round=False, **options), *actions, *SEED_DONE).results[0]


def test_no_black_sheep_on_a_tie_for_most_wrong_guesses():
    r = full_round(guess(RED, YELLOW, 7), guess(BLUE, YELLOW, 6), guess(GREEN, RED, 2))
    assert r.wrong == (0, 1, 0, 1)
    assert r.black_sheep is None
    # Nobody guessed Yellow, Green or Blue: their black tokens count 0; Red's counts.
    assert r.black_counts == (0, 3, 0, 0)


def test_the_black_sheep_is_strictly_the_most_wrong_and_loses_their_black_token():
    r = full_round(guess(RED, YELLOW, 7), guess(RED, GREEN, 7), guess(BLUE, YELLOW, 6),
                   guess(YELLOW, RED, 2))
    assert r.wrong == (0, 2, 0, 1) and r.black_sheep == RED
    assert r.black_counts[RED] == -3                  # even though Yellow guessed Red's word


def test_an_unguessed_black_sheep_still_loses_the_black_token():
    r = full_round(guess(RED, YELLOW, 7), guess(YELLOW, GREEN, 3))
    assert r.black_sheep == RED and r.black_counts[RED] == -3
    assert r.scores[RED] == -(2 + 1 + 1) - 3          # all tokens kept, black token against


def test_an_unguessed_drawer_scores_the_black_token_0_but_not_in_the_learning_round():
    actions = (guess(YELLOW, RED, 2), guess(GREEN, RED, 2), guess(BLUE, RED, 2))
    full = full_round(*actions)
    assert full.black_counts == (0, 3, 0, 0)
    assert full.scores[YELLOW] == 2 - (2 + 1 + 1)       # a token won, all of hers kept
    learning = play(dealt(), *actions, *SEED_DONE).results[0]
    assert learning.black_counts == (2, 3, 2, 1)


def test_wrong_word_voids_the_drawing_but_not_the_drawers_own_guesses():
    actions = [
        guess(RED, YELLOW, 1), guess(GREEN, YELLOW, 6), guess(BLUE, YELLOW, 5),  # on Yellow
        guess(YELLOW, RED, 2), guess(GREEN, RED, 4),
        {"action": "wrong_word", "player": YELLOW},
    ]
    r = full_round(*actions)
    yellow = r.stacks[YELLOW]
    assert yellow.void and all(c.token is None for c in yellow.guesses)
    assert yellow.kept == (2, 1, 1)
    # Green's and Blue's wrong guesses on Yellow are ignored: Green's one on Red makes her the sheep.
    assert r.wrong == (0, 0, 1, 0) and r.black_sheep == GREEN
    assert r.black_counts[YELLOW] == 0                 # her black token went back to the middle
    assert r.gained(YELLOW) == (2,)                    # her guess on Red still scores
    assert r.scores[YELLOW] == 2 - 4 + 0


def test_a_wrong_word_drawer_who_is_the_black_sheep_scores_the_black_token_0():
    r = full_round(guess(YELLOW, RED, 5), guess(YELLOW, GREEN, 5), {"action": "wrong_word", "player": YELLOW})
    assert r.black_sheep == YELLOW and r.black_counts[YELLOW] == 0


def test_wrong_word_may_be_admitted_after_taking_a_black_token_and_stops_guesses_on_it():
    state = play(dealt(), done(YELLOW))
    assert YELLOW in GAME.to_move(state)
    assert [a["action"] for a in GAME.legal_actions(state) if a["player"] == YELLOW] == ["wrong_word"]
    state = play(state, {"action": "wrong_word", "player": YELLOW})
    with pytest.raises(IllegalAction, match="player 0 drew the wrong word"):
        GAME.apply(state, guess(RED, YELLOW, 1))
    with pytest.raises(IllegalAction, match="already said you drew the wrong word"):
        GAME.apply(state, {"action": "wrong_word", "player": YELLOW})
    state = play(state, guess(RED, GREEN, 3))
    assert YELLOW not in GAME.to_move(state)


def test_a_wrong_word_returns_the_black_token_in_the_learning_round_too():
    """The learning round relaxes the complete scoring rules (black sheep, nobody guessed your
    word); the wrong word is a rule of its own: the black token goes back to the middle."""
    state = play(dealt(), {"action": "wrong_word", "player": YELLOW}, *SEED_DONE)
    r = state.results[0]
    assert r.black == (2, 3, 2, 1)
    assert r.black_counts == (0, 3, 2, 1)
    assert r.scores[YELLOW] == 0 - (2 + 1 + 1) + 0


def test_learning_round_is_round_1_only():
    state = play(dealt(), *SEED_DONE)
    state = play(dealt(state=state), guess(RED, YELLOW, 7), guess(YELLOW, GREEN, 3), *SEED_DONE)
    r = state.results[1]
    # Red (one wrong guess) is the black sheep; nobody guessed Yellow's or Blue's drawing.
    assert r.deck == "yellow" and r.black_sheep == RED and r.black_counts == (0, -3, 2, 0)


def test_guessing_rules():
    state = play(dealt(), guess(RED, YELLOW, 4), done(GREEN))
    for action, rule in [
        (guess(RED, RED, 2), "your own drawing"),
        (guess(RED, YELLOW, 1), "already guessed player 0's drawing"),
        (guess(GREEN, YELLOW, 1), "you are done"),
        (guess(RED, GREEN, 0), "'number' must be from 1 to 7"),
        (guess(RED, GREEN, 8), "'number' must be from 1 to 7"),
        (guess(RED, GREEN, True), "'number' must be from 1 to 7"),
        (guess(RED, 4, 1), "'target' must be a player index from 0 to 3"),
        (done(GREEN), "you are done"),
        (done(RED, token=3), r"'token' must be a black token still in the middle \(2, 2, 1\)"),
        ({"action": "draw"}, "unknown action 'draw'"),
    ]:
        with pytest.raises(IllegalAction, match=rule):
            GAME.apply(state, action)
    # Guessing your own number on someone else's drawing is a mistake, not illegal.
    assert play(state, guess(RED, BLUE, 2)).round.guesses[-1].number == 2


def test_black_highest_by_default_any_remaining_or_none():
    state = play(dealt(), done(RED, token=1), done(YELLOW), done(GREEN, token=None))
    assert state.round.black == (3, 1, None, None) and state.round.pool == (2, 2)
    state = play(state, done(BLUE))
    assert state.results[0].black == (3, 1, None, 2)


def test_competitive_round_ends_when_the_last_black_token_is_taken():
    state = dealt(competitive=True)
    assert state.round.pool == (3, 2, 2)               # the lowest (1) is dropped
    state = play(state, done(RED), guess(YELLOW, RED, 2), done(YELLOW), done(GREEN))
    r = state.results[0]
    assert r.black == (2, 3, 2, None)                  # Blue never finished
    assert state.round.number == 2 and not state.round.assigned
    with pytest.raises(IllegalAction, match="not been dealt"):
        GAME.apply(state, guess(BLUE, YELLOW, 1))


def test_competitive_round_with_a_player_finishing_without_a_token_ends_when_all_are_done():
    state = play(dealt(competitive=True), done(RED, token=None), done(YELLOW), done(GREEN))
    assert state.round.pool == (2,) and state.results == ()
    state = play(state, done(BLUE))
    assert state.results[0].black == (3, None, 2, 2)


def test_four_rounds_with_rising_decks_totals_and_a_shared_win():
    state = GAME.new(3, {})
    decks_seen = []
    for _ in range(4):
        decks_seen.append(state.round.deck)
        # Each player guesses the next one's drawing; the third to finish gets the black 1.
        state = dealt(3, (1, 2, 3), state=state)
        state = play(state, guess(0, 1, 2), guess(1, 2, 3), guess(2, 0, 1), done(0), done(1), done(2))
    assert decks_seen == ["green", "yellow", "orange", "red"]
    assert len(state.results) == 4 and state.round is None
    # 3 players: tokens 2,1 and black 2,2,1: each wins a 2 and keeps a 1 every round.
    assert [r.scores for r in state.results] == [(3, 3, 2)] * 4
    outcome = GAME.outcome(state)
    assert outcome.scores == state.totals == (12, 12, 8)
    assert outcome.winners == (0, 1)                   # no tiebreaker: a shared win
    assert not GAME.chance_needed(state)
    # Over, but the last stacks are being revealed: a drawer may still declare a wrong word.
    assert GAME.legal_actions(state) == [{"action": "wrong_word", "player": p} for p in range(3)]
    with pytest.raises(IllegalAction, match="game is over"):
        GAME.apply(state, guess(0, 1, 1))


def test_a_one_round_game_with_a_player_who_takes_no_black_token():
    state = GAME.new(3, {"rounds": 1})
    state = play(dealt(3, (1, 2, 3), state=state), guess(0, 1, 2), guess(1, 0, 1),
                 done(2, token=None), done(0, token=2), done(1, token=2))
    assert state.totals == (2 - 1 + 2, 2 - 1 + 2, 0 - 3 + 0)
    assert GAME.outcome(state).winners == (0, 1)


# --- chance events -------------------------------------------------------------------------------

def test_cards_then_assign_and_refusals():
    state = GAME.new(4, {})
    assert GAME.chance_needed(state) and GAME.to_move(state) == () and GAME.legal_actions(state) == []
    with pytest.raises(IllegalAction, match="word cards are shown before"):
        GAME.apply_chance(state, {"event": "assign", "letters": list("ABCA"), "numbers": [1, 2, 3, 4]})
    for event, rule in [
        ({"event": "cards", "deck": "red", "cards": CARDS["red"]}, "uses the green deck, not 'red'"),
        ({"event": "cards", "deck": "green", "cards": ["green-01", "green-01", "green-02"]}, "3 different card ids"),
        ({"event": "cards", "deck": "green", "cards": ["green-01", "green-02"]}, "3 different card ids"),
        ({"event": "cards", "deck": "green", "cards": ["green-01", "green-02", "green-99"]}, "no card 'green-99'"),
        ({"event": "deal"}, "unknown chance event 'deal'"),
    ]:
        with pytest.raises(IllegalAction, match=rule):
            GAME.apply_chance(state, event)
    state = GAME.apply_chance(state, {"event": "cards", "deck": "green", "cards": CARDS["green"]})
    for letters, numbers, rule in [
        (list("AAAB"), [1, 2, 3, 4], "only 2 letter cards of each letter"),
        (list("ABCD"), [1, 2, 3, 4], "'letters' must be 4 of A, B, C"),
        (list("ABC"), [1, 2, 3], "'letters' must be 4"),
        (list("ABCA"), [1, 2, 3, 3], "each number is dealt at most once"),
        (list("ABCA"), [1, 2, 3, 8], "'numbers' must be 4 numbers from 1 to 7"),
    ]:
        with pytest.raises(IllegalAction, match=rule):
            GAME.apply_chance(state, {"event": "assign", "letters": letters, "numbers": numbers})
    state = dealt(state=state)
    with pytest.raises(IllegalAction, match="already dealt"):
        GAME.apply_chance(state, {"event": "assign", "letters": list("ABCA"), "numbers": [1, 2, 3, 4]})


def test_word_cards_can_be_replaced_before_the_deal_and_never_come_back():
    state = GAME.new(3, {"decks": "green"})
    state = GAME.apply_chance(state, {"event": "cards", "deck": "green", "cards": CARDS["green"]})
    state = GAME.apply_chance(state, {"event": "cards", "deck": "green",
                                      "cards": ["green-01", "green-04", "green-03"]})
    assert state.round.cards == ("green-01", "green-04", "green-03")
    state = play(dealt(3, (1, 2, 3), state=state), done(0), done(1), done(2))
    with pytest.raises(IllegalAction, match="'green-02' was already shown"):
        GAME.apply_chance(state, {"event": "cards", "deck": "green", "cards": ["green-02", "green-05", "green-06"]})
    rng = random.Random(3)
    for _ in range(3):
        assert set(GAME.draw_chance(state, rng)["cards"]).isdisjoint({"green-01", "green-02", "green-03", "green-04"})


def test_physical_cards_mode_deals_only_letters_and_numbers():
    state = GAME.new(5, {"words": "physical"})
    with pytest.raises(IllegalAction, match="physical cards"):
        GAME.apply_chance(state, {"event": "cards", "deck": "green", "cards": CARDS["green"]})
    event = GAME.draw_chance(state, random.Random(1))
    assert event["event"] == "assign" and len(set(event["numbers"])) == 5
    state = GAME.apply_chance(state, event)
    assert state.round.cards == () and state.used == ()


def test_drawn_assignments_respect_the_letter_cards():
    state = GAME.apply_chance(GAME.new(6, {}), {"event": "cards", "deck": "green", "cards": CARDS["green"]})
    rng = random.Random(5)
    for _ in range(50):
        event = GAME.draw_chance(state, rng)
        assert sorted(event["letters"]) == list("AABBCC")
        GAME.apply_chance(state, event)


# --- token tables and options --------------------------------------------------------------------

def test_token_tables_defaults_from_rules_notes_and_competitive_drops_the_lowest():
    assert PLAYER_TOKENS == {3: (2, 1), 4: (2, 1, 1), 5: (3, 2, 1, 1), 6: (3, 2, 1, 1, 1)}
    assert BLACK_TOKENS == {3: (2, 2, 1), 4: (3, 2, 2, 1), 5: (3, 3, 2, 2, 1), 6: (3, 3, 2, 2, 1, 1)}
    for n in range(3, 7):
        assert token_tables(n, PictomaniaOptions()).black == BLACK_TOKENS[n]
        assert token_tables(n, PictomaniaOptions(competitive=True)).black == BLACK_TOKENS[n][:-1]


def test_custom_token_tables_are_checked_against_the_player_count():
    options = parse_options(PictomaniaOptions, {"tokens": "1, 3,2", "black": "4,3,2,1"})
    assert token_tables(4, options).player == (3, 2, 1)
    with pytest.raises(OptionError, match="'tokens': needs 2 values for 3 players"):
        GAME.new(3, options)
    with pytest.raises(OptionError, match="'black': needs 5 values for 5 players \\(one per player\\), not 4"):
        GAME.new(5, {"black": "3,2,1,1"})
    for bad in ("3,x", "0,1", "3,,1", "10"):
        with pytest.raises(OptionError, match="'tokens': must be token values from 1 to 9"):
            parse_options(PictomaniaOptions, {"tokens": bad})


def test_decks_option_names_known_decks():
    assert GAME.new(3, {"decks": "red, green"}).round.deck == "red"
    with pytest.raises(OptionError, match="'decks': unknown deck 'purple'.*known decks are green, yellow"):
        parse_options(PictomaniaOptions, {"decks": "purple"})


def test_a_user_deck_too_small_for_its_rounds_is_refused(tmp_path):
    path = tmp_path / "mine.toml"
    cards = ",\n".join(json.dumps([f"w{c}{i}" for i in range(7)]) for c in range(4))
    path.write_text(f'[[deck]]\nname = "mine"\ncards = [\n{cards}\n]\n')
    words.use_user_decks(words.load_decks(path))
    try:
        assert GAME.new(3, {"decks": "mine", "rounds": 1}).round.deck == "mine"
        with pytest.raises(OptionError, match="deck 'mine' has 4 cards, too few for 2 rounds of 3"):
            GAME.new(3, {"decks": "mine", "rounds": 2})
        assert "mine" in dict((n, c) for n, c, _ in GAME.lobby_options(3))["decks"]
        # Started from the lobby, the game is as many rounds as the decks can deal (4 cards: 1),
        # and untouched where they can deal them all or deal no cards (printed ones).
        assert GAME.lobby_start({"decks": "mine", "rounds": 4})["rounds"] == 1
        assert GAME.lobby_start({"decks": "mine, green", "rounds": 4})["rounds"] == 4
        assert GAME.lobby_start({"decks": "mine", "rounds": 4, "words": "physical"})["rounds"] == 4
    finally:
        words.use_user_decks([])


def test_the_lobby_offers_the_token_tables_for_the_player_count():
    rows = {name: choices for name, choices, _ in GAME.lobby_options(5)}
    assert rows["tokens"] == ("3,2,1,1", "1,1,1,1", "4,3,2,1")
    assert rows["black"] == ("3,3,2,2,1", "1,1,1,1,1", "5,4,3,2,1")
    assert rows["words"] == ("box", "physical") and rows["rounds"] == (1, 2, 3, 4)
    for n in range(3, 7):
        for name, choices, _ in GAME.lobby_options(n):
            for value in choices:
                GAME.new(n, {name: value})


def test_registration():
    assert isinstance(GAME, Pictomania)
    assert (GAME.title, GAME.min_players, GAME.max_players) == ("Pictomania", 3, 6)
    with pytest.raises(ValueError, match="3 to 6 players, not 2"):
        GAME.new(2, {})


# --- the journal --------------------------------------------------------------------------------

def journal(*events, options=None, players=("Yellow", "Red", "Green", "Blue")):
    head = {"format": "companion-journal/1", "game": "pictomania", "players": list(players),
            "options": options or {}}
    return [json.dumps(head)] + [json.dumps(e) for e in events]


def test_the_seed_example_replays_from_a_journal():
    events = [{"type": "chance", "event": "cards", "deck": "green", "cards": CARDS["green"]},
              {"type": "chance", "event": "assign", "letters": list("ABCA"), "numbers": [1, 2, 3, 4]}]
    events += [{"type": "action", **a} for a in SEED_GUESSES + SEED_DONE]
    header, match = replay(journal(*events, options={"rounds": 1}))
    result = summary(header, match)
    assert result["over"] and result["scores"] == [6, 5, 2, 1]
    assert result["winners"] == [YELLOW]
    assert result["detail"]["rounds"][0]["black_counts"] == [2, 3, 2, 1]
    assert result["detail"]["black_sheep"] == [None]


def test_a_bad_journal_line_names_the_rule():
    events = [{"type": "chance", "event": "cards", "deck": "green", "cards": CARDS["green"]},
              {"type": "chance", "event": "assign", "letters": list("ABCA"), "numbers": [1, 2, 3, 4]},
              {"type": "action", **guess(RED, RED, 2)}]
    with pytest.raises(JournalError, match="line 4: you do not guess your own drawing"):
        replay(journal(*events))


def test_a_journal_without_chance_lines_draws_them_from_its_seed():
    head = {"format": "companion-journal/1", "game": "pictomania", "players": ["A", "B", "C"],
            "options": {"words": "physical"}, "seed": 11}
    header, match = replay([json.dumps(head), json.dumps({"type": "action", **done(0)})])
    assert match.state.round.assigned and match.state.round.done == (True, False, False)


def test_a_game_with_a_user_deck_replays_with_its_deck_file(tmp_path, capsys):
    from companion.cli import main

    deck = tmp_path / "mine.toml"
    cards = ",\n".join(json.dumps([f"w{c}{i}" for i in range(7)]) for c in range(3))
    deck.write_text(f'[[deck]]\nname = "mine"\ncards = [\n{cards}\n]\n')
    game = tmp_path / "game.jsonl"
    game.write_text("\n".join(journal(
        {"type": "chance", "event": "cards", "deck": "mine", "cards": ["mine-01", "mine-02", "mine-03"]},
        {"type": "chance", "event": "assign", "letters": list("ABC"), "numbers": [1, 2, 3]},
        *[{"type": "action", **done(p)} for p in range(3)],
        options={"decks": "mine", "rounds": 1}, players=("A", "B", "C"))) + "\n")
    try:
        assert main(["replay", str(game), "--json"]) == 2
        assert "option 'decks': unknown deck 'mine'" in capsys.readouterr().err
        assert main(["replay", str(game), "--json", "--decks", str(deck)]) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["over"] and result["scores"] == [2 - 3, 2 - 3, 1 - 3]
        assert result["detail"]["rounds"][0]["cards"] == ["mine-01", "mine-02", "mine-03"]
    finally:
        words.use_user_decks([])


# --- a wrong word found at the reveal ----------------------------------------------------------

def test_a_wrong_word_may_be_declared_at_the_reveal_and_rescores_the_round():
    """The seed finds the wrong word when the stack is turned over: after everybody is done and
    before the next round's cards, the drawer may still declare it."""
    state = play(dealt(learning_round=False), *SEED_GUESSES, *SEED_DONE)
    before = state.results[0]
    assert before.stacks[YELLOW].kept == (1,) and not before.stacks[YELLOW].void
    assert GAME.chance_needed(state) and YELLOW in GAME.to_move(state)
    assert {"action": "wrong_word", "player": YELLOW} in GAME.legal_actions(state)
    state = play(state, {"action": "wrong_word", "player": YELLOW})
    r = state.results[0]
    assert len(state.results) == 1 and r.stacks[YELLOW].void
    assert r.stacks[YELLOW].kept == (2, 1, 1) and r.black_counts[YELLOW] == 0
    assert r.gained(RED) == (2,) and r.gained(GREEN) == ()     # their guesses on Yellow are void
    assert YELLOW not in GAME.to_move(state)
    with pytest.raises(IllegalAction, match="already said you drew the wrong word"):
        GAME.apply(state, {"action": "wrong_word", "player": YELLOW})


def test_the_next_rounds_cards_close_the_reveal():
    state = play(dealt(), *SEED_DONE)
    state = GAME.apply_chance(state, {"event": "cards", "deck": "yellow", "cards": CARDS["yellow"]})
    assert GAME.to_move(state) == () and GAME.legal_actions(state) == []
    with pytest.raises(IllegalAction, match="the round has not been dealt yet"):
        GAME.apply(state, {"action": "wrong_word", "player": YELLOW})


def test_after_the_last_round_a_wrong_word_at_the_reveal_changes_the_result():
    state = play(dealt(rounds=1), *SEED_GUESSES, *SEED_DONE)
    assert GAME.outcome(state).winners == (YELLOW,)
    state = play(state, {"action": "wrong_word", "player": YELLOW})
    outcome = GAME.outcome(state)
    # Yellow: her guesses 2+2+1, all her tokens kept, the black token 0; Red: Blue's 2, black 3.
    assert outcome.scores == (5 - 4 + 0, 2 + 3 - 2, 1, 1) and outcome.winners == (RED,)


def test_a_journal_may_declare_the_wrong_word_at_the_reveal():
    events = [{"type": "chance", "event": "cards", "deck": "green", "cards": CARDS["green"]},
              {"type": "chance", "event": "assign", "letters": list("ABCA"), "numbers": [1, 2, 3, 4]}]
    events += [{"type": "action", **a} for a in SEED_GUESSES + SEED_DONE]
    events.append({"type": "action", "action": "wrong_word", "player": YELLOW})
    header, match = replay(journal(*events, options={"rounds": 1}))
    result = summary(header, match)
    assert result["over"] and result["winners"] == [RED]
    assert result["detail"]["rounds"][0]["wrong_word"] == [YELLOW]


@pytest.mark.parametrize("player", [True, 1.0, "1", None, 9])
def test_a_wrong_word_at_the_reveal_names_a_player_index(player):
    state = play(dealt(), *SEED_DONE)
    with pytest.raises(IllegalAction, match="'player' must be a player index"):
        GAME.apply(state, {"action": "wrong_word", "player": player})
