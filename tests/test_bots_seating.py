"""Bot seats among stations that take their seats: a bot is a seat with no station. It counts as
joined on "Who plays?", its seat is journaled as a null station, it has no panel (its onset is
the race's opening) and no light, and the table screen names it like anyone."""

import json

from companion.games import get
from companion.record.recovery import find_interrupted
from companion.table import Table
from companion.table.lobby import StartGame
from companion.tablescreen.public import public_view

from glyphs import shows
from helpers import MS, Clock, journaled_table, pick, tap

NAMES = ("Ana", "Ben", "Cy", "Dee")


def test_a_bot_counts_as_joined_and_takes_its_seat_among_the_stations(tmp_path):
    table, journals = journaled_table(tmp_path, NAMES, seed=4)
    table.bots = {0: "hard"}                                # --bot 1=hard
    clock = Clock()
    pick(table, clock, "triangle")
    assert table.seating is not None
    assert all(shows(table.screen(s), "Who plays? 1 of 3") for s in range(4))
    tap(table, 3, "slap", clock.next())
    tap(table, 3, "ok", clock.next())
    assert table.seating is not None and shows(table.screen(3), "1 more to join")
    tap(table, 1, "slap", clock.next())
    tap(table, 2, "slap", clock.next())                     # a third station: the bot took a seat
    assert sorted(table.seating.joined) == [1, 3] and shows(table.screen(2), "Full: you watch")
    tap(table, 1, "ok", clock.next())
    assert table.seats == (None, 1, 3) and table.lobby.players == 3
    while table.game is None:
        tap(table, 1, "ok", clock.next())
    assert table.game.names == ("Bot", "Ben", "Dee") and table.bot_seats.levels == {0: "hard"}
    header = json.loads(journals[0].read_text().splitlines()[0])
    assert header["stations"] == [None, 2, 4] and header["bots"] == ["hard", None, None]
    # Station 2 plays seat 1; station 1 (whose seat number the bot has) and station 3 watch.
    assert table.screen(1).tobytes() == table.game.screen(1).tobytes()
    assert shows(table.screen(0), "Watching Triangle") and shows(table.screen(2), "Watching Triangle")
    assert len(table.lights()) == 4
    # A resumed game finds its bot in the seat with no station, at its level, on a box started
    # without it (a bot the players added on "Who plays?").
    table.game.journal.close()
    resumed = Table(NAMES)
    resumed.resume(find_interrupted(tmp_path), 10**12)
    assert resumed.seats == (None, 1, 3) and resumed.bot_seats.levels == {0: "hard"}


def test_two_stations_start_triangle_with_a_bot_without_being_asked_who_plays():
    table = Table(NAMES[:2], bots={2: "easy"})              # --bots easy
    clock = Clock()
    pick(table, clock, "triangle")
    assert table.seating is None and table.lobby.row == 0 and table.seats == (0, 1, None)
    while table.game is None:
        tap(table, 0, "ok", clock.next())
    assert table.game.names == ("Ana", "Ben", "Bot") and table.bot_seats.levels == {2: "easy"}


def test_a_bot_has_no_panel_its_onset_is_the_opening_and_no_light():
    table = Table(NAMES[:2], bots={2: "hard"})
    table.screens_take_time = True
    table.start(StartGame(get("triangle"), {}), 0)
    t = 0
    while table.take_reveal() is None:
        t += 5 * MS
        table.tick(t, t)
    race = table.game.race
    table.revealed(table.reveals, {0: race.opens_at_ns + 7 * MS, 1: race.opens_at_ns + 20 * MS})
    assert race.onsets == {0: race.opens_at_ns + 7 * MS, 1: race.opens_at_ns + 20 * MS, 2: race.opens_at_ns}
    while table.game.claimer is None:                       # nobody at the table slaps: the bot does
        t += 5 * MS
        table.tick(t, t)
    assert table.game.claimer == 2
    assert table.game.lights() == {2: "on"} and table.lights() == ("off", "off")
    view = public_view(table)
    assert view.names == ("Ana", "Ben", "Bot") and view.mark == 2 and view.race[0].name == "Bot"
    assert view.heading == "Bot speaks" and view.cards == (), "no card is shown while the round is played"
