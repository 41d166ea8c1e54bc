"""The referee on a fake clock: lobby, the Pay-to-Play table, stale presses, abandon."""


import pytest

from companion.record.journal import replay, summary
from companion.table import ABANDON_HOLD_NS
from companion.table.chord import CHORD_WINDOW_NS
from companion.arbiter.inputs import InputEvent

from glyphs import shows
from helpers import MS, Clock, journal_objects, journaled_table, take_seats, tap


@pytest.fixture
def box(tmp_path):
    table, journals = journaled_table(tmp_path, ("Ana", "Ben", "Cy"), seed=7)
    return table, Clock(), journals


def press(table, clock, station, *keys):
    for key in keys:
        tap(table, station, key, clock.next())


def choose(table, clock, station, game):
    """Turn the lobby's game menu to ``game`` and pick it."""
    while table.lobby.game.name != game:
        press(table, clock, station, "right")
    press(table, clock, station, "ok")
    if table.seating is not None:  # the first stations, as many as the game needs, take the seats
        for s in range(table.lobby.game.min_players):
            press(table, clock, s, "slap")
        press(table, clock, 0, "ok")


def start_paytoplay(table, clock, **changes):
    """Pay-to-Play on a three-station box: stations 1 and 2 take the seats."""
    choose(table, clock, 0, "paytoplay")
    assert table.seats == (0, 1) and table.lobby.row == 0
    while table.lobby.row is not None:
        press(table, clock, 1, "ok")
    assert table.game is not None


def test_lobby_starts_the_chosen_game_with_default_options(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    header = journal_objects(journals[0])[0]
    assert header["game"] == "paytoplay"
    assert header["players"] == ["Ana", "Ben"]
    assert header["options"]["no_double_pass"] is False
    assert table.cues == ["go"]


def test_lobby_option_rows_step_through_ascending_choices_and_slap_goes_back(box):
    table, clock, journals = box
    choose(table, clock, 2, "paytoplay")         # Cy picks it; Ana and Ben play, and set it up
    press(table, clock, 1, "right")           # no_double_pass: off -> on
    assert table.lobby.values["no_double_pass"] is True
    press(table, clock, 1, "ok", "right", "right")  # games: 1 -> 2 -> 4
    assert table.lobby.values["games"] == 4
    press(table, clock, 1, "right", "right")  # 6 is the most: right stops there
    assert table.lobby.values["games"] == 6
    press(table, clock, 1, "left")            # left is less
    assert table.lobby.values["games"] == 4
    press(table, clock, 1, "slap", "slap")    # back to row 0, then to the game menu
    assert table.lobby.row is None
    choose(table, clock, 2, "paytoplay")
    assert table.lobby.values["games"] == 1   # a fresh pick starts from the defaults


def test_every_numeric_option_is_offered_in_ascending_order():
    from companion import games
    from companion.table.game import has_table

    for rules in games.all_games():
        if not has_table(rules.name):
            continue
        for name, choices, _ in rules.lobby_options(rules.max_players):
            numbers = [c for c in choices if isinstance(c, (int, float))]
            assert numbers == sorted(numbers), f"{rules.name}.{name}: {choices}"
            assert choices.index(None) == 0 if None in choices else True, "off comes first"


def test_the_options_doc_explains_every_lobby_option_as_the_lobby_does():
    from pathlib import Path

    from companion import games
    from companion.games.options import option_label
    from companion.table.game import has_table

    doc = (Path(__file__).parent.parent / "docs" / "OPTIONS.md").read_text()
    for rules in games.all_games():
        if not has_table(rules.name):
            continue
        for name, _, help in rules.lobby_options(rules.max_players):
            label, brief = option_label(rules.Options, name)
            assert f"| {label} (`{name}`) |" in doc and f"| {brief} | {help} |" in doc, name


def test_the_lobby_shows_a_games_rules_and_each_options_meaning(box):
    table, clock, journals = box
    while table.lobby.game.name != "triangle":
        press(table, clock, 0, "right")
    assert shows(table.screen(0), "slap: rules")
    press(table, clock, 0, "slap")
    assert shows(table.screen(0), "Triangle 1/10") and shows(table.screen(0), "3 players. The box")
    press(table, clock, 0, "right", "right")
    assert shows(table.screen(0), "Triangle 3/10") and shows(table.screen(0), "Deck: 4 each of 1-6.")
    assert shows(table.screen(0), "a 4th: Right to")    # what the Right to Speak card is
    press(table, clock, 0, "right", "right")
    assert shows(table.screen(0), "Triangle 5/10") and shows(table.screen(0), "peers even +1: both")
    press(table, clock, 0, "left")
    assert shows(table.screen(0), "Triangle 4/10")
    press(table, clock, 0, "ok")              # back to the game menu
    assert table.lobby.rules_page is None and table.lobby.game.name == "triangle"
    press(table, clock, 0, "ok", "ok", "ok", "ok")   # to the lockout row
    image = table.screen(0)
    assert shows(image, "lockout") and shows(image, "<off>") and shows(image, "slap before 0: wait")
    press(table, clock, 0, "right")
    assert shows(table.screen(0), "<250ms>")


def test_moves_cursor_over_affordable_cells_and_journals_the_play(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    game = table.game
    assert game.view(0).cursor == 0
    press(table, clock, 0, "right", "right", "right", "right")
    assert game.view(0).cursor == 4
    assert game.view(0).prompt == "cost 4"
    assert game.view(0).after_income == 1      # X's first turn pays 1, on the mover's station only
    assert game.view(1).after_income is None
    assert game.view(1).cursor is None        # only the mover's station shows a cursor
    press(table, clock, 1, "right", "ok")     # not Ben's turn: ignored
    press(table, clock, 0, "ok")
    assert game.view(0).board == "....X...."
    assert game.view(0).balances == (-3, 0)      # as the seed counts: Ben is paid on his turn
    assert game.view(1).after_income == 2
    lines = journal_objects(journals[0])[1:]
    assert lines == [{"type": "action", "action": "play", "player": 0, "cell": 4, "t": lines[0]["t"]}]
    assert lines[0]["t"] > 0


def test_a_forced_pass_is_made_by_the_box_shown_and_beeped(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    table.cues.clear()
    press(table, clock, 0, "right", "right", "right", "right", "ok")   # Ana centre: -3
    press(table, clock, 1, "right", "right", "right", "ok")            # Ben left side: 0
    assert table.cues == ["move", "auto_pass"]
    view = table.game.view(1)
    assert view.to_move == 1 and view.balances == (-1, 0)  # Ben is paid when he plays
    assert view.after_income == 2
    assert "Ana can't pay" in table.game.view(0).prompt
    last = journal_objects(journals[0])[-1]
    assert last == {"type": "action", "action": "pass", "player": 0, "auto": True, "t": last["t"]}


def test_a_press_older_than_the_last_change_is_stale_and_dropped(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    t = clock.next()
    table.handle(InputEvent(0, "ok", True, round(t * MS)))            # Ana plays cell 0
    assert table.game.view(0).board[0] == "X"
    # Ben's ok was pressed before Ana's but reaches the table after: it must not act on Ben's turn.
    table.handle(InputEvent(1, "ok", True, round((t - 1) * MS)))
    assert table.game.view(0).board == "X........"


def test_pass_and_the_end_screen_return_to_the_lobby(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    # Ana passes (Pass is after the nine cells: one step left from the first cell).
    press(table, clock, 0, "left")
    assert table.game.view(0).cursor == "pass"
    press(table, clock, 0, "ok")
    assert table.game.view(1).balances == (1, 0)
    assert table.game.view(1).after_income == 2
    # Ben takes 0, 1 and 2 (each the first free cell) while Ana passes.
    for _ in range(3):
        press(table, clock, 1, "ok")
        if table.game.match.outcome is None:
            press(table, clock, 0, "left", "ok")
    game = table.game
    header, match = replay(journals[0].read_text().splitlines())
    result = summary(header, match)
    assert result["over"] and result["winners"] == [1]
    assert result["detail"]["line"] == [0, 1, 2]
    assert game.view(2).result == "Ben wins"
    assert table.cues[-1] == "win"
    press(table, clock, 2, "ok")              # any station dismisses the end screen
    assert table.game is None and table.lobby.row is None


def test_draw_offer_is_accepted_by_the_other_player(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    for _ in range(3):                        # three voluntary passes each
        press(table, clock, 0, "left", "ok")
        press(table, clock, 1, "left", "ok")
    choices = [a["action"] for a in table.game.choices()]
    assert choices[-2:] == ["pass", "draw"]
    assert table.game.view(0).prompt == "cost 3\n<: Draw?", "the mover is told where Draw? is"
    assert shows(table.screen(0), "<: Draw?")
    press(table, clock, 0, "left", "ok")      # Draw? is last: one left from the first cell
    asked, offerer = table.game.view(1), table.game.view(0)
    assert asked.status == offerer.status == "Draw?" and asked.prompt == "ok: yes left: no"
    assert offerer.prompt == "Ben decides"
    assert not shows(table.screen(0), "your turn") and shows(table.screen(1), "left: no")
    press(table, clock, 1, "left")            # declined
    assert table.game.match.outcome is None and table.game.view(0).prompt == "Draw declined"
    assert table.game.view(0).cursor == "draw"   # the cursor stays on Draw?
    press(table, clock, 0, "ok")
    press(table, clock, 1, "ok")              # accepted
    assert table.game.match.outcome.winners == (0, 1)
    assert journal_objects(journals[0])[-1]["action"] == "draw"


def test_pay_to_play_says_where_draw_is_keeps_the_cost_in_view_and_the_tv_names_who_decides(box):
    """``<: Draw?`` only where ``left`` leads to it (the first item); a message goes above the
    cost, not instead of it; while a draw is offered the table screen says who must answer."""
    from companion.tablescreen.public import public_view

    table, clock, journals = box
    start_paytoplay(table, clock)
    for _ in range(3):
        press(table, clock, 0, "left", "ok")
        press(table, clock, 1, "left", "ok")
    assert "<: Draw?" in table.game.view(0).prompt
    press(table, clock, 0, "right")           # the second cell: left leads to the first, not Draw?
    assert "<: Draw?" not in table.game.view(0).prompt and table.game.view(0).prompt.startswith("cost")
    for _ in range(len(table.game.choices())):
        if table.game.view(0).cursor == "draw":
            break
        press(table, clock, 0, "right")
    assert table.game.view(0).cursor == "draw"
    press(table, clock, 0, "ok")
    assert public_view(table).heading == "Ana offers a draw: Ben decides"
    press(table, clock, 1, "left")            # declined: the message, and the cost below it
    press(table, clock, 0, "right")
    assert table.game.view(0).prompt == "Draw declined\ncost 3"


def test_an_agreed_draw_is_listed_as_a_draw(tmp_path, capsys):
    from companion.cli import main

    table, journals = journaled_table(tmp_path, ("Ana", "Ben"), seed=7)
    clock = Clock()
    start_paytoplay(table, clock)
    for _ in range(3):
        press(table, clock, 0, "left", "ok")
        press(table, clock, 1, "left", "ok")
    press(table, clock, 0, "left", "ok")
    press(table, clock, 1, "ok")
    journals[0].rename(tmp_path / "20260101-000000-paytoplay.jsonl")
    assert main(["games", "--journal-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("a draw") and "won by" not in out


def test_holding_right_and_pressing_ok_shows_the_rules_during_a_game(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    t = clock.next()
    for key, pressed, after in (("right", True, 0), ("ok", True, 20), ("ok", False, 60), ("right", False, 80)):
        table.handle(InputEvent(1, key, pressed, round((t + after) * MS)))
    assert shows(table.screen(1), "Pay-to-Play 1/7") and not shows(table.screen(0), "Pay-to-Play 1/7")
    press(table, clock, 1, "right")           # a page on, not a move
    assert shows(table.screen(1), "Pay-to-Play 2/7")
    press(table, clock, 0, "ok")              # Ana plays on meanwhile
    assert table.game.match.state.board != "." * 9
    press(table, clock, 1, "slap")            # back to the game
    assert not table.rules_open and shows(table.screen(1), "cost")
    assert table.game.match.state.board.count(".") == 8, "no key read as a move"




def hold_chord(table, station, t_ms):
    """Press ``left`` then ``right`` 10 ms later on ``station``; returns when the chord began."""
    table.handle(InputEvent(station, "left", True, round(t_ms * MS)))
    table.handle(InputEvent(station, "right", True, round((t_ms + 10) * MS)))
    return round((t_ms + 10) * MS)


def test_holding_left_and_right_counts_down_asks_then_abandons(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    before = table.game.view(1)
    since = hold_chord(table, 1, clock.next())
    countdown = [table.screen(1)]
    while (due := table.wakeup_ns()) < since + ABANDON_HOLD_NS:
        table.tick(due, due)
        countdown.append(table.screen(1))
    # Pay-to-Play: a bot may take the seat, so the hold counts down to leaving, as the dialog asks
    assert [shows(image, f"LEAVE? HOLD ON {n}s") for image, n in zip(countdown, (2, 1))] == [True, True]
    assert not shows(table.screen(0), "HOLD ON")        # on the holding station only
    assert table.game.view(1) == before                       # the game never saw left or right
    table.tick(due, due)
    assert table.confirming == 1 and shows(table.screen(1), "Leave the game?")  # Pay-to-Play: a bot may take the seat
    assert table.stuck(1, "left") is False                    # a chord held on is not a stuck key
    table.handle(InputEvent(1, "left", False, due + 100 * MS))
    table.handle(InputEvent(1, "right", False, due + 110 * MS))
    assert table.game is not None                             # releasing is no answer
    tap(table, 1, "ok", due / MS + 200)
    assert table.game is None and table.cues[-1] == "wrong"
    assert all(shows(table.screen(s), "Game abandoned") and shows(table.screen(s), "by Ben") for s in range(3))
    assert journals[0].name not in [p.name for p in journals[0].parent.iterdir()]  # marked abandoned
    tap(table, 2, "ok", due / MS + 400)
    assert table.screen(2).tobytes() == table.lobby.screen().tobytes()


def test_in_a_game_bots_do_not_play_the_hold_counts_down_to_abandoning_as_its_dialog_asks(box):
    table, clock, journals = box
    choose(table, clock, 0, "trio")
    take_seats(table, [0, 1, 2], clock.next)
    while table.lobby.row is not None:
        press(table, clock, 0, "ok")
    since = hold_chord(table, 1, clock.next())
    assert shows(table.screen(1), "ABANDON? HOLD ON 2s") and not shows(table.screen(1), "LEAVE?")
    table.tick(since + ABANDON_HOLD_NS, since + ABANDON_HOLD_NS)
    assert shows(table.screen(1), "Abandon the game?")


def test_any_other_key_at_the_confirmation_keeps_playing(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    since = hold_chord(table, 0, clock.next())
    table.tick(since + ABANDON_HOLD_NS, since + ABANDON_HOLD_NS)
    assert table.confirming == 0
    tap(table, 0, "slap", (since + ABANDON_HOLD_NS) / MS + 100)
    assert table.confirming is None and table.game is not None and table.game.match.outcome is None


def test_a_quick_left_reaches_the_game_and_a_spectator_cannot_abandon(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    tap(table, 0, "left", clock.next())
    assert table.game.view(0).cursor == "pass"                # left still steps the cursor
    since = hold_chord(table, 2, clock.next())                # station 3 watches
    table.tick(since + 3 * ABANDON_HOLD_NS, since + 3 * ABANDON_HOLD_NS)
    assert table.confirming is None and table.game is not None
    assert shows(table.screen(2), "Watching")


def test_a_held_left_reaches_the_game_once_the_chord_window_passed(box):
    table, clock, journals = box
    start_paytoplay(table, clock)
    t = clock.next()
    table.handle(InputEvent(0, "left", True, round(t * MS)))
    assert table.game.view(0).cursor != "pass"               # held back: a chord may follow
    due = table.wakeup_ns()
    assert due == round(t * MS) + CHORD_WINDOW_NS
    table.tick(due, due)
    assert table.game.view(0).cursor == "pass"


def test_a_stuck_button_is_shown_on_its_station_until_released(box):
    table, clock, journals = box
    plain = table.screen(1).tobytes()
    table.stuck(1, "slap")
    assert table.screen(1).tobytes() != plain
    assert table.screen(0).tobytes() == table.lobby.screen().tobytes()
    table.handle(InputEvent(1, "slap", False, round(clock.next() * MS)))
    assert table.screen(1).tobytes() == plain


def test_the_lobby_remembers_the_options_a_game_was_last_started_with(box):
    """Pay-to-Play started with four games, played, left: picked again, it offers four games."""
    table, clock, journals = box
    choose(table, clock, 0, "paytoplay")
    press(table, clock, 0, "ok", "right", "right")   # games: 1 -> 2 -> 4
    assert table.lobby.values["games"] == 4
    while table.lobby.row is not None:
        press(table, clock, 0, "ok")
    assert table.game.match.options.games == 4
    for key in ("left", "right"):                    # abandon it: hold both, then ok
        table.handle(InputEvent(0, key, True, round(clock.next() * MS)))
    table.tick(round((clock.ms + 2500) * MS), round((clock.ms + 2500) * MS))
    clock.ms += 3000
    press(table, clock, 0, "ok")
    for key in ("left", "right"):
        table.handle(InputEvent(0, key, False, round(clock.next() * MS)))
    press(table, clock, 0, "ok")                     # back to the games
    assert table.game is None and table.abandoned is None
    choose(table, clock, 0, "paytoplay")
    assert table.lobby.values["games"] == 4
