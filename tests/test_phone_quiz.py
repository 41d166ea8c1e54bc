"""A quiz night with eight phones as buzzers beside four wired ones, over real WebSockets on a fake
clock: the first press by its own time answers, and every view shows a phone's margin."""

from __future__ import annotations

import asyncio
import json

from companion.games import get
from companion.games.options import lobby_choices

from helpers import until
from phonebox import PhoneBox, profile_with_phones

HOST = ("Host", {"slap": 4, "left": 17, "ok": 27, "right": 22})
BUZZERS = [(name, {"slap": pin}) for name, pin in (("Ana", 5), ("Ben", 6), ("Cy", 13), ("Dee", 19))]
PHONES = [(5 + i, name, True) for i, name in enumerate(("Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim", "Lou"))]


async def start_quiz(box: PhoneBox) -> None:
    """The host walks the lobby to the quiz and starts it, every station seated (the host first),
    and the first question waits for the host's slap. "Who plays?" is asked only where there is a
    choice (not at three stations, the quiz's least), so the host's oks are counted from it: one
    ok too many opens the score corrections, and the next slap only closes them."""
    steps = [g.name for g in box.daemon.table.lobby.games].index("quiz")
    who_plays = len(box.daemon.table.names) > get("quiz").min_players
    for key in ["right"] * steps + ["ok"] * (1 + who_plays + len(lobby_choices(get("quiz").Options)) + 1):
        await box.tap(0, key)
    game = box.daemon.table.game
    assert game is not None and game.match.rules.name == "quiz"
    assert game.state.phase == "ready" and not game.menu


async def arm(box: PhoneBox) -> None:
    await box.tap(0, "slap")
    await box.settle()  # every phone gets the cue and says when it painted it
    game = box.daemon.table.game
    while game.race is None or game.race.onsets is None:  # every panel shows it, every phone painted it
        await box.run_for(10)


def test_eight_phone_buzzers_beside_four_wired_ones_the_first_by_its_own_time_answers(tmp_path, monkeypatch):
    profile = profile_with_phones(tmp_path, [HOST, *BUZZERS], PHONES)
    box = PhoneBox(profile, tmp_path / "games", seed=2, monkeypatch=monkeypatch)

    async def night():
        async with box:
            phones = [await box.join("buzzer") for _ in PHONES]
            assert [p.welcome["seat"] for p in phones] == list(range(6, 14))
            assert all(p.welcome["keys"] == ["slap"] for p in phones)
            await start_quiz(box)
            game = box.daemon.table.game
            # Question 1: Gus's phone (seat 7) buzzes 300 ms after the cue, Ben's button 80 ms after him,
            # the other phones later still.
            await arm(box)
            await box.run_for(300)
            await box.phone_tap(phones[2])
            await box.run_for(80)
            await box.tap(2)
            for phone in phones[3:6]:
                await box.run_for(40)
                await box.phone_tap(phone)
            while game.state.phase == "open":
                await box.run_for(20)
            assert game.state.answering == 7  # Gus, on his phone
            await box.tap(0, "ok")  # right
            await box.run_for(50)
            assert game.state.scores[7] == 1
            # Question 2: Kim's phone, then Ana's button 100 ms later: Kim answers, her margin shown.
            await arm(box)
            await box.run_for(300)
            await box.phone_tap(phones[6])
            await box.run_for(100)
            await box.tap(1)
            while game.state.phase == "open":
                await box.run_for(20)
            assert game.state.answering == 11
            await box.settle()
            race = {r["name"]: r for r in phones[0].view["race"]}
            assert race["Kim"]["error_ms"] > 0 and race["Ana"]["error_ms"] == 0  # the TV's timeline too
            assert race["Ana"]["delta_ms"] > race["Kim"]["error_ms"]
            return sorted((tmp_path / "games").glob("*quiz.jsonl"))[-1]

    journal = asyncio.run(night())
    buzzes = [json.loads(line) for line in journal.read_text().splitlines() if '"buzz"' in line]
    assert buzzes[0]["player"] == 7 and buzzes[0]["error_ms"][7] > 0 and buzzes[0]["error_ms"][2] == 0


def test_a_panel_is_encoded_again_only_when_its_pixels_change(tmp_path, monkeypatch):
    """Every change on the table shows every phone station's panel; the wall sends only those that
    differ, but encoding the PNGs is the referee's time. Four phone buzzers shown three times with
    nothing new: no encoding (on main, twelve); one panel changed: one, and only its phone is sent
    a new frame."""
    from PIL import Image

    import companion.web.server as server

    profile = profile_with_phones(tmp_path, [HOST, *BUZZERS[:2]], PHONES[:4])
    box = PhoneBox(profile, tmp_path / "games", seed=2, monkeypatch=monkeypatch)
    encoded = []
    real = server.panel_png
    monkeypatch.setattr(server, "panel_png", lambda image: encoded.append(image) or real(image))

    async def night() -> tuple[int, int, list[int]]:
        async with box:
            phones = [await box.join("buzzer") for _ in range(4)]
            await box.settle()
            before = len(encoded)
            for _ in range(3):
                box.daemon._show_phones({}, None)
            unchanged = len(encoded) - before
            panels = [len(p.frames("panel")) for p in phones]
            station = phones[1].welcome["seat"] - 1
            box.daemon._show_phones({station: Image.new("1", (128, 64), 1)}, None)
            await box.settle()
            return unchanged, len(encoded) - before - unchanged, [len(p.frames("panel")) - n for p, n in zip(phones, panels)]

    unchanged, changed, sent = asyncio.run(night())
    assert unchanged == 0 and changed == 1
    assert sent == [0, 1, 0, 0]
