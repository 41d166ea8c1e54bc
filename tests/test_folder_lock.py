"""One box program per journal folder, whatever happens to the folder: deleted and made again
while the box waits in the lobby, or moved away mid-game. Real box processes, a real folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import PATIENCE_S
from storage import DEMO_PROFILE, DEMO_SCRIPT, ROOT, BoxProcess, demo_taps, until_saved


def second_box(games: Path) -> subprocess.CompletedProcess:
    """``companion run`` of the demo script on ``games``: refused while another box holds it."""
    return subprocess.run([sys.executable, "-m", "companion", "run", "--profile", str(DEMO_PROFILE), "--script",
                           str(DEMO_SCRIPT), "--speed", "20", "--journal-dir", str(games)],
                          cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE_S * 4,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_second_box_on_a_folder_deleted_and_made_again_in_the_lobby_is_refused(tmp_path):
    games = tmp_path / "games"
    first = BoxProcess(games)
    try:
        shutil.rmtree(games)
        games.mkdir()
        second = second_box(games)
        assert second.returncode == 2, second.stderr
        assert f"in use by another companion program (pid {first.proc.pid}, " in second.stderr
        assert not list(games.glob("*.jsonl")), "the second box played nothing there"
        for station, key in demo_taps()[:11]:  # the first box's game and its first move: in the folder made again
            first.tap(station, key)
        until_saved(first, games, 2)  # the header and Alice's move
        again = second_box(games)
        assert again.returncode == 2, again.stderr
    finally:
        assert first.close() == 0


def test_a_folder_moved_away_mid_game_is_not_offered_as_the_same_game_again(tmp_path):
    games, moved = tmp_path / "games", tmp_path / "moved"
    first = BoxProcess(games)
    try:
        taps = demo_taps()
        for station, key in taps[:16]:
            first.tap(station, key)
        games.rename(moved)
        assert first.until_notice(lambda text: text != "-") == "JOURNAL REWRITTEN"
        second = second_box(moved)  # on the folder moved away, while the first box plays on
        assert second.returncode == 2, second.stderr
        assert f"in use by another companion program (pid {first.proc.pid}, " in second.stderr
    finally:
        assert first.close() == 0
    assert not list(moved.glob("*.jsonl")), "the copy left behind is no game to offer"
    later = BoxProcess(moved)  # the first box gone: a box on the moved folder finds no game to resume
    try:
        assert later.logged("no game to resume")
    finally:
        assert later.close() == 0
    assert len(list(games.glob("*.jsonl"))) == 1, "the game lives on in the first box's folder"
