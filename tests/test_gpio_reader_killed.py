"""A GPIO reader killed mid-game, in a real box process with its real reader process: every
screen says so until the reader is back, and the time its buttons could not be read is on the
game's record (journal, ``companion replay``), never silently missing from it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from companion.adapters.gpiolink import NOT_RESPONDING
from companion.arbiter.race import Race
from helpers import MS, until, while_running
from storage import DEMO_PROFILE, DEMO_SCRIPT, ROOT, BoxProcess, demo_taps
from test_gpio_reader import DecisionProbe, reader_daemon


def reader_profile(tmp_path: Path) -> Path:
    """The demo box with its buttons read by the GPIO reader process (mock pins in it)."""
    path = tmp_path / "reader.toml"
    path.write_text(DEMO_PROFILE.read_text() + '\n[timing]\ngpio_watermark = "reader"\n')
    return path


def reader_pid(box: BoxProcess) -> int:
    """The box's one child process: its GPIO reader."""
    children = {int(pid) for task in Path(f"/proc/{box.proc.pid}/task").iterdir()
                for pid in (task / "children").read_text().split()}
    [pid] = children
    return pid


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_killed_reader_is_told_on_every_screen_and_its_blind_time_is_on_the_record(tmp_path):
    games = tmp_path / "games"
    box = BoxProcess(games, profile=reader_profile(tmp_path))
    try:
        taps = demo_taps()
        for station, key in taps[:8]:  # the lobby, the game on, a move or two
            box.tap(station, key)
        first = reader_pid(box)
        os.kill(first, signal.SIGKILL)
        assert box.until_notice(lambda text: text != "-") == NOT_RESPONDING
        box.tap(1, "ok")  # a press while nobody reads the buttons: it cannot be read
        box.until_notice(lambda text: text == "-")  # told until the reader is back
        assert reader_pid(box) != first
        box.until_logged("GPIO buttons were not read for")
        for station, key in taps[8:12]:
            box.tap(station, key)
    finally:
        assert box.close() == 0
    [journal] = games.glob("*.jsonl")
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    [unread] = [line for line in lines if line.get("type") == "unread"]
    assert unread["source"] == "gpio" and unread["for_s"] > 0
    replayed = cli("replay", str(journal), "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert [u["source"] for u in json.loads(replayed.stdout)["unread"]] == ["gpio"]
    told = cli("replay", str(journal), "--explain")
    assert told.returncode == 0, told.stderr
    assert "the GPIO buttons were not read for" in told.stdout
    assert "a press made then is missing from the game" in told.stdout
    again = BoxProcess(games)  # the game, unread line and all, is offered again and resumes
    try:
        assert again.logged("found paytoplay not over")
        again.tap(1, "ok")
        again.until_logged("resumed by the players")
    finally:
        assert again.close() == 0


def test_a_race_waits_for_the_watermark_of_a_killed_readers_successor(tmp_path):
    """A race opened (on the board) while the GPIO reader is dead is decided only once the reader
    started again has reported: a GPIO player's press is not ruled out by a reader's death."""
    daemon = reader_daemon(tmp_path)
    daemon.box.gpio_reader.retry_s = 0.05
    seen = {}

    def decided(now_ns):
        seen["reading"], seen["notice"] = daemon.gpio_session.reading, daemon.notice

    async def scenario():
        await until(lambda: daemon.board_session.clock.synced and daemon.gpio_session.reading
                    and "gpio" in daemon.watermarks)
        probe = daemon.table = DecisionProbe(Race(time.monotonic_ns(), tie_window_ns=5 * MS, stations=range(2)),
                                             decided)
        first = daemon.box.gpio_reader.pid
        os.kill(first, signal.SIGKILL)
        await until(lambda: daemon.notice == NOT_RESPONDING)
        daemon.box.virtual_board.press(0)  # station 2 slaps on the board: the race opens
        await until(lambda: probe.result is not None)
        assert daemon.box.gpio_reader.pid != first
        return probe

    probe = while_running(daemon, scenario)
    assert seen["reading"], "decided only once the reader started again had reported"
    assert probe.result.winners == {1}
    assert daemon.gpio_session.downs == 1


def test_a_script_pressed_through_the_reader_loses_no_press_made_while_it_starts(tmp_path):
    """``companion run --script`` on a box whose buttons the reader process reads: the script's
    first presses come 0.4 s after the start, before a reader (a Python process) is up on a busy
    machine; they wait for it instead of being driven on pins nobody reads."""
    games = tmp_path / "games"
    run = cli("run", "--profile", str(reader_profile(tmp_path)), "--script", str(DEMO_SCRIPT), "--speed", "4",
              "--journal-dir", str(games))
    assert run.returncode == 0, run.stderr
    [journal] = games.glob("*.jsonl")
    replayed = cli("replay", str(journal), "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["over"], "every press of the game taken: it was played to its end"
