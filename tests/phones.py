"""Phones in a real headless Chromium at a real box process: the box (tests/boxproc.py on a mock
profile with ``[web]``, made by :func:`phonebox.profile_with_phones`; its wired stations pressed
from stdin) and each phone its own browser context (its own storage, so its own seat token), on
the page the box serves.

Everything here waits for what the box or the page does (a line, a text on the page), never for
a fixed time: Playwright's waits poll the page until the condition holds, up to PATIENCE_S.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import time
from contextlib import contextmanager
from pathlib import Path

from PIL import Image
from playwright.sync_api import expect

from helpers import PATIENCE_S
from storage import BoxProcess

WAIT_MS = PATIENCE_S * 1000
POLL_MS = 20
"""How often a test looks again at what a phone was sent while it waits (never a deadline)."""
PHONE_SIZE = {"width": 390, "height": 844}
"""A phone's screen in CSS pixels (a common 6.1-inch phone)."""
JOIN = re.compile(r"http://\S+/\?room=[A-Z]+")


class WebBox(BoxProcess):
    """The real box with its web companion; :attr:`join_url` is the address its QR code holds."""

    def __init__(self, journal_dir: Path, profile: Path, seed: int = 1) -> None:
        super().__init__(journal_dir, profile, seed)
        self.journal_dir = journal_dir
        self.join_url = self.said_match(JOIN)

    def said_match(self, pattern: re.Pattern) -> str:
        """The first match of ``pattern`` in what the box said or says next."""
        for line in self.said:
            if found := pattern.search(line):
                return found.group(0)
        while True:
            if found := pattern.search(self.expect("")):
                return found.group(0)


@contextmanager
def watched_box(browser, journal_dir: Path, profile: Path, seed: int = 3):
    """The real box and a phone watching its table: ``(box, watcher, phones)``. Every phone in
    ``phones`` (the test adds its own) is closed after, and the box must then end cleanly."""
    box = WebBox(journal_dir, profile, seed)
    phones: list[Phone] = []
    try:
        watcher = Phone(browser, box.join_url)
        phones.append(watcher)
        watcher.join("watch")
        yield box, watcher, phones
    finally:
        for phone in phones:
            phone.close()
        assert box.close() == 0


class Phone:
    """One phone: a browser context of its own (touch screen, phone-sized), on the join address.

    Every frame the box sends it is kept in :attr:`received` (parsed), so a test can check what
    a phone was told as well as what it shows."""

    def __init__(self, browser, url: str, storage_state: dict | None = None, init_script: str | None = None) -> None:
        self.context = browser.new_context(viewport=PHONE_SIZE, has_touch=True, is_mobile=True,
                                           storage_state=storage_state)
        if init_script is not None:  # run before the page's own script (a browser of another make)
            self.context.add_init_script(init_script)
        self.context.set_default_timeout(WAIT_MS)
        self.page = self.context.new_page()
        self.received: list[dict] = []
        self.sent: list[dict] = []
        self.page.on("websocket", self._watch)
        self.page.goto(url)

    def _watch(self, ws) -> None:
        ws.on("framereceived", lambda payload: self.received.append(json.loads(payload)))
        ws.on("framesent", lambda payload: self.sent.append(json.loads(payload)))

    def join(self, role: str, name: str = "") -> None:
        """Type the name and press the role's button (the room code is filled in from the URL)."""
        if name:
            self.page.fill("#name", name)
        self.page.click(f"#join button[data-role={role}]")

    def key(self, key: str):
        return self.page.locator(f"#keys .key-{key}")

    def press(self, key: str) -> None:
        """A tap of ``key`` on the touch screen; returns once the box has said it got the press."""
        before = self.got()
        self.key(key).tap()
        self.wait(lambda: self.got() > before)

    def got(self) -> int:
        """How many presses the box has confirmed (``got`` frames)."""
        return sum(1 for m in self.received if m.get("type") == "got")

    def wait(self, condition) -> None:
        """Wait until ``condition()`` holds; the page runs meanwhile (its frames are read)."""
        end = time.monotonic() + PATIENCE_S
        while not condition():
            assert time.monotonic() < end, f"waited {PATIENCE_S} s in vain; the phone was sent: {self.received[-5:]}"
            self.page.wait_for_timeout(POLL_MS)

    def painted_latest(self) -> bool:
        """Whether the page has said it painted the last panel the box sent it (a race revealed
        on it is timed from then: a press before would be too early)."""
        panels = [m["frame"] for m in self.received if m.get("type") == "panel"]
        return bool(panels) and any(m.get("type") == "painted" and m["frame"] == panels[-1] for m in self.sent)

    def see(self, selector: str, text: str) -> None:
        """Wait until the element shows exactly ``text``."""
        expect(self.page.locator(selector)).to_have_text(text, timeout=WAIT_MS)

    def see_matching(self, selector: str, pattern: str) -> None:
        expect(self.page.locator(selector)).to_have_text(re.compile(pattern), timeout=WAIT_MS)

    def see_in(self, selector: str, text: str) -> None:
        expect(self.page.locator(selector)).to_contain_text(text, timeout=WAIT_MS)

    def see_not_in(self, selector: str, text: str) -> None:
        expect(self.page.locator(selector)).not_to_contain_text(text, timeout=WAIT_MS)

    def text(self, selector: str) -> str:
        return self.page.locator(selector).inner_text()

    def panel_bits(self) -> bytes:
        """The seat's panel as the page shows it (the image the box sent), one byte per 8 pixels."""
        src = self.page.get_attribute("#panel", "src")
        assert src and src.startswith("data:image/png;base64,")
        return Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("1").tobytes()

    def close(self) -> None:
        self.context.close()


def scores(phone: Phone) -> dict[str, str]:
    """The scores as a page shows them: name -> points."""
    rows = phone.page.locator("#t-scores li")
    return {rows.nth(i).locator("span").inner_text(): rows.nth(i).locator("b").inner_text()
            for i in range(rows.count())}


class Pictures:
    """What the phones showed, as PNGs: into ``PHONE_PICTURES`` if set (docs/phones/ is made so:
    ``PHONE_PICTURES=docs/phones pytest tests/test_phones_triangle.py tests/test_phones_quiz.py``),
    else into the test's own folder."""

    def __init__(self, game: str, directory: Path) -> None:
        self.game = game
        self.directory = Path(os.environ.get("PHONE_PICTURES") or directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def take(self, phone: Phone, what: str) -> Path:
        path = self.directory / f"{self.game}-{what}.png"
        phone.page.screenshot(path=path, full_page=True, animations="disabled")
        return path
