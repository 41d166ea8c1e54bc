"""Who plays: stations join with slap, pick a name, and the game sees seats, not stations."""

import json

from companion.table import Table

from glyphs import shows
from helpers import MS, Clock, journaled_table, pick, tap

NAMES = ("Ana", "Ben", "Cy", "Dee", "Eve", "Finn")


def test_three_players_take_stations_2_4_6_and_the_game_sees_seats(tmp_path):
    table, journals = journaled_table(tmp_path, NAMES, seed=4)
    clock = Clock()
    pick(table, clock, "triangle")
    assert table.seating is not None
    assert all(shows(table.screen(s), "Who plays? 0 of 3") for s in range(6))
    for station in (5, 1, 3):
        tap(table, station, "slap", clock.next())
    tap(table, 0, "slap", clock.next())                     # a fourth: Triangle is full
    assert sorted(table.seating.joined) == [1, 3, 5] and shows(table.screen(0), "Full: you watch")
    tap(table, 3, "left", clock.next())                     # Dee plays as the name before: Cy
    assert table.seating.joined[3] == "Cy"
    tap(table, 3, "left", clock.next())                     # Ben is taken, so Ana
    assert table.seating.joined[3] == "Ana"
    tap(table, 5, "left", clock.next())                     # Finn plays as Eve
    assert table.seating.joined[5] == "Eve"
    tap(table, 3, "right", clock.next())                    # right adds a bot, but Triangle is full
    assert table.seating.joined[3] == "Ana" and table.seating.added == []
    tap(table, 1, "ok", clock.next())
    assert table.seats == (1, 3, 5) and table.lobby.row == 0
    while table.game is None:
        tap(table, 1, "ok", clock.next())
    assert table.game.names == ("Ben", "Ana", "Eve")
    header = json.loads(journals[0].read_text().splitlines()[0])
    assert header["players"] == ["Ben", "Ana", "Eve"] and header["stations"] == [2, 4, 6]
    # Station 4 (seat 2) shows what the game shows seat 2; station 1 watches, and its slap is ignored.
    assert table.screen(3).tobytes() == table.game.screen(1).tobytes()
    t = round((clock.ms + 5000) * MS)
    table.tick(t, t)                                        # the countdown is over: slap now
    assert shows(table.screen(3), "Slap to speak!")
    assert shows(table.screen(0), "Watching Triangle") and not shows(table.screen(0), "Slap to speak!")
    tap(table, 0, "slap", clock.next() + 5000)
    t = round((clock.ms + 6000) * MS)
    table.tick(t, t)
    assert table.game.current.claimer is None               # nobody claimed: station 1 has no seat


def test_fewer_than_the_fewest_cannot_start_and_left_goes_back(tmp_path):
    table = Table(NAMES[:4], None, seed=1)
    clock = Clock()
    pick(table, clock, "triangle")
    tap(table, 2, "slap", clock.next())
    tap(table, 2, "ok", clock.next())
    assert table.seating is not None and shows(table.screen(2), "2 more  right:bots")
    tap(table, 2, "slap", clock.next())                     # leaves again
    assert table.seating.joined == {}
    tap(table, 1, "left", clock.next())
    assert table.seating is None and table.lobby.row is None
    assert table.screen(1).tobytes() == table.lobby.screen().tobytes()


def test_a_game_every_station_must_play_is_not_asked():
    table = Table(NAMES[:3], None, seed=1)
    clock = Clock()
    pick(table, clock, "triangle")
    assert table.seating is None and table.lobby.row == 0 and table.seats == (0, 1, 2)


def quiz_seated(tmp_path, joining, host=None):
    """A quiz on a six-station box: ``joining`` join on "Who plays?", ``host`` (if given) takes
    the name Host, and the first of them starts; the table once the game runs."""
    table, _ = journaled_table(tmp_path, NAMES, seed=4)
    clock = Clock()
    pick(table, clock, "quiz")
    for station in joining:
        tap(table, station, "slap", clock.next())
    while host is not None and table.seating.joined[host] != "Host":
        tap(table, host, "left", clock.next())
    while table.game is None:
        tap(table, joining[0], "ok", clock.next())
    return table


def test_the_station_that_takes_the_name_host_hosts_a_quiz_from_the_first_seat(tmp_path):
    table = quiz_seated(tmp_path, (1, 2, 4), host=4)
    assert table.seats == (4, 1, 2) and table.game.names == ("Host", "Ben", "Cy")
    assert shows(table.screen(4), "slap:arm ok:correct")     # the host's panel, with its keys


def test_a_quiz_with_nobody_named_host_is_hosted_by_the_lowest_station(tmp_path):
    table = quiz_seated(tmp_path, (5, 2, 3))
    assert table.seats == (2, 3, 5) and shows(table.screen(2), "slap:arm ok:correct")


def test_a_station_that_watches_neither_sets_the_options_nor_is_told_to_guess():
    """Six stations, three play Pictionary: Dee, watching, presses on the options (nothing
    changes) and, once the game starts, her panel does not tell her to get ready to guess."""
    from companion.arbiter.inputs import InputEvent
    from glyphs import shows
    from helpers import tap

    table = Table(("Ana", "Ben", "Cy", "Dee", "Eli", "Fay"), seed=1)
    table.lobby.index = [g.name for g in table.lobby.games].index("trio")
    tap(table, 0, "ok", 1)
    for station in (0, 1, 2):
        tap(table, station, "slap", 10 + station)
    tap(table, 0, "ok", 20)
    assert table.lobby.row == 0
    values = dict(table.lobby.values)
    for t, key in enumerate(("right", "right", "ok", "left", "slap")):
        tap(table, 3, key, 30 + t)
    assert table.lobby.values == values and table.lobby.row == 0 and table.seated is not None
    while table.game is None:
        table.handle(InputEvent(0, "ok", True, 100_000_000))
        table.handle(InputEvent(0, "ok", False, 100_000_001))
    assert table.seat_of(3) is None
    assert not shows(table.screen(3), "Get ready") and shows(table.screen(3), "reads the word")
