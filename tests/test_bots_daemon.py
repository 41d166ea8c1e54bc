"""Two people and a bot through the real daemon on gpiozero's mock pins and a fake clock: the bot
fills the third seat of Triangle and the closest-number game, presses through the arbiter with
its own watermark, and its moves are journaled like anyone's, marked "bot"."""

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import gpiozero.pins.mock
import pytest

from companion.cli import main
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
NAMES = ("Ana", "Ben", "Cy")


class Box:
    """A two-station box (the first two stations of mock-3) with a bot in seat 3, driven step by
    step on a fake clock: every 5 ms a daemon step, presses as pin edges."""

    def __init__(self, tmp_path, monkeypatch, level: str | None, seed: int = 1, clock=None) -> None:
        """``level`` None: the three stations of mock-3 and no bot (``clock``: carry on another
        box's)."""
        self.clock = clock or FakeClock()
        monkeypatch.setattr(gpiozero.pins.mock, "monotonic", self.clock.monotonic)
        profile = load_profile(PROFILE)
        if level is not None:
            profile = replace(profile, stations=profile.stations[:2])
        self.journals = tmp_path / "games"
        self.daemon = Daemon(profile, self.journals, seed=seed, bots={BOT: level} if level else {})
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


def test_a_table_of_bots_alone_plays_triangle_on_by_itself_at_a_readable_pace(tmp_path, monkeypatch, capsys):
    """Three people leave Triangle one by one, each to a bot: every seat a bot, each round's
    result stays on the screens for READ_MS, then a bot deals the next (no person is there to
    press ok). A watching station is asked only whether to abandon, never offered to let a bot
    play a seat it does not have. The journal replays, and the game resumed from it plays on
    by itself."""
    from companion.screens.table import confirm_screen
    from companion.table import ABANDON_HOLD_NS
    from companion.table.bots import READ_MS
    from glyphs import shows

    def hold_both(b, station):
        left, right = b.daemon.box.pin(station, "left"), b.daemon.box.pin(station, "right")
        left.drive_low()
        b.run(20)
        right.drive_low()
        b.run(200)
        shown = b.daemon.table.screen(station)
        b.run(ABANDON_HOLD_NS / MS)
        right.drive_high()
        left.drive_high()
        b.run(20)
        return shown

    def play():
        b = Box(tmp_path, monkeypatch, None)
        while b.game is None:
            b.tap(ANA, "ok")                      # Triangle, every station plays: its options
        for station in range(3):
            assert shows(hold_both(b, station), "LEAVE? HOLD ON")
            b.tap(station, "left")                # an easy bot plays the seat on
        assert b.daemon.table.seats == (None, None, None)
        start = len(b.game.match.state.history)
        b.run_until(lambda: len(b.game.match.state.history) >= start + 3, limit_ms=120_000)
        lines = b.lines()
        after = next(i for i, x in enumerate(lines) if x.get("type") == "seat" and x["player"] == 2)
        deals = [x["t"] for x in lines[after:] if x["type"] == "chance"]
        ends = [x["t"] for x in lines[after:] if x.get("action") == "state"]
        waits = [min(d for d in deals if d > end) - end for end in ends if deals[-1] > end]
        assert len(waits) >= 2 and all(wait >= READ_MS / 1000 for wait in waits), (ends, deals)
        assert all(x.get("bot") for x in lines[after:] if x["type"] == "action")
        (path,) = b.journals.glob("*.jsonl")
        capsys.readouterr()
        assert main(["replay", str(path)]) == 0           # every seat flagged, by Triangle's turn and round
        out = capsys.readouterr().out
        assert all(f"{name} (seat {n}, bot from turn 1 round " in out for n, name in enumerate(NAMES, 1)), out

        shown = hold_both(b, ANA)
        assert shows(shown, "ABANDON? HOLD ON")
        asked = b.daemon.table.screen(ANA)
        assert asked.tobytes() == confirm_screen("Triangle").tobytes() and not shows(asked, "bot plays")
        b.tap(ANA, "left")                        # no seat to leave: plays on
        assert b.game is not None and b.daemon.table.seats == (None, None, None)
        rounds = len(b.game.match.state.history)
        b.close()

        again = Box(tmp_path, monkeypatch, None, clock=b.clock)
        try:
            assert again.daemon.table.offer is not None
            again.tap(ANA, "ok")                  # resume
            again.run_until(lambda: len(again.game.match.state.history) > rounds + 1, limit_ms=120_000)
        finally:
            again.close()
    run(play)
