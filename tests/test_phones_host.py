"""A night of ten questions from a pack (checked with ``companion pack check``) hosted from a phone,
for eight players, in a real headless Chromium at the real box
(``companion run`` with a [web] profile): the host at station 1 starts the quiz and never touches
it again; the host's phone, joined with the PIN from the box, reads each question with its answer,
arms, sees the ring-ins and judges; eight players buzz on their phones, a watcher follows. The box
is killed mid-question (a power cut) and started again on the same journal folder: the night
resumes, the players' pages take their seats back by themselves and the host's page its role
(with its token, though the box made a new PIN), and the night is played to its end. ``companion replay`` tells it from the journal.

Everything waits for what the page shows or the box logs, never for a fixed time.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from companion.arbiter.inputs import InputEvent
from companion.cli import main
from companion.games.quiz_packs import SHELF, read_pack
from companion.table import Table

from helpers import PATIENCE_S
from phonebox import profile_with_phones, wired
from phones import Phone, Pictures

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "docs" / "packs" / "first-night.csv"
PLAYERS = ("Ana", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")
OPTIONS = ("--option", f"quiz.pack={PACK}")
"""The pack's ten questions make the night (the lobby's 10)."""
PIN = re.compile(r"joins with the PIN (\d{6})")
ANSWERS = ("Canberra", "Eight", "Mars", "1989", "Au", "Sydney")


def oks_to_start() -> int:
    """How many ``ok`` presses at station 1 start the quiz from its lobby menu, with these options
    (on "Who plays?", before anyone joins, ``ok`` seats every station): counted on a table."""
    SHELF.use(None, (str(PACK),))
    try:
        table = Table(("Host", *PLAYERS), defaults={"quiz": {"pack": str(PACK)}})
        table.lobby.index = [g.name for g in table.lobby.games].index("quiz")
        for n in range(1, 60):
            for down, ns in ((True, n * 10**8), (False, n * 10**8 + 10**7)):
                table.handle(InputEvent(0, "ok", down, ns))
            table.tick(n * 10**8 + 10**7, n * 10**8 + 10**7)
            if table.game is not None:
                return n
    finally:
        SHELF.use(None)
    raise AssertionError("the quiz never started")


class Run:
    """``companion run`` on ``journals``, its log read as it runs (a thread: the test's thread is
    Playwright's)."""

    def __init__(self, profile: Path, script: Path, journals: Path, *args: str) -> None:
        self.log: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--profile", str(profile), "--script", str(script),
             "--journal-dir", str(journals), *args], cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
            text=True, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
        threading.Thread(target=self._read, daemon=True).start()
        self.pin = self.logged(PIN)
        self.room = self.logged(re.compile(r"\(room ([A-Z]{6})\)"))

    def _read(self) -> None:
        for line in self.process.stderr:
            self.log.append(line)

    def logged(self, pattern: re.Pattern) -> str:
        end = time.monotonic() + PATIENCE_S
        while True:
            for line in list(self.log):
                if found := pattern.search(line):
                    return found.group(1)
            assert self.process.poll() is None, "".join(self.log)
            assert time.monotonic() < end, "".join(self.log[-20:])
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(PATIENCE_S)


def free_port() -> int:
    """A port for the box to listen on, the same after its restart (the pages reconnect to it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def host_with_pin(phone: Phone, pin: str, room: str | None = None, picture=None) -> None:
    """Host from this phone: the PIN (and the room code, if a new one) typed on the join page;
    ``picture(phone)`` takes the page as it is about to join."""
    if room is not None:
        phone.page.fill("#room", room)
    if phone.page.get_attribute("#hosting", "open") is None:  # (open already after a refusal)
        phone.page.click("#hosting summary")
    phone.page.fill("#pin", pin)
    if picture is not None:
        picture(phone)
    phone.page.click("#join button[data-role=host]")
    phone.see_matching("#status", r"^Hosting room [A-Z]{6}$")


def host_key(host: Phone, key: str) -> None:
    """A tap of one of the host page's keys; returns once the box has said it got it."""
    before = host.got()
    host.page.locator(f"#h-keys .key-{key}").tap()
    host.wait(lambda: host.got() > before)


def armed_since(phone: Phone, mark: int) -> bool:
    """Whether the phone was sent, since frame ``mark``, a view saying the buzzers are armed
    (said once every panel has shown the cue) and a panel, and has painted its latest panel."""
    new = phone.received[mark:]
    return (any(m["type"] == "table" and m["view"].get("heading") == "Buzzers armed!" for m in new)
            and any(m["type"] == "panel" for m in new) and phone.painted_latest())


def arm(host: Phone, players: list[Phone]) -> None:
    """The host arms from the phone; every player's phone has shown it (a press before is early;
    the last question's armed page is no sign)."""
    marks = [len(phone.received) for phone in players]
    host_key(host, "arm")
    for phone, mark in zip(players, marks):
        phone.wait(lambda: armed_since(phone, mark))
        phone.see("#t-heading", "Buzzers armed!")


def rejoined(phone: Phone, received_at: int, sent_at: int) -> None:
    """Wait until the page, after the box's restart, has taken its seat back (a welcome since
    ``received_at``), its clock is timed again (a ping since), it shows the re-armed question and
    has painted its latest panel since (``sent_at``): a press before any of it would be lost or early."""
    def ready() -> bool:
        new = phone.received[received_at:]
        kinds = [m["type"] for m in new]
        if "welcome" not in kinds:
            return False
        since = new[len(kinds) - kinds[::-1].index("welcome"):]
        panels = [m["frame"] for m in since if m["type"] == "panel"]
        armed = any(m["type"] == "table" and m["view"].get("heading") == "Buzzers armed!" for m in since)
        painted = bool(panels) and any(m.get("type") == "painted" and m["frame"] == panels[-1]
                                       for m in phone.sent[sent_at:])
        return armed and painted and "ping" in [m["type"] for m in since]
    phone.wait(ready)


def test_a_night_from_a_pack_hosted_from_a_phone_survives_a_power_cut(chromium, tmp_path, capsys):
    assert main(["pack", "check", str(PACK)]) == 0  # the host checks the night's ten questions first
    assert "ok (10 questions" in capsys.readouterr().out
    pictures = Pictures("host", tmp_path)
    profile = profile_with_phones(tmp_path, wired("Host"), [(1 + n, name, True) for n, name in enumerate(PLAYERS)])
    profile.write_text(profile.read_text().replace("port = 0", f"port = {free_port()}"))
    first, again = tmp_path / "first.txt", tmp_path / "again.txt"
    first.write_text("# station 1 starts the quiz, every station seated\n"
                     + "".join(f"{0.2 * (i + 1):.1f} 1 ok\n" for i in range(oks_to_start())) + "3600 1 slap\n")
    again.write_text("# station 1 resumes the interrupted quiz\n1.0 1 ok\n3600 1 slap\n")
    journals = tmp_path / "games"
    box = Run(profile, first, journals, "--game", "quiz", *OPTIONS)
    url = "http://127.0.0.1:" + box.logged(re.compile(r"join at http://[^:]+:(\d+/\?room=[A-Z]+)"))
    phones: list[Phone] = []
    try:
        watcher = Phone(chromium, url)
        watcher.join("watch")
        host = Phone(chromium, url)
        host_with_pin(host, box.pin, picture=lambda phone: pictures.take(phone, "join"))
        for name in PLAYERS:
            phone = Phone(chromium, url)
            phone.join("buzzer", name)
            phones.append(phone)
        ana, ben, cy, dee, eve = phones[:5]
        host.see("#h-heading", "Q1/10 \u00B7 Geography")
        host.see("#h-question", "What is the capital of Australia?")
        host.see("#h-answer", "Answer: Canberra")
        host.see("#h-notes", "not Sydney")
        host.see("#h-status", "Read Q1, then arm")
        pictures.take(host, "reads")

        # Q1: Ana alone; the page names her; right.
        arm(host, phones)
        ana.press("slap")
        host.see("#h-status", "Ana answers")
        host_key(host, "right")
        watcher.see("#t-heading", "Ana was right!")

        # Q2: Ben, then Cy: the ring-ins in order, Cy next if Ben is wrong; wrong, then Cy right.
        host.see("#h-question", "How many legs has a spider?")
        arm(host, phones)
        ben.press("slap")
        cy.press("slap")
        # one after the other: Ben first, or a tie where their phones' margins overlap, which the
        # host settles from the phone
        host.see_matching("#h-status", r"^(Ben answers|Tie: Ben&Cy)$")
        if host.text("#h-status").startswith("Tie"):
            pictures.take(host, "tie")
            before = host.got()
            host.page.locator("#h-keys .key-pick", has_text="Pick Ben").tap()
            host.wait(lambda: host.got() > before)
        host.see("#h-status", "Ben answers")
        host.see("#h-next", "Next if wrong: Cy")
        host.see_in("#h-race li:nth-child(2)", "Cy")
        pictures.take(host, "ring-ins")
        host_key(host, "wrong")
        host.see("#h-status", "Cy answers")
        host_key(host, "right")
        watcher.see("#t-heading", "Cy was right!")
        host.see_in("#h-keys .key-correct", "Correct: Cy was right")

        # Q3 armed, then the power cut.
        arm(host, phones)
        marks = [(len(phone.received), len(phone.sent)) for phone in phones]
        box.process.kill()
        box.process.wait(PATIENCE_S)
        old_pin = box.pin

        box = Run(profile, again, journals, *OPTIONS)
        assert box.pin != old_pin
        # Every page takes its place back by itself, the host's too: its token was kept with the
        # seats' claims, so nobody types the new PIN.
        host.see("#h-question", "Which planet is known as the red planet?")
        watcher.see_in("#refused", "room code")  # a watcher has no token: the new code from the TV
        watcher.page.fill("#room", box.room)
        watcher.join("watch")
        for phone, name, (received_at, sent_at) in zip(phones, PLAYERS, marks):  # the box armed it again
            rejoined(phone, received_at, sent_at)
            phone.see_matching("#status", rf"^Seat \d: {name}$")
        dee.press("slap")
        host.see("#h-status", "Dee answers")
        host_key(host, "right")
        watcher.see("#t-heading", "Dee was right!")

        # Q4 (2 points in the pack) to Q10 (3 points): one player each, right; Q9 skipped.
        for question, (answer, who) in enumerate(zip(["1989", "Au", "Leonardo da Vinci", "The Pacific", "Four",
                                                      "Carbon dioxide", "France"],
                                                     [eve, phones[5], phones[6], ana, ben, None, phones[7]]), 4):
            host.see("#h-heading", re.compile(rf"^Q{question}/10 "))
            host.see("#h-answer", f"Answer: {answer}")
            arm(host, phones)
            if who is None:
                host_key(host, "skip")
                continue
            who.press("slap")
            name = PLAYERS[phones.index(who)]
            host.see("#h-status", re.compile(rf"^{name} answers( \d+s)?$"))  # Q10 has a 20 s answer timer
            host_key(host, "right")
        host.see("#h-status", "Quiz over")
        host.see("#h-heading", "1. Hal 3")
        assert not host.text("#h-answer") and not host.text("#h-question")
        pictures.take(host, "over")
        assert not host.page.locator("#h-keys button").count()
        # The watcher never saw a host page, nor an answer.
        assert not [m for m in watcher.received if m["type"] == "host"]
        shown = watcher.page.inner_text("body") + json.dumps(watcher.received)
        assert not [a for a in ANSWERS if re.search(rf"\b{a}\b", shown)]
    finally:
        for phone in phones:
            phone.close()
        box.stop()

    # One journal, resumed: each question asked kept in its arm line, the resumed question's too.
    [journal] = journals.glob("*quiz*.jsonl")
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [line["ask"]["answer"] for line in lines if line.get("action") == "arm" and "ask" in line] == \
        [row.answer for row in read_pack(PACK).questions]
    capsys.readouterr()
    assert main(["replay", str(journal), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["over"] and replayed["scores"] == [0, 2, 1, 1, 1, 2, 1, 1, 3]  # Q4 is worth 2, Q10 3
    # Ana, Ben (or his tie with Cy), Dee, Eve, Fay, Gus, Ana, Ben, Hal
    assert [race["winners"][0] for race in replayed["races"]] == [1, 2, 4, 5, 6, 7, 1, 2, 8]
    assert [(a["right"], a["wrong"]) for a in replayed["detail"]["asked"]] == \
        [(1, []), (3, [2]), (4, []), (5, []), (6, []), (7, []), (1, []), (2, []), (None, []), (8, [])]
    assert main(["replay", str(journal)]) == 0
    told = capsys.readouterr().out
    assert "The night's story:\n  1. Hal 3 points: 1 right, 0 wrong" in told
