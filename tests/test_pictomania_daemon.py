"""Pictomania end to end on four stations of gpiozero mock pins through the real daemon loop:
two guesses on one drawing 2 ms apart take its tokens in edge-time order although the later
press reaches the box first."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path

import gpiozero.pins.mock

from companion.daemon import Daemon
from companion.journal import replay
from companion.profile import load_profile

PROFILE = Path(__file__).parent.parent / "hardware" / "profiles" / "mock-4.toml"
ANA, BEN, CY, DEE = range(4)


def test_two_guesses_2_ms_apart_on_mock_pins_take_tokens_in_edge_order(tmp_path, monkeypatch):
    profile = load_profile(PROFILE)
    # GPIO callbacks come from a thread; allow them 50 ms so the test does not race the loop.
    profile = dataclasses.replace(profile, timing=dataclasses.replace(profile.timing, gpio_latency_ms=50))
    daemon = Daemon(profile, tmp_path / "games", seed=5)
    table = daemon.table

    async def tap(station: int, *keys: str) -> None:
        for key in keys:
            pin = daemon.box.pin(station, key)
            pin.drive_low()
            await asyncio.sleep(0.008)
            pin.drive_high()
            await asyncio.sleep(0.012)

    async def scenario() -> None:
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        await asyncio.sleep(0.01)
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
        for station in (BEN, CY):                          # Guess Ana, number Ana's
            await tap(station, "ok", *["right"] * (ana - 1))

        # Cy presses ok 2 ms after Ben, but Cy's edge reaches the loop first.
        t0 = time.monotonic()
        pins_clock = [t0 + 0.002]                          # what the mock pins read as now
        monkeypatch.setattr(gpiozero.pins.mock, "monotonic", lambda: pins_clock[0])
        daemon.box.pin(CY, "ok").drive_low()
        await asyncio.sleep(0.005)
        assert game.state.round.guesses == ()              # held until the watermark passes
        pins_clock[0] = t0
        daemon.box.pin(BEN, "ok").drive_low()
        monkeypatch.undo()
        await asyncio.sleep(0.01)
        daemon.box.pin(CY, "ok").drive_high()
        daemon.box.pin(BEN, "ok").drive_high()
        await asyncio.sleep(0.1)                           # past the 50 ms watermark
        for station in range(4):
            await tap(station, "left", "left", "ok", "ok")    # Done, highest black token
        await asyncio.sleep(0.1)
        stop.set()
        await runner

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
