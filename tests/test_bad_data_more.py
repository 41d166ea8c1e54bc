"""Bad data never bricks the box, through the paths a real box takes: the daemon starting on a
state directory holding a bad journal and its players pressing on, the command line in a real
process, games played with names and words the screen font lacks. Each reproduces a failure of
the box before its reader had limits (see ``test_bad_data.py`` for the readers themselves)."""

import asyncio
import errno
import json
import logging
import os
import random
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from companion.cli import main
from companion.daemon import Daemon, journal_opener
from companion.arbiter.inputs import InputEvent
from companion.record.journal import Header, replay, start_match
from companion.profile import load_profile
from companion.script import load_script
from companion.table import Table

from helpers import MS, FakeClock, play_on_fake_clock, tap
from test_bad_data import BAD_LINES, MOCK3, ROOT, SEED_GAME, beside_a_good_game, make_odd


def lobby_image(directory: Path) -> bytes:
    """Station 1's screen of a box started on ``directory``: the plain lobby when it is empty."""
    daemon = Daemon(load_profile(MOCK3), directory)
    try:
        return daemon.table.screen(0).tobytes()
    finally:
        daemon.close()


def press_on(daemon: Daemon, keys=("ok", "left")) -> None:
    """What players do at a box that just started: look at every screen and press (``ok``
    takes an offer to resume); the daemon's own step draws, ticks and sounds as its loop does."""
    async def pressing() -> None:
        t = time.monotonic_ns()
        daemon.step(t)
        for key in keys:
            for station in range(3):
                daemon.table.screen(station)
            t += 200 * MS
            daemon.table.handle(InputEvent(0, key, True, t))
            daemon.table.handle(InputEvent(0, key, False, t + 50 * MS))
            daemon.step(t + 100 * MS)

    asyncio.run(pressing())


@pytest.mark.parametrize("name", ["t is 1e308", "a lone surrogate in a name", "Infinity"])
def test_a_box_started_on_a_bad_journal_serves_its_players_and_says_why(name, tmp_path, caplog):
    """The newest journal holds a line the old reader let through: the box offered it, and
    drawing the offer or taking it crashed the daemon (at every restart)."""
    content, reason = BAD_LINES[name]
    plain = lobby_image(tmp_path / "empty")
    games = tmp_path / "games"
    games.mkdir()
    (games / "20991231-235959-paytoplay.jsonl").write_text(content)
    daemon = Daemon(load_profile(MOCK3), games)
    try:
        first = daemon.table.screen(0).tobytes()
        press_on(daemon, keys=("ok",))
        assert daemon.table.game is None
        assert first != plain               # the lobby says the game was not resumed
    finally:
        daemon.close()
    assert f"20991231-235959-paytoplay.jsonl cannot be resumed: {reason}" in caplog.text


def test_a_journal_that_cannot_be_resumed_is_told_on_the_screens_not_only_in_the_log(tmp_path, caplog):
    """An illegal move in the newest unfinished game: the players see why their game is gone."""
    plain = lobby_image(tmp_path / "empty")
    games = tmp_path / "games"
    games.mkdir()
    (games / "20260101-000000-paytoplay.jsonl").write_text("\n".join(SEED_GAME[:3] + SEED_GAME[2:3]) + "\n")
    daemon = Daemon(load_profile(MOCK3), games)
    try:
        assert daemon.table.game is None and daemon.table.offer is None
        assert daemon.table.screen(0).tobytes() != plain
    finally:
        daemon.close()
    assert "20260101-000000-paytoplay.jsonl cannot be resumed: line 4: cell 3 is already taken" in caplog.text


@pytest.mark.parametrize("kind", ["directory", "dangling symlink"])
def test_the_daemon_starts_past_a_non_file_named_like_a_journal(kind, tmp_path, caplog):
    good = beside_a_good_game(tmp_path, kind)
    daemon = Daemon(load_profile(MOCK3), tmp_path)
    try:
        assert daemon.table.offer is not None and daemon.table.offer.path == good
        press_on(daemon, keys=("ok",))
        assert daemon.table.game is not None and daemon.table.game.names == ("Alice", "Bob")
    finally:
        daemon.close()
    assert "20991231-235959-paytoplay.jsonl: skipped, not a regular file" in caplog.text


def test_the_daemon_never_cuts_the_target_of_a_symlinked_journal(tmp_path):
    outside = tmp_path / "outside.txt"
    precious = b"precious\nno newline at the end"
    outside.write_bytes(precious)
    games = tmp_path / "games"
    games.mkdir()
    (games / "20260101-000000-paytoplay.jsonl").symlink_to(outside)
    daemon = Daemon(load_profile(MOCK3), games)
    try:
        press_on(daemon)
    finally:
        daemon.close()
    assert outside.read_bytes() == precious


def test_a_game_started_after_the_clock_went_back_is_the_one_resumed(tmp_path, monkeypatch, caplog):
    """A Pi without a real-time clock boots with an old clock until NTP sets it: the game
    started then has the older name, and is still the one the players were playing."""
    caplog.set_level(logging.INFO)
    clock = {"now": "20260505-120000"}
    real_strftime = time.strftime
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: clock["now"] if fmt == "%Y%m%d-%H%M%S"
                        else real_strftime(fmt, *a))
    opener = journal_opener(tmp_path)
    header = Header("paytoplay", ("Alice", "Bob"), {}, 1)
    for stamp, moves in (("20260505-120000", 1), ("20200101-000000", 3)):  # then the clock went back
        clock["now"] = stamp
        writer = opener(header)
        for line in SEED_GAME[1:1 + moves]:
            writer.write(json.loads(line))
        writer.close()
    monkeypatch.undo()
    daemon = Daemon(load_profile(MOCK3), tmp_path)
    try:
        offer = daemon.table.offer
        assert offer is not None and offer.path.name == "20200101-000000-paytoplay.jsonl"
        assert offer.match.state == replay(SEED_GAME[:4])[1].state
    finally:
        daemon.close()
    assert any(r.name == "companion.record.recovery" and "20200101-000000-paytoplay.jsonl" in r.getMessage()
               for r in caplog.records)   # which game it resumes is said


def test_replay_of_a_lone_surrogate_exits_2_in_a_real_process(tmp_path):
    """Printed to a real stdout (UTF-8, strict), the name raised UnicodeEncodeError."""
    path = tmp_path / "bad.jsonl"
    path.write_text(BAD_LINES["a lone surrogate in a name"][0])
    for argv in (["replay", str(path)], ["games", "--journal-dir", str(tmp_path)]):
        proc = subprocess.run([sys.executable, "-m", "companion", *argv], cwd=ROOT, capture_output=True,
                              timeout=120, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
        assert b"Traceback" not in proc.stderr, argv
        if argv[0] == "replay":
            assert proc.returncode == 2 and b"line 1: player name" in proc.stderr
        else:
            assert proc.returncode == 0 and b"unreadable (line 1" in proc.stdout


def test_a_scripted_run_at_speed_0_exits_2(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("0.1 1 ok\n")
    with pytest.raises(SystemExit) as e:
        main(["run", "--profile", str(MOCK3), "--script", str(script), "--speed", "0",
              "--journal-dir", str(tmp_path / "j")])
    assert e.value.code == 2 and "--speed must be" in capsys.readouterr().err


def test_a_full_disk_at_game_start_is_told_and_the_box_carries_on(tmp_path, monkeypatch):
    """ENOSPC when the journal is created: before, the press raised out of the table (the
    daemon died and left an empty journal behind)."""
    table = Table(("Ana", "Ben"), journal_opener(tmp_path), seed=1)
    plain = table.screen(0).tobytes()

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    for n in range(9):  # ok through the lobby's rows to Start, as players would
        tap(table, 0, "ok", 100 * (n + 1))
    monkeypatch.undo()
    assert table.game is None
    assert list(tmp_path.iterdir()) == []
    assert table.screen(0).tobytes() != plain


def test_a_user_deck_in_kanji_is_played_and_drawn(tmp_path):
    """A deck that passes ``words check`` is drawn on every screen of a game that uses it."""
    from companion import words

    path = tmp_path / "mine.toml"
    cards = ",\n".join(json.dumps([f"寿司{c}{i}" for i in range(7)], ensure_ascii=False) for c in range(12))
    path.write_text(f'[[deck]]\nname = "mine"\ncards = [\n{cards}\n]\n', encoding="utf-8")
    assert main(["words", "check", str(path)]) == 0
    words.use_user_decks(words.load_decks(path))
    try:
        table = Table(("Łukasz", "漢字", "Zoë"), journal_opener(tmp_path / "j"), seed=4,
                      defaults={"pictomania": {"decks": "mine", "rounds": 1}})
        while table.lobby.game.name != "pictomania":
            table.lobby.index += 1
        t = 100
        for n in range(40):
            tap(table, n % 3, "ok" if table.game is None else ("right", "slap", "ok")[n % 3], t)
            table.tick(round(t * MS), round(t * MS))
            for station in range(3):
                table.screen(station)
            t += 700
        assert table.game is not None and table.game.match.state.round.deck == "mine"
    finally:
        words.use_user_decks([])


def retained_replay_bytes(rounds: int) -> int:
    """Bytes held by the states a replay of ``rounds`` Triangle rounds passes through, all
    kept (as an undo list or a line-by-line explainer keeps them): a state that copies its
    history holds rounds**2 references in all, one that shares it holds a few per round."""
    header = Header("triangle", ("Ana", "Ben", "Cy"), {"target": 10**9}, 7)
    lines = [json.dumps(header.as_json())]
    match = start_match(header, lambda line: lines.append(json.dumps({**line, "t": 1})))
    rnd = random.Random(7)
    for _ in range(rounds):
        match.draw_chance()
        player = rnd.randrange(3)
        match.act({"action": "claim", "player": player})
        match.act({"action": "state", "player": player, "fact": rnd.choice(("even", "odd", "greater"))})
    states = []
    tracemalloc.start()
    try:
        replay(lines, lambda number, m, events, line: states.append(m.state))
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


def test_triangle_replay_is_linear_in_the_rounds():
    """A 43 MB journal took 770 s to resume: every action copied the whole history. Counted in
    bytes, not timed: four times the rounds hold about four times the memory (ten times before)."""
    small, large = retained_replay_bytes(300), retained_replay_bytes(1200)
    assert large / small < 6, (small, large)


def test_a_whole_scripted_game_opens_no_network_socket(tmp_path, monkeypatch):
    """What held before and must keep holding: the box talks to nobody over a network (its
    event loop's own wake-up pair is a local socketpair). The demo's Pay-to-Play script is played
    through the daemon on mock pins and a fake clock, so a busy machine plays the same game."""
    import socket

    import gpiozero.pins.mock

    families = []
    real_init = socket.socket.__init__

    def noting(self, family=-1, *args, **kwargs):
        families.append(family)
        real_init(self, family, *args, **kwargs)

    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    demo = ROOT / "companion" / "demo"
    profile = load_profile(demo / "profile.toml")
    monkeypatch.setattr(socket.socket, "__init__", noting)
    daemon = Daemon(profile, tmp_path, seed=1)
    try:
        asyncio.run(play_on_fake_clock(daemon, load_script(demo / "paytoplay.txt", len(profile.stations)), clock))
    finally:
        daemon.close()
        monkeypatch.undo()
    [journal] = tmp_path.glob("*.jsonl")
    assert replay(journal.read_text().splitlines())[1].outcome is not None  # the game was played out
    assert socket.AF_UNIX in families                                        # sockets are seen,
    assert not {socket.AF_INET, socket.AF_INET6} & set(families), families  # none to a network


@pytest.mark.parametrize("kind", ["nested 3000 deep", "fifo", "directory"])
def test_a_bad_settings_file_beside_the_journals_never_stops_the_box(kind, tmp_path, caplog):
    """``settings.json`` sits in the state directory with the journals: read with the same
    limits, the box starts on the default settings and says why."""
    from companion.settings import LOUDEST

    settings = tmp_path / "settings.json"
    if kind == "nested 3000 deep":
        settings.write_text("[" * 3000 + "]" * 3000)
    else:
        make_odd(settings, kind)
    daemon = Daemon(load_profile(MOCK3), tmp_path / "journals", settings_path=settings)
    try:
        assert daemon.settings.volume == LOUDEST
    finally:
        daemon.close()
    assert f"{settings}: " in caplog.text and "using the default settings" in caplog.text


@pytest.mark.parametrize("kind, reason", [
    ("/dev/zero", "/dev/zero: is not a regular file"),
    ("fifo", "is not a regular file"),
    ("nested 3000 deep", "line 1: lists or objects nested more than 32 deep"),
])
def test_analyze_reads_a_journal_with_the_same_limits_as_replay(kind, reason, tmp_path, capsys):
    """``companion analyze /dev/zero`` read until memory ran out (MemoryError); a FIFO hung it."""
    path = Path(kind) if kind.startswith("/") else tmp_path / "t.jsonl"
    if kind == "fifo":
        make_odd(path, kind)
    elif kind == "nested 3000 deep":
        path.write_text(BAD_LINES[kind][0])
    assert main(["analyze", str(path)]) == 2
    assert reason in capsys.readouterr().err
