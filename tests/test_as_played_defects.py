"""What players lost before, each played through the real box process (:mod:`asplayed`), its
journal read back by the command line and resumed: a take-back journaled with the wrong line, a
seat left twice, a quiz where everyone pressed early, a prelock between questions, the
wiring picture of a quiz box with bare buzzers on the button board, and a table's own word deck
too small for the lobby's rounds."""

from __future__ import annotations

import json
from pathlib import Path

from asplayed import DEMO, PROFILES, SCRIPTS, cli, journal_of, lines_of, read_back, run_box

PAY_TO_PLAY = DEMO / "profile.toml"
MOCK3 = PROFILES / "mock-3.toml"
ALICE_MARKS_THE_CENTRE = "".join((DEMO / "paytoplay.txt").read_text().splitlines(keepends=True)[:19])
"""The Pay-to-Play demo up to Alice's first mark (the centre, paid 4)."""
QUIZ_PRELOCK = ("--game", "quiz", "--option", "quiz.early=prelock")
QUIZ_LOBBY = "".join(f"{0.2 * n:.1f} 1 ok\n" for n in range(1, 14))
"""On three stations: ok picks the quiz, ok seats every station, the options as they are, Start."""


def test_a_take_back_names_the_line_it_takes_back_and_the_game_resumes(tmp_path):
    """The writer counted lines before the header was written: ``undo`` named line 1 for the
    action on line 2, and every command refused the journal."""
    journals = tmp_path / "games"
    took_back = ALICE_MARKS_THE_CENTRE + "5.2 1 left 0.6\n5.5 1 ok\n6.2 1 ok\n"
    assert run_box(PAY_TO_PLAY, took_back, journals, "--speed", "2").code == 0
    path = journal_of(journals, "paytoplay")
    header, mark, undo = lines_of(path)
    assert (mark["action"], mark["cell"]) == ("play", 4)
    assert (undo["action"], undo["line"]) == ("undo", 2)
    result = read_back(path)
    assert result["scores"] == [0, 0] and result["detail"]["board"][4] == "."
    assert "takes back line 2" in result["explain"] and "not finished" in result["games"]

    # Resumed: Alice marks again, on the line after the take-back.
    assert run_box(PAY_TO_PLAY, "0.5 1 ok\n1.5 1 ok\n", journals).code == 0
    *_, again = lines_of(path)
    assert again["action"] == "play" and again["player"] == 0
    assert read_back(path)["detail"]["board"].count(".") == 8


def test_a_seat_left_twice_asks_nothing_the_second_time(tmp_path):
    """A station whose seat a bot plays held left+right: it was asked to leave again, journaled a
    seat line for no player, and crashed in the dialog; under --script it hung."""
    journals = tmp_path / "games"
    left_twice = ALICE_MARKS_THE_CENTRE + (
        "5.2 1 left 2.6\n5.25 1 right 2.5\n8.0 1 left\n"    # Alice leaves: an easy bot plays on
        "9.0 1 left 2.6\n9.05 1 right 2.5\n12.0 1 left\n")  # watching, she holds them again
    run = run_box(PAY_TO_PLAY, left_twice, journals)
    assert run.code == 0 and "Traceback" not in run.log
    path = journal_of(journals, "paytoplay")
    seats = [line for line in lines_of(path) if line.get("type") == "seat"]
    assert [(s["player"], s["bot"]) for s in seats] == [(0, "easy")]
    assert "bot" in read_back(path)["explain"]

    # Resumed: Alice takes her seat back (left held, ok, ok), a person again.
    assert run_box(PAY_TO_PLAY, "0.5 1 ok\n1.5 1 left 0.6\n1.8 1 ok\n2.5 1 ok\n", journals).code == 0
    seats = [line for line in lines_of(path) if line.get("type") == "seat"]
    assert [(s["player"], s["bot"], s["station"]) for s in seats] == [(0, "easy", None), (0, None, 1)]
    read_back(path)


def test_a_quiz_everyone_pressed_early_for_is_skipped_by_the_host(tmp_path):
    """Every player prelocked, the host armed: a race among nobody took max() of nothing, the
    box exited 1 (under --script it hung), and each restart resumed the armed question into the
    same crash."""
    journals = tmp_path / "games"
    everyone_early = QUIZ_LOBBY + "3.2 2 slap\n3.4 3 slap\n3.8 1 slap\n"
    run = run_box(MOCK3, everyone_early, journals, *QUIZ_PRELOCK)
    assert run.code == 0 and "Traceback" not in run.log
    path = journal_of(journals, "quiz")
    assert [(line["action"], line.get("player")) for line in lines_of(path)[1:]] == [
        ("early", 1), ("early", 2), ("arm", None)]
    assert read_back(path)["detail"]["prelocked"] == [1, 2]

    # Resumed on the armed question: the host skips it (right), and arms the next one.
    run = run_box(MOCK3, "0.5 1 ok\n1.5 1 right\n2.0 1 slap\n", journals, *QUIZ_PRELOCK)
    assert run.code == 0 and "Traceback" not in run.log
    assert [line["action"] for line in lines_of(path)[4:]] == ["skip", "arm"]
    result = read_back(path)
    assert (result["detail"]["question"], result["detail"]["prelocked"]) == (2, [])


def test_a_prelock_while_the_next_question_is_read_is_kept_and_replays(tmp_path):
    """Ben answered question 1 wrong (his team out of it), Cy right; Ben pressed while question
    2 was read. The box did not journal it, and a journal with that line was refused on replay
    ("player 1's team is out for this question") though it is for the next question."""
    journals = tmp_path / "games"
    question = QUIZ_LOBBY + "3.5 1 slap\n3.9 2 slap\n3.96 3 slap\n4.5 1 left\n5.0 1 ok\n5.5 2 slap\n"
    assert run_box(MOCK3, question, journals, *QUIZ_PRELOCK).code == 0
    path = journal_of(journals, "quiz")
    assert [(line["action"], line.get("player")) for line in lines_of(path)[1:]] == [
        ("arm", None), ("buzz", 1), ("wrong", None), ("right", None), ("early", 1)]
    result = read_back(path)
    assert result["detail"]["prelocked"] == [1] and result["scores"] == [0, 0, 1]

    # Resumed: the host arms question 2, Ben's press does not count, Cy's does.
    assert run_box(MOCK3, "0.5 1 ok\n1.5 1 slap\n2.0 2 slap\n2.1 3 slap\n", journals, *QUIZ_PRELOCK).code == 0
    arm, buzz = lines_of(path)[6:]
    assert arm["action"] == "arm" and (buzz["action"], buzz["player"], buzz["order"]) == ("buzz", 2, [2])
    read_back(path)


def test_the_shortest_journal_with_a_prelock_between_questions_replays(tmp_path):
    path = tmp_path / "quiz.jsonl"
    header = ('{"format": "companion-journal/1", "game": "quiz", "players": ["Host", "Ben", "Cy"], '
              '"options": {"early": "prelock"}, "seed": 1}\n')
    path.write_text(header + "".join(f'{{"type": "action", {body}}}\n' for body in (
        '"action": "arm"', '"action": "buzz", "player": 1, "order": [1, 2]', '"action": "wrong"',
        '"action": "right"', '"action": "early", "player": 1')))
    result = read_back(path)
    assert result["detail"]["prelocked"] == [1] and result["detail"]["phase"] == "ready"


def test_the_wiring_of_a_quiz_box_with_bare_buzzers_on_the_board(tmp_path):
    """Buzzer-only seats on board channels have no left key: the diagram looked one up."""
    for profile in ("quiz-16.toml", "mock-quiz-16.toml"):
        out = tmp_path / profile
        run = cli("profile", "diagram", str(PROFILES / profile), "--out", str(out))
        assert run.code == 0 and "Traceback" not in run.log, run.log
        table = (out / "wiring.md").read_text()
        assert "slap button | button board channel" in table
        assert (out / "wiring.svg").read_text().startswith("<svg")


def test_garbage_after_the_last_line_with_a_carriage_return_is_one_torn_tail_and_the_quiz_resumes(tmp_path):
    """A power cut left 80 random bytes after the last line, one of them a carriage return and
    none a newline. Recovery split them at the ``\\r``: "a torn last line (40 bytes) is left out",
    then "cannot be resumed: line 8: not UTF-8 text", and the quiz was lost. Only ``\\n`` ends a
    journal line: the 80 bytes are one torn tail, and every line before them resumes."""
    import random

    journals = tmp_path / "games"
    question = QUIZ_LOBBY + "3.5 1 slap\n3.9 2 slap\n3.96 3 slap\n4.5 1 left\n5.0 1 ok\n5.5 2 slap\n"
    assert run_box(MOCK3, question, journals, *QUIZ_PRELOCK).code == 0
    path = journal_of(journals, "quiz")
    played = path.read_bytes()
    rnd = random.Random(45)
    garbage = bytearray(rnd.choice([b for b in range(256) if b not in b"\r\n"]) for _ in range(80))
    garbage[23] = ord("\r")  # the issue's: a carriage return a third of the way in, no newline
    with path.open("ab") as f:
        f.write(garbage)

    # Started on it: the quiz resumes where it was; the host arms question 2, Ben's press (he
    # prelocked) does not count, Cy's does.
    run = run_box(MOCK3, "0.5 1 ok\n1.5 1 slap\n2.0 2 slap\n2.1 3 slap\n", journals, *QUIZ_PRELOCK)
    assert run.code == 0 and "Traceback" not in run.log, run.log
    assert "cannot be resumed" not in run.log and "damaged" not in run.log, run.log
    assert "a torn last line (80 bytes) is left out" in run.log, run.log
    data = path.read_bytes()
    assert data.startswith(played) and b"\r" not in data  # every line kept, the tail cut
    arm, buzz = lines_of(path)[6:]
    assert arm["action"] == "arm" and (buzz["action"], buzz["player"], buzz["order"]) == ("buzz", 2, [2])
    read_back(path)


def test_a_tables_own_deck_too_small_for_four_rounds_makes_the_game_shorter(tmp_path):
    """A deck file of one deck of three cards (``--decks``, the deck picked for every round):
    Start began a game of the lobby's four rounds, the rules refused it ("deck 'kitchen' has 3
    cards, too few for 4 rounds of 3"), and the game was set aside as it started, its journal
    one that no command could read. As a quiz pack makes the night its questions, the decks make
    the game the rounds they can deal: one."""
    from companion.words import use_user_decks

    decks = Path(__file__).resolve().parent / "decks" / "kitchen.toml"
    journals = tmp_path / "games"
    run = run_box(MOCK3, SCRIPTS / "as-played" / "pictomania.txt", journals, "--game", "pictomania",
                  "--decks", str(decks), "--option", "pictomania.decks=kitchen")
    assert run.code == 0 and "Traceback" not in run.log and "hit a fault" not in run.log, run.log
    path = journal_of(journals, "pictomania")
    header, cards, *_ = lines_of(path)
    assert header["options"]["rounds"] == 1 and cards["deck"] == "kitchen"
    try:
        result = read_back(path, "--decks", str(decks))
        history = cli("history", "--journal-dir", str(journals), "--json", "--decks", str(decks))
    finally:
        use_user_decks([])
    assert not result["over"] and "not finished" in result["games"]
    assert history.code == 0 and json.loads(history.out)["unreadable"] == {}, history.out
