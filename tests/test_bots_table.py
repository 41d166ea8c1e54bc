"""Bot seats at the table on a fake clock: Pay-to-Play against the solved table, the hook a
seating lobby calls, the command-line options and their errors."""

import argparse
import json

import pytest
from PIL import ImageChops

from companion.bots.paytoplay import best_action, prepare
from companion.cli import bot_settings
from companion.games import get
from companion.arbiter.inputs import InputEvent
from companion.table import Table
from companion.table.bots import THINK_MS
from companion.table.lobby import StartGame

from glyphs import shows
from helpers import MS, journaled_table

S = 1000 * MS


def run(table, start_ns, ms):
    for t in range(start_ns, start_ns + ms * MS, 5 * MS):
        table.tick(t, t)
    return start_ns + ms * MS


def tap(table, station, key, t_ns):
    table.handle(InputEvent(station, key, True, t_ns))
    table.handle(InputEvent(station, key, False, t_ns + 50 * MS))


def test_a_person_plays_pay_to_play_against_the_hard_bot_in_seat_2(tmp_path):
    table, journals = journaled_table(tmp_path, ("Ana", "Ben"), seed=4)
    table.start(StartGame(get("paytoplay"), {"no_double_pass": True}), 0, bots={1: "hard"})
    assert table.game.names == ("Ana", "Bot")
    t = run(table, 0, 100)
    # The bot's table is solved in a thread while the game starts (real time, not the fake clock).
    assert prepare(table.game.match.options).wait(timeout=300)
    tap(table, 0, "ok", t)                 # Ana (X) takes the first affordable cell
    before = table.game.match.state
    t = run(table, t + 100 * MS, 50)
    assert table.game.match.state is before, "the bot thinks like a person before it moves"
    expected = best_action(before)
    t = run(table, t, THINK_MS["hard"][0] * 3)
    lines = [json.loads(x) for x in journals[0].read_text().splitlines()[1:]]
    bot_lines = [x for x in lines if x.get("player") == 1]
    assert bot_lines[0]["action"] == expected["action"] and bot_lines[0].get("cell") == expected.get("cell")
    assert all(x["bot"] is True for x in bot_lines)
    assert not any("bot" in x for x in lines if x.get("player") == 0)
    # Station 2 sits out: its presses do nothing and it shows what a spectator sees.
    state = table.game.match.state
    tap(table, 1, "ok", t)
    assert table.game.match.state is state
    watcher = table.game.watching_screen()   # "Watching" in the side's top line: no title bar over the board
    assert ImageChops.difference(table.screen(1).convert("L"), watcher.convert("L")).getbbox() is None
    assert shows(table.screen(1), "Watching") and shows(table.screen(1), "X Ana")


def test_bots_beyond_the_stations_let_two_stations_choose_a_three_player_game():
    plain = Table(("Ana", "Ben"))                          # bots may be added on "Who plays?"
    assert [g.name for g in plain.lobby.games] == ["paytoplay", "triangle", "closest"]
    table = Table(("Ana", "Ben"), bots={2: "easy"})
    assert {"triangle", "closest", "paytoplay"} <= {g.name for g in table.lobby.games}
    table.lobby.index = [g.name for g in table.lobby.games].index("triangle")
    assert table.lobby.players == 3
    table.start(StartGame(get("paytoplay"), {}), 0)
    assert table.game.names == ("Ana", "Ben") and table.bot_seats is None, "a two-player game has no room"


def test_games_bots_cannot_play_are_played_by_the_stations_alone():
    table = Table(("Ana", "Ben", "Cy"), bots={3: "hard"})
    table.lobby.index = [g.name for g in table.lobby.games].index("pictomania")
    assert table.lobby.players == 3, "bots cannot draw"
    table.start(StartGame(get("pictomania"), {}), 0)
    assert table.game.names == ("Ana", "Ben", "Cy") and table.bot_seats is None


def test_the_seating_hook_overrides_the_boxs_bots():
    table = Table(("Ana", "Ben", "Cy"))
    table.start(StartGame(get("triangle"), {}), 0, bots={0: "hard"})
    assert table.game.names == ("Bot", "Ben", "Cy") and table.bot_seats.levels == {0: "hard"}


def test_bot_options_on_the_command_line():
    args = argparse.Namespace(bot=["3=hard"], bots=None)
    assert bot_settings(args, 2) == {2: "hard"}
    assert bot_settings(argparse.Namespace(bot=None, bots=["hard", "easy"]), 1) == {1: "hard", 2: "easy"}
    with pytest.raises(ValueError, match="level must be easy or hard, not 'genius'"):
        bot_settings(argparse.Namespace(bot=["2=genius"], bots=None), 2)
    with pytest.raises(ValueError, match="SEAT=LEVEL"):
        bot_settings(argparse.Namespace(bot=["hard"], bots=None), 2)
    with pytest.raises(ValueError, match="seat 3 has no station"):
        bot_settings(argparse.Namespace(bot=["4=hard"], bots=None), 2)


def test_the_hard_pay_to_play_bot_waits_for_its_table_instead_of_stalling_the_loop(monkeypatch):
    import threading

    from companion.bots import paytoplay

    gate = threading.Event()
    monkeypatch.setattr(paytoplay, "prepare", lambda options: gate)
    table = Table(("Ana", "Ben"), bots={0: "hard"})
    table.start(StartGame(get("paytoplay"), {"no_double_pass": True}), 0)
    state = table.game.match.state
    t = run(table, 0, 5000)
    assert table.game.match.state is state and table.wakeup_ns() is not None
    gate.set()
    run(table, t, 3000)
    assert table.game.match.state is not state, "the bot (X) moved once its table was ready"


def test_several_bots_are_named_by_seat():
    table = Table(("Ana",) * 2, bots={2: "hard"})
    table.start(StartGame(get("triangle"), {}), 0, bots={1: "easy", 2: "hard"})
    assert table.game.names == ("Ana", "Bo2", "Bo3")


def test_a_resumed_game_plays_its_bot_seats_on(tmp_path):
    from companion.record.recovery import find_interrupted

    table, journals = journaled_table(tmp_path, ("Ana", "Ben"), seed=4)
    table.bots = {2: "hard"}
    table.start(StartGame(get("triangle"), {}), 0)
    claimed = len(table.game.match.state.history)
    assert table.game.names == ("Ana", "Ben", "Bot")
    table.game.journal.close()   # the box stops here, mid-round
    resumed, _ = journaled_table(tmp_path, ("Ana", "Ben"), seed=5)
    resumed.bots = {2: "hard"}
    resumed.resume(find_interrupted(tmp_path), 10 * S)
    assert resumed.bot_seats.levels == {2: "hard"}
    run(resumed, 10 * S, 12_000)   # nobody at the table reaches: the bot takes the RtS and speaks
    assert len(resumed.game.match.state.history) == claimed + 1
    assert resumed.game.match.state.history[-1].claimer == 2
