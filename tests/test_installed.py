"""The installed package (not the source tree) has everything it needs: the demo's profile and
script are package data, and the command starts every way a maker may start it, from any folder.

The checkout is installed once per session into a virtual environment of its own, as a user's
``pip install .`` would (a wheel built from ``pyproject.toml``: package data, console script),
without dependencies: the new environment sees this interpreter's site-packages through a
``.pth`` file, so nothing is downloaded but the build backend. Only a machine where pip cannot
get that backend skips these tests, saying why."""

import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Path:
    """The ``bin`` folder of a venv with the checkout installed in it."""
    root = tmp_path_factory.mktemp("installed")
    source = root / "source"  # a copy: building leaves build/ and *.egg-info beside the sources
    shutil.copytree(ROOT / "companion", source / "companion", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    venv.create(root / "venv", symlinks=True)  # without pip: this interpreter's pip installs
    python = root / "venv" / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    here = [*site.getsitepackages(), site.getusersitepackages()]
    (Path(purelib) / "running-interpreter.pth").write_text("\n".join(here) + "\n")
    result = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", str(source)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"pip cannot install the checkout here: {result.stderr.strip()[-300:]}")
    return python.parent


def run_outside_the_tree(tmp_path, command, *args):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(command), *args], cwd=tmp_path, env=env, capture_output=True, text=True)


def test_the_installed_package_is_not_the_source_tree(installed, tmp_path):
    where = run_outside_the_tree(tmp_path, installed / "python", "-c", "import companion; print(companion.__file__)")
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed.parent), where.stdout


def test_the_installed_demo_plays_the_seed_game(installed, tmp_path):
    """At the demo's own pace (its presses 100 ms apart), as a user runs it."""
    result = run_outside_the_tree(tmp_path, installed / "python", "-m", "companion", "demo",
                                  "--game", "paytoplay", "--out", "out")
    assert result.returncode == 0, result.stderr
    [journal] = (tmp_path / "out").glob("*.jsonl")
    replayed = run_outside_the_tree(tmp_path, installed / "python", "-m", "companion", "replay", "--json", str(journal))
    assert '"scores": [1, 0], "winners": [0]' in replayed.stdout
    assert sorted(p.name for p in (tmp_path / "out").glob("*.png")) == ["station-1.png", "station-2.png"]


@pytest.mark.parametrize("start", [("companion",), ("python", "-m", "companion"), ("python", "-m", "companion.cli")])
def test_the_command_starts_every_way_a_maker_may_start_it(installed, tmp_path, start):
    command, *args = start
    result = run_outside_the_tree(tmp_path, installed / command, *args, "games", "--journal-dir", str(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, f"no games in {tmp_path}\n", "")


@pytest.mark.parametrize("module", ["companion", "companion.cli"])
def test_a_checkout_runs_the_command_as_a_module(tmp_path, module):
    """Not installed (PYTHONPATH at the checkout), as docs/COMMANDS.md says: even where pip
    cannot install the checkout and the tests above skip."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", module, "games", "--journal-dir", str(tmp_path)],
                            cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"no games in {tmp_path}\n", "")
