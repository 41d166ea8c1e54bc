"""Two people and a bot through the real daemon on gpiozero's mock pins and a fake clock: the bot
fills the third seat of Triangle and the closest-number game, presses through the arbiter with
its own watermark, and its moves are journaled like anyone's, marked "bot"."""

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import gpiozero.pins.mock
import pytest

from companion.daemon import Daemon
from companion.games import get
from companion.games.options import lobby_choices
from companion.record.journal import replay, summary
from companion.profile import load_profile
from companion.table.bots import SOURCE
from companion.table.closest import ANSWER_KEYS

from helpers import MS, FakeClock

PROFILE = Path(__file__).parent.parent / "hardware" / "profiles" / "mock-3.toml"
ANA, BEN, BOT = 0, 1, 2


class Box:
    """A two-station box (the first two stations of mock-3) with a bot in seat 3, driven step by
    step on a fake clock: every 5 ms a daemon step, presses as pin edges."""

    def __init__(self, tmp_path, monkeypatch, level: str, seed: int = 1) -> None:
        self.clock = FakeClock()
        monkeypatch.setattr(gpiozero.pins.mock, "monotonic", self.clock.monotonic)
        profile = load_profile(PROFILE)
        profile = replace(profile, stations=profile.stations[:2])
        self.journals = tmp_path / "games"
        self.daemon = Daemon(profile, self.journals, seed=seed, bots={BOT: level})
        self.daemon.step(self.clock.ns)

    def run(self, ms: float) -> None:
        for _ in range(round(ms / 5)):
            self.clock.ns += 5 * MS
            self.daemon.step(self.clock.ns)

    def run_until(self, condition, limit_ms: float = 60_000) -> None:
        for _ in range(round(limit_ms / 5)):
            if condition():
                return
            self.run(5)
        raise AssertionError("the condition never came")

    def tap(self, station: int, key: str) -> None:
        pin = self.daemon.box.pin(station, key)
        pin.drive_low()
        self.run(60)
        pin.drive_high()
        self.run(60)

    def start(self, game: str) -> None:
        names = [g.name for g in self.daemon.table.lobby.games]
        for _ in range(names.index(game)):
            self.tap(ANA, "right")
        for _ in range(len(lobby_choices(get(game).Options)) + 2):
            self.tap(ANA, "ok")
        assert self.daemon.table.game is not None and self.daemon.table.game.names[BOT] == "Bot"

    @property
    def game(self):
        return self.daemon.table.game

    def lines(self) -> list[dict]:
        (path,) = self.journals.glob("*.jsonl")
        return [json.loads(x) for x in path.read_text().splitlines()]

    def close(self) -> None:
        self.daemon.close()


@pytest.fixture
def box(tmp_path, monkeypatch):
    made = []

    def make(level, seed=1):
        made.append(Box(tmp_path / str(len(made)), monkeypatch, level, seed))
        return made[-1]

    yield make
    for b in made:
        b.close()


def run(coroutine_free):
    """The buzzer schedules its notes on a running loop: play inside one."""
    async def inside():
        coroutine_free()
    asyncio.run(inside())


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_two_people_play_a_turn_of_triangle_with_a_bot(box, level):
    def play():
        b = box(level)
        b.start("triangle")
        for round_ in range(6):
            b.run_until(lambda: b.game.racing and b.game.count == 0)
            if round_ % 2:   # Ben reaches at once in odd rounds: he may beat the bot
                b.tap(BEN, "slap")
            b.run_until(lambda: b.game.current is None or b.game.claimer is not None)
            if b.game.claimer in (ANA, BEN):
                b.tap(b.game.claimer, "ok")      # states the first fact on the menu
            b.run_until(lambda: b.game.current is None)
            b.tap(ANA, "ok")                     # next round (or the end after the sixth)
        lines = b.lines()
        header, match = replay([json.dumps(x) for x in lines])
        assert match.state.scores == b.game.match.state.scores
        assert summary(header, match)["scores"] == list(b.game.match.state.scores)
        claims = [x for x in lines if x.get("action") == "claim"]
        assert claims and any(x["player"] == BOT for x in claims), "the bot took the RtS at least once"
        for x in lines[1:]:
            if x["type"] == "action" and x.get("player") == BOT:
                assert x["bot"] is True
            else:
                assert "bot" not in x
        # The bot's own statement follows its own claim.
        for i, x in enumerate(lines):
            if x.get("action") == "claim" and x["player"] == BOT:
                assert lines[i + 1]["action"] == "state" and lines[i + 1]["player"] == BOT
    run(play)


def test_the_bot_commits_its_slap_before_anyone_presses_and_ties_fairly(box):
    def play():
        b = box("easy", seed=3)
        b.start("triangle")
        b.run_until(lambda: b.game.racing and b.daemon.table.bot_seats.pending)
        ((race, press),) = b.daemon.table.bot_seats.pending
        assert press.source == SOURCE and press.station == BOT and race is b.game.race
        # Its watermark holds every race at its committed press until that press is delivered.
        assert b.daemon.table.bot_seats.watermark(press.t_ns + 10**9) == press.t_ns
        # Ben presses 3 ms after the bot's committed edge: within the 10 ms tie window.
        b.run_until(lambda: b.clock.ns >= press.t_ns - 3 * MS)
        pin = b.daemon.box.pin(BEN, "slap")
        b.clock.ns = press.t_ns + 3 * MS
        pin.drive_low()
        b.run(60)
        pin.drive_high()
        b.run_until(lambda: b.game.current is None)
        draw = [x for x in b.lines() if x.get("action") == "draw"]
        assert draw and draw[0]["players"] == [BEN, BOT]
    run(play)


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_two_people_play_the_closest_number_game_with_a_bot(box, level):
    def play():
        b = box(level, seed=2)
        b.start("closest")
        # Nobody at the table answers 17 x 34: the bot does. If it answers wrong (the easy one
        # may), it is out of the race and Ana answers right.
        b.run_until(lambda: b.game.race is None or BOT in b.game.out, 20_000)
        if b.game.race is not None:
            b.tap(ANA, ANSWER_KEYS[b.game.answers.index(17 * 34)])
        b.run_until(lambda: b.game.race is None)
        while b.game.match.outcome is None:
            b.run_until(lambda: b.game.match.outcome is not None or b.game.showing is not None
                        or b.game.state.mover() in (ANA, BEN))
            if b.game.match.outcome is not None:
                break
            if b.game.showing is not None:
                b.tap(ANA, "ok")
            else:
                mover = b.game.state.mover()
                b.tap(mover, "ok")                     # the first free number
                if b.game.picked is not None:
                    b.tap(mover, "ok")                 # it counts (the next one is the decoy)
        lines = b.lines()
        header, match = replay([json.dumps(x) for x in lines])
        assert summary(header, match)["scores"] == list(b.game.match.state.totals)
        bot_places = [x for x in lines if x.get("action") == "place" and x["player"] == BOT]
        assert len(bot_places) >= 3 and all(x["bot"] is True for x in bot_places)
        assert sum(x["decoy"] for x in bot_places if x.get("decoy")) >= 1, "the bot played a decoy in round 2"
    run(play)
