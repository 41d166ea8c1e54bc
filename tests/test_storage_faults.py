"""Storage faults on real file systems and real box processes: a disk that fills mid-game, a
frozen file system, a second box program on the same directory, a journal directory deleted
mid-game, a read-only or in-RAM state directory, signals. Each test waits for what the box says
or writes, never for a fixed time; the ones that need root (a loop-mounted ext4) skip without."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from companion.record.journal import replay_file
from companion.record.recovery import journals
from companion.screens.canvas import LINE_H

from storage import (DEMO_PROFILE, ROOT, BoxProcess, demo_taps, fill, journal_lines, release_disk, run,
                     small_disk)


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
        assert len(journal_lines(games)) >= 1
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
