"""A phone plays a seat: Triangle with one seat on a phone, over real WebSockets on 127.0.0.1, the
box on a fake clock. The phone sees exactly its station's panel, its touches race the wired
buttons with their error, the journal records that error, and a phone that drops takes its seat
back with its token, its score kept."""

from __future__ import annotations

import asyncio
import json

import pytest

from companion.cli import main
from companion.games import get
from companion.games.options import lobby_choices
from companion.record.journal import replay

from helpers import until
from phonebox import PhoneBox, profile_with_phones, wired

FAST = {"triangle": {"countdown_ms": 250}}


async def walk_to_triangle(box: PhoneBox) -> None:
    """Station 1 turns the game menu to Triangle and starts it with its default options."""
    lobby = box.daemon.table.lobby
    while lobby.game.name != "triangle":
        await box.tap(0, "right")
    for _ in range(len(lobby_choices(get("triangle").Options)) + 2):
        await box.tap(0, "ok")
    assert box.daemon.table.game is not None


async def until_race_open(box: PhoneBox) -> None:
    """Time passes until the countdown opens the race; then, the clock held, until the reveal has
    reached every panel, the phone's too. Were the clock to run on while the display writer (a
    real thread) puts the reveal on the wired panels, a writer held up on a busy machine would
    stamp their onsets late (8.75 s after the phone painted, once) and Ana's press would seem the
    quicker reaction."""
    game = box.daemon.table.game
    while game.race is None or (game.race.onsets is None and box.clock.ns < game.race.opens_at_ns):
        await box.run_for(5)

    def revealed() -> bool:
        box.step()
        return game.race.onsets is not None

    await until(revealed)


def journal_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def triangle_box(tmp_path, monkeypatch):
    profile = profile_with_phones(tmp_path, wired("Ana", "Ben"), [(1, "Zoe", False)])
    return PhoneBox(profile, tmp_path / "games", seed=8, monkeypatch=monkeypatch, defaults=FAST)


def test_triangle_with_a_phone_seat_its_panel_its_race_and_its_error_in_the_journal(triangle_box, tmp_path):
    path = asyncio.run(_phone_wins_a_race(triangle_box, tmp_path))
    assert main(["replay", "--json", str(path)]) == 0


async def _phone_wins_a_race(triangle_box, tmp_path):
    async with triangle_box as box:
        zoe = await box.join("seat", "Zoe")
        assert zoe.welcome["seat"] == 2 and zoe.welcome["name"] == "Zoe"
        watcher = await box.join("watch")
        await walk_to_triangle(box)
        await until_race_open(box)
        await box.settle()
        # The phone's panel is its station's: the same pixels the box would put on a panel there.
        await until(lambda: zoe.panel_image().convert("1").tobytes() == box.daemon.table.screen(1).convert("1").tobytes())
        await box.run_for(200)  # a reaction's worth
        await box.phone_tap(zoe)  # the phone first...
        await box.run_for(40)
        await box.tap(0)  # ...Ana 40 ms and more later
        game = box.daemon.table.game
        while game.current is not None and game.current.claimer is None:
            await box.run_for(20)
        assert game.current.claimer == 1  # Zoe's seat claims the Right to Speak
        await box.settle()
        assert watcher.view["race"][0]["name"] == "Zoe" and watcher.view["race"][0]["error_ms"] > 0
        assert not watcher.frames("panel")  # a watcher never gets a panel
        [path] = (tmp_path / "games").glob("*.jsonl")
        claim = next(line for line in journal_lines(path) if line.get("action") == "claim")
        assert claim["player"] == 1
        assert claim["error_ms"][0] == 0 and claim["error_ms"][1] > 0  # the phone's, and the wired one's none
        assert claim["reaction_ms"][1] < claim["reaction_ms"][0]
    return path


def test_a_phone_that_drops_takes_its_seat_back_with_its_token_its_score_kept(triangle_box):
    asyncio.run(_drop_and_rejoin(triangle_box))


async def _drop_and_rejoin(triangle_box):
    async with triangle_box as box:
        zoe = await box.join("seat", "Zoe")
        token = zoe.welcome["token"]
        await walk_to_triangle(box)
        await until_race_open(box)
        await box.run_for(150)
        await box.phone_tap(zoe)
        game = box.daemon.table.game
        while game.current.claimer is None:
            await box.run_for(20)
        await box.tap(2, "ok")  # not the claimer: only the claimer states; nothing happens
        await box.settle()
        scores = game.match.scores if hasattr(game.match, "scores") else None
        await zoe.close()
        await until(lambda: 1 not in box.daemon.web.holders)
        box.step()
        assert box.daemon.notice == "Zoe's phone left"  # every screen says so while the seat waits
        stranger = box.phone()
        assert await stranger.join(box.room, "seat") is None  # the seat is not free: it is Zoe's
        again = await box.join("seat", token=token)
        assert again.welcome["seat"] == 2 and again.welcome["token"] == token
        box.step()
        assert box.daemon.notice is None
        assert box.daemon.table.seat_of(1) == 1 and box.daemon.table.game is game
        if scores is not None:
            assert game.match.scores == scores
        await box.phone_tap(again, "ok")  # the claimer states its fact from the phone it came back on
        while game.current is not None:
            await box.run_for(20)
        assert game.match.state.history[-1].fact is not None
