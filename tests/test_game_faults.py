"""One game's fault never takes the box down, through the real box process: a double that raises
put in the game's handling of a press (``tests/faulty_box.py``), or in its replay or its table as a
journal is resumed. The game is set aside with its journal intact (``companion replay`` reads it),
every screen says so in a sentence, the log has the traceback, the lobby comes back and the next
game plays; a scripted run ends non-zero, never hangs, and no start crashes on that journal again."""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

from asplayed import DEMO, journal_of, lines_of, read_back, run_box
from companion.record.shelf import POSTPONED
from companion.screens.table import fault_screen
from companion.table import Table
from companion.tablescreen.public import public_view

PAY_TO_PLAY = DEMO / "profile.toml"
FAULTY = [sys.executable, str(Path(__file__).parent / "faulty_box.py")]
ALICE_MARKS_THE_CENTRE = "".join((DEMO / "paytoplay.txt").read_text().splitlines(keepends=True)[:19])
A_NEW_GAME = "".join(f"{6.0 + 0.4 * n:.1f} 1 ok\n" for n in range(7))
"""After the fault: a press takes the sentence away, ok picks Pay-to-Play, its four options, Start."""
KEPT = "Pay-to-Play hit a fault and is kept as game 1"


def faulty(target: str, *key: str) -> list[str]:
    """The command line with ``target`` raising (for an input of ``key`` only, if given)."""
    return FAULTY + [target, *key, "--"]


def shows(snapshots: Path, sentence: str) -> bool:
    """True if every station's last screen is the set-aside screen saying ``sentence``."""
    drawn = fault_screen(sentence).convert("1").tobytes()
    return all(Image.open(path).convert("1").tobytes() == drawn for path in snapshots.glob("station-*.png"))


def test_a_fault_while_a_game_is_played_sets_it_aside_and_the_next_game_plays(tmp_path):
    journals = tmp_path / "games"
    script = ALICE_MARKS_THE_CENTRE + "5.2 1 slap\n" + A_NEW_GAME + "9.0 1 ok\n"
    run = run_box(PAY_TO_PLAY, script, journals, "--speed", "2",
                  python=faulty("companion.table.paytoplay:PayToPlayTable.on_input", "slap"))
    assert run.code == 1 and "hit a fault and were set aside" in run.log
    assert "Traceback" in run.log and "PutInFault" in run.log and KEPT in run.log
    first, second = sorted(journals.glob("*.jsonl"), key=lambda p: lines_of(p)[0]["sequence"])
    assert (journals / POSTPONED).read_text().strip() == first.name
    assert [(line["action"], line["cell"]) for line in lines_of(first)[1:]] == [("play", 4)]
    result = read_back(first)
    assert result["detail"]["board"] == "....X...." and "not finished" in result["games"]
    assert [(line["action"], line["player"]) for line in lines_of(second)[1:]] == [("play", 0)]

    # The next start offers the newest game, the one played after the fault: Bob plays on.
    assert run_box(PAY_TO_PLAY, "0.5 1 ok\n1.5 2 ok\n", journals).code == 0
    assert [line["player"] for line in lines_of(second)[1:] if line.get("auto") is not True] == [0, 1]
    read_back(second)


def test_every_station_and_the_table_screen_say_where_the_game_is_kept(tmp_path):
    journals = tmp_path / "games"
    run = run_box(PAY_TO_PLAY, ALICE_MARKS_THE_CENTRE + "5.2 1 slap\n", journals, "--speed", "2",
                  "--snapshots", str(tmp_path / "screens"),
                  python=faulty("companion.table.paytoplay:PayToPlayTable.on_input", "slap"))
    assert run.code == 1
    assert shows(tmp_path / "screens", KEPT)
    table = Table(("Alice", "Bob"))
    table.fault_notice = KEPT
    assert public_view(table).heading == KEPT


def test_a_journal_whose_resume_fails_is_set_aside_and_offered_again_later(tmp_path):
    journals = tmp_path / "games"
    assert run_box(PAY_TO_PLAY, ALICE_MARKS_THE_CENTRE, journals, "--speed", "2").code == 0
    path = journal_of(journals, "paytoplay")

    # The game's rules fail on its journal as the box starts: set aside, and the lobby comes.
    run = run_box(PAY_TO_PLAY, "", journals, "--snapshots", str(tmp_path / "screens"),
                  python=faulty("companion.games.paytoplay:PayToPlay.apply"))
    assert run.code == 1 and "Traceback" in run.log and "as it was replayed" in run.log
    assert shows(tmp_path / "screens", KEPT)
    assert (journals / POSTPONED).read_text().strip() == path.name

    # Offered again; its table fails as the players resume it: set aside again, never a crash.
    run = run_box(PAY_TO_PLAY, "0.5 1 ok\n1.0 1 ok\n", journals,
                  python=faulty("companion.table.paytoplay:PayToPlayTable.__init__"))
    assert run.code == 1 and "as it was resumed" in run.log and KEPT in run.log
    assert len(lines_of(path)) == 2

    # A box without the fault resumes it: Bob plays on.
    assert run_box(PAY_TO_PLAY, "0.5 1 ok\n1.5 2 ok\n", journals).code == 0
    assert [line["player"] for line in lines_of(path)[1:] if line.get("auto") is not True] == [0, 1]
    read_back(path)


def test_a_game_whose_screen_fails_to_draw_is_set_aside_too(tmp_path):
    journals = tmp_path / "games"
    lobby_to_start = "".join(f"{0.4 * n:.1f} 1 ok\n" for n in range(1, 7))
    run = run_box(PAY_TO_PLAY, lobby_to_start, journals, "--speed", "2", "--snapshots", str(tmp_path / "screens"),
                  python=faulty("companion.table.paytoplay:PayToPlayTable.screen"))
    assert run.code == 1 and "Traceback" in run.log
    assert shows(tmp_path / "screens", KEPT)
    assert read_back(journal_of(journals, "paytoplay"))["detail"]["board"] == "........."


def test_a_game_whose_lights_fail_is_set_aside_with_every_light_off(monkeypatch):
    from companion.table.paytoplay import PayToPlayTable
    from helpers import Clock, pick, tap

    table, clock = Table(("Alice", "Bob")), Clock()
    pick(table, clock, "paytoplay")
    for _ in range(5):  # the four options as they are, Start
        tap(table, 0, "ok", clock.next())
    assert table.game is not None

    def failing(self):
        raise RuntimeError("a light that fails")

    monkeypatch.setattr(PayToPlayTable, "lights", failing)
    assert table.lights() == ("off", "off")
    assert table.game is None and table.faults == 1
    assert table.fault_notice == "Pay-to-Play hit a fault and was stopped"  # no journal: nothing kept


def test_a_game_whose_table_screen_view_fails_is_set_aside(tmp_path, monkeypatch):
    """The TV's view of the game fails to be made: the game is set aside, and the TV says so."""
    import asyncio
    from dataclasses import replace

    import gpiozero.pins.mock

    from companion.daemon import Daemon
    from companion.profile import TableScreenProfile, load_profile
    from companion.script import ScriptPress
    from companion.tablescreen import public
    from helpers import FakeClock, play_on_fake_clock

    def failing(game):
        raise RuntimeError("a view that fails")

    monkeypatch.setitem(public.VIEWS, "paytoplay", failing)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # the TV's pygame display, off any screen
    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    profile = replace(load_profile(DEMO / "profile.toml"), table_screen=TableScreenProfile(True, 640, 360, False))
    daemon = Daemon(profile, tmp_path / "games", seed=3)
    try:
        presses = [ScriptPress(0.2 * (i + 1), 0, "ok") for i in range(6)]  # Pay-to-Play, options, Start
        asyncio.run(play_on_fake_clock(daemon, presses, clock))
        assert daemon.table.game is None and daemon.table.faults == 1
        assert daemon._view.heading == KEPT and daemon.box.table_screen.flush()
    finally:
        daemon.close()


def test_a_fault_outside_any_game_ends_a_scripted_run_with_its_traceback(tmp_path):
    """The lobby's own fault is the box's: the run ends at once, non-zero, with the traceback;
    before, the script went on pressing keys a loop that was gone never took, and hung."""
    run = run_box(PAY_TO_PLAY, "0.4 1 ok\n0.8 1 ok\n1.2 1 ok\n", tmp_path / "games",
                  python=faulty("companion.table.lobby:Lobby.handle", "ok"))
    assert run.code == 1 and "Traceback" in run.log and "PutInFault" in run.log


def test_the_sentence_says_where_the_game_is_kept_or_that_it_is_not():
    from companion.table.faults import fault_sentence

    assert fault_sentence("Quiz", 12) == "Quiz hit a fault and is kept as game 12"
    assert fault_sentence("Quiz", None) == "Quiz hit a fault and is kept"  # a journal without a number
    assert fault_sentence("Quiz", 12, kept=False) == "Quiz hit a fault and was stopped"  # not saved
