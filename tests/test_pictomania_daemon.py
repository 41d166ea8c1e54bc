"""Pictomania end to end on four stations of gpiozero mock pins through the real daemon step, on
a fake clock: two guesses on one drawing 2 ms apart take its tokens in edge-time order although
the later press reaches the box first."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import gpiozero.pins.mock

from companion.daemon import Daemon
from companion.record.journal import replay
from companion.profile import load_profile

from helpers import MS, FakeClock

PROFILE = Path(__file__).parent.parent / "hardware" / "profiles" / "mock-4.toml"
ANA, BEN, CY, DEE = range(4)


def test_two_guesses_2_ms_apart_on_mock_pins_take_tokens_in_edge_order(tmp_path, monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    profile = load_profile(PROFILE)
    # A guess is held until the GPIO watermark (now - 50 ms) has passed it.
    profile = dataclasses.replace(profile, timing=dataclasses.replace(profile.timing, gpio_latency_ms=50))
    daemon = Daemon(profile, tmp_path / "games", seed=5)
    table = daemon.table

    async def advance(ms: int) -> None:
        """Simulated time passes; the daemon steps every millisecond of it, as its loop would."""
        for _ in range(ms):
            clock.ns += MS
            daemon.step(clock.ns)
            await asyncio.sleep(0)

    async def tap(station: int, *keys: str) -> None:
        for key in keys:
            pin = daemon.box.pin(station, key)
            pin.drive_low()
            await advance(8)
            pin.drive_high()
            await advance(12)

    async def scenario() -> None:
        await advance(10)
        while table.lobby.game.name != "pictomania":
            await tap(ANA, "right")
        await tap(ANA, "ok")
        for station in range(4):
            await tap(station, "slap")                     # who plays: all four
        await tap(ANA, "ok")
        while table.lobby.row is not None:
            await tap(ANA, "ok")
        for station in range(4):
            await tap(station, "ok")                       # ready: the box deals
        game = table.game
        ana = game.state.round.numbers[ANA]
        for station in (BEN, CY):                          # Guess Ana, number Ana's, ok: "a guess is final"
            await tap(station, "ok", *["right"] * (ana - 1), "ok")

        # Cy presses ok 2 ms after Ben, but Cy's edge reaches the loop first.
        t0 = clock.ns
        clock.ns += 2 * MS
        daemon.box.pin(CY, "ok").drive_low()
        await advance(5)
        assert game.state.round.guesses == ()              # held until the watermark passes
        monkeypatch.setattr(gpiozero.pins.mock, "monotonic", lambda: t0 / 1e9)
        daemon.box.pin(BEN, "ok").drive_low()              # stamped 2 ms before Cy's
        monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
        await advance(10)
        daemon.box.pin(CY, "ok").drive_high()
        daemon.box.pin(BEN, "ok").drive_high()
        await advance(100)                                 # past the 50 ms watermark
        for station in range(4):
            await tap(station, "left", "left", "ok", "ok")    # Done, highest black token
        await advance(100)

    try:
        asyncio.run(scenario())
        daemon.box.displays.flush()
        ana_panel = daemon.box.displays.devices[ANA].image
        expected = table.game.screen(ANA)
    finally:
        daemon.close()

    game = table.game
    [r] = game.state.results
    assert [(c.player, c.token) for c in r.stacks[ANA].guesses] == [(BEN, 2), (CY, 1)]
    assert r.black == (3, 2, 2, 1)

    [journal] = list((tmp_path / "games").glob("*pictomania.jsonl"))
    text = journal.read_text().splitlines()
    lines = [json.loads(x) for x in text]
    guesses = [x for x in lines if x.get("action") == "guess"]
    assert [(g["player"], g["target"]) for g in guesses] == [(BEN, ANA), (CY, ANA)]
    assert round((guesses[1]["t"] - guesses[0]["t"]) * 1000) == 2
    header, match = replay(text)
    assert match.state == game.state

    # Ana's panel (a luma dummy) shows the first page of the scoring: her own stack.
    assert game.phase == "review" and game.seats[ANA].page == 0
    assert ana_panel.convert("1").tobytes() == expected.tobytes()
    assert daemon.box.displays.failures == [0, 0, 0, 0]
