"""A late press is not only a log line: the journal keeps it, the commands tell it, the screens
note it, and the verdict already shown stands.

End to end on gpiozero's mock pins on a fake clock (:func:`test_delivery.first_round`): one
station's presses reach the daemon later than the race waits for, as a Pi too busy for its
``timing.gpio_latency_ms`` would deliver them.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import gpiozero.pins.mock
import pytest

from companion.cli import main
from companion.daemon import Daemon
from companion.arbiter.inputs import InputEvent
from companion.record.journal import JournalError, replay
from companion.profile import load_profile
from companion.arbiter.race import LatePress, Race, watching_late_presses
from companion.record.recovery import find_interrupted
from companion.script import ScriptPress
from companion.table.closest import ANSWER_KEYS
from companion.tablescreen.public import public_view
from companion.tablescreen.painter import ALERT
from companion.tablescreen.render import render
from glyphs import shows
from helpers import FakeClock, journal_objects, play_on_fake_clock
from test_closest_daemon import CY, lobby_to_closest
from test_delivery import ANA, BEN, PROFILE, deliver_late, first_round

MS = 1_000_000
LATE_TIE = {"type": "late", "player": BEN, "press": "press", "behind_ms": -5.0, "verdict": [ANA],
            "would_be": [ANA, BEN], "delay_ms": 55.0}
"""Ben's slap, 5 ms before Ana's winning one, delivered 55 ms after its edge: a tie by edge time."""


@pytest.fixture
def late_tie(tmp_path, monkeypatch) -> tuple[Daemon, Path]:
    """Triangle's first round: Ana slaps 0.4 s after 0, Ben 5 ms before her, but his slap reaches
    the box 55 ms after its edge, after the race (tie window 10 ms + 30 ms bound) was decided."""
    daemon = first_round(tmp_path, monkeypatch, 0.055, 0.400, 0.450)
    [journal] = (tmp_path / "games").glob("*.jsonl")
    return daemon, journal


def test_the_late_press_is_journaled_after_the_verdict_it_would_have_changed(late_tie):
    daemon, journal = late_tie
    lines = journal_objects(journal)  # every line sealed with its crc, the late one too
    claim = next(i for i, line in enumerate(lines) if line.get("action") == "claim")
    assert lines[claim]["player"] == ANA  # the verdict stands
    late = [line for line in lines if line.get("type") == "late"]
    assert [{k: v for k, v in line.items() if k != "t"} for line in late] == [LATE_TIE]
    assert lines.index(late[0]) == claim + 1
    assert late[0]["t"] >= lines[claim]["t"]
    assert daemon.table.game.match.state.current.claimer == ANA


def test_a_journal_with_a_late_line_replays_and_resumes_as_without_it(late_tie, tmp_path):
    _, journal = late_tie
    text = journal.read_bytes().splitlines()
    without = [line for line in text if b'"type": "late"' not in line]
    assert len(without) == len(text) - 1
    _, with_late = replay(text)
    _, plain = replay(without)
    assert with_late.state == plain.state
    interrupted = find_interrupted(journal.parent)
    assert interrupted is not None and interrupted.match.state == plain.state
    interrupted.writer.close()


def test_companion_replay_tells_the_late_press_after_the_reaction_times(late_tie, capsys):
    _, journal = late_tie
    assert main(["replay", str(journal)]) == 0
    out = capsys.readouterr().out.splitlines()
    reactions = out.index("Reaction times, each from the player's own screen:")
    late = out.index("Late presses: the box decided before they arrived, and the verdict stood:")
    assert late == reactions + 2  # one race
    assert out[late + 1].endswith(" s Ben's press 5.0 ms before the winning one reached the box 55.0 ms after "
                                  "it was made, once the race was decided: with it the verdict would have been "
                                  "a tie of Ana and Ben, not Ana")


def test_companion_replay_json_gives_the_race_and_the_late_press_as_history_does(late_tie, capsys):
    """The race's times and the late press, players by index as in the journal; the late press
    with the fields and the time ``companion history --json`` gives it, players there by name."""
    _, journal = late_tie
    lines = journal_objects(journal)
    claim = next(line for line in lines if line.get("action") == "claim")
    late = next(line for line in lines if line.get("type") == "late")
    assert main(["replay", "--json", str(journal)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["races"] == [{"t": claim["t"], "action": "claim", "winners": [ANA],
                                "onset_ms": [0.0, 0.0, 0.0], "reaction_ms": [400.0, None, None]}]
    assert result["late_presses"] == [{"t": late["t"], "player": BEN, "press": "press", "behind_ms": -5.0,
                                       "delay_ms": 55.0, "verdict": [ANA], "would_be": [ANA, BEN]}]
    assert main(["history", "--dir", str(journal.parent), "--json"]) == 0
    [named] = json.loads(capsys.readouterr().out)["late_presses"][journal.name]
    names = ("Ana", "Ben", "Cy")
    [indexed] = result["late_presses"]
    assert named == {**indexed, "player": names[indexed["player"]], "verdict": [names[p] for p in indexed["verdict"]],
                     "would_be": [names[p] for p in indexed["would_be"]]}


def test_companion_replay_explain_tells_the_late_line(late_tie, capsys):
    _, journal = late_tie
    assert main(["replay", "--explain", str(journal)]) == 0
    told = [line for line in capsys.readouterr().out.splitlines() if "late press" in line]
    assert len(told) == 1 and told[0].startswith("line 4: A late press: Ben (seat 2)'s press 5.0 ms before")
    assert told[0].endswith("a tie of Ana (seat 1) and Ben (seat 2), not Ana (seat 1).")


def test_companion_games_counts_the_late_presses_with_their_delay(late_tie, capsys):
    _, journal = late_tie
    assert main(["games", "--journal-dir", str(journal.parent)]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith(journal.name) and line.endswith("not finished (offered on start)  1 late press (55.0 ms late)")


def test_companion_history_lists_each_game_with_late_presses(late_tie, capsys):
    _, journal = late_tie
    assert main(["history", "--dir", str(journal.parent)]) == 0
    out = capsys.readouterr().out.splitlines()
    at = out.index("Late presses (the box decided before they arrived; the verdict stood):")
    assert out[at + 1] == f"  {journal.name}  Triangle: 1 late press (55.0 ms late)"
    assert out[at + 2].endswith(" s Ben: a tie of Ana and Ben instead of Ana")
    assert main(["history", "--dir", str(journal.parent), "--json"]) == 0
    [note] = json.loads(capsys.readouterr().out)["late_presses"][journal.name]
    assert {k: v for k, v in note.items() if k != "t"} == {
        "player": "Ben", "press": "press", "behind_ms": -5.0, "delay_ms": 55.0, "verdict": ["Ana"],
        "would_be": ["Ana", "Ben"]}


def test_every_player_sees_a_short_note_while_the_verdict_shows(late_tie):
    """The claim stands (Ana's fact menu, "Ana speaks" on the others); the status line, where who
    else slapped is said, says what the late press would have made it."""
    daemon, _ = late_tie
    for station in range(3):
        assert shows(daemon.table.screen(station), "Late: tie Ana&Ben")
    assert shows(daemon.table.screen(BEN), "Ana speaks")


def test_the_table_screen_shows_the_note_as_the_panels_do(late_tie, tmp_path):
    """The TV under its heading (Ana speaks, the race's timeline below), in red as a notice."""
    daemon, _ = late_tie
    view = public_view(daemon.table)
    assert (view.heading, view.late) == ("Ana speaks", "Late: tie Ana&Ben")
    assert [(r.name, r.delta_ms, r.note) for r in view.race] == [("Ben", -5.0, "late"), ("Ana", 0.0, "first")]
    drawn: list[str] = []
    image = render(view, (1280, 720), drawn)
    image.save(tmp_path / "late-note.png")
    assert "Late: tie Ana&Ben" in drawn and "Ben -5 ms late" in drawn
    assert ALERT in {c for _, c in image.getcolors(1 << 16)}


def test_without_a_late_press_no_note_and_no_late_line(tmp_path, monkeypatch):
    daemon = first_round(tmp_path, monkeypatch, 0.029, 0.400, 0.405)
    [journal] = (tmp_path / "games").glob("*.jsonl")
    assert not [line for line in journal_objects(journal) if line.get("type") == "late"]
    assert not any(shows(daemon.table.screen(s), "Late") for s in range(3))
    view = public_view(daemon.table)
    assert view.late == "" and ALERT not in {c for _, c in render(view, (1280, 720)).getcolors(1 << 16)}


def test_a_late_wrong_answer_in_the_closest_start_race_is_journaled_and_noted(tmp_path, monkeypatch):
    """Cy presses a wrong answer 10 ms before the right one (``left`` here, which the verdict
    waits for, 80 ms at most: it may be half of a chord), but the wrong one reaches the box 200 ms
    after its edge, once Cy has won: knocked out by it, nobody would have won yet."""
    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    daemon = Daemon(load_profile(PROFILE), tmp_path, seed=1)

    async def game():
        await play_on_fake_clock(daemon, lobby_to_closest(daemon), clock, tail_s=0.1)
        table = daemon.table.game
        right = ANSWER_KEYS[table.answers.index(17 * 34)]
        wrong = next(key for key in ANSWER_KEYS if key != right)
        assert right == "left"
        deliver_late(monkeypatch, CY, wrong, 0.2)
        await play_on_fake_clock(daemon, [ScriptPress(0.5, CY, right), ScriptPress(0.69, CY, wrong)], clock,
                                 tail_s=0.1)

    try:
        asyncio.run(game())
    finally:
        daemon.close()
    [journal] = tmp_path.glob("*.jsonl")
    lines = journal_objects(journal)
    start = next(i for i, line in enumerate(lines) if line.get("action") == "start")
    assert lines[start]["player"] == CY
    late = lines[start + 1]
    assert {k: late[k] for k in ("type", "player", "press", "verdict", "would_be", "delay_ms")} == {
        "type": "late", "player": CY, "press": "wrong", "verdict": [CY], "would_be": [], "delay_ms": 200.0}
    assert daemon.delivery.late_presses == 1
    assert daemon.table.game.state.starter == CY  # the verdict stands
    assert shows(daemon.table.screen(ANA), "Late press: no winner")


def test_a_late_false_start_that_would_have_locked_the_winner_out_is_reported():
    """With a 250 ms lockout, Ben's slap 100 ms before 0 (arriving after the race) would have
    voided his winning slap at 50 ms: Ana's, at 70 ms, would have won."""
    race = Race(1000 * MS, 10 * MS, range(3), lockout_ns=250 * MS)
    race.press(InputEvent(BEN, "slap", True, 1050 * MS))
    race.press(InputEvent(ANA, "slap", True, 1070 * MS))
    assert race.decide(2000 * MS).winners == {BEN}
    seen: list[LatePress] = []
    with watching_late_presses(seen.append):
        assert race.press(InputEvent(BEN, "slap", True, 900 * MS)) == "false_start"
    assert seen == [LatePress(BEN, 900 * MS, -150 * MS, frozenset({BEN}), "false_start", frozenset({ANA}))]
    assert race.decide(2000 * MS).winners == {BEN}


def test_a_late_false_start_without_a_lockout_changes_nothing_and_is_not_reported():
    race = Race(1000 * MS, 10 * MS, range(3))
    race.press(InputEvent(BEN, "slap", True, 1050 * MS))
    race.decide(2000 * MS)
    seen: list[LatePress] = []
    with watching_late_presses(seen.append):
        race.press(InputEvent(BEN, "slap", True, 900 * MS))
        race.press(InputEvent(ANA, "slap", True, 950 * MS))
    assert seen == []


@pytest.mark.parametrize("wrong_ms, would_be", [(40, {ANA}), (60, None)])
def test_a_late_wrong_answer_is_reported_only_if_it_came_before_the_winners_right_one(wrong_ms, would_be):
    """Ben answered right at 50 ms, Ana at 70 ms: Ben's wrong answer at 40 ms would have knocked
    him out and given Ana the race; one at 60 ms, after his right answer, changes nothing."""
    race = Race(0, 10 * MS, range(3), key="ok", revealed=False)
    race.press(InputEvent(BEN, "ok", True, 50 * MS))
    race.press(InputEvent(ANA, "ok", True, 70 * MS))
    assert race.decide(1000 * MS).winners == {BEN}
    seen: list[LatePress] = []
    with watching_late_presses(seen.append):
        assert race.knock_out(BEN, wrong_ms * MS) == "ignored"
    assert seen == ([] if would_be is None else
                    [LatePress(BEN, wrong_ms * MS, (wrong_ms - 50) * MS, frozenset({BEN}), "wrong",
                               frozenset(would_be))])


HEADER = {"format": "companion-journal/1", "game": "triangle", "players": ["Ana", "Ben", "Cy"], "seed": 3}


@pytest.mark.parametrize("field, value, reason", [
    ("player", 3, "player must be a player index (0 to 2) in a late line"),
    ("press", "slap", "press must be one of press, false_start, wrong in a late line"),
    ("would_be", [1, 1], "would_be must list different player indices in a late line"),
    ("delay_ms", -1, "delay_ms must be a number of milliseconds (0 or more) or null in a late line"),
    ("cause", "gpio", "unknown field 'cause' in a late line (it has player, press, behind_ms, verdict, "
                      "would_be, delay_ms)"),
])
def test_a_bad_late_line_is_an_error_naming_the_field(field, value, reason):
    late = {**LATE_TIE, field: value}
    with pytest.raises(JournalError) as e:
        replay([json.dumps(HEADER), json.dumps(late)])
    assert str(e.value) == f"line 2: {reason}"
