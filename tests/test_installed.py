"""The installed package (not the source tree) has everything it needs: the demo's profile and
script are package data, and the console command works from any folder."""

import os
import subprocess
import sys

import pytest


def run_outside_the_tree(tmp_path, *args):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True)


def test_the_installed_demo_plays_the_seed_game(tmp_path):
    where = run_outside_the_tree(tmp_path, "-c", "import companion, sys; print(companion.__file__)")
    if where.returncode != 0:
        pytest.skip("companion is not installed in this environment (pip install .)")
    result = run_outside_the_tree(tmp_path, "-m", "companion", "demo", "--game", "paytoplay", "--out", "out",
                                  "--speed", "12")
    assert result.returncode == 0, result.stderr
    [journal] = (tmp_path / "out").glob("*.jsonl")
    replayed = run_outside_the_tree(tmp_path, "-m", "companion", "replay", "--json", str(journal))
    assert '"scores": [1, 0], "winners": [0]' in replayed.stdout
    assert sorted(p.name for p in (tmp_path / "out").glob("*.png")) == ["station-1.png", "station-2.png"]
