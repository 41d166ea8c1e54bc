"""Every test leaves the root logger as it found it: a command run in-process (``main([...])``)
sets up the CLI's logging, which must not outlive the test."""

import logging

import pytest

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
