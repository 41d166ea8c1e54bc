"""The quiz's words on every screen agree with one another and with docs/QUIZ.md, and are true:
a tie is a tie on the panels and the TV alike, a timed-out answer says so, the host's keys and
title, a team's score read as the team's, who is out only while the question lasts, teams that
the players seated cannot fill, and "a host and 2 to 16" wherever the players are counted."""

from __future__ import annotations

from pathlib import Path

from companion.arbiter.inputs import InputEvent
from companion.cli import main
from companion.games import all_games, get
from companion.record.journal import replay
from companion.table import Table
from companion.table.lobby import Lobby
from companion.table.quiz import QuizTable
from companion.tablescreen.public import quiz_view

from glyphs import shows
from helpers import Clock, journal_objects, pick, tap

ROOT = Path(__file__).parent.parent
PROFILE = ROOT / "hardware" / "profiles" / "mock-5.toml"
TIMEOUT = Path(__file__).parent / "scripts" / "quiz-timeout.txt"
MS = 1_000_000
NAMES = ("Host", "Ana", "Ben", "Cy", "Dee", "Eve")


def quiz(**options) -> QuizTable:
    rules = get("quiz")
    return QuizTable(rules, rules.checked_options(len(NAMES), options), NAMES, len(NAMES), 1, None, 0)


def press(table, station, key, t_ms):
    table.handle(InputEvent(station, key, True, round(t_ms * MS)))
    table.handle(InputEvent(station, key, False, round((t_ms + 40) * MS)))
    table.tick(round((t_ms + 41) * MS), round((t_ms + 41) * MS))


def test_a_tie_reads_the_same_on_the_panels_and_the_tv_after_the_draw_too():
    """Cy, then Eve 57 us later: inside the tie window, a tie, shown with its margin and never as
    "first" (nor as "+0 ms" on the TV), before the host picks and after."""
    table = quiz()
    press(table, 0, "slap", 100)
    for station, ms in ((3, 300), (5, 300.057)):
        table.handle(InputEvent(station, "slap", True, round(ms * MS)))
    table.tick(400 * MS, 400 * MS)
    for picked in (False, True):  # the tie, then Cy picked to answer
        assert table.state.answering == (3 if picked else None)
        assert shows(table.screen(1), "Cy tie  Eve +57us tie")
        assert [(r.name, r.delta_ms, r.note) for r in quiz_view(table).race] == [
            ("Cy", 0.0, "tie"), ("Eve", 0.057, "tie")]
        press(table, 0, "ok", 500)


def test_a_timed_out_answer_says_time_up_and_the_host_may_correct_or_skip():
    table = quiz(answer_s=5, after_wrong="reopen")
    press(table, 0, "slap", 100)
    press(table, 2, "slap", 300)
    table.tick(6000 * MS, 6000 * MS)
    assert table.state.phase == "reopen" and table.state.timed_out
    assert shows(table.screen(1), "Time up! Re-open?") and shows(table.screen(2), "Out: time up")
    host = table.screen(0)
    assert shows(host, "Q1 Time up! Re-open?") and shows(host, "slap:open ok:correct") and shows(host, "right: skip question")
    press(table, 0, "slap", 6500)  # re-opened: Cy buzzes, answers wrong, not out of time
    press(table, 3, "slap", 6700)
    press(table, 0, "left", 7000)
    assert not table.state.timed_out and shows(table.screen(1), "Wrong! Re-open?") and shows(table.screen(3), "Out: wrong")


def test_the_host_is_told_to_read_the_first_question_and_ok_corrects_scores():
    host = quiz().screen(0)
    assert shows(host, "Read Q1, then arm") and shows(host, "slap:arm ok:correct")
    assert not shows(host, "Host reads")


def test_a_team_player_reads_the_teams_score_and_out_only_while_the_question_lasts():
    """Ana, Ben and Cy, then Dee and Eve (two teams of five): Ana answers wrong, her team is out;
    the host re-opens and Dee is right. After the question, nobody is told they are out."""
    table = quiz(teams=2)
    press(table, 0, "slap", 100)
    press(table, 1, "slap", 300)
    press(table, 0, "left", 600)
    assert shows(table.screen(2), "Team out") and shows(table.screen(1), "Out: wrong")
    press(table, 0, "slap", 650)
    press(table, 4, "slap", 700)
    press(table, 0, "ok", 900)
    assert table.state.phase == "ready" and table.state.scores == (0, 0, 0, 0, 1, 0)
    for station in (1, 2):
        assert not shows(table.screen(station), "Team out") and not shows(table.screen(station), "Out: wrong")
        assert shows(table.screen(station), "Dee was right!")
    assert shows(table.screen(2), "T1: 0 rank 2 you 0") and shows(table.screen(5), "T2: 1 rank 1 you 0")
    assert [s for s in quiz_view(table).scores] == [0, 1]  # the TV's Team 1 and Team 2, the same


def test_teams_the_seated_players_cannot_fill_are_not_carried_over():
    """Four teams last time; three players now (and a host): the lobby offers no more teams than
    players less one, and starts from no teams rather than one-player teams."""
    rules = get("quiz")
    assert [v for name, v, _ in rules.lobby_options(4) if name == "teams"] == [(None, 2)]
    assert [v for name, v, _ in rules.lobby_options(17) if name == "teams"] == [(None, 2, 3, 4)]
    lobby = Lobby(all_games(), 4)
    lobby.played["quiz"] = {"teams": 4}
    lobby.index = [g.name for g in lobby.games].index("quiz")
    lobby.handle(InputEvent(0, "ok", True, 0))
    assert lobby.values["teams"] is None


def test_the_lobby_and_who_plays_count_a_host_and_2_to_16():
    table = Table(tuple(f"P{i}" for i in range(17)), None, seed=1)
    clock = Clock()
    while table.lobby.game.name != "quiz":
        tap(table, 0, "right", clock.next())
    assert shows(table.screen(0), "host + 2-16") and not shows(table.screen(0), "3-17")
    pick(table, clock, "quiz")
    assert shows(table.screen(0), "Who plays? 0 of 2-16") and shows(table.screen(0), "Quiz: a host and 2-16")
    for station in (1, 2):
        tap(table, station, "slap", clock.next())
    assert shows(table.screen(0), "Who plays? 1 of 2-16")  # one of the two who joined hosts
    small = Table(("Host", "Ana", "Ben"), None, seed=1)
    while small.lobby.game.name != "quiz":
        tap(small, 0, "right", clock.next())
    assert shows(small.screen(0), "host + 2")


def test_the_box_plays_a_team_question_out_of_time_and_replay_reads_it(tmp_path):
    """As played: the box runs the script (the answer timer runs on its clock), every panel says
    the time ran out; played on past the question (the host skips it), nobody is told they are
    out and each team player reads the team's score. The journal replays to the same."""
    options = ["--option", "quiz.teams=2", "--option", "quiz.answer_s=5", "--option", "quiz.after_wrong=reopen"]
    run = ["run", "--profile", str(PROFILE), "--game", "quiz", *options]
    assert main(run + ["--script", str(TIMEOUT), "--journal-dir", str(tmp_path / "a"),
                       "--snapshots", str(tmp_path / "a")]) == 0
    from PIL import Image

    shot = {n: Image.open(tmp_path / "a" / f"station-{n}.png") for n in range(1, 6)}
    assert shows(shot[1], "Q1 Time up! Re-open?") and shows(shot[1], "slap:open ok:correct")
    assert shows(shot[2], "Time up! Re-open?") and shows(shot[4], "Out: time up") and shows(shot[5], "Team out")
    assert shows(shot[2], "T1: 0 rank 1 you 0")
    [journal] = (tmp_path / "a").glob("*.jsonl")
    assert [line.get("action") for line in journal_objects(journal)[1:]] == ["arm", "buzz", "timeout"]
    assert replay(journal.read_text().splitlines())[1].state.timed_out
    assert main(["replay", str(journal)]) == 0

    skipped = tmp_path / "skipped.txt"
    skipped.write_text(TIMEOUT.read_text() + "12.5  1 right\n13.0  5 left\n")  # the host skips the question
    assert main(run + ["--script", str(skipped), "--journal-dir", str(tmp_path / "b"), "--snapshots", str(tmp_path / "b")]) == 0
    shot = {n: Image.open(tmp_path / "b" / f"station-{n}.png") for n in range(1, 6)}
    for n in (4, 5):
        assert shows(shot[n], "Nobody got it") and not shows(shot[n], "Team out") and not shows(shot[n], "Out: time up")
    [journal] = (tmp_path / "b").glob("*.jsonl")
    assert [line.get("action") for line in journal_objects(journal)[1:]] == ["arm", "buzz", "timeout", "skip"]
    assert main(["replay", str(journal)]) == 0
