"""Never lose a game: resume after a crash at any point, torn lines, abandoned and old games."""

import json
import os
import random
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.daemon import Daemon, journal_opener
from companion.arbiter.inputs import InputEvent
from companion.record.journal import replay
from companion.profile import load_profile
from companion.record.recovery import ABANDONED, abandon, cut_torn_line, find_interrupted, rotate
from companion.table import Table

from glyphs import shows
from helpers import MS, Clock, journaled_table, pick, tap

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
        journals_left = [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")]  # not the notes
        assert journals_left == [f"20260101-000000-paytoplay{ABANDONED}"]
    finally:
        daemon.close()


KILLPOINT = ROOT / "tests" / "killpoint.py"
KILL_TIMEOUT_S = 60
"""How long a box process may take to reach its kill point (a second when the machine is idle)."""


def triangle_script(path: Path) -> Path:
    """The lobby walked to Triangle, then tests/scripts/triangle.txt: two races, a claim, a fact."""
    from dataclasses import replace
    from types import SimpleNamespace

    from companion.script import load_script
    from test_triangle_daemon import lobby_to_triangle

    lobby = lobby_to_triangle(SimpleNamespace(table=Table(("Ana", "Ben", "Cy"), None)))
    game = [replace(p, at_s=lobby[-1].at_s + p.at_s) for p in load_script(ROOT / "tests" / "scripts" / "triangle.txt", 3)]
    path.write_text("".join(f"{p.at_s:.3f} {p.station + 1} {p.key} {p.hold_s}\n" for p in lobby + game))
    return path


def box_process(directory: Path, profile: Path, script: Path, seed: int, *point: str) -> tuple[Path, str]:
    """Run tests/killpoint.py: to the end, or to ``point`` (LINES [EDGES [torn]]) and kill -9 it
    there. Returns the journal and what the process said it was doing when killed."""
    command = [sys.executable, str(KILLPOINT), str(profile), str(script), str(directory), str(seed), *point]
    proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], KILL_TIMEOUT_S)
        said = proc.stdout.readline().strip() if ready else "(nothing in time)"
        if point:
            assert said.startswith("FROZEN "), f"kill point {point}: the box said {said!r}"
            proc.send_signal(signal.SIGKILL)
        else:
            assert said == "DONE", said
        proc.wait(timeout=KILL_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    [journal] = list(directory.glob("*.jsonl"))
    return journal, said


@pytest.mark.parametrize("game, points", [
    # Pay-to-Play: after every line (the last one ends the game), mid-menu (Alice's cursor
    # moved, her cell not confirmed; Bob's likewise) and torn mid-write.
    ("paytoplay", [(k,) for k in range(1, 15)] + [(1, 2), (4, 4), (3, "0", "torn"), (9, "0", "torn")]),
    # Triangle: after every line (the claim leaves Ben in the fact menu), and mid-race: a slap
    # in, the race undecided (round 1 after Cy's false start and Ana's slap, round 2 after Ben's).
    ("triangle", [(k,) for k in range(1, 7)] + [(2, 3), (2, 5), (4, 1)]),
])
def test_kill_9_mid_game_loses_no_applied_action(tmp_path, game, points):
    """A real box process killed with SIGKILL at points chosen by journal progress: what is on
    disk is a prefix of the uninterrupted game's journal, holding every line written before the
    kill, and the game resumes exactly where that prefix left it."""
    if game == "paytoplay":
        profile, script, seed = ROOT / "companion" / "demo" / "profile.toml", ROOT / "companion" / "demo" / "paytoplay.txt", 1
    else:
        profile, script, seed = MOCK3, triangle_script(tmp_path / "triangle.txt"), 8
    strip = lambda lines: [{k: v for k, v in json.loads(x).items() if k != "t"} for x in lines]
    journal, _ = box_process(tmp_path / "full", profile, script, seed)
    full = journal.read_text().splitlines()
    racing = 0
    for n, point in enumerate(points):
        lines, *rest = point
        journal, said = box_process(tmp_path / f"kill{n}", profile, script, seed, *map(str, point))
        torn = rest[-1:] == ["torn"]
        assert cut_torn_line(journal) == torn, point
        on_disk = journal.read_text().splitlines()
        assert strip(on_disk) == strip(full[:len(on_disk)]), point
        assert len(on_disk) == (lines - 1 if torn else lines) == int(said.split()[1]), point
        racing += said.endswith(" race")
        resumed = find_interrupted(journal.parent)
        expected = replay(full[:len(on_disk)])[1]
        if expected.outcome is not None:
            assert resumed is None, "a finished game is not resumed"
        else:
            assert resumed.match.state == expected.state, point
            resumed.writer.close()
    assert racing == (3 if game == "triangle" else 0)


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
    assert out[2].endswith("Alice 1, Bob 0 (balances)  won by Alice")


@pytest.mark.parametrize("content, reason", [
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
        if not table.game.artist_told:  # the new artist sees how the last round ended first
            table.handle(InputEvent(artist + 1, "ok", True, 6 * MS))
        assert [shows(table.screen(s), word) for s in range(4)] == [s == artist + 1 for s in range(4)]
    finally:
        daemon.close()


def test_one_flipped_bit_in_the_last_line_resumes_from_the_line_before_and_says_so(tmp_path, caplog):
    """A sealed journal whose last line fails its crc (one bit flipped on the card): the game goes
    on from the lines before it, the log and the screens say so, the file is cut to them."""
    table, paths = journaled_table(tmp_path, ("Ana", "Ben"), seed=3)
    clock = Clock()
    pick(table, clock, "paytoplay")
    for _ in range(4):
        tap(table, 0, "ok", clock.next())
    for station in (0, 1, 0, 1):  # moves: each player takes the cell the cursor offers
        tap(table, station, "ok", clock.next())
    table.game.journal.close()
    data = paths[0].read_bytes()
    lines = data.splitlines(keepends=True)
    assert len(lines) >= 4 and table.game.match.outcome is None
    flipped = bytearray(lines[-1])
    digit = next(i for i, c in enumerate(flipped) if chr(c).isdigit())
    flipped[digit] ^= 0x01  # still JSON, a number changed: only its crc tells
    paths[0].write_bytes(b"".join(lines[:-1]) + bytes(flipped))
    daemon = Daemon(load_profile(ROOT / "companion" / "demo" / "profile.toml"), tmp_path)
    try:
        offered = daemon.table.offer
        assert offered is not None, "offered, not refused"
        assert offered.match.state == replay(lines[:-1])[1].state
        assert daemon.notice == "LAST LINE DAMAGED"
        assert f"its last line (line {len(lines)}) is damaged (the line does not match its \"crc\"" in caplog.text
        assert paths[0].read_bytes() == b"".join(lines[:-1])
    finally:
        daemon.close()


def test_a_header_torn_at_game_start_is_removed_and_its_game_number_never_given_again(tmp_path, caplog):
    from companion.record.journal import Header
    from companion.record.recovery import pick_up, sequence

    opener = journal_opener(tmp_path)
    header = Header("paytoplay", ("Ana", "Ben"), {}, 1)
    for _ in range(2):
        opener(header).close()
    torn = opener(header)  # game 3: the power goes as its header is written
    torn.close()
    assert sequence(torn.path) == 3
    os.truncate(torn.path, torn.path.stat().st_size // 2)
    found = pick_up(tmp_path)
    assert not torn.path.exists() and "removed: its header was cut short" in caplog.text
    assert found.header.sequence == 2
    found.writer.close()
    assert sequence(opener(header).path) == 4


def test_a_game_with_more_players_than_stations_is_told_why_and_offered_again_later(tmp_path):
    """A four-player Pictomania interrupted, the box started with three stations: every panel
    says why it was not resumed and that it is kept. Once no newer game is to be resumed, a box
    with four stations offers the four-player game again."""
    from companion.daemon import Daemon, journal_opener
    from companion.profile import load_profile
    from companion.record.journal import Header
    from companion.record.recovery import abandon, pick_up
    from companion.tablescreen.public import public_view
    from glyphs import shows

    root = Path(__file__).resolve().parent.parent / "hardware" / "profiles"
    four = journal_opener(tmp_path)(Header("pictomania", ("Ana", "Ben", "Cy", "Dee"), {}, 5))
    four.close()
    daemon = Daemon(load_profile(root / "mock-3.toml"), tmp_path)
    try:
        table = daemon.table
        assert table.game is None and table.offer is None
        assert table.not_resumed == ("Pictomania", "needs 4 stations", "kept for a bigger box")
        assert shows(table.screen(0), "needs 4 stations") and shows(table.screen(0), "bigger box")
        assert public_view(table).heading == "Game not resumed"
    finally:
        daemon.close()
    newer = journal_opener(tmp_path)(Header("trio", ("Ana", "Ben", "Cy"), {}, 6))
    newer.close()
    found = pick_up(tmp_path)
    assert found.path == newer.path                  # the newest unfinished game comes first
    found.writer.close()
    abandon(newer.path)                              # its players started afresh instead
    daemon = Daemon(load_profile(root / "mock-4.toml"), tmp_path)
    try:
        assert daemon.table.offer is not None and daemon.table.offer.path == four.path
    finally:
        daemon.close()
