"""The monkey's oracle (:mod:`tests.monkey_oracle`): a rules fault the box and its replay share
is caught by the games' invariants checked at every line, and the monkey saves the journal.

The journal is a quiz night played through the real box process with ``early = prelock``: Ben
presses while the question is read (out of it), the host arms, Cy buzzes and is right. The fault
planted is the one the monkey missed a round ago: a prelocked player allowed into the race. It is
planted twice over, as a wrong rule is on a real box: in the rules the replay uses (the race's
verdict takes a prelocked player) and in the journal (a copy whose buzz line has Ben first).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

import tests.monkey
from asplayed import PROFILES, cli, journal_of, lines_of, run_box
from companion.games.quiz import Quiz
from companion.record.crc import sealed
from tests.monkey import Failure, Night, Table, save
from tests.monkey_oracle import check_file

MOCK3 = PROFILES / "mock-3.toml"
QUIZ_LOBBY = "".join(f"{0.2 * n:.1f} 1 ok\n" for n in range(1, 14))
"""On three stations: ok picks the quiz, ok seats every station, the options as they are, Start."""
BEN_EARLY_CY_RIGHT = QUIZ_LOBBY + "3.2 2 slap\n3.8 1 slap\n4.4 3 slap\n4.9 1 ok\n"


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Path:
    """The quiz night's journal, as the box wrote it."""
    journals = tmp_path_factory.mktemp("night") / "games"
    run = run_box(MOCK3, BEN_EARLY_CY_RIGHT, journals, "--game", "quiz", "--option", "quiz.early=prelock")
    assert run.code == 0 and "Traceback" not in run.log, run.log
    path = journal_of(journals, "quiz")
    told = [(line["action"], line.get("player"), line.get("order")) for line in lines_of(path)[1:]]
    assert told == [("early", 1, None), ("arm", None, None), ("buzz", 2, [2]), ("right", None, None)]
    return path


def planted(night: Path, into: Path) -> Path:
    """A copy of the night whose race went to Ben, who had pressed too early: ``order`` [1, 2]."""
    lines = night.read_text().splitlines()
    buzz = json.loads(lines[3])
    lines[3] = sealed({**buzz, "player": 1, "order": [1, 2]})
    into.mkdir(parents=True, exist_ok=True)
    path = into / night.name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def prelocked_may_buzz(monkeypatch):
    """The wrong rule: a race's verdict may name a player who pressed too early."""
    real = Quiz._buzz

    def buzz(self, state, action):
        return replace(real(self, replace(state, prelocked=()), action), prelocked=state.prelocked)

    monkeypatch.setattr(Quiz, "_buzz", buzz)


def test_a_night_played_by_the_rules_breaks_none(night):
    broken, checked = check_file(night)
    assert broken is None and checked == 5


def test_a_replay_with_the_wrong_rule_reads_the_fault_and_the_oracle_names_its_line(night, tmp_path,
                                                                                     prelocked_may_buzz):
    path = planted(night, tmp_path)
    replayed = cli("replay", "--json", str(path))  # what the monkey checked until now: it reads
    assert replayed.code == 0, replayed.log
    assert json.loads(replayed.out)["scores"] == [0, 1, 0]  # Ben scored for a question he was out of
    broken, _ = check_file(path)
    assert (broken.line, broken.action) == (4, "buzz")
    assert broken.rule == "a player who pressed too early is in no race"


def test_without_the_wrong_rule_the_replay_refuses_the_planted_line(night, tmp_path):
    """The journal's fault alone is the replay's to find (``unreadable``), not the oracle's."""
    path = planted(night, tmp_path)
    replayed = cli("replay", "--json", str(path))
    assert replayed.code == 2 and "line 4" in replayed.log, replayed.log
    assert check_file(path) == (None, 3)


def test_the_monkey_reports_a_rules_fault_and_saves_the_journal(night, tmp_path, monkeypatch, prelocked_may_buzz):
    """The monkey's shelf check, its replays running the same wrong rule (in this process, as a
    box and its replay share their rules): only the oracle fails it, and the case is saved with
    the journal as the oracle found it."""
    def companion(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        done = cli(*args)
        return subprocess.CompletedProcess(args, done.code, done.out, done.log)

    monkeypatch.setattr(tests.monkey, "companion", companion)
    case = Night("planted", "quiz", MOCK3.read_text(), [], ["quiz.early=prelock"])
    (tmp_path / "night").mkdir()
    table = Table(case, tmp_path / "night")
    path = planted(night, table.journals)
    failures = table._check_shelf(0)
    assert [(f.kind, f.detail) for f in failures] == [
        ("rules", f"{path.name}: line 4 (buzz): a player who pressed too early is in no race")]
    assert table.figures["journals_checked"] == 1 and table.figures["lines_checked"] == 4

    saved = save(case, failures, tmp_path / "failures")
    told = json.loads(saved.read_text())["failures"]
    assert told == [{"kind": "rules", "life": 0, "detail": failures[0].detail, "journal": "quiz-planted-life1.jsonl"}]
    assert (saved.parent / "quiz-planted-life1.jsonl").read_bytes() == path.read_bytes()
    assert isinstance(failures[0], Failure)
