"""Every test leaves the root logger as it found it: a command run in-process (``main([...])``)
sets up the CLI's logging, which must not outlive the test. Property tests have no deadline: how
long one example takes depends on how busy the machine is, not on the code under test."""

import logging

import pytest
from hypothesis import settings

settings.register_profile("any-machine", deadline=None)
settings.load_profile("any-machine")

from companion.logs import StderrHandler


@pytest.fixture(autouse=True)
def cli_logging_removed():
    root = logging.getLogger()
    before, level = root.handlers[:], root.level
    yield
    for handler in root.handlers[:]:
        if isinstance(handler, StderrHandler) and handler not in before:
            root.removeHandler(handler)
    root.setLevel(level)
