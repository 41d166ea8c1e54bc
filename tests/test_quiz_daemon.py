"""A quiz night end to end on gpiozero's mock pins, on a fake clock: a host and four players on
the real daemon step (debounce, watermark, race, table, luma dummy displays), through early
presses, a three-way tie, who's next and a re-open, an answer timeout, a score correction, a
crash mid-question and its resume; then a second quiz with teams and prelock. The journal and the
panels show what happened."""

from __future__ import annotations

import asyncio
from pathlib import Path

import gpiozero.pins.mock

from companion.daemon import Daemon
from companion.games import get
from companion.games.options import lobby_choices
from companion.profile import load_profile
from companion.record.history import read_history
from companion.record.journal import replay, summary
from companion.script import ScriptPress as P
from companion.tablescreen.public import quiz_view

from helpers import FakeClock, journal_objects, play_on_fake_clock

ROOT = Path(__file__).parent.parent
PROFILE = ROOT / "hardware" / "profiles" / "mock-5.toml"
HOST, BEN, CY, DEE, EVE = range(5)


def lobby_to_quiz(daemon) -> list[P]:
    """Station 1 walks the lobby to the quiz, through its options (as ``defaults`` set them),
    starts it, and with nobody joined on "Who plays?" seats every station: station 1 hosts."""
    steps = [g.name for g in daemon.table.lobby.games].index("quiz")
    rows = len(lobby_choices(get("quiz").Options))
    keys = ["right"] * steps + ["ok"] + ["ok"] * rows + ["ok", "ok"]
    return [P(0.2 * (i + 1), 0, key) for i, key in enumerate(keys)]


class Night:
    """A daemon on mock-5 with a fake clock, its journal directory, and every panel's views."""

    def __init__(self, directory: Path, monkeypatch, options: dict, clock: FakeClock | None = None) -> None:
        self.clock = clock or FakeClock()
        monkeypatch.setattr(gpiozero.pins.mock, "monotonic", self.clock.monotonic)
        self.directory = directory
        self.daemon = Daemon(load_profile(PROFILE), directory, seed=7, defaults={"quiz": options})
        self.seen: list[tuple[int, str]] = []
        """(station, the lit line of its panel) at every step, each change once."""
        step = self.daemon.step

        def watched(now_ns: int) -> None:
            step(now_ns)
            game = self.game
            if game is not None and game.game == "quiz":
                for station in range(5):
                    seen = (station, game.view(station).big)
                    if seen not in self.seen:
                        self.seen.append(seen)

        self.daemon.step = watched

    def play(self, presses: list[P], tail_s: float = 0.2) -> None:
        asyncio.run(play_on_fake_clock(self.daemon, presses, self.clock, tail_s=tail_s))

    @property
    def game(self):
        return self.daemon.table.game

    def journal(self) -> list[dict]:
        [path] = self.directory.glob("*.jsonl")
        return journal_objects(path)[1:]


def test_a_quiz_night_with_early_presses_a_tie_whos_next_a_timeout_a_correction_and_a_resume(tmp_path, monkeypatch):
    night = Night(tmp_path, monkeypatch, {"questions": 4, "penalty": 1, "answer_s": 5})
    night.play(lobby_to_quiz(night.daemon))
    assert night.game.names == ("Host", "Ben", "Cy", "Dee", "Eve")

    # Q1: Ben presses while the question is read, 100 ms before the host arms, and again 100 ms
    # after: still in his 250 ms lockout, which his second press starts again. Cy's press counts.
    night.play([P(0.0, BEN, "slap"), P(0.1, HOST, "slap"), P(0.2, BEN, "slap"), P(0.3, CY, "slap")])
    assert night.game.state.answering == CY
    assert (BEN, "Too early! wait") in night.seen and night.game.lights() == {CY: "on"}
    night.play([P(0.1, HOST, "ok")])                                  # right: Cy +1

    # Q2: Ben, Dee and Eve press at the same edge time: a declared three-way tie the host settles.
    night.play([P(0.1, HOST, "slap"), P(0.3, BEN, "slap"), P(0.3, DEE, "slap"), P(0.3, EVE, "slap")])
    assert night.game.state.tied == (BEN, DEE, EVE)
    assert night.game.lights() == dict.fromkeys((BEN, DEE, EVE), "blink")
    night.play([P(0.1, HOST, "right"), P(0.3, HOST, "ok")])           # the host picks Dee
    assert night.game.state.answering == DEE
    # Dee wrong: who's next in press order is Ben; Ben wrong, then Eve; Eve wrong: the buzzers
    # re-open for Cy alone, who answers right.
    night.play([P(0.1, HOST, "left")])
    assert night.game.state.answering == BEN
    night.play([P(0.1, HOST, "left"), P(0.3, HOST, "left")])
    assert night.game.state.phase == "reopen"
    night.play([P(0.1, HOST, "slap"), P(0.4, CY, "slap"), P(0.6, HOST, "ok")])

    # Q3: Ben answers and the 5 s timer runs out: wrong (-1). Nobody else: the host skips.
    night.play([P(0.1, HOST, "slap"), P(0.3, BEN, "slap")], tail_s=5.5)
    assert night.game.state.phase == "reopen"
    night.play([P(0.1, HOST, "right")])

    # The host corrects Eve's score from -1 to 0: ok, right x3 to Eve, ok, right (+1), ok.
    night.play([P(0.1 + 0.2 * i, HOST, k) for i, k in enumerate(["ok", "right", "right", "right", "ok", "right", "ok", "slap"])])
    assert night.game.state.scores == (0, -2, 2, -1, 0)

    # Q4: the host arms, and the box stops before anyone buzzes.
    night.play([P(0.1, HOST, "slap")])
    assert night.game.state.phase == "open"
    night.daemon.close()

    again = Night(tmp_path, monkeypatch, {}, night.clock)
    again.play([P(0.1, HOST, "ok")])                                  # resume
    assert again.game.state.phase == "open" and again.game.state.question == 4
    again.play([P(0.2, EVE, "slap"), P(0.5, HOST, "ok")])
    again.daemon.close()

    lines = again.journal()
    kinds = [line.get("action", line.get("event")) for line in lines]
    assert kinds == ["arm", "buzz", "right", "arm", "buzz", "pick", "wrong", "wrong", "wrong", "arm", "buzz",
                     "right", "arm", "buzz", "timeout", "skip", "correct", "arm", "buzz", "right"]
    tie = lines[4]
    assert tie["players"] == [BEN, DEE, EVE] and tie["order"] == [BEN, DEE, EVE]
    assert tie["reaction_ms"][BEN] == tie["reaction_ms"][DEE] == tie["reaction_ms"][EVE]
    assert lines[1]["order"] == [CY] and lines[1]["reaction_ms"][BEN] is None   # Ben was locked out
    result = summary(*replay((tmp_path / next(tmp_path.glob("*.jsonl")).name).read_text().splitlines()))
    assert result["scores"] == [0, -2, 2, -1, 1] and result["winners"] == [CY]

    # companion history: the players' reaction times from every buzz; the host played no game.
    players = read_history(tmp_path).players()
    assert "Host" not in players or not players["Host"].games
    assert players["Cy"].games["Quiz"].won == 1 and players["Ben"].games["Quiz"].points == [-2]
    assert [round(r.ms) for r in players["Ben"].reactions] == [200, 200]        # Q1: locked out


def test_teams_prelock_and_a_drawn_tie(tmp_path, monkeypatch):
    """Teams of two (Ben & Cy, Dee & Eve): one press per team counts; an early press under
    prelock keeps its player out of the whole question; a tie is drawn from the seed."""
    night = Night(tmp_path, monkeypatch, {"questions": 2, "teams": 2, "early": "prelock", "tie": "draw"})
    night.play(lobby_to_quiz(night.daemon))

    # Q1: Dee presses while the question is read: prelocked, her later press does not count.
    # Ben, then his team mate Cy, press: Cy's press is shown, not counted. Eve presses after
    # the verdict.
    night.play([P(0.0, DEE, "slap"), P(0.2, HOST, "slap"), P(0.4, BEN, "slap"), P(0.42, CY, "slap"),
                P(0.43, DEE, "slap"), P(0.45, EVE, "slap")])
    assert night.game.state.order == (BEN,) and night.game.state.answering == BEN
    assert [(seat, note) for seat, _, note in night.game.presses()] == [(BEN, ""), (CY, "team"), (EVE, "")]
    assert (DEE, "Too early: out") in night.seen
    # Ben wrong: his team is out; Eve pressed after the verdict, so she is next (``later``).
    night.play([P(0.1, HOST, "left")])
    assert night.game.state.answering == EVE and night.journal()[-1]["later"] == [EVE]
    assert (CY, "Team out") in night.seen
    night.play([P(0.1, HOST, "ok")])

    # Q2: Cy and Dee at the same edge time: a tie between the teams, drawn from the seed.
    night.play([P(0.1, HOST, "slap"), P(0.3, CY, "slap"), P(0.3, DEE, "slap")])
    drawn = night.game.state.answering
    assert drawn in (CY, DEE) and night.game.state.phase == "answering"
    night.play([P(0.1, HOST, "ok")])
    night.daemon.close()

    lines = night.journal()
    assert [line.get("action", line.get("event")) for line in lines] == [
        "early", "arm", "buzz", "wrong", "right", "arm", "buzz", "tiebreak", "right"]
    assert lines[0]["player"] == DEE                                  # Dee's prelock is journaled
    assert lines[6]["players"] == [CY, DEE] and lines[7]["player"] == drawn
    result = summary(*replay(next(tmp_path.glob("*.jsonl")).read_text().splitlines()))
    scores = [0, 0, 0, 0, 1]
    scores[drawn] += 1
    assert result["scores"] == scores
    assert result["winners"] == ([DEE, EVE] if drawn == DEE else [BEN, CY, DEE, EVE])


def test_a_prelock_outlives_a_crash_mid_question_and_clears_at_the_next(tmp_path, monkeypatch):
    """Ben presses while question 1 is read (prelock): out of it. The box stops with the buzzers
    armed; the resumed question still keeps him out, as the uninterrupted one would have."""
    options = {"questions": 2, "early": "prelock", "after_wrong": "reopen"}
    night = Night(tmp_path / "box", monkeypatch, options)
    night.play(lobby_to_quiz(night.daemon))
    night.play([P(0.0, BEN, "slap"), P(0.2, HOST, "slap")])
    before = night.game.state
    assert before.phase == "open" and before.prelocked == (BEN,)
    assert night.game.view(BEN).big == "Too early: out" and night.game.lights() == {BEN: "blink"}
    night.daemon.close()
    assert [line["action"] for line in night.journal()] == ["early", "arm"]
    assert replay(next((tmp_path / "box").glob("*.jsonl")).read_text().splitlines())[1].state == before

    again = Night(tmp_path / "box", monkeypatch, {}, night.clock)
    again.play([P(0.1, HOST, "ok")])                                  # resume
    assert again.game.state == before
    assert again.game.view(BEN).big == "Too early: out" and again.game.lights() == {BEN: "blink"}
    assert "Ben: locked till next" in quiz_view(again.game).lines              # the table screen
    assert again.game.waiting_on(BEN) == "" and again.game.waiting_on(CY) == "RACE!"
    # Ben's buzz is refused; Cy's counts. Cy is wrong, and the re-open still leaves Ben out.
    again.play([P(0.2, BEN, "slap"), P(0.4, CY, "slap")])
    assert again.game.state.answering == CY and again.game.state.order == (CY,)
    again.play([P(0.1, HOST, "left"), P(0.3, HOST, "slap"), P(0.5, BEN, "slap"), P(0.6, DEE, "slap")])
    assert again.game.state.answering == DEE
    again.play([P(0.1, HOST, "ok")])                                  # right: question 2
    # Question 2: Ben may buzz again.
    again.play([P(0.1, HOST, "slap"), P(0.3, BEN, "slap")])
    assert again.game.state.prelocked == () and again.game.state.answering == BEN
    assert again.game.view(BEN).big.startswith("YOU ANSWER")
    again.play([P(0.1, HOST, "ok")])
    again.daemon.close()
    kinds = [line["action"] for line in again.journal()]
    assert kinds == ["early", "arm", "buzz", "wrong", "arm", "buzz", "right", "arm", "buzz", "right"]

    # The same presses with no crash: the same journal actions and the same end.
    whole = Night(tmp_path / "whole", monkeypatch, options)
    whole.play(lobby_to_quiz(whole.daemon))
    for presses in ([P(0.0, BEN, "slap"), P(0.2, HOST, "slap")], [P(0.2, BEN, "slap"), P(0.4, CY, "slap")],
                    [P(0.1, HOST, "left"), P(0.3, HOST, "slap"), P(0.5, BEN, "slap"), P(0.6, DEE, "slap")],
                    [P(0.1, HOST, "ok")], [P(0.1, HOST, "slap"), P(0.3, BEN, "slap")], [P(0.1, HOST, "ok")]):
        whole.play(presses)
    whole.daemon.close()
    assert [line["action"] for line in whole.journal()] == kinds
    assert [{k: v for k, v in line.items() if k in ("action", "player", "order")} for line in whole.journal()] == \
        [{k: v for k, v in line.items() if k in ("action", "player", "order")} for line in again.journal()]
    assert whole.game.state == again.game.state and whole.game.state.scores == (0, 1, 0, 1, 0)


def test_run_game_quiz_starts_the_lobby_on_the_quiz_and_plays_its_script(tmp_path, capsys):
    from companion.cli import main

    assert main(["run", "--profile", str(PROFILE), "--game", "quiz", "--script",
                 str(Path(__file__).parent / "scripts" / "quiz.txt"), "--journal-dir", str(tmp_path)]) == 0
    [journal] = tmp_path.glob("*quiz.jsonl")
    lines = journal_objects(journal)[1:]
    assert [line["action"] for line in lines] == ["arm", "buzz", "right"]
    assert lines[1]["player"] == DEE and summary(*replay(journal.read_text().splitlines()))["scores"] == [0, 0, 0, 1, 0]
    assert main(["run", "--profile", str(PROFILE), "--game", "chess", "--journal-dir", str(tmp_path)]) == 2
    assert "--game chess: the lobby of this box offers" in capsys.readouterr().err
