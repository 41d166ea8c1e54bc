"""Question packs: the file a host writes (CSV or JSON), ``companion pack check``'s one sentence per
bad row, the lobby's pack row, a pack's own points and times in the rules, and a night whose pack
is gone: replayed from its journal alone, resumed without it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from asplayed import PROFILES, cli, journal_of, lines_of, run_box
from companion.games import get
from companion.games.base import IllegalAction
from companion.games.quiz_packs import SHELF, PackError, read_pack
from companion.record.match import Match
from companion.table.lobby import Lobby

PACK = Path(__file__).parent / "packs" / "pub-night.csv"
SCRIPT = Path(__file__).parent / "scripts" / "as-played" / "quiz-pack.txt"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_spreadsheet_csv_reads_in_any_column_order_with_semicolons_and_a_bom(tmp_path):
    path = write(tmp_path, "night.csv", "\ufeffCategory;Answer;Question;Time\nMusic;Abba;Who sang Waterloo?;15\n\n"
                                        ";42;\"Life, the universe; and everything?\";\n")
    pack = read_pack(path)
    assert pack.name == "night" and len(pack.questions) == 2
    first, second = pack.questions
    assert (first.question, first.answer, first.category, first.time_s, first.points) == \
        ("Who sang Waterloo?", "Abba", "Music", 15, None)
    assert second.question == "Life, the universe; and everything?" and second.category == ""


def test_the_same_pack_as_json(tmp_path):
    csv_pack = read_pack(PACK)
    text = json.dumps([q.as_dict() for q in csv_pack.questions], indent=2)
    assert read_pack(write(tmp_path, "pub-night.json", text)).questions == csv_pack.questions


def test_every_bad_row_is_one_sentence_naming_its_line(tmp_path):
    path = write(tmp_path, "bad.csv", "question,answer,points\nOk?,Yes,\n,Blue,1\nWho?,Me,ten\n\n"
                                      "Largest planet?,,200\n")
    with pytest.raises(PackError) as caught:
        read_pack(path)
    assert caught.value.problems == [
        f"{path} line 3: the question is empty.",
        f"{path} line 4: points must be a whole number from 1 to 100, not 'ten'.",
        f"{path} line 6: the answer is empty and points must be a whole number from 1 to 100, not 200.",
    ]
    checked = cli("pack", "check", str(PACK), str(path))
    assert checked.code == 2
    assert checked.out == f"{PACK}: ok (3 questions, 3 categories: Geography, Nature, Space)\n"
    assert checked.log.count(str(path)) == 3 and "line 3" in checked.log and "Traceback" not in checked.log


@pytest.mark.parametrize("text,problem", [
    ("question,answer\n", "has no questions"),
    ("prompt,answer\nA?,B\n", "line 1: the first row names the columns"),
    ("question,answer,colour\nA?,B,red\n", "has a column 'colour' no pack has"),
    ('[{"question": "A?", "answer": "B"},\n "oops"]', "line 2: a question is an object"),
    ('[{"question": "A?", "answer": 3}]', "line 1: the answer must be text, not 3."),
    ('{"question": "A?"}', "line 1: a JSON pack is a list"),
    ("[1,", "is not a JSON object"),
])
def test_a_bad_file_says_what_is_wrong(tmp_path, text, problem):
    name = "p.json" if text[:1] in "[{" else "p.csv"
    with pytest.raises(PackError) as caught:
        read_pack(write(tmp_path, name, text))
    assert problem in str(caught.value)


def test_run_refuses_a_bad_pack_named_on_the_command_line(tmp_path):
    bad = write(tmp_path, "bad.csv", "question,answer\nA?,\n")
    run = run_box(PROFILES / "mock-3.toml", "0.2 1 ok\n", tmp_path / "games", "--option", f"quiz.pack={bad}")
    assert run.code == 2 and "line 2: the answer is empty" in run.log and "Traceback" not in run.log


def test_the_lobby_offers_the_folders_packs_that_read_with_their_counts(tmp_path):
    """A bad pack in the folder is left out (the box plays on with the others); the row shows each
    pack's name and says how many questions it has; Start with a pack of 3 asks 3 questions."""
    shutil.copy(PACK, tmp_path / "pub-night.csv")
    write(tmp_path, "broken.csv", "question,answer\nA?,\n")
    SHELF.use(tmp_path)
    try:
        quiz = get("quiz")
        lobby = Lobby([quiz], 3)
        [(name, values, _)] = [row for row in quiz.lobby_options(3) if row[0] == "pack"]
        assert values == (None, str((tmp_path / "pub-night.csv").resolve()))
        assert SHELF.brief(values[1]) == "3 questions" and SHELF.brief(None) == "host reads from paper"
        from companion.games.options import show_value
        assert show_value(quiz.Options, "pack", values[1]) == "pub-night"
        assert quiz.lobby_start({"pack": values[1], "questions": 10})["questions"] == 3
        assert quiz.lobby_start({"pack": None, "questions": 10})["questions"] == 10
        assert lobby._rows()[0][0] == "pack"
    finally:
        SHELF.use(None)
    assert all(row[0] != "pack" for row in get("quiz").lobby_options(3))  # no packs: the lobby of today


def test_a_pack_questions_points_and_time_stand_for_the_options():
    quiz = get("quiz")
    match = Match(quiz, quiz.Options(), ("Host", "Ana", "Ben"))
    match.act({"action": "arm", "ask": {"question": "Q?", "answer": "A", "points": 5, "time_s": 7}})
    match.act({"action": "buzz", "player": 1, "order": [1]})
    assert {"action": "timeout"} in quiz.legal_actions(match.state)  # the question's own timer
    match.act({"action": "right"})
    assert match.state.scores == (0, 5, 0)
    match.act({"action": "arm"})  # a question read from paper: the options' point, no timer
    match.act({"action": "buzz", "player": 2, "order": [2]})
    assert {"action": "timeout"} not in quiz.legal_actions(match.state)
    match.act({"action": "right"})
    assert match.state.scores == (0, 5, 1)
    with pytest.raises(IllegalAction, match="'ask': the answer is empty"):
        match.act({"action": "arm", "ask": {"question": "Q?", "answer": ""}})


def test_a_night_whose_pack_is_gone_replays_from_its_journal_and_resumes_without_it(tmp_path):
    """The arm lines carry the questions asked: with the pack deleted, replay tells the night, and
    the resumed night plays on, its host told the pack cannot be read (questions from paper)."""
    pack = tmp_path / "pub-night.csv"
    shutil.copy(PACK, pack)
    journals = tmp_path / "games"
    run = run_box(PROFILES / "mock-3.toml", SCRIPT, journals, "--game", "quiz", "--option", f"quiz.pack={pack}")
    assert run.code == 0, run.log
    pack.unlink()
    path = journal_of(journals, "quiz")
    replayed = cli("replay", "--explain", str(path))
    assert replayed.code == 0 and "What is the capital of Australia?" in replayed.out, replayed.out
    run = run_box(PROFILES / "mock-3.toml", "0.5 1 ok\n1.5 1 slap\n2.0 3 slap\n2.5 1 ok\n", journals, "--game", "quiz")
    assert run.code == 0 and "the quiz plays without its pack" in run.log, run.log
    arms = [line for line in lines_of(path) if line.get("action") == "arm"]
    assert [a.get("ask", {}).get("answer") for a in arms] == ["Canberra", "Eight", None]
    story = cli("replay", str(path))
    assert "The night's story:" in story.out and "1. Ben 3 points: 2 right, 0 wrong" in story.out, story.out


def test_the_nights_story_counts_right_wrong_fastest_and_the_closest_races():
    """Four races: a tie 4 us apart, a race won by 12 ms, one by 80 ms, a lone press; the closest
    three are told closest first, the tie with its own margin."""
    from companion.record.quiz_night import night_story, story_lines

    quiz = get("quiz")
    match = Match(quiz, quiz.Options(questions=4), ("Host", "Ana", "Ben", "Cy"))
    races = []
    for q, (action, reactions, judged) in enumerate([
        ({"players": [1, 2], "order": [1, 2]}, [None, 300.0, 300.004, None], [("pick", 2), ("right",)]),
        ({"player": 3, "order": [3, 1]}, [None, 262.0, None, 250.0], [("wrong",), ("right",)]),
        ({"player": 1, "order": [1, 2]}, [None, 410.0, 490.0, None], [("right",)]),
        ({"player": 2, "order": [2]}, [None, None, 199.5, None], [("wrong",)]),
    ], start=1):
        match.act({"action": "arm"})
        buzz = {"action": "buzz", **action}
        match.act(buzz)
        races.append((q, {**buzz, "reaction_ms": reactions}))
        for step in judged:
            match.act({"action": step[0], **({"target": step[1]} if len(step) > 1 else {})})
        if match.state.phase == "reopen":
            match.act({"action": "skip"})
    story = night_story(match.state, races)
    nights = {p.seat: (p.points, p.right, p.wrong, p.fastest_ms) for p in story.players}
    assert nights == {1: (2, 2, 0, 262.0), 2: (1, 1, 1, 199.5), 3: (0, 0, 1, 250.0)}
    assert [(r.question, r.tie) for r in story.closest] == [(1, True), (2, False), (3, False)]
    lines = story_lines(story, match.players)
    assert lines[0] == "1. Ana 2 points: 2 right, 0 wrong, fastest buzz 262 ms"
    assert lines[-3:] == ["Closest: Q1: Ana and Ben tied, 4 us apart", "Closest: Q2: Cy first, Ana 12 ms later",
                          "Closest: Q3: Ana first, Ben 80 ms later"]


def test_the_tv_shows_the_category_and_once_read_the_question_never_the_answer(tmp_path):
    from companion.table import Table
    from companion.tablescreen.public import public_view

    from helpers import tap
    from tablescreen_tour import start

    SHELF.use(None, (str(PACK),))
    try:
        for shown in (False, True):
            table = Table(("Host", "Ana", "Ben"), seed=1,
                          defaults={"quiz": {"pack": str(PACK), "tv_question": shown}})
            t_ms = start(table, "quiz", 0)
            view = public_view(table)
            assert view.turn == "Next: question 1 of 3, Geography"
            assert "Australia" not in repr(view) and "Canberra" not in repr(view)
            host = table.game.view(0)
            assert host.heading == "Read Q1 Geography" and "Australia?" in " ".join(host.lines)
            tap(table, 0, "slap", t_ms + 100)  # the host has read it: armed
            table.tick(round((t_ms + 200) * 1e6), round((t_ms + 150) * 1e6))
            view = public_view(table)
            assert view.turn == "Question 1 of 3, Geography"
            assert (view.lines[:1] == ("What is the capital of Australia?",)) is shown
            assert "Canberra" not in repr(view) and "Sydney" not in repr(view)
            tap(table, 1, "slap", t_ms + 300)
            table.tick(round((t_ms + 600) * 1e6), round((t_ms + 550) * 1e6))
            assert table.game.state.answering == 1
            assert table.game.view(0).lines[0] == "A: Canberra"  # the host's panel, while Ana answers
            assert "Canberra" not in repr(public_view(table)) and "Canberra" not in repr(table.game.view(1))
    finally:
        SHELF.use(None)
