"""The quiz host's phone over real WebSockets on a fake clock: taken with the host's PIN (a wrong
PIN counted and backed off per peer as a wrong room code), shown the question, its answer and
notes and the ring-ins, its keys acting on the night beside the host's station, a key pressed
on a page the station has moved past refused; never a frame of it to anyone else."""

from __future__ import annotations

import asyncio
from pathlib import Path

from companion.web.door import FREE_TRIES, Guesses

from helpers import until
from phonebox import PhoneBox, profile_with_phones

HOST = ("Host", {"slap": 4, "left": 17, "ok": 27, "right": 22})
BUZZERS = [("Ana", {"slap": 5}), ("Ben", {"slap": 6})]
PACK = Path(__file__).parent / "packs" / "pub-night.csv"
DEFAULTS = {"quiz": {"questions": 3, "pack": str(PACK), "after_wrong": "next"}}


async def start_quiz(box: PhoneBox) -> None:
    """The host walks the lobby to the quiz, picks it and presses ok until it starts (with
    nobody joined on "Who plays?", every station plays)."""
    table = box.daemon.table
    steps = [g.name for g in table.lobby.games].index("quiz")
    for key in ["right"] * steps + ["ok"]:
        await box.tap(0, key)
    for _ in range(30):
        if table.game is not None:
            return
        await box.tap(0, "ok")
    raise AssertionError("the quiz never started")


async def page(box: PhoneBox, host, **wanted) -> dict:
    """The host's page once it says what ``wanted`` says (a value, or a test of it); the box
    steps meanwhile."""
    def shows():
        p = host.host_page
        return p is not None and all(v(p.get(k)) if callable(v) else p.get(k) == v for k, v in wanted.items())
    for _ in range(500):  # 5 s of the fake clock: the box answers within a step or two
        if shows():
            return host.host_page
        await box.run_for(10)
        await box.settle()
    raise AssertionError(f"the host's page never showed {wanted}: {host.host_page}")


async def arm_and_buzz(box: PhoneBox, host, station: int, phone_arms: bool = True) -> None:
    """Armed (from the phone or the station), every panel shows it, then ``station`` buzzes."""
    if phone_arms:
        await host.host(act="arm")
    else:
        await box.tap(0, "slap")
    game = box.daemon.table.game
    for _ in range(500):
        if game.race is not None and game.race.onsets is not None:
            break
        await box.run_for(10)
    else:
        raise AssertionError(f"never armed: {game.state.phase}, {host.host_page}")
    await box.run_for(300)
    await box.tap(station)
    while game.state.phase == "open":
        await box.run_for(20)


def test_the_host_s_phone_needs_the_pin_and_hosts_beside_the_station(tmp_path, monkeypatch):
    profile = profile_with_phones(tmp_path, [HOST, *BUZZERS], [])
    box = PhoneBox(profile, tmp_path / "games", seed=4, monkeypatch=monkeypatch, defaults=DEFAULTS)

    async def night():
        async with box:
            daemon = box.daemon
            pin = daemon.web.room.host.pin
            assert len(pin) == 6 and pin.isdigit()
            watcher = await box.join("watch")
            box.server.guesses = Guesses(box.now_ns)  # the back-off on the fake clock
            # No PIN, a wrong PIN: refused, each counted as a wrong code for this address.
            guest = box.phone()
            assert await guest.join(box.room, "host") is None
            assert "host's PIN" in guest.refused
            wrong = f"{(int(pin) + 1) % 10**6:06d}"
            for _ in range(FREE_TRIES - 1):
                guest = box.phone()
                assert await guest.join(box.room, "host", pin=wrong) is None
            guest = box.phone()  # the back-off: the right PIN now waits too
            assert await guest.join(box.room, "host", pin=pin) is None
            assert "try again in" in guest.refused
            await box.run_for(2000, every_ms=50)  # the wait is over
            await start_quiz(box)
            game = daemon.table.game
            # Before a phone hosts, the host's panel shows the PIN under the question to read.
            assert f"Host phone PIN {pin}" in str(game.view(0))
            host = await box.join("host", pin=pin)
            assert host.welcome["role"] == "host" and host.welcome["seat"] is None and host.welcome["token"]
            p = await page(box, host, phase="ready")
            assert p["text"] == "What is the capital of Australia?" and p["answer"] == "Canberra"
            assert p["notes"] == "not Sydney" and p["category"] == "Geography" and p["keys"] == ["arm", "pause"]
            await box.settle()
            assert "PIN" not in str(game.view(0))  # a phone hosts: the panel reads as before

            # Q1 armed from the phone; Ana buzzes: the page names her; right from the phone.
            await arm_and_buzz(box, host, 1)
            p = await page(box, host, phase="answering")
            assert p["answering"] == "Ana" and [r["name"] for r in p["race"]] == ["Ana"]
            assert p["keys"] == ["right", "wrong", "skip", "pause"]
            await host.host("right")
            p = await page(box, host, phase="ready", question=2)
            assert game.state.scores[1] == 2  # the pack's points
            # Correct the last verdict: Ana's right becomes a wrong (2 points and the penalty off).
            assert p["last"] == "Ana was right" and "correct" in p["keys"]
            await host.host("correct")
            p = await page(box, host, last="")
            assert game.state.scores[1] == 2 - 2 - game.match.options.penalty
            assert "correct" not in p["keys"]

            # Q2 armed at the station; Ben buzzes; the station says wrong first, then the phone's
            # "wrong" (pressed on the page of Ben's answer) is refused, not applied to the next.
            await arm_and_buzz(box, host, 2, phone_arms=False)
            p = await page(box, host, phase="answering", answering="Ben")
            assert p["text"] == "How many legs has a spider?" and p["answer"] == "Eight"
            await box.tap(0, "left")  # wrong, at the station
            await box.run_for(20)
            await host.host("wrong", turn=p["turn"])  # pressed on the page of Ben's answer
            p = await page(box, host, phase="reopen", note=bool)  # the station's verdict, then the refusal
            assert p["note"].startswith("Not done: the night moved on")
            assert game.state.scores[2] == -game.match.options.penalty  # judged wrong once
            # Pause: every screen says so and the phone's only key is to go on; then next question.
            await host.host("pause")
            p = await page(box, host, paused=True)
            assert p["keys"] == ["pause"] and p["status"] == "Paused"
            await box.settle()
            assert watcher.view["heading"] == "Paused"
            await host.host("pause")
            p = await page(box, host, paused=False)
            await host.host("next")
            p = await page(box, host, phase="ready", question=3)
            assert p["text"] == "Which planet is called the red planet?"

            # A guest with the seat's room code but no PIN never hosts; the watcher was never
            # sent a host frame, nor the answer's text.
            texts = [str(frame) for frame in watcher.received]
            assert not [f for f in watcher.received if f["type"] == "host"]
            assert not any(answer in t for t in texts for answer in ("Canberra", "Eight", "Mars", "Sydney"))
            # Its token takes the role back after a dropped link, without the PIN; the old link is closed.
            again = box.phone()
            assert await again.join(box.room, "host", token=host.welcome["token"]) is not None
            await until(lambda: host.closed_code is not None)
            p = await page(box, again, phase="ready")
            assert p["answer"] == "Mars"

    asyncio.run(night())
