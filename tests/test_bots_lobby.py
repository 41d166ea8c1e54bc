"""Players add bots themselves on "Who plays?": ``right`` on a station that has not joined adds an
easy bot, makes it hard, adds another... A two-station box can then play the three-player games,
and one person can play Pay-to-Play against a bot while the other station watches. Real tables on
a fake clock; what the stations show is read from their pixels."""

import json

from companion.record.recovery import find_interrupted
from companion.table import Table
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


def test_one_person_at_a_two_station_box_plays_pay_to_play_against_a_hard_bot(tmp_path):
    """Every station must play Pay-to-Play on two stations, so the options come at once; ``slap``
    on the first goes back to "Who plays?", where Ana joins alone and adds a hard bot."""
    table, journals = journaled_table(tmp_path, ("Ana", "Ben"), seed=5)
    clock = Clock()
    pick(table, clock, "paytoplay")
    assert table.seating is None and table.lobby.row == 0, "not asked: the options come at once"
    assert shows(table.screen(BEN), "ok: next  slap: bots")
    tap(table, ANA, "slap", clock.next())
    assert table.seating is not None and table.lobby.row is None
    assert shows(table.screen(ANA), "Who plays? 0 of 2") and shows(table.screen(ANA), "left:back right:bots")
    tap(table, ANA, "slap", clock.next())                   # Ana joins first...
    assert shows(table.screen(ANA), "1 more  right:bots")
    tap(table, ANA, "right", clock.next())                  # ...and adds the bot from her own station
    tap(table, ANA, "right", clock.next())
    assert table.seating.joined == {ANA: "Ana"} and table.seating.added == ["hard"]
    assert shows(table.screen(BEN), "Ana Bot:hard") and shows(table.screen(ANA), "ok: start  slap: out")
    tap(table, ANA, "ok", clock.next())
    assert table.seats == (ANA, None) and table.lobby.row == 0
    assert shows(table.screen(ANA), "</>: change  ok: next"), "asked now: the first row as ever"
    while table.game is None:
        tap(table, ANA, "ok", clock.next())
    assert table.game.names == ("Ana", "Bot") and table.bot_seats.levels == {1: "hard"}
    assert shows(table.screen(BEN), "Watching")
    header = lines(journals[0])[0]
    assert header["stations"] == [1, None] and header["bots"] == [None, "hard"]
    # The level is journaled: a box restarted without bots resumes the bot hard.
    table.game.journal.close()
    resumed = Table(("Ana", "Ben"))
    resumed.resume(find_interrupted(tmp_path), 10**12)
    assert resumed.seats == (ANA, None) and resumed.bot_seats.levels == {1: "hard"}


def test_a_game_every_station_plays_starts_with_no_press_more_and_slap_left_goes_back():
    for names, game in ((("Ana", "Ben"), "paytoplay"), (("Ana", "Ben", "Cy"), "triangle"),
                        (("Ana", "Ben", "Cy"), "closest")):
        table = Table(names, None, seed=1)
        clock = Clock()
        pick(table, clock, game)
        rows = len(table.lobby._rows())
        presses = 1                                         # the ok that picked the game
        while table.game is None:
            tap(table, ANA, "ok", clock.next())
            presses += 1
        assert presses == 1 + rows + 1, "the game, every option row, Start"
        assert table.seats == tuple(range(len(names))) and table.bot_seats is None
        table = Table(names, None, seed=1)
        pick(table, clock, game)
        tap(table, BEN, "slap", clock.next())
        tap(table, BEN, "left", clock.next())               # back past "Who plays?" to the games
        assert table.seating is None and table.lobby.row is None and table.lobby.game.name == game


def test_two_stations_that_both_joined_triangle_add_its_third_player(tmp_path):
    table, journals = journaled_table(tmp_path, ("Ana", "Ben"), seed=5)
    clock = Clock()
    pick(table, clock, "triangle")
    tap(table, ANA, "slap", clock.next())
    tap(table, BEN, "slap", clock.next())
    assert shows(table.screen(ANA), "1 more  right:bots")   # no station is left to add a bot
    tap(table, BEN, "left", clock.next())                   # left picks the name: Ana is taken, Ben stays
    assert table.seating.joined == {ANA: "Ana", BEN: "Ben"}
    tap(table, BEN, "right", clock.next())
    tap(table, BEN, "right", clock.next())
    assert table.seating.added == ["hard"] and shows(table.screen(ANA), "Who plays? 3 of 3")
    tap(table, ANA, "ok", clock.next())
    while table.game is None:
        tap(table, ANA, "ok", clock.next())
    assert table.game.names == ("Ana", "Ben", "Bot") and table.seats == (ANA, BEN, None)
    header = lines(journals[0])[0]
    assert header["stations"] == [1, 2, None] and header["bots"] == [None, None, "hard"]


def test_two_of_three_stations_play_triangle_with_a_bot_and_the_third_watches(tmp_path):
    table, journals = journaled_table(tmp_path, ("Ana", "Ben", "Cy"), seed=5)
    clock = Clock()
    pick(table, clock, "triangle")
    assert table.seating is None and shows(table.screen(2), "ok: next  slap: bots")
    tap(table, 2, "slap", clock.next())                     # any station goes back to "Who plays?"
    tap(table, ANA, "slap", clock.next())
    tap(table, 2, "right", clock.next())
    tap(table, 2, "slap", clock.next())                     # Cy joins, then sees the bot is better
    tap(table, 2, "slap", clock.next())
    tap(table, BEN, "slap", clock.next())
    assert table.seating.added == ["easy"] and shows(table.screen(2), "Full: you watch")
    tap(table, BEN, "ok", clock.next())
    assert table.seats == (ANA, BEN, None)
    tap(table, BEN, "slap", clock.next())                   # back again: asked afresh
    assert table.seating is not None and table.seating.joined == {} and table.seated is None
    tap(table, BEN, "right", clock.next())
    tap(table, ANA, "slap", clock.next())
    tap(table, BEN, "slap", clock.next())
    tap(table, BEN, "ok", clock.next())
    while table.game is None:
        tap(table, BEN, "ok", clock.next())
    assert table.game.names == ("Ana", "Ben", "Bot") and table.bot_levels == {2: "easy"}
    assert shows(table.screen(2), "Watching Triangle")
    assert lines(journals[0])[0]["bots"] == [None, None, "easy"]


def test_a_box_started_with_bots_is_not_offered_more():
    table = Table(("Ana", "Ben"), None, seed=1, bots={2: "hard"})   # --bots hard
    clock = Clock()
    pick(table, clock, "triangle")
    assert table.seating is None and not shows(table.screen(ANA), "slap: bots")
    tap(table, ANA, "slap", clock.next())
    assert table.seating is None and table.lobby.row is None
