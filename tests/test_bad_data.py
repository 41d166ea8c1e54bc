"""Bad data never bricks the box: every file a player, a maker or a power cut can hand it is read
with limits, and every failure is a clear error (exit 2 on the command line) or a logged skip."""

import errno
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.daemon import Daemon, journal_opener
from companion.arbiter.inputs import InputEvent
from companion.record.journal import Header, JournalWriter
from companion.profile import load_profile, parse_profile
from companion.record.recovery import ABANDONED, find_interrupted, journals, pick_up, rotate
from companion.screens.canvas import blank, checking, shown, text
from companion.table import Table

from glyphs import shows
from helpers import MS, tap

ROOT = Path(__file__).parent.parent
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"
SEED_GAME = (ROOT / "tests" / "journals" / "paytoplay-seed.jsonl").read_text().splitlines()
UNFINISHED = "\n".join(SEED_GAME[:4]) + "\n"
HEADER = SEED_GAME[0]

DEEP = "[" * 3000 + "]" * 3000
HUGE = "9" * 5000
BAD_LINES = {
    "t is 1e308": (HEADER + '\n{"type": "action", "action": "play", "player": 0, "cell": 4, "t": 1e308}\n',
                   "line 2: t must be seconds since the game started"),
    "nested 3000 deep": (DEEP + "\n", "line 1: lists or objects nested more than 32 deep"),
    "nested in an action": (HEADER + '\n{"type": "action", "x": ' + DEEP + "}\n", "line 2: lists or objects nested"),
    "a 5000-digit number": (HEADER[:-1] + ', "seed": ' + HUGE + "}\n", "line 1: a number of 5000 digits"),
    "a 5000-digit t": (HEADER + '\n{"type": "action", "t": ' + HUGE + "}\n", "line 2: a number of 5000 digits"),
    "a lone surrogate in a name": (HEADER.replace('"Alice"', '"Al\\ud800ice"') + "\n", "line 1: player name"),
    "Infinity": (HEADER + '\n{"type": "action", "t": Infinity}\n', "line 2: Infinity is not a number"),
}


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", BAD_LINES)
def test_replay_of_a_bad_journal_exits_2_naming_the_line(name, tmp_path, capsys):
    content, reason = BAD_LINES[name]
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    for argv in (["replay", str(path)], ["replay", "--json", str(path)]):
        code, out, err = run(argv, capsys)
        assert (code, out) == (2, "")
        assert err.startswith(f"companion: {path}: {reason}")


@pytest.mark.parametrize("name", BAD_LINES)
def test_a_bad_journal_never_stops_the_daemon_and_the_good_game_is_resumed(name, tmp_path, caplog):
    content, reason = BAD_LINES[name]
    good = tmp_path / "20260101-000000-paytoplay.jsonl"
    good.write_text(UNFINISHED)
    (tmp_path / "20991231-235959-paytoplay.jsonl").write_text(content)  # newest by name
    daemon = Daemon(load_profile(MOCK3), tmp_path)
    try:
        assert daemon.table.game is None                     # the newest game cannot be resumed,
        with checking() as cut:                               # and the players are told, whole
            told = daemon.table.screen(0)
        assert cut == [] and shows(told, "journal is damaged") and shows(told, "companion games")
        assert reason in caplog.text
    finally:
        daemon.close()


def test_games_lists_on_past_an_unreadable_journal(tmp_path, capsys):
    (tmp_path / "20260101-000000-paytoplay.jsonl").write_text("\n".join(SEED_GAME) + "\n")
    for i, name in enumerate(BAD_LINES):
        (tmp_path / f"2026010{i + 2}-000000-bad.jsonl").write_text(BAD_LINES[name][0])
    code, out, err = run(["games", "--journal-dir", str(tmp_path)], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == len(BAD_LINES) + 1
    assert lines[-1].endswith("won by Alice")
    assert all("unreadable (line" in line for line in lines[:-1])


def make_odd(path: Path, kind: str) -> None:
    """Something that is not a regular file at ``path``: a directory, a FIFO or a dangling symlink."""
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(path.parent / "gone")


def beside_a_good_game(directory: Path, kind: str) -> Path:
    """An unfinished game in ``directory``, and a newer-named non-file; returns the game's journal."""
    good = directory / "20260101-000000-paytoplay.jsonl"
    good.write_text(UNFINISHED)
    make_odd(directory / "20991231-235959-paytoplay.jsonl", kind)
    return good


@pytest.mark.parametrize("kind", ["directory", "dangling symlink", "fifo"])
def test_a_non_file_named_like_a_journal_is_skipped_and_the_game_resumed(kind, tmp_path, caplog):
    good = beside_a_good_game(tmp_path, kind)
    caplog.set_level(logging.INFO)
    found = find_interrupted(tmp_path)
    assert found is not None and found.path == good
    found.writer.close()
    assert "20991231-235959-paytoplay.jsonl: skipped, not a regular file" in caplog.text
    assert main(["games", "--journal-dir", str(tmp_path)]) == 0


def test_a_symlinked_journal_is_never_cut_nor_written_through(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious\nno newline at the end")
    games = tmp_path / "games"
    games.mkdir()
    (games / "20260101-000000-paytoplay.jsonl").symlink_to(outside)
    assert pick_up(games) is None
    assert outside.read_bytes() == b"precious\nno newline at the end"
    with pytest.raises(OSError):
        JournalWriter(games / "20260101-000000-paytoplay.jsonl")
    assert outside.read_bytes() == b"precious\nno newline at the end"


def with_sequence(lines: str, sequence: int) -> str:
    header, rest = lines.split("\n", 1)
    return json.dumps({**json.loads(header), "sequence": sequence}) + "\n" + rest


def test_resume_chooses_by_the_journals_sequence_not_their_names(tmp_path, caplog):
    """The clock went back: the game started later has the older name."""
    caplog.set_level(logging.INFO)
    older = tmp_path / "20260505-120000-paytoplay.jsonl"
    newer = tmp_path / "20200101-000000-paytoplay.jsonl"
    older.write_text(with_sequence(UNFINISHED, 7))
    newer.write_text(with_sequence("\n".join(SEED_GAME[:5]) + "\n", 8))
    found = find_interrupted(tmp_path)
    assert found is not None and found.path == newer
    found.writer.close()
    assert "found paytoplay not over in 20200101-000000-paytoplay.jsonl (game 8)" in caplog.text


def test_two_games_in_the_same_second_are_numbered_in_order(tmp_path):
    opener = journal_opener(tmp_path)
    header = Header("paytoplay", ("Ana", "Ben"), {}, 1)
    first = opener(header)
    first.close()
    second = opener(header)
    second.close()
    assert [p.name for p in journals(tmp_path)] == [first.path.name, second.path.name]
    assert [json.loads(p.read_text())["sequence"] for p in (first.path, second.path)] == [1, 2]
    assert find_interrupted(tmp_path).path == second.path


def test_a_result_the_players_had_not_left_is_shown_again_until_they_do(tmp_path, caplog):
    """The box stopped while the last result was showing: it comes back, then ok leaves it."""
    caplog.set_level(logging.INFO)
    (tmp_path / "20260101-000000-paytoplay.jsonl").write_text("\n".join(SEED_GAME) + "\n")
    daemon = Daemon(load_profile(MOCK3), tmp_path)
    try:
        game = daemon.table.game
        assert game is not None and game.match.outcome is not None
        assert "showing the result of 20260101-000000-paytoplay.jsonl again" in caplog.text
        later = time.monotonic_ns() + 10**9
        for station in (0, 1):
            daemon.table.handle(InputEvent(station, "ok", True, later))
            daemon.table.handle(InputEvent(station, "ok", False, later + MS))
        assert daemon.table.game is None
    finally:
        daemon.close()
    assert find_interrupted(tmp_path) is None
    again = Daemon(load_profile(MOCK3), tmp_path)
    again.close()
    assert again.table.game is None
    assert "nothing to resume: the newest game, 20260101-000000-paytoplay.jsonl, is over" in caplog.text


def test_rotation_of_a_thousand_journals_logs_each_deletion_and_keeps_unfinished_games(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    over = "\n".join(SEED_GAME) + "\n"
    for i in range(1000):
        content = UNFINISHED if i in (3, 400) else over
        (tmp_path / f"g{i:04d}.jsonl").write_text(content)
    (tmp_path / f"g0005{ABANDONED}").write_text(UNFINISHED)
    deleted = rotate(tmp_path, keep=499)
    left = {p.name for p in tmp_path.iterdir()}
    assert "g0003.jsonl" in left and "g0400.jsonl" in left        # not over: kept
    assert f"g0005{ABANDONED}" not in left
    assert len(deleted) == 1001 - 499 - 2
    assert all(f"{p.name}: deleted" in caplog.text for p in deleted)
    assert caplog.text.count("kept beyond the newest 499 journals") == 2


def test_a_full_disk_at_game_start_leaves_no_empty_journal_and_tells_the_players(tmp_path, monkeypatch):
    table = Table(("Ana", "Ben"), journal_opener(tmp_path), seed=1)

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    for t, key in enumerate(["ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"]):
        tap(table, 0, key, 100 * (t + 1))
        if table.lobby_notice:
            break
    assert table.game is None
    assert table.lobby_notice == "DISK FULL: NOT STARTED"
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    image = table.screen(0)
    assert sum(image.crop((0, 52, 128, 64)).histogram()[1:]) > 300  # the notice's lit bar


def test_the_journal_directory_under_a_file_exits_2(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    script = tmp_path / "s.txt"
    script.write_text("0.1 1 ok\n")
    code, out, err = run(["run", "--profile", str(MOCK3), "--script", str(script),
                          "--journal-dir", str(tmp_path / "file" / "games")], capsys)
    assert code == 2 and "journal directory" in err and "Not a directory" in err


@pytest.mark.parametrize("speed", ["0", "-1", "nan", "inf", "1e308"])
def test_run_speed_must_be_a_sensible_number(speed, capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", "--profile", str(MOCK3), "--speed", speed])
    assert e.value.code == 2
    assert "--speed must be" in capsys.readouterr().err


@pytest.mark.parametrize("line, reason", [
    ("nan 1 ok", "line 1: SECONDS must be a finite number, not 'nan'"),
    ("0.5 1 ok inf", "line 1: HOLD must be a finite number, not 'inf'"),
    ("1e308 1 ok", "line 1: SECONDS must be from 0"),
    ("0.5 1 ok 1e308", "line 1: SECONDS must be from 0"),
    ("0.5 99999999999999999999 ok", "line 1: station must be from 1 to 3"),
])
def test_scripts_refuse_times_that_never_come(line, reason, tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text(line + "\n")
    code, out, err = run(["run", "--profile", str(MOCK3), "--script", str(script),
                          "--journal-dir", str(tmp_path / "j")], capsys)
    assert code == 2 and f"{script} {reason}" in err


def test_a_script_pressing_a_key_a_buzzer_only_seat_lacks_is_refused_naming_it(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("0.5 1 ok\n1.0 3 slap\n1.5 3 ok\n")
    code, out, err = run(["run", "--profile", str(ROOT / "hardware" / "profiles" / "mock-quiz-16.toml"),
                          "--script", str(script), "--journal-dir", str(tmp_path / "j")], capsys)
    assert code == 2 and f"{script} line 3: station 3 has no ok key, only slap" in err


def test_a_script_that_is_not_a_file_is_refused(tmp_path, capsys):
    code, out, err = run(["run", "--profile", str(MOCK3), "--script", "/dev/zero",
                          "--journal-dir", str(tmp_path)], capsys)
    assert code == 2 and "/dev/zero: is not a regular file" in err


NESTED_TOML = "a = " + "[" * 3000 + "]" * 3000 + "\n"


@pytest.mark.parametrize("command", [["profile", "check"], ["words", "check"]])
def test_check_commands_refuse_deeply_nested_toml(command, tmp_path, capsys):
    path = tmp_path / "deep.toml"
    path.write_text(NESTED_TOML)
    code, out, err = run(command + [str(path)], capsys)
    assert code == 2 and "nested more than 32 deep" in err


@pytest.mark.parametrize("deck, reason", [
    ('deck = ["x"]', "deck 1: must be a [[deck]] table with name and cards, not str"),
    ("deck = [1]", "deck 1: must be a [[deck]] table with name and cards, not int"),
])
def test_words_check_of_decks_that_are_not_tables_exits_2(deck, reason, tmp_path, capsys):
    path = tmp_path / "d.toml"
    path.write_text(deck + "\n")
    code, out, err = run(["words", "check", str(path)], capsys)
    assert code == 2 and reason in err


def test_word_file_that_is_not_a_file_is_refused(capsys):
    code, out, err = run(["run", "--profile", str(MOCK3), "--option", "trio.word_file=/dev/zero"], capsys)
    assert code == 2
    assert "option 'word_file': word file /dev/zero: is not a regular file" in err


def test_a_typed_option_outside_the_lobby_choices_is_played_and_shown(tmp_path):
    from companion.cli import option_settings

    defaults = option_settings(["triangle.target=30"])
    table = Table(("Ana", "Ben", "Cy"), journal_opener(tmp_path), seed=3, defaults=defaults)
    while table.lobby.game.name != "triangle":
        tap(table, 0, "right", table.now_ns / MS + 100)
        table.now_ns += 200 * MS
    tap(table, 0, "ok", 10_000)
    assert table.lobby.values["target"] == 30
    rows = dict(table.lobby._rows())
    assert rows["target"][0] == 30
    for t in range(len(rows) + 1):
        tap(table, 0, "ok", 11_000 + 100 * t)
    assert table.game is not None and table.game.match.options.target == 30
    [journal] = tmp_path.glob("*.jsonl")
    assert json.loads(journal.read_text().splitlines()[0])["options"]["target"] == 30


def test_a_strict_option_outside_its_values_exits_2_naming_them(capsys):
    code, out, err = run(["run", "--profile", str(MOCK3), "--option", "closest.start=fastest"], capsys)
    assert code == 2 and "must be one of '17x34', 'products', 'seat1', 'random'" in err


def test_sim_takes_the_same_option_and_decks_as_run(tmp_path, capsys):
    bad_decks = tmp_path / "d.toml"
    bad_decks.write_text("deck = [1]\n")
    code, out, err = run(["sim", "--screenshot", str(tmp_path / "s.png"), "--decks", str(bad_decks)], capsys)
    assert code == 2 and "deck 1" in err
    code, out, err = run(["sim", "--screenshot", str(tmp_path / "s.png"), "--option", "triangle.nope=1"], capsys)
    assert code == 2 and "unknown option" in err
    code, out, err = run(["sim", "--screenshot", str(tmp_path / "s.png"), "--journal-dir", str(tmp_path / "j"),
                          "--option", "triangle.target=30"], capsys)
    assert code == 0


def test_games_piped_into_head_ends_quietly(tmp_path):
    for i in range(300):
        (tmp_path / f"2026{i:06d}-paytoplay.jsonl").write_text("\n".join(SEED_GAME) + "\n")
    proc = subprocess.run(f"{sys.executable} -m companion games --journal-dir {tmp_path} | head -1",
                          shell=True, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


NAMES = ("Łukasz", "漢字太郎", "Zoë")


def test_any_unicode_name_is_drawn_never_an_exception():
    image, draw = blank()
    text(draw, 0, 0, "Łukasz 漢字 😀 \ud800")
    expected, draw2 = blank()
    text(draw2, 0, 0, "Lukasz ?? ? ?")
    assert image.tobytes() == expected.tobytes()
    assert shown("Zoë") == "Zoë"


def unicode_profile():
    text = MOCK3.read_text().replace('"Ana"', f'"{NAMES[0]}"').replace('"Ben"', f'"{NAMES[1]}"') \
        .replace('"Cy"', f'"{NAMES[2]}"')
    return text


def test_profile_check_warns_about_names_it_cannot_show(tmp_path, capsys):
    path = tmp_path / "p.toml"
    path.write_text(unicode_profile())
    code, out, err = run(["profile", "check", str(path)], capsys)
    assert code == 0
    assert "warning: stations[1].name: 'Łukasz' has characters the screens cannot show (Ł)" in out
    assert "warning: stations[2].name: '漢字太郎' has characters the screens cannot show (漢字太郎)" in out
    assert "Zoë" not in out


def test_words_check_warns_about_words_it_cannot_show(tmp_path, capsys):
    path = tmp_path / "d.toml"
    cards = [[f"w{c}{i}" for i in range(7)] for c in range(3)]
    cards[1][2] = "寿司"
    path.write_text("[[deck]]\nname = \"mine\"\ncards = " + json.dumps(cards, ensure_ascii=False) + "\n")
    code, out, err = run(["words", "check", str(path)], capsys)
    assert code == 0 and "mine mine-02 word 3: '寿司' has characters the screens cannot show" in out


def test_every_game_is_played_and_resumed_with_unicode_names(tmp_path):
    """A resumed game whose players have non-Latin names: drawn on every station, no crash loop."""
    import tomllib

    profile = parse_profile(tomllib.loads(unicode_profile()), "unicode")
    for game in ("triangle", "closest", "trio", "pictomania"):
        directory = tmp_path / game
        table = Table(NAMES, journal_opener(directory), seed=5)
        while table.lobby.game.name != game:
            table.lobby.index += 1
        t = 100
        for key in ["ok"] * 12 + ["right", "left", "ok", "slap"] * 5:
            tap(table, t % 3, key, t)
            table.tick(round(t * MS), round(t * MS))
            for station in range(3):
                table.screen(station)
            t += 700
        assert table.game is not None, game
        table.game.journal.close()
        daemon = Daemon(profile, directory)
        try:
            assert daemon.table.offer is not None, game
            for station in range(3):
                daemon.table.screen(station)                # the offer to resume
            tap(daemon.table, 0, "ok", t)                   # taken
            assert daemon.table.game is not None, game
            assert daemon.table.game.names == NAMES
            for station in range(3):
                daemon.table.screen(station)
        finally:
            daemon.close()
