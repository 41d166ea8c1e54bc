"""The package's extras: the simulator's pygame is pygame-ce, and plain pygame is never pulled in
beside it (both install the same `pygame` module, and whichever is installed last overwrites the
other's files)."""

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).parent.parent / "pyproject.toml"


def requirement_names(requirements: list[str]) -> set[str]:
    return {re.match(r"[A-Za-z0-9._-]+", r).group(0).lower().replace("_", "-") for r in requirements}


def test_the_simulator_and_the_tests_take_pygame_ce_and_no_extra_takes_plain_pygame():
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    extras = project["optional-dependencies"]
    assert "pygame-ce" in requirement_names(extras["sim"])
    assert "pygame-ce" in requirement_names(extras["test"])
    for name, requirements in [("dependencies", project["dependencies"]), *extras.items()]:
        assert "pygame" not in requirement_names(requirements), f"{name} pulls in plain pygame"
