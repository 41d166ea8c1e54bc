"""``companion replay --explain``: each line told in the players' words, names and seats (1-based),
who gained what and why. One small journal per game (``tests/journals/explain/``)."""

from __future__ import annotations

import json
from pathlib import Path

from companion.cli import main
from companion.record.explain import explain

JOURNALS = Path(__file__).parent / "journals" / "explain"


def told(game: str) -> list[str]:
    story, ok = explain((JOURNALS / f"{game}.jsonl").read_text(encoding="utf-8").splitlines())
    assert ok
    return story


def test_paytoplay_tells_income_costs_forced_passes_and_the_draw():
    story = told("paytoplay")
    assert story[0] == "line 1: Pay-to-Play Tic-Tac-Toe for Alice (seat 1), Bob (seat 2)."
    assert story[1] == ("line 2: Alice (seat 1) is paid 1 for X's first turn, which makes 1, and "
                        "takes cell 5 (centre) for 4: balance -3.")
    assert story[2] == ("line 3: Bob (seat 2) is paid 2 for the turn and passes, keeping 2. "
                        "Alice (seat 1) is paid 2 for the turn, which makes -1: not positive, so "
                        "the box passes for them.")
    assert story[3] == "line 4: the box's own move, derived again by replay, told at line 3."
    assert story[6].startswith("line 7: Both players agree to a draw: the balances stay 1 and 4, "
                               "with no income for the turn not played. Game 1 ends: tournament "
                               "totals 1 and 4")
    assert story[7].startswith("line 8: Bob (seat 2) is paid 1 for X's first turn")
    assert story[-1] == "Not over yet: Alice 1, Bob 4 (balances)."


def test_paytoplay_tells_the_end_of_the_seeds_game():
    path = Path(__file__).parent / "journals" / "paytoplay-seed.jsonl"
    story, ok = explain(path.read_text(encoding="utf-8").splitlines())
    assert ok and story[-2] == (
        "line 14: Alice (seat 1) is paid 2 for the turn, which makes 4, and takes cell 3 (top-right "
        "corner) for 3: balance 1. The board is full: the higher balance wins. The game is over.")
    assert story[-1] == "Result: Alice 1, Bob 0 (balances); won by Alice."


def test_paytoplay_numbers_cells_1_to_9_as_the_station_and_solve_do():
    """The journal's cells are 0-8; a player reads 1-9 in reading order, with where the cell is."""
    header = {"format": "companion-journal/1", "game": "paytoplay", "players": ["Ana", "Ben"], "options": {}}
    moves = [("play", 0, 1), ("pass", 1, None), ("play", 0, 7), ("pass", 1, None), ("play", 0, 4)]
    lines = [json.dumps(header)] + [json.dumps({"type": "action", "action": a, "player": p, **({"cell": c} if a == "play" else {})})
                                    for a, p, c in moves]
    story, ok = explain(lines)
    assert ok and story[1] == ("line 2: Ana (seat 1) is paid 1 for X's first turn, which makes 1, and takes "
                               "cell 2 (top edge) for 2: balance -1.")
    assert story[-2] == ("line 6: Ana (seat 1) is paid 2 for the turn, which makes 1, and takes cell 5 (centre) "
                         "for 4: balance -3. Three in a row (cells 2, 5, 8) wins the game for Ana. The game is over.")


def test_triangle_tells_the_deal_the_claim_and_why_each_player_scores():
    story = told("triangle")
    assert story[1] == ("line 2: Turn 1, round 1 is dealt: Ana (seat 1) 2, Ben (seat 2) 4, Cy "
                        "(seat 3) 6; the Right to Speak card is 3. Each player sees only the "
                        "other two cards.")
    assert story[2] == "line 3: Ben (seat 2) slapped first and takes the Right to Speak."
    assert story[3] == ("line 4: Ben (seat 2) states \"my card is greater than both peers'\": "
                        "false, their card is 4, so each other player gains 3.")
    assert story[6] == ("line 7: Cy (seat 3) states \"my card is exactly 5\" (8 points): true, "
                        "their card is 5, so Cy gains 8.")
    assert story[8] == ("line 9: Ana (seat 1) and Cy (seat 3) slapped within the tie window: a "
                        "draw, nobody scores and the cards are discarded unseen.")
    assert story[-1] == "Not over yet: Ana 3, Ben 0, Cy 11."


def test_replay_names_triangle_cards_statements_and_points_per_player(capsys):
    """``companion replay`` (without --explain) tells the last rounds by name, never as lists."""
    assert main(["replay", str(JOURNALS / "triangle.jsonl")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[6] == ("  cards Ana (seat 1) 2, Ben (seat 2) 4, Cy (seat 3) 6; Right to Speak card 3: Ben (seat 2) "
                      "stated \"my card is greater than both peers'\": false, points Ana (seat 1) 3, Ben (seat 2) "
                      "0, Cy (seat 3) 3")
    assert out[8] == "  cards Ana (seat 1) 3, Ben (seat 2) 5, Cy (seat 3) 6; Right to Speak card 4: draw between Ana (seat 1) and Cy (seat 3)"
    assert not [line for line in out if "[" in line or "_" in line]


def test_a_quiz_names_its_host_apart_from_the_scores(tmp_path, capsys):
    """The host's seat never scores: replay, games and explain say who hosted instead of a 0."""
    header = {"format": "companion-journal/1", "game": "quiz", "players": ["Hal", "Ben", "Cy"], "options": {"questions": 1}}
    lines = [header, {"type": "action", "action": "correct", "target": 2, "score": 3},
             {"type": "action", "action": "arm"}, {"type": "action", "action": "skip"}]
    path = tmp_path / "20260101-200000-quiz.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    story, ok = explain(path.read_text().splitlines())
    assert ok and story[-2:] == ["line 4: The host skips question 1. The game is over.",
                                 "Result: Ben 0, Cy 3 (host Hal); won by Cy."]
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[1:4] == ["  Hal (seat 1): the host", "  Ben (seat 2): 0",
                                                         "  Cy (seat 3): 3"]
    assert main(["games", "--journal-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{path.name}  Quiz  Ben 0, Cy 3 (host Hal)  won by Cy\n"


def test_a_quiz_prelock_is_told_and_a_replay_names_who_is_out(tmp_path, capsys):
    header = {"format": "companion-journal/1", "game": "quiz", "players": ["Hal", "Ben", "Cy", "Dee"],
              "options": {"questions": 2, "early": "prelock"}}
    lines = [header, {"type": "action", "action": "early", "player": 1}, {"type": "action", "action": "arm"},
             {"type": "action", "action": "early", "player": 3}]
    path = tmp_path / "20260101-200000-quiz.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    story, ok = explain(path.read_text().splitlines())
    assert ok and story[1:4] == ["line 2: Ben (seat 2) pressed too early while question 1 was read: out for this question.",
                                 "line 3: The host arms the buzzers for question 1.",
                                 "line 4: Dee (seat 4) pressed too early: out for this question."]
    assert main(["replay", str(path)]) == 0
    assert "Pressed too early, out of question 1: Ben (seat 2), Dee (seat 4)" in capsys.readouterr().out.splitlines()


def test_every_game_has_the_rules_protocols_invariant_check():
    """``Rules.check_invariants``'s default is a method of the protocol, not code after a return."""
    from companion.games.base import Rules

    assert Rules().check_invariants(None) is None


def test_trio_tells_what_was_drawn_from_the_seed_and_who_scores():
    story = told("trio")
    assert story[1].startswith(
        "line 2: Cy (seat 3) is drawn to be the first artist. (Drawn from the seed: the journal "
        "has no line for it.) The artist Cy (seat 3) is shown the word ")
    assert story[1].endswith("Time is up: nobody scores. Next artist: Ana (seat 1).")
    assert story[2] == "line 3: The artist Ana (seat 1) is shown the word 'lighthouse'."
    assert story[3] == ("line 4: Both guessers were right within the tie window: only the artist "
                        "Ana (seat 1) scores: Ana gains 1. Next artist: Ben (seat 2).")


def test_pictomania_names_word_cards_by_letter_and_words_as_the_table_shows_them():
    """A journal records card ids (``green-02``); players know card B by its words."""
    lines = (JOURNALS / "pictomania.jsonl").read_text(encoding="utf-8").splitlines()
    swap = {"type": "chance", "event": "cards", "deck": "green", "cards": ["green-01", "green-05", "green-03"]}
    story, ok = explain(lines[:2] + [json.dumps(swap)] + lines[2:])
    assert ok and story[1] == (
        "line 2: Round 1's word cards, from the green deck: card A (apple, pear, banana, cherry, grapes, "
        "lemon, strawberry); card B (cow, pig, sheep, horse, goat, chicken, duck); card C (sun, rain, "
        "snow, wind, cloud, rainbow, lightning).")
    assert story[2] == ("line 3: Round 1: card B is swapped for another from the green deck (someone did "
                        "not know a word): now card B (hat, shoe, sock, glove, scarf, shirt, trousers).")
    assert story[3] == ("line 4: Secret letters and numbers are dealt: Ana (seat 1) A3 (banana), Ben (seat 2) "
                        "B5 (scarf), Cy (seat 3) C1 (sun).")
    assert "green-" not in "\n".join(story)


def test_pictomania_tells_guesses_tokens_and_the_round_scored_again_at_the_reveal():
    story = told("pictomania")
    assert story[2] == ("line 3: Secret letters and numbers are dealt: Ana (seat 1) A3 (banana), Ben "
                        "(seat 2) B5 (goat), Cy (seat 3) C1 (sun).")
    assert story[4] == "line 5: Cy (seat 3) guesses 2 on Ben (seat 2)'s drawing: wrong (Ben drew 5)."
    assert story[7] == "line 8: Ben (seat 2) is done guessing and finishes without a black token."
    assert story[8].endswith(
        "Round 1 is scored: Ana +3 (guesses 2, kept -1, black +2); Ben +1 (guesses 2, kept -1, "
        "black +0); Cy -5 (guesses 0, kept -3, black -2); black sheep Cy. The game is over.")
    assert story[9] == (
        "line 10: Ben (seat 2) says they drew the wrong word at the reveal: the round is counted "
        "again, the guesses on their drawing are void, they keep all their tokens and their black "
        "token counts 0. Round 1 is scored again: Ana +1 (guesses 0, kept -1, black +2); Ben -1 "
        "(guesses 2, kept -3, black +0); Cy -3 (guesses 0, kept -3, black +0); no black sheep.")
    assert story[-1] == "Result: Ana 1, Ben -1, Cy -3; won by Ana."


def test_closest_tells_the_automatic_start_the_cards_and_who_wins_each_number():
    story = told("closest")
    assert story[0].endswith("Ana (seat 1) starts round 1 (as the option start=seat1 says).")
    assert story[1] == "line 2: the box's own move, derived again by replay, told at line 1."
    assert story[4] == ("line 5: Cy (seat 3) puts a card on 5. Round 1 is scored on 1..10: Ana 3 "
                        "(1, 2, 3); Ben 4 (7, 8, 9, 10); Cy 2 (5, 6); tied: 4.")
    assert story[5] == "line 6: Ben (seat 2) puts a card on 2 as their decoy, which will not count."


def test_cli_explain_prints_the_story_and_a_bad_line_ends_it_with_exit_2(tmp_path, capsys):
    assert main(["replay", "--explain", str(JOURNALS / "triangle.jsonl")]) == 0
    assert "line 3: Ben (seat 2) slapped first and takes the Right to Speak." in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    lines = (JOURNALS / "triangle.jsonl").read_text().splitlines()[:3]
    bad.write_text("\n".join(lines + [json.dumps({"type": "action", "action": "state", "player": 0,
                                                    "fact": "odd"})]) + "\n")
    assert main(["replay", "--explain", str(bad)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == ("line 4: only player 1, who has the Right to Speak, may state a fact "
                       "(the replay stops here)")
    assert out[-2] == "line 3: Ben (seat 2) slapped first and takes the Right to Speak."


def test_trio_tells_a_judgement_taken_back_as_such_not_as_time_up():
    header = {"format": "companion-journal/1", "game": "trio", "players": ["Ana", "Ben", "Cy"]}
    lines = [json.dumps(header), '{"type": "chance", "event": "word", "word": "kite"}',
             '{"type": "action", "action": "guessed", "player": 1}',
             '{"type": "chance", "event": "word", "word": "moon"}', '{"type": "action", "action": "correct"}']
    story, whole = explain(lines)
    assert whole
    assert story[4] == ("line 5: The artist Ana (seat 1) takes back the judgement that ended their round: "
                        "it counts as if time ran out, so Ana loses 1 and Ben loses 1. Next artist: Ben (seat 2).")
