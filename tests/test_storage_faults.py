"""Storage faults on real file systems and real box processes: a disk that fills mid-game, a
frozen file system (the loop asleep meanwhile, a stop naming the stall), a card turning read-only
under a game, a second box program on the same directory, a journal directory deleted mid-game, a
read-only or in-RAM state directory, signals. Each test waits for what the box says
or writes, never for a fixed time; the ones that need root (a loop-mounted ext4) skip without."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from companion.record.journal import replay_file
from companion.record.recovery import journals
from companion.screens.canvas import LINE_H

from helpers import PATIENCE_S
from storage import (DEMO_PROFILE, ROOT, BoxProcess, demo_taps, fill, frozen, journal_lines, release_disk, run,
                     small_disk, until_saved)


@pytest.fixture
def disk(tmp_path):
    mount = small_disk(tmp_path)
    try:
        yield mount
    finally:
        release_disk(mount)


def above_notice(path: Path) -> bytes:
    """A station screen's pixels above its notice line."""
    with Image.open(path) as image:
        return image.convert("1").crop((0, 0, image.width, image.height - LINE_H)).tobytes()


def notice_lit(path: Path) -> bool:
    """True if the screen's bottom line is a notice bar (mostly lit)."""
    with Image.open(path) as image:
        bar = image.convert("L").crop((0, image.height - LINE_H, image.width, image.height))
        return bar.width * bar.height - bar.histogram()[0] > bar.width * bar.height // 2


def test_a_disk_filling_mid_game_pauses_it_loses_nothing_and_play_resumes_when_space_is_freed(disk, tmp_path):
    games = disk / "games"
    box = BoxProcess(games)
    try:
        taps = demo_taps()
        for station, key in taps[:6]:  # the lobby: the game starts, its header on disk
            box.tap(station, key)
        until_saved(box, games, 1)
        filler = fill(disk)
        for n, (station, key) in enumerate(taps[6:], start=6):
            before = box.snap(tmp_path / f"before{n}")
            lines = len(journal_lines(games))
            box.tap(station, key)
            if key == "ok" and box.until_notice(lambda text: text.startswith("DISK FULL")
                                                or len(journal_lines(games)) > lines) != "-":
                break
        else:
            pytest.fail("the disk never ran out of space")
        assert box.notice() == "DISK FULL: PAUSED"
        assert box.proc.poll() is None, "the box keeps running"
        assert box.logged("cannot save the game's journal: No space left on device")
        paused = box.snap(tmp_path / "paused")
        for shown, earlier in zip(paused, before):  # the action not saved is not shown as done
            assert above_notice(shown) == above_notice(earlier)
            assert notice_lit(shown)
        on_disk = journal_lines(games)
        replay_file(sorted(games.glob("*.jsonl"))[-1])  # what is on disk is whole: it replays
        filler.unlink()
        box.until_notice(lambda text: text == "-")  # retried on the loop's timer
        assert box.logged("saving again")
        assert len(journal_lines(games)) == len(on_disk) + 1  # the paused action, now saved
        resumed = box.snap(tmp_path / "resumed")
        assert any(above_notice(a) != above_notice(b) for a, b in zip(resumed, before)), "now shown"
        for station, key in taps[n + 1:]:
            box.tap(station, key)
        box.until_notice(lambda text: text == "-")
    finally:
        code = box.close()
    assert code == 0
    path = sorted(games.glob("*.jsonl"))[-1]
    header, match = replay_file(path)
    assert match.outcome is not None, "the game was played to its end"
    uninterrupted = BoxProcess(tmp_path / "plain")
    try:
        for station, key in demo_taps():
            uninterrupted.tap(station, key)
    finally:
        uninterrupted.close()
    assert journal_lines(games) == journal_lines(tmp_path / "plain")


@pytest.fixture
def watchdog(tmp_path):
    """A socket standing in for systemd's notify socket: the box pings it as it would systemd."""
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(PATIENCE_S)
    yield str(path), sock
    sock.close()


def pings(sock: socket.socket, count: int) -> None:
    """Wait for ``count`` watchdog pings."""
    seen = 0
    while seen < count:
        seen += sock.recv(100) == b"WATCHDOG=1"


def drain(sock: socket.socket) -> None:
    sock.setblocking(False)
    try:
        while True:
            sock.recv(100)
    except BlockingIOError:
        pass
    sock.settimeout(PATIENCE_S)


def test_a_frozen_file_system_delays_what_is_shown_but_not_the_loop_or_its_watchdog(disk, tmp_path, watchdog):
    """fsfreeze for longer than the watchdog's timeout (4 s here: a ping every 2 s): the loop
    answers, says it is saving, pings the watchdog; the move shows once it is on disk."""
    path, sock = watchdog
    games = disk / "games"
    box = BoxProcess(games, env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"})
    try:
        taps = demo_taps()
        for station, key in taps[:10]:  # the lobby, and Alice's cursor to the centre
            box.tap(station, key)
        assert taps[10] == (1, "ok")
        before = box.snap(tmp_path / "before")
        lines = len(journal_lines(games))
        drain(sock)
        with frozen(disk):
            box.tap(1, "ok")  # answered: the loop turns while the line waits for the disk
            assert box.until_notice(lambda text: text != "-") == "SAVING..."
            pings(sock, 3)  # 4 s and more frozen, past the watchdog's timeout: still pinging
            assert len(journal_lines(games)) == lines
            stalled = box.snap(tmp_path / "stalled")
            for shown, earlier in zip(stalled, before):  # the move is not shown before it is saved
                assert above_notice(shown) == above_notice(earlier)
                assert notice_lit(shown)
        box.until_notice(lambda text: text == "-")
        assert len(journal_lines(games)) == lines + 1
        shown = box.snap(tmp_path / "saved")
        assert above_notice(shown[0]) != above_notice(before[0])
        assert not box.logged("cannot save")
    finally:
        assert box.close() == 0


def loop_steps(box: BoxProcess) -> int:
    """How many steps the box's loop has taken, from its status line (SIGUSR1, as an operator asks)."""
    box.proc.send_signal(signal.SIGUSR1)
    line = box.expect("LOG INFO status:")
    return int(line.rsplit(";", 1)[1].split()[0])


@contextlib.contextmanager
def move_waiting_for_frozen_card(box: BoxProcess, disk: Path):
    """For the block: the demo game's first move made on a frozen card, SAVING... on the screens."""
    for station, key in demo_taps()[:10]:
        box.tap(station, key)
    with frozen(disk):
        box.tap(1, "ok")
        assert box.until_notice(lambda text: text != "-") == "SAVING..."
        yield


def test_a_line_waiting_for_a_frozen_card_does_not_spin_the_loop(disk, watchdog):
    """Once SAVING... is shown there is nothing to do until the card answers: the loop sleeps to
    its next timer (the watchdog's ping here, one a second), it does not turn thousands of times."""
    path, sock = watchdog
    games = disk / "games"
    box = BoxProcess(games, env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"})
    try:
        with move_waiting_for_frozen_card(box, disk):
            drain(sock)
            before = loop_steps(box)
            pings(sock, 4)  # four of the loop's own watchdog pings: some seconds of a frozen card
            steps = loop_steps(box) - before
        assert steps < 40, f"{steps} loop steps while the line waited"
        box.until_notice(lambda text: text == "-")
    finally:
        assert box.close() == 0


def test_stopping_while_a_line_waits_for_a_frozen_card_names_the_stall(disk):
    games = disk / "games"
    box = BoxProcess(games)
    try:
        with move_waiting_for_frozen_card(box, disk):
            box.proc.send_signal(signal.SIGTERM)
            box.expect("LOG ERROR")
            [said] = [line for line in box.said if "could not be written before stopping" in line]
            assert said.endswith("could not be written before stopping: the card did not finish "
                                 "writing within 5 s (a stalled card)"), said
    finally:
        box.close()


def test_a_card_turning_read_only_mid_game_pauses_it_and_the_game_resumes_from_what_is_on_it(disk, tmp_path):
    """What a Pi does after an SD card error: ext4 (``errors=remount-ro``) turns itself read-only
    under the running box. Here the card's error is ext4's own test trigger, on a real loop device."""
    assert run("mount", "-o", "remount,errors=remount-ro", str(disk)).returncode == 0
    device = run("findmnt", "-n", "-o", "SOURCE", str(disk)).stdout.strip()
    trigger = Path("/sys/fs/ext4") / Path(device).name / "trigger_fs_error"
    if not trigger.exists():
        pytest.skip("this kernel's ext4 has no trigger_fs_error")
    games = disk / "games"
    box = BoxProcess(games)
    try:
        for station, key in demo_taps()[:11]:  # the lobby and Alice's first move, saved
            box.tap(station, key)
        saved = until_saved(box, games, 2)
        before = box.snap(tmp_path / "before")
        trigger.write_text("a card error\n")
        box.tap(2, "ok")  # Bob's move: cannot be saved, so it is not shown either
        assert box.until_notice(lambda text: text != "-") == "CANNOT SAVE: PAUSED"
        box.until_logged("cannot save the game's journal: Read-only file system")
        for shown, earlier in zip(box.snap(tmp_path / "paused"), before):
            assert above_notice(shown) == above_notice(earlier)
        assert journal_lines(games) == saved
        box.proc.send_signal(signal.SIGTERM)
        box.expect("DONE")
        assert box.logged("journal lines could not be written before stopping: Read-only file system")
    finally:
        assert box.close() == 0
    release_disk(disk)  # the card taken out, checked and put back
    image = disk.parent / "disk.img"
    assert run("e2fsck", "-fy", str(image)).returncode in (0, 1)
    assert run("mount", "-o", "loop", str(image), str(disk)).returncode == 0
    again = BoxProcess(games)
    try:
        assert again.logged("found paytoplay not over")
    finally:
        assert again.close() == 0
    path = sorted(games.glob("*.jsonl"))[-1]
    assert journal_lines(games) == saved
    assert replay_file(path)[1].outcome is None


def full_demo_journal(directory: Path) -> Path:
    """The demo's Pay-to-Play game played to its end on a fake clock (tests/killpoint.py)."""
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "killpoint.py"), str(DEMO_PROFILE),
                           str(ROOT / "companion" / "demo" / "paytoplay.txt"), str(directory), "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE_S * 4)
    assert done.stdout.strip() == "DONE", done.stderr
    [journal] = directory.glob("*.jsonl")
    return journal


def test_a_second_box_program_on_the_same_state_directory_is_refused_naming_the_first(tmp_path):
    games = tmp_path / "games"
    first = BoxProcess(games)
    try:
        for command in (["run", "--profile", str(DEMO_PROFILE)], ["sim", "--players", "2", "--screenshot",
                                                                 str(tmp_path / "shot.png")]):
            second = subprocess.run([sys.executable, "-m", "companion", *command, "--journal-dir", str(games)],
                                    cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE_S * 4,
                                    env={**os.environ, "PYTHONPATH": str(ROOT)})
            assert second.returncode == 2, second.stderr
            assert f"in use by another companion program (pid {first.proc.pid}, " in second.stderr
            assert "boxproc.py" in second.stderr and "since " in second.stderr
        listing = subprocess.run([sys.executable, "-m", "companion", "games", "--journal-dir", str(games)],
                                 cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE_S * 4,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert listing.returncode == 0, "reading the journals needs no lock"
    finally:
        assert first.close() == 0
    again = BoxProcess(games)  # the lock went with the first program
    assert again.close() == 0


@pytest.mark.parametrize("how", ["deleted", "renamed"])
def test_a_journal_directory_gone_mid_game_is_rewritten_from_memory_and_the_next_game_starts(tmp_path, how):
    games = tmp_path / "games"
    box = BoxProcess(games)
    try:
        taps = demo_taps()
        for station, key in taps[:16]:  # the lobby and three moves
            box.tap(station, key)
        written = journal_lines(games)
        [path] = games.glob("*.jsonl")
        if how == "deleted":
            shutil.rmtree(games)
        else:
            games.rename(tmp_path / "moved")
        assert box.until_notice(lambda text: text != "-") == "JOURNAL REWRITTEN"
        assert box.logged("the journal vanished")
        assert journal_lines(games) == written and path.exists()
        assert json.loads((games / ".lock").read_text())["pid"] == box.proc.pid, "the lock taken again"
        for station, key in taps[16:]:
            box.tap(station, key)
        box.until_notice(lambda text: text == "-")
        assert replay_file(path)[1].outcome is not None, "the whole game is in the rewritten journal"
        box.tap(1, "ok")  # leave the result: the lobby
        for station, key in taps[:6]:
            box.tap(station, key)
        box.until_notice(lambda text: len(journals(games)) == 2)  # the next game started
        assert box.notice() == "-"
    finally:
        assert box.close() == 0


def test_a_finished_game_on_a_read_only_state_directory_is_shown_and_the_box_plays_unsaved(disk, tmp_path):
    games = disk / "games"
    games.mkdir()
    finished = full_demo_journal(tmp_path / "full")
    (games / finished.name).write_bytes(finished.read_bytes())
    assert run("mount", "-o", "remount,ro", str(disk)).returncode == 0
    box = BoxProcess(games)
    try:
        assert box.logged(f"showing the result of {finished.name} again")
        assert not box.logged("cannot be resumed")
        box.tap(1, "ok")  # the players leave the result: the lobby says the box cannot save
        assert box.until_notice(lambda text: text != "-") == "READ-ONLY: NOT SAVED"
        taps = demo_taps()
        for station, key in taps:  # a whole game, played unsaved
            box.tap(station, key)
        assert box.logged("not saved (read-only state directory)")
        assert box.proc.poll() is None
    finally:
        assert box.close() == 0
    assert [p.name for p in games.iterdir()] == [finished.name]


def test_a_torn_unfinished_game_on_a_read_only_directory_is_offered_without_writing(disk, tmp_path):
    games = disk / "games"
    games.mkdir()
    lines = full_demo_journal(tmp_path / "full").read_bytes().splitlines(keepends=True)
    torn = b"".join(lines[:6]) + lines[6][:20]
    path = games / "20260101-000000-paytoplay.jsonl"
    path.write_bytes(torn)
    assert run("mount", "-o", "remount,ro", str(disk)).returncode == 0
    box = BoxProcess(games)
    try:
        assert box.logged("a torn last line (20 bytes) is left out")
        assert box.logged("found paytoplay not over")
        assert box.notice() == "READ-ONLY: NOT SAVED"
        box.tap(1, "ok")  # resumed
        box.tap(2, "ok")  # and played on
        assert box.proc.poll() is None
    finally:
        assert box.close() == 0
    assert path.read_bytes() == torn, "the cut waits until the journal can be written"


def test_a_state_directory_in_ram_is_warned_about(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs")
    ram = tmp_path / "ram"
    ram.mkdir()
    if run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(ram)).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        box = BoxProcess(ram / "games")
        try:
            assert box.logged("is kept in RAM (tmpfs): games will not survive a power cut")
            assert box.notice() == "GAMES IN RAM ONLY"
        finally:
            assert box.close() == 0
    finally:
        run("umount", "-l", str(ram))


def test_an_overlay_whose_writes_go_to_ram_is_told_apart_from_one_on_disk(tmp_path):
    """raspi-config's overlay file system: an overlay whose upper layer is a tmpfs."""
    from companion.record.statedir import in_ram

    if os.geteuid() != 0:
        pytest.skip("needs root to mount an overlay")
    ram, lower, merged, disk_upper = (tmp_path / n for n in ("ram", "lower", "merged", "disk"))
    for d in (ram, lower, merged, disk_upper):
        d.mkdir()
    if run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(ram)).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        for upper in (ram, disk_upper):
            (upper / "upper").mkdir()
            (upper / "work").mkdir()
            made = run("mount", "-t", "overlay", "overlay", "-o",
                       f"lowerdir={lower},upperdir={upper / 'upper'},workdir={upper / 'work'}", str(merged))
            if made.returncode != 0:
                pytest.skip(f"cannot mount an overlay here: {made.stderr.strip()}")
            try:
                assert in_ram(merged) == ("overlay on tmpfs" if upper == ram else None)
            finally:
                run("umount", str(merged))
        assert in_ram(tmp_path) is None
    finally:
        run("umount", "-l", str(ram))


def test_sighup_stops_the_box_cleanly_and_sigusr1_only_logs_its_status(tmp_path):
    import queue
    import threading

    proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--profile", str(DEMO_PROFILE),
                             "--journal-dir", str(tmp_path / "games")], cwd=ROOT, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()

    def said(text: str) -> None:
        while text not in lines.get(timeout=PATIENCE_S):
            pass

    try:
        said("ready")
        proc.send_signal(signal.SIGUSR1)
        said("status: in the lobby; journal saved")
        assert proc.poll() is None
        proc.send_signal(signal.SIGHUP)
        said("stopping (SIGHUP)")
        assert proc.wait(timeout=PATIENCE_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()


def test_a_settings_save_on_a_full_disk_keeps_the_old_file_and_leaves_no_temporary_file(disk):
    from companion.settings import BoxSettings, load_settings, save_settings

    path = disk / "settings.json"
    save_settings(path, BoxSettings(volume=2))
    fill(disk)
    with pytest.raises(OSError) as raised:
        save_settings(path, BoxSettings(volume=4))
    assert raised.value.errno == 28
    assert sorted(p.name for p in disk.iterdir() if p.name != "lost+found") == ["filler", "settings.json"]
    assert load_settings(path) == BoxSettings(volume=2)


def test_an_io_error_pauses_with_its_own_notice_and_is_retried_on_the_loops_clock(tmp_path, monkeypatch):
    """EIO from fsync (a file-system double at the lowest seam, ``os.fsync``, in the writer
    thread): the game pauses saying CANNOT SAVE; the retry waits for the loop's clock."""
    import asyncio
    import errno

    import gpiozero.pins.mock

    from companion.daemon import RETRY_NS, Daemon
    from companion.profile import load_profile
    from companion.script import ScriptPress

    from helpers import FakeClock, play_on_fake_clock

    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    games = tmp_path / "games"
    daemon = Daemon(load_profile(DEMO_PROFILE), games, seed=1)
    try:
        taps = [ScriptPress(0.3 * (i + 1), station - 1, key) for i, (station, key) in enumerate(demo_taps()[:11])]
        asyncio.run(play_on_fake_clock(daemon, taps[:10], clock))  # the lobby, Alice's cursor moved
        lines = len(journal_lines(games))

        def failing(fd):
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(os, "fsync", failing)
        asyncio.run(play_on_fake_clock(daemon, [ScriptPress(0.1, 0, "ok")], clock, tail_s=0.2))
        assert daemon.saving.fault is not None and daemon.notice == "CANNOT SAVE: PAUSED"
        assert daemon._current_notice(1) == "CANNOT SAVE (Input/output error): game paused"
        assert len(journal_lines(games)) == lines  # the line written is cut off again
        monkeypatch.undo()

        def step(now_ns: int) -> None:
            async def in_a_loop() -> None:  # the buzzer plays its cues on the running loop
                daemon.step(now_ns)

            asyncio.run(in_a_loop())

        retry_at = daemon._retry_at_ns
        assert retry_at > clock.ns
        step(retry_at - 1)
        assert daemon.saving.fault is not None and not daemon.saving._retry, "not before the loop's clock says"
        step(retry_at)
        end = time.monotonic() + PATIENCE_S
        while daemon.saving.fault is not None or daemon.saving.pending:
            assert time.monotonic() < end, "the retry did not write the line"
            time.sleep(0.01)
        step(retry_at + 1)
        assert daemon.notice is None and len(journal_lines(games)) == lines + 1
    finally:
        daemon.close()


def test_a_frozen_file_system_at_a_games_start_holds_the_game_not_the_loop(disk, tmp_path, watchdog):
    """The journal is made, the old ones rotated and the game's number noted by the writer
    thread: a card frozen at the start holds the game's first screen, not the loop's watchdog."""
    path, sock = watchdog
    games = disk / "games"
    box = BoxProcess(games, env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"})
    try:
        taps = demo_taps()
        for station, key in taps[:5]:
            box.tap(station, key)
        lobby = box.snap(tmp_path / "lobby")
        drain(sock)
        with frozen(disk):
            box.tap(*taps[5])  # the lobby's last ok: the game starts
            assert box.until_notice(lambda text: text != "-") == "SAVING..."
            pings(sock, 3)  # frozen past the watchdog's timeout: the loop still pings
            assert not list(games.glob("*.jsonl"))
            for shown, earlier in zip(box.snap(tmp_path / "stalled"), lobby):
                assert above_notice(shown) == above_notice(earlier)  # no game shown before it is saved
        box.until_notice(lambda text: text == "-")
        assert len(journal_lines(games)) == 1  # the header
        started = box.snap(tmp_path / "started")
        assert above_notice(started[0]) != above_notice(lobby[0])
        for station, key in taps[6:]:
            box.tap(station, key)
        box.until_notice(lambda text: text == "-")
    finally:
        assert box.close() == 0
    assert replay_file(sorted(games.glob("*.jsonl"))[-1])[1].outcome is not None


def test_a_full_disk_at_a_games_start_pauses_it_and_it_starts_once_there_is_room(disk, tmp_path):
    games = disk / "games"
    box = BoxProcess(games)
    try:
        taps = demo_taps()
        for station, key in taps[:5]:
            box.tap(station, key)
        lobby = box.snap(tmp_path / "lobby")
        filler = fill(disk)
        box.tap(*taps[5])
        assert box.until_notice(lambda text: text != "-") == "DISK FULL: PAUSED"
        assert box.proc.poll() is None, "the box keeps running"
        assert not [p for p in games.glob("*.jsonl")], "no empty journal is left"
        for shown, earlier in zip(box.snap(tmp_path / "paused"), lobby):
            assert above_notice(shown) == above_notice(earlier)
        filler.unlink()
        box.until_notice(lambda text: text == "-")  # tried again on the loop's timer
        assert len(journal_lines(games)) == 1
        for station, key in taps[6:]:
            box.tap(station, key)
        box.until_notice(lambda text: text == "-")
    finally:
        assert box.close() == 0
    header, match = replay_file(sorted(games.glob("*.jsonl"))[-1])
    assert header.sequence == 1 and match.outcome is not None
