"""Never lose a game: resume after a crash at any point, torn lines, abandoned and old games."""

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.daemon import Daemon, journal_opener
from companion.inputs import InputEvent
from companion.journal import replay
from companion.profile import load_profile
from companion.recovery import ABANDONED, abandon, cut_torn_line, find_interrupted, rotate
from companion.table import Table

from glyphs import shows
from helpers import MS

ROOT = Path(__file__).parent.parent
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"


def play_random_game(directory: Path, seed: int):
    """A Pay-to-Play tournament of random presses on a fake clock. Returns the journal and, for
    every input that changed the game, (journal lines so far, state after it)."""
    rnd = random.Random(seed)
    table = Table(("Ana", "Ben"), journal_opener(directory), seed=seed)  # two stations: Pay-to-Play
    t = 0

    def tap(station, key):
        nonlocal t
        t += 30 * MS
        table.handle(InputEvent(station, key, True, t))
        table.handle(InputEvent(station, key, False, t + 10 * MS))

    tap(0, "ok")
    tap(0, "ok")
    for _ in range(3):
        tap(0, "right")      # games: 1 -> 2 -> 4 -> 6
    for _ in range(4):
        tap(0, "ok")
    assert table.game is not None
    path = table.game.journal.path
    snapshots = []
    while table.game.match.outcome is None:
        tap(rnd.choice((0, 1)), rnd.choice(("left", "right", "right", "ok", "ok", "slap")))
        lines = len(path.read_text().splitlines())
        if not snapshots or snapshots[-1][0] != lines:
            snapshots.append((lines, table.game.match.state))
    return path, snapshots


def test_resume_at_fifty_random_points_equals_the_uninterrupted_game(tmp_path):
    path, snapshots = play_random_game(tmp_path / "live", seed=11)
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) > 60
    rnd = random.Random(12)
    cuts = rnd.sample(range(2, len(lines) - 1), 50)
    for n, cut in enumerate(cuts):
        directory = tmp_path / f"cut{n}"
        directory.mkdir()
        torn = lines[cut][: rnd.randrange(1, len(lines[cut]) - 1)] if n % 2 else b""
        (directory / path.name).write_bytes(b"".join(lines[:cut]) + torn)
        interrupted = find_interrupted(directory)
        assert interrupted is not None
        expected = next(state for count, state in snapshots if count >= cut)
        assert interrupted.match.state == expected, f"cut after line {cut}"
        interrupted.writer.close()
        assert (directory / path.name).read_bytes() == b"".join(lines[:cut])  # torn part gone


def test_a_torn_last_line_is_dropped_and_a_whole_one_kept(tmp_path):
    journal = tmp_path / "g.jsonl"
    journal.write_bytes(b'{"a": 1}\n{"b": 2')
    assert cut_torn_line(journal)
    assert journal.read_bytes() == b'{"a": 1}\n'
    assert not cut_torn_line(journal)
    assert journal.read_bytes() == b'{"a": 1}\n'


def test_finished_abandoned_and_broken_games_are_not_resumed(tmp_path, caplog):
    seed_game = (ROOT / "tests" / "journals" / "paytoplay-seed.jsonl").read_text()
    (tmp_path / "20260101-000000-paytoplay.jsonl").write_text(seed_game)
    assert find_interrupted(tmp_path) is None                       # over
    unfinished = "\n".join(seed_game.splitlines()[:4]) + "\n"
    path = tmp_path / "20260101-000001-paytoplay.jsonl"
    path.write_text(unfinished)
    found = find_interrupted(tmp_path)
    assert found is not None and found.path == path
    found.writer.close()
    abandon(path)
    assert (tmp_path / f"20260101-000001-paytoplay{ABANDONED}").exists()
    assert find_interrupted(tmp_path) is None                       # abandoned
    (tmp_path / "20260101-000002-paytoplay.jsonl").write_text(unfinished + '{"type": "action"}\n')
    assert find_interrupted(tmp_path) is None                       # broken: logged, not fatal
    assert "cannot be resumed: line 5" in caplog.text


def test_rotation_keeps_the_newest_journals(tmp_path):
    for i in range(7):
        (tmp_path / f"2026010{i}-000000-paytoplay.jsonl").write_text("{}\n")
    removed = rotate(tmp_path, keep=3)
    assert [p.name[:8] for p in removed] == ["20260100", "20260101", "20260102", "20260103"]
    assert sorted(p.name[:8] for p in tmp_path.iterdir()) == ["20260104", "20260105", "20260106"]


def test_the_daemon_resumes_and_shows_it(tmp_path):
    seed_game = (ROOT / "tests" / "journals" / "paytoplay-seed.jsonl").read_text().splitlines()
    path = tmp_path / "20260101-000000-paytoplay.jsonl"
    path.write_text("\n".join(seed_game[:6]) + "\n")
    expected = replay(seed_game[:6])[1].state
    daemon = Daemon(load_profile(MOCK3), tmp_path)
    try:
        assert daemon.table.game is None                             # asked first, on every station
        assert all(shows(daemon.table.screen(s), "ok: resume") for s in range(3))
        daemon.table.handle(InputEvent(2, "ok", True, 5 * MS))
        game = daemon.table.game
        assert game is not None and game.match.state == expected
        image = daemon.table.screen(0)
        band = image.crop((30, 50, 98, 63))
        assert sum(band.histogram()[1:]) > 200                       # the RESUMED banner
        daemon.table.tick(daemon.table.resumed_until_ns, 0)
        assert daemon.table.resumed_until_ns is None
    finally:
        daemon.close()
    before = len(path.read_text().splitlines())
    assert before == 6


def test_left_at_the_offer_starts_afresh_and_the_old_game_is_marked_abandoned(tmp_path):
    seed_game = (ROOT / "tests" / "journals" / "paytoplay-seed.jsonl").read_text().splitlines()
    path = tmp_path / "20260101-000000-paytoplay.jsonl"
    path.write_text("\n".join(seed_game[:6]) + "\n")
    daemon = Daemon(load_profile(MOCK3), tmp_path)
    try:
        daemon.table.handle(InputEvent(0, "right", True, 5 * MS))   # no answer: still asked
        assert daemon.table.offer is not None
        daemon.table.handle(InputEvent(0, "left", True, 9 * MS))
        assert daemon.table.game is None and daemon.table.offer is None
        assert daemon.table.screen(1).tobytes() == daemon.table.lobby.screen().tobytes()
        assert [p.name for p in tmp_path.iterdir()] == [f"20260101-000000-paytoplay{ABANDONED}"]
    finally:
        daemon.close()


def test_kill_9_mid_game_loses_no_applied_action(tmp_path):
    """A real process killed at random moments: each journal is a prefix of the full game's,
    and a restarted daemon resumes exactly that."""
    script = (ROOT / "companion" / "demo" / "paytoplay.txt").read_text()
    profile = ROOT / "companion" / "demo" / "profile.toml"

    def run(directory, kill_after=None):
        command = [sys.executable, "-m", "companion", "run", "--profile", str(profile), "--script",
                   str(tmp_path / "s.txt"), "--journal-dir", str(directory), "--speed", "6", "--seed", "1"]
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if kill_after is None:
            proc.wait(timeout=60)
        else:
            time.sleep(kill_after)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        [journal] = list(directory.glob("*.jsonl"))
        return journal

    (tmp_path / "s.txt").write_text(script)
    strip = lambda text: [{k: v for k, v in json.loads(x).items() if k != "t"} for x in text.splitlines()]
    full = strip(run(tmp_path / "full").read_text())
    rnd = random.Random(4)
    for n in range(4):
        journal = run(tmp_path / f"kill{n}", kill_after=rnd.uniform(0.9, 2.6))
        cut_torn_line(journal)
        killed = strip(journal.read_text())
        assert killed == full[: len(killed)]
        resumed = find_interrupted(journal.parent)
        if len(killed) < len(full):
            assert resumed.match.state == replay(journal.read_text().splitlines())[1].state
            resumed.writer.close()


def test_games_lists_past_games_newest_first(tmp_path, capsys):
    from companion.cli import main

    seed_game = (ROOT / "tests" / "journals" / "paytoplay-seed.jsonl").read_text()
    (tmp_path / "20260101-000000-paytoplay.jsonl").write_text(seed_game)
    (tmp_path / f"20260102-000000-paytoplay{ABANDONED}").write_text("\n".join(seed_game.splitlines()[:3]) + "\n")
    (tmp_path / "20260103-000000-paytoplay.jsonl").write_text("\n".join(seed_game.splitlines()[:3]) + "\n")
    assert main(["games", "--journal-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == [
        "20260103-000000-paytoplay.jsonl", f"20260102-000000-paytoplay{ABANDONED}",
        "20260101-000000-paytoplay.jsonl"]
    assert out[0].endswith("not finished (offered on start)")
    assert out[1].endswith("abandoned")
    assert out[2].endswith("scores [1, 0]  won by Alice")


@pytest.mark.parametrize("content, reason", [
    (b"", "line 1: the journal is empty"),
    (b"\x00\xff garbage \x13\n", "line 1: not UTF-8 text"),
    (b"not json at all\n", "line 1: not a JSON object"),
    (b'{"format": "companion-journal/1", "game": "chess", "players": ["A", "B"]}\n', "unknown game 'chess'"),
])
def test_unusable_journals_are_reported_and_skipped(tmp_path, caplog, content, reason):
    (tmp_path / "20260101-000000-x.jsonl").write_bytes(content)
    assert find_interrupted(tmp_path) is None
    assert "20260101-000000-x.jsonl cannot be resumed" in caplog.text
    assert reason in caplog.text


def test_a_resumed_game_keeps_its_seats_and_the_other_stations_watch(tmp_path):
    """A Pictionary game seated at stations 2, 3 and 4 of a four-station box comes back there."""
    lines = (ROOT / "tests" / "journals" / "trio-seed-example.jsonl").read_text().splitlines()
    header = json.loads(lines[0]) | {"stations": [2, 3, 4]}
    path = tmp_path / "20260101-000000-trio.jsonl"
    path.write_text("\n".join([json.dumps(header)] + lines[1:3]) + "\n")
    daemon = Daemon(load_profile(ROOT / "hardware" / "profiles" / "mock-4.toml"), tmp_path)
    try:
        table = daemon.table
        assert all(shows(table.screen(s), "Three-player") for s in range(4))
        table.handle(InputEvent(0, "ok", True, 5 * MS))
        assert table.seats == (1, 2, 3) and table.seat_of(0) is None
        assert shows(table.screen(0), "Watching")
        artist, word = table.game.match.state.artist, table.game.match.state.word
        assert [shows(table.screen(s), word) for s in range(4)] == [s == artist + 1 for s in range(4)]
    finally:
        daemon.close()
