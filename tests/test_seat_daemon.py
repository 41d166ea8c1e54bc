"""A player leaves in the middle of a game and comes back, through the real daemon on gpiozero's
mock pins and a fake clock: Ben holds left and right, lets an easy bot play his seat, the bot
plays on, Ben takes his seat back with left held and ok, and the game is played out; the journal
replays to the result the box showed."""

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import gpiozero.pins.mock

from companion.daemon import Daemon
from companion.record.journal import replay, summary
from companion.profile import load_profile

from helpers import MS, FakeClock

PROFILE = Path(__file__).parent.parent / "hardware" / "profiles" / "mock-3.toml"
ANA, BEN = 0, 1


class Box:
    """A two-station box (the first two stations of mock-3) stepped every 5 ms on a fake clock."""

    def __init__(self, tmp_path, monkeypatch) -> None:
        self.clock = FakeClock()
        monkeypatch.setattr(gpiozero.pins.mock, "monotonic", self.clock.monotonic)
        profile = load_profile(PROFILE)
        self.journals = tmp_path / "games"
        self.daemon = Daemon(replace(profile, stations=profile.stations[:2]), self.journals, seed=3)
        self.daemon.step(self.clock.ns)

    def run(self, ms: float) -> None:
        for _ in range(round(ms / 5)):
            self.clock.ns += 5 * MS
            self.daemon.step(self.clock.ns)

    def hold(self, station: int, *keys: str, ms: float = 60) -> None:
        """Press ``keys`` one after another (100 ms apart), keep them held ``ms``, let them go."""
        pins = [self.daemon.box.pin(station, key) for key in keys]
        for pin in pins:
            pin.drive_low()
            self.run(100)
        self.run(ms)
        for pin in pins:
            pin.drive_high()
        self.run(60)

    def tap(self, station: int, key: str) -> None:
        self.hold(station, key)

    @property
    def table(self):
        return self.daemon.table

    def lines(self) -> list[str]:
        (path,) = self.journals.glob("*.jsonl")
        return path.read_text().splitlines()


def test_ben_leaves_an_easy_bot_plays_for_him_and_ben_comes_back(tmp_path, monkeypatch):
    async def inside():  # the buzzer schedules its notes on a running loop
        play(Box(tmp_path, monkeypatch))
    asyncio.run(inside())


def play(box: Box) -> None:
    try:
        while box.table.lobby.game.name != "paytoplay":
            box.tap(ANA, "right")
        while box.table.game is None:
            box.tap(ANA, "ok")
        box.tap(ANA, "ok")                                   # Ana's first mark
        box.hold(BEN, "left", "right", ms=2100)              # Leave the game?
        assert box.table.confirming == BEN
        box.tap(BEN, "left")                                 # an easy bot plays for Ben
        assert box.table.seats == (ANA, None)
        bot_moves = 0
        for _ in range(6):                                   # Ana plays on against the bot
            if box.table.game.match.outcome is not None:
                break
            state = box.table.game.match.state
            box.run(3000)
            if box.table.game.match.state is not state and ANA in box.table.game.match.rules.to_move(
                    box.table.game.match.state):
                box.tap(ANA, "ok")
        bot_moves = sum(1 for x in box.lines() if json.loads(x).get("bot") is True)
        assert bot_moves >= 1, "the bot played Ben's seat"
        box.hold(BEN, "left", "ok")                          # Ben takes his seat back
        box.tap(BEN, "ok")
        assert box.table.seats == (ANA, BEN) and box.table.game.bots == {}
        for _ in range(200):                                 # both play it out
            game = box.table.game
            if game.match.outcome is not None:
                break
            box.tap(game.match.rules.to_move(game.match.state)[0], "ok")
        shown = box.table.game.match.outcome
        assert shown is not None
        lines = box.lines()
        seats = [json.loads(x) for x in lines if '"seat"' in x]
        assert [(s["player"], s["bot"], s["station"]) for s in seats] == [(BEN, "easy", None), (BEN, None, 2)]
        header, match = replay(lines)
        assert summary(header, match)["scores"] == list(shown.scores)
        assert summary(header, match)["winners"] == list(shown.winners)
        after_back = lines.index(next(x for x in lines if '"station": 2' in x))
        assert not any(json.loads(x).get("bot") for x in lines[after_back + 1:]), "Ben's own moves again"
    finally:
        box.daemon.close()
