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


CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium (`apt-get install chromium`; .ci/run installs it): Playwright drives the
system's browser, since its own browser downloads are not available where the box is built."""
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
"""Headless, as root in a container (no sandbox), and quiet: nothing fetched from outside."""


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for a test module; each phone in a test is its own context of it
    (its own storage, so its own seat token), as each phone is its own browser. Not for the
    whole session: while Playwright's sync API runs, its event loop is this thread's running
    loop, and every later test's ``asyncio.run`` would refuse to start."""
    from pathlib import Path

    if not Path(CHROMIUM).exists():
        pytest.skip(f"no {CHROMIUM}: the phone's page is tested in Debian's chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()
