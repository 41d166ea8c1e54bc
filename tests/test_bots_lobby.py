"""Players add bots themselves on "Who plays?": ``right`` on a station that has not joined adds an
easy bot, makes it hard, adds another... A two-station box can then play the three-player games,
and one person can play Pay-to-Play against a bot while the other station watches. Real tables on
a fake clock; what the stations show is read from their pixels."""

import json

from companion.table.closest import ANSWER_KEYS

from glyphs import shows
from helpers import MS, Clock, journaled_table, pick, tap

ANA, BEN, BOT = 0, 1, 2


def run_until(table, clock, condition, limit_ms: float = 60_000) -> None:
    """Let time pass on the table, 5 ms at a time, until ``condition()`` holds."""
    for _ in range(round(limit_ms / 5)):
        if condition():
            return
        clock.ms += 5
        t = round(clock.ms * MS)
        table.tick(t, t)
    raise AssertionError("the condition never came")


def seat_with_bot(tmp_path, game: str, level: str, people=(ANA, BEN), names=("Ana", "Ben")):
    """A box of ``names`` picks ``game``; station 2 adds a bot of ``level`` with ``right``, the
    ``people`` join with ``slap`` and the first of them starts the game (no ``people``: station 1's
    ``ok`` seats every station)."""
    table, journals = journaled_table(tmp_path, names, seed=5)
    clock = Clock()
    pick(table, clock, game)
    assert table.seating is not None, "asked who plays, bots included"
    assert shows(table.screen(BEN), "left:back right:bots")
    for _ in range(("easy", "hard").index(level) + 1):
        tap(table, BEN, "right", clock.next())
    assert table.seating.added == [level] and shows(table.screen(ANA), f"Bot:{level}")
    if not people:
        assert shows(table.screen(ANA), "slap: join  ok: all")
    for station in people:
        tap(table, station, "slap", clock.next())
    tap(table, (*people, ANA)[0], "ok", clock.next())
    assert table.seating is None
    while table.game is None:
        tap(table, (*people, ANA)[0], "ok", clock.next())
    return table, journals, clock


def lines(journal) -> list[dict]:
    return [json.loads(x) for x in journal.read_text().splitlines()]


def test_right_cycles_the_bots_and_they_count_against_the_most_players(tmp_path):
    table, _ = journaled_table(tmp_path, ("Ana", "Ben"), seed=5)
    clock = Clock()
    assert "triangle" in [g.name for g in table.lobby.games], "offered: bots can fill the third seat"
    pick(table, clock, "triangle")
    seen = []
    for _ in range(5):
        tap(table, ANA, "right", clock.next())
        seen.append(list(table.seating.added))
    assert seen == [["easy"], ["hard"], ["hard", "easy"], ["hard", "hard"], []]
    assert shows(table.screen(ANA), "Who plays? 0 of 3")
    tap(table, ANA, "right", clock.next())
    tap(table, ANA, "right", clock.next())
    tap(table, ANA, "right", clock.next())                  # hard and easy: two bots
    tap(table, BEN, "slap", clock.next())
    tap(table, ANA, "slap", clock.next())                   # Triangle is full
    assert list(table.seating.joined) == [BEN] and shows(table.screen(ANA), "Full: you watch")
    tap(table, ANA, "right", clock.next())                  # the easy bot turns hard
    tap(table, ANA, "right", clock.next())                  # no room for a third: none
    assert table.seating.added == [] and shows(table.screen(BEN), "2 more  right:bots")
    tap(table, BEN, "ok", clock.next())                     # one person and no bot cannot start
    assert table.seating is not None


def test_two_stations_play_triangle_with_a_hard_bot_they_added(tmp_path):
    table, journals, clock = seat_with_bot(tmp_path, "triangle", "hard")
    assert table.game.names == ("Ana", "Ben", "Bot") and table.seats == (ANA, BEN, None)
    assert table.bot_seats.levels == {BOT: "hard"}
    header = lines(journals[0])[0]
    assert header["stations"] == [1, 2, None]
    # Nobody at the table slaps: the bot races, takes the right to speak and states a fact.
    run_until(table, clock, lambda: table.game.racing)
    run_until(table, clock, lambda: table.bot_seats.pending)
    ((race, press),) = table.bot_seats.pending
    assert press.station == BOT and race is table.game.race
    run_until(table, clock, lambda: table.game.claimer is not None)
    assert table.game.claimer == BOT
    run_until(table, clock, lambda: table.game.current is None)
    played = lines(journals[0])
    claim = next(x for x in played if x.get("action") == "claim")
    statement = played[played.index(claim) + 1]
    assert claim["player"] == BOT and claim["bot"] is True
    assert statement["action"] == "state" and statement["player"] == BOT


def test_two_stations_play_the_closest_number_game_with_an_easy_bot(tmp_path):
    table, journals, clock = seat_with_bot(tmp_path, "closest", "easy", people=())
    assert table.game.names == ("Ana", "Ben", "Bot") and table.bot_seats.levels == {BOT: "easy"}
    # The bot races for the start question like anyone; if it answers wrong, Ana answers right.
    run_until(table, clock, lambda: table.bot_seats.pending)
    ((race, press),) = table.bot_seats.pending
    assert press.station == BOT and race is table.game.race
    run_until(table, clock, lambda: table.game.race is None or BOT in table.game.out, 20_000)
    if table.game.race is not None:
        tap(table, ANA, ANSWER_KEYS[table.game.answers.index(17 * 34)], clock.next())
    run_until(table, clock, lambda: table.game.race is None)
    # The round goes on: people place the first free number, the bot places its own.
    for _ in range(20):
        if any(x.get("player") == BOT and x.get("action") == "place" for x in lines(journals[0])):
            break
        run_until(table, clock, lambda: table.game.showing is not None or table.game.state.mover() in (ANA, BEN)
                  or any(x.get("player") == BOT and x.get("action") == "place" for x in lines(journals[0])))
        if table.game.showing is not None:
            tap(table, ANA, "ok", clock.next())
        elif table.game.state.mover() in (ANA, BEN):
            mover = table.game.state.mover()
            tap(table, mover, "ok", clock.next())
            if table.game.picked is not None:
                tap(table, mover, "ok", clock.next())
    places = [x for x in lines(journals[0]) if x.get("action") == "place" and x["player"] == BOT]
    assert places and all(x["bot"] is True for x in places)


def test_one_person_plays_pay_to_play_against_a_bot_and_the_other_stations_watch(tmp_path):
    table, journals, clock = seat_with_bot(tmp_path, "paytoplay", "easy", people=(ANA,),
                                           names=("Ana", "Ben", "Cy"))
    assert table.game.names == ("Ana", "Bot") and table.seats == (ANA, None)
    assert lines(journals[0])[0]["stations"] == [1, None]
    assert shows(table.screen(BEN), "Watching") and shows(table.screen(2), "Watching")
    tap(table, BEN, "ok", clock.next())                     # a watcher's keys do nothing
    for _ in range(4):                                      # Ana and the bot take turns
        if table.game.match.outcome is not None:
            break
        if 0 in table.game.match.rules.to_move(table.game.match.state):
            tap(table, ANA, "ok", clock.next())
        else:
            run_until(table, clock, lambda: 0 in table.game.match.rules.to_move(table.game.match.state)
                      or table.game.match.outcome is not None)
    moves = [x for x in lines(journals[0])[1:] if x.get("type") == "action"]
    assert {x["player"] for x in moves} >= {0, 1}
    assert all(x.get("bot") is True for x in moves if x["player"] == 1)
    assert all("bot" not in x for x in moves if x["player"] == 0)
