"""Triangle with one seat on a phone, in a real headless Chromium at the real box process: Ana and
Ben on the box's own (mock) buttons, Zoe on her phone, a spectator watching on another. Zoe's
phone drops mid-game and rejoins with its seat token, keeping her seat and score; the journal,
read back by ``companion replay``, holds the races as the phones saw them; after the box restarts
and the game resumes, her page takes her seat back by itself with the old code and its token.

Zoe's name is markup (``<u>Zoe</u>``): every page must show it as the text it is."""

from __future__ import annotations

import json
import math
from urllib.parse import urlsplit

from PIL import Image
from playwright.sync_api import expect

from companion.cli import main
from companion.games import get
from companion.games.options import lobby_choices

from phonebox import profile_with_phones, wired
from phones import WAIT_MS, Phone, Pictures, WebBox, scores

ZOE = "<u>Zoe</u>"
ANA, BEN, PHONE = 1, 2, 3
"""Station numbers, as the box and its taps count them (from 1)."""


def start_triangle(box: WebBox) -> None:
    """Ana walks the lobby: Triangle (the first game), its options as they are, Start."""
    for _ in range(1 + len(lobby_choices(get("triangle").Options)) + 1):
        box.tap(ANA, "ok")


def test_a_triangle_game_with_a_phone_seat_a_spectator_and_a_rejoin(chromium, tmp_path, capsys):
    pictures = Pictures("triangle", tmp_path)
    profile = profile_with_phones(tmp_path, wired("Ana", "Ben"), [(PHONE - 1, "P3", False)])
    box = WebBox(tmp_path / "games", profile, seed=8)
    try:
        watcher = Phone(chromium, box.join_url)
        assert watcher.page.input_value("#room") == box.join_url.rsplit("=", 1)[1]  # filled in from the QR's address
        pictures.take(watcher, "join")
        watcher.join("watch")
        watcher.see("#t-heading", "Choose a game")

        zoe = Phone(chromium, box.join_url)
        zoe.join("seat", ZOE)
        zoe.see("#status", f"Seat 3: {ZOE}")
        watcher.see_in("#t-scores", ZOE)  # her station takes her name, on every page
        start_triangle(box)

        # Round 1: the countdown, then the cards. Zoe slaps once her screen has painted them.
        zoe.see("#t-heading", "Slap to speak!")
        zoe.wait(zoe.painted_latest)
        pictures.take(zoe, "seat-race")
        zoe.press("slap")
        watcher.see("#t-heading", f"{ZOE} speaks")
        race = watcher.page.locator("#t-race li").all_inner_texts()
        assert race[0].split("\n")[0] == ZOE and "first" in race[0]
        # Her press is placed within her phone's clock error, and the page says the margin.
        [claim] = [m["view"]["race"] for m in watcher.received if m["type"] == "table" and m["view"]["race"]][-1:]
        margin = claim[0]["error_ms"]
        assert margin > 0 and race[0].endswith(f"\u00b1{math.floor(margin + 0.5)} ms") == (margin >= 0.5), (margin, race)
        zoe.see("#t-heading", f"{ZOE} speaks")
        # She states the first fact her panel offers.
        zoe.wait(zoe.painted_latest)
        zoe.press("ok")
        watcher.see_matching("#t-heading", rf"^{ZOE}: ")
        pictures.take(watcher, "watch-verdict")
        after_round_1 = scores(watcher)
        assert set(after_round_1) == {"Ana", "Ben", ZOE}

        # Zoe's phone is exactly her station's panel: the box's own picture of station 3.
        zoe.wait(zoe.painted_latest)
        snapped = box.snap(tmp_path / "snap")[PHONE - 1]
        assert zoe.panel_bits() == Image.open(snapped).convert("1").tobytes()

        answered_as_the_protocol_says(zoe)

        # Her phone drops (the browser is gone); the table says so and waits for her.
        kept = zoe.context.storage_state()
        zoe.close()
        watcher.see_in("#t-footer", "phone left")

        # She opens the address again: the page takes her seat back with its token.
        zoe = Phone(chromium, box.join_url, storage_state=kept)
        zoe.see("#status", f"Seat 3: {ZOE}")
        assert scores(zoe) == after_round_1
        watcher.see_not_in("#t-footer", "phone left")
        assert box.logged("station 3 taken by a phone")

        # The seat opened in a second tab of her browser moves there; the first tab says so and
        # lets it go (two tabs never take it from each other in turn). A reload takes it back.
        tab = zoe.context.new_page()
        tab.goto(box.join_url)
        expect(tab.locator("#status")).to_have_text(f"Seat 3: {ZOE}", timeout=WAIT_MS)
        zoe.see("#status", "This seat is played on another page now")
        tab.close()
        zoe.page.reload()
        zoe.see("#status", f"Seat 3: {ZOE}")

        # Round 2: Ana deals; Ben slaps alone, states a fact; Zoe's phone sees it all.
        box.tap(ANA, "ok")
        zoe.see("#t-heading", "Slap to speak!")
        box.tap(BEN, "slap")
        zoe.see("#t-heading", "Ben speaks")
        box.tap(BEN, "ok")
        zoe.see_matching("#t-heading", r"^Ben: ")
        pictures.take(zoe, "seat-rejoined")
        final = scores(watcher)
        assert scores(zoe) == final

        # Nothing of a seat ever reached the spectator, and the name stayed text on every page.
        assert not any(m["type"] == "panel" for m in watcher.received)
        for page in (watcher, zoe):
            assert page.page.locator("u").count() == 0
    finally:
        assert box.close() == 0

    # The journal, read back: Zoe's claim, then Ben's; the scores every page showed.
    [journal] = (tmp_path / "games").glob("*.jsonl")
    capsys.readouterr()
    assert main(["replay", str(journal), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert [(r["action"], r["winners"]) for r in replayed["races"]] == [("claim", [PHONE - 1]), ("claim", [BEN - 1])]
    assert replayed["scores"] == [int(final[name]) for name in ("Ana", "Ben", ZOE)]

    # The box starts again, on the port it had (a real box's profile names one): it offers the
    # game back, and a phone that watches sees it resumed.
    port = urlsplit(box.join_url).port
    profile.write_text(profile.read_text().replace("port = 0", f"port = {port}"))
    box = WebBox(tmp_path / "games", profile, seed=8)
    assert urlsplit(box.join_url).port == port
    try:
        watcher = Phone(chromium, box.join_url)
        watcher.join("watch")
        watcher.see_in("#t-heading", "Resume")
        box.tap(ANA, "ok")
        watcher.see_matching("#t-heading", r"^Ben: ")
        assert scores(watcher) == final
        # Zoe's page still holds the old room's code and her seat's token: the resumed game held her
        # seat for her (the box kept its claim), so the page takes it back, her score with it.
        assert kept_room(kept) != box.join_url.rsplit("=", 1)[1]
        zoe = Phone(chromium, box.join_url.rsplit("=", 1)[0] + "=" + kept_room(kept), storage_state=kept)
        zoe.see("#status", f"Seat 3: {ZOE}")
        assert scores(zoe) == final
    finally:
        assert box.close() == 0


def answered_as_the_protocol_says(phone: Phone) -> None:
    """What the page sent (docs/PHONE-PROTOCOL.md): a hello first; a pong for each ping, once,
    in order, its time on the phone's clock never going back; presses numbered from 1, each down
    then up, at the touch's own time on that clock; a painted report only of a frame it was sent."""
    sent = phone.sent
    assert sent[0]["type"] == "hello"
    pings = [m["id"] for m in phone.received if m["type"] == "ping"]
    pongs = [m for m in sent if m["type"] == "pong"]
    assert [m["id"] for m in pongs] == pings[:len(pongs)] and len(pongs) >= len(pings) - 1
    assert all(a["t"] <= b["t"] for a, b in zip(pongs, pongs[1:]))
    presses = [m for m in sent if m["type"] == "press"]
    assert [m["seq"] for m in presses] == list(range(1, len(presses) + 1))
    assert [(m["key"], m["down"]) for m in presses] == [("slap", True), ("slap", False), ("ok", True), ("ok", False)]
    assert all(pongs[0]["t"] < m["t"] < pongs[-1]["t"] for m in presses)
    frames = {m["frame"] for m in phone.received if m["type"] == "panel"}
    assert {m["frame"] for m in sent if m["type"] == "painted"} <= frames


def kept_room(storage_state: dict) -> str:
    """The room a page's stored seat token is for."""
    [origin] = storage_state["origins"]
    [key] = [item["name"] for item in origin["localStorage"] if item["name"].startswith("companion.seat.")]
    return key.rsplit(".", 1)[1]
