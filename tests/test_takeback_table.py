"""Taking back at the table: hold ``left`` and press ``ok``, confirm with ``ok``; every station
and the table screen say who took back what; a take-back not allowed says why on the panel."""

from __future__ import annotations

from companion.arbiter.inputs import InputEvent
from companion.record.journal import replay
from companion.tablescreen.public import public_view
from companion.table import ANNOUNCED_NS

from glyphs import shows
from helpers import MS, Clock, journal_objects, journaled_table, tap
from test_table import choose, press, start_paytoplay


def hold_left_press_ok(table, station, clock):
    """The take-back chord: ``left`` held, ``ok`` pressed 250 ms later, both let go."""
    t_ms = clock.next()
    clock.ms += 400
    for key, pressed, after in (("left", True, 0), ("ok", True, 250), ("ok", False, 300), ("left", False, 350)):
        table.handle(InputEvent(station, key, pressed, round((t_ms + after) * MS)))


def box(tmp_path):
    table, journals = journaled_table(tmp_path, ("Ana", "Ben", "Cy"), seed=7)
    return table, Clock(), journals


def test_a_mark_taken_back_is_journaled_announced_everywhere_and_the_game_is_as_before(tmp_path):
    table, clock, journals = box(tmp_path)
    start_paytoplay(table, clock)
    press(table, clock, 0, "right", "ok")                  # Ana marks the second cell she can afford
    marked = table.game.match.state
    assert marked.board != "." * 9
    hold_left_press_ok(table, 0, clock)
    assert shows(table.screen(0), "Take back?") and shows(table.screen(0), "a mark")
    assert not shows(table.screen(1), "Take back?")
    assert table.game.match.state == marked, "nothing is taken back before ok"
    tap(table, 0, "ok", clock.next())
    assert table.game.match.state.board == "." * 9
    for station in range(3):
        assert shows(table.screen(station), "Ana took back a mark"), station
    assert public_view(table).notice == "Ana took back a mark"
    assert "take_back" in table.cues
    lines = journal_objects(journals[0])
    assert {k: lines[-1][k] for k in ("type", "action", "player", "line")} == \
        {"type": "action", "action": "undo", "player": 0, "line": 2}
    _, replayed = replay(journals[0].read_text().splitlines())
    assert replayed.state == table.game.match.state
    later = table.now_ns + ANNOUNCED_NS
    table.tick(later, later)
    assert not shows(table.screen(1), "Ana took back a mark") and public_view(table).notice == ""
    assert shows(table.screen(0), "cost"), "Ana moves again, from the first cell"


def test_a_take_back_not_allowed_says_why_and_any_key_plays_on(tmp_path):
    table, clock, journals = box(tmp_path)
    start_paytoplay(table, clock)
    press(table, clock, 0, "ok")
    press(table, clock, 1, "ok")                           # Ben marks
    hold_left_press_ok(table, 0, clock)
    assert shows(table.screen(0), "Can't take back") and shows(table.screen(0), "Ben has played since")
    state = table.game.match.state
    tap(table, 0, "ok", clock.next())                      # back to the game, nothing taken back
    assert table.game.match.state == state and not shows(table.screen(0), "Can't take back")
    assert not any(line.get("action") == "undo" for line in journal_objects(journals[0]))
    hold_left_press_ok(table, 2, clock)             # a spectator has nothing to take back
    assert not shows(table.screen(2), "Take back?")


def test_the_other_player_moving_while_asked_refuses_the_take_back(tmp_path):
    table, clock, journals = box(tmp_path)
    start_paytoplay(table, clock)
    press(table, clock, 0, "ok")
    hold_left_press_ok(table, 0, clock)
    assert shows(table.screen(0), "Take back?")
    press(table, clock, 1, "ok")                           # Ben marks meanwhile
    tap(table, 0, "ok", clock.next())
    assert shows(table.screen(0), "Ben has played since")
    assert not any(line.get("action") == "undo" for line in journal_objects(journals[0]))


def test_a_take_back_after_a_resume_names_the_line_in_the_file(tmp_path):
    from companion.record.recovery import pick_up
    table, clock, journals = box(tmp_path)
    start_paytoplay(table, clock)
    press(table, clock, 0, "ok")
    table.game.journal.close()
    again, _ = journaled_table(tmp_path / "x", ("Ana", "Ben", "Cy"), seed=7)
    again.resume(pick_up(tmp_path), 10**12)
    clock.ms = 10**6
    hold_left_press_ok(again, 0, clock)
    tap(again, 0, "ok", clock.next())
    assert journal_objects(journals[0])[-1]["line"] == 2
    _, replayed = replay(journals[0].read_text().splitlines())
    assert replayed.state.board == "." * 9


def test_pictionary_the_artist_takes_back_a_judgement_with_the_chord(tmp_path):
    table, clock, journals = box(tmp_path)
    choose(table, clock, 0, "trio")
    while table.game is None:
        press(table, clock, 0, "ok")
    artist = table.game.match.state.artist
    guesser = table.game.match.state.guessers[0]
    press(table, clock, artist, "ok")                      # the timer
    press(table, clock, guesser, "slap")
    table.tick(table.now_ns + 1, table.now_ns + 1)
    press(table, clock, artist, "ok")                      # judged right
    assert table.game.match.state.judged is not None
    watcher = next(s for s in range(3) if s not in (artist, table.game.match.state.artist))
    hold_left_press_ok(table, watcher, clock)             # neither the artist who judged nor the new one
    refused = table.screen(watcher)
    assert shows(refused, "Can't take back") and shows(refused, "taken back"), "the reason whole, on three lines"
    tap(table, watcher, "ok", clock.next())
    hold_left_press_ok(table, artist, clock)
    assert shows(table.screen(artist), "a judgement")
    tap(table, artist, "ok", clock.next())
    actions = [line for line in journal_objects(journals[0]) if line.get("type") == "action"]
    assert actions[-1]["action"] == "correct" and actions[-2]["action"] == "guessed"
    assert public_view(table).notice == f"{table.game.names[artist]} took back a judgement"


# --- a bot takes a seat, a person takes it back -----------------------------------------------

def leave(table, station, clock, key):
    """Hold ``left`` and ``right`` for the two seconds, then ``key`` on *Leave the game?*."""
    from companion.table import ABANDON_HOLD_NS
    t = clock.next()
    table.handle(InputEvent(station, "left", True, round(t * MS)))
    table.handle(InputEvent(station, "right", True, round((t + 10) * MS)))
    due = round((t + 10) * MS) + ABANDON_HOLD_NS
    table.tick(due, due)
    assert shows(table.screen(station), "Leave the game?") and shows(table.screen(station), "easy bot plays")
    table.handle(InputEvent(station, "left", False, due + 50 * MS))
    table.handle(InputEvent(station, "right", False, due + 60 * MS))
    clock.ms = due / MS + 100
    tap(table, station, key, clock.next())


def run_bots(table, clock, seconds):
    for _ in range(seconds * 10):
        t = round(clock.next() * MS)
        table.tick(t, t)


def test_a_player_leaves_a_bot_plays_on_and_the_player_takes_the_seat_back(tmp_path):
    table, clock, journals = box(tmp_path)
    start_paytoplay(table, clock)
    press(table, clock, 0, "ok")                           # Ana marks
    leave(table, 1, clock, "left")                         # Ben leaves: an easy bot plays for him
    assert table.seats == (0, None) and table.game.bots == {1: "easy"}
    assert shows(table.screen(0), "Ben left: a bot plays")
    run_bots(table, clock, 5)
    lines = journal_objects(journals[0])
    assert {k: lines[2][k] for k in ("type", "player", "bot", "station")} == \
        {"type": "seat", "player": 1, "bot": "easy", "station": None}
    assert lines[-1].get("bot") is True and lines[-1]["player"] == 1, "the bot moved for Ben"
    hold_left_press_ok(table, 1, clock)                    # Ben is back
    assert shows(table.screen(1), "Take a seat?") and shows(table.screen(1), "Ben's seat")
    tap(table, 1, "ok", clock.next())
    assert table.seats == (0, 1) and table.game.bots == {}
    back = journal_objects(journals[0])[-1]
    assert {k: back[k] for k in ("type", "player", "bot", "station")} == \
        {"type": "seat", "player": 1, "bot": None, "station": 2}
    assert (lines[2]["when"], back["when"]) == ("move 2", f"move {table.game.match.moves + 1}")
    while table.game.match.outcome is None:                # both play it out
        mover = table.game.match.rules.to_move(table.game.match.state)[0]
        press(table, clock, mover, "ok")
    _, replayed = replay(journals[0].read_text().splitlines())
    assert replayed.outcome == table.game.match.outcome
    assert f"Ben (bot from move 2 to {back['when']})" in public_view(table).lines
    press(table, clock, 0, "ok")                           # the end screen's ok: the seats bots played
    for station in range(3):
        told = table.screen(station)
        assert shows(told, "Bots played") and shows(told, "Ben: bot from move 2") and shows(told, f"to {back['when']}")
    press(table, clock, 2, "ok")
    assert table.game is None


def test_a_game_resumed_after_a_player_left_seats_the_bot_and_the_watcher(tmp_path):
    from companion.record.recovery import pick_up
    table, clock, journals = box(tmp_path)
    start_paytoplay(table, clock)
    press(table, clock, 0, "ok")
    leave(table, 1, clock, "right")
    table.game.journal.close()
    again, _ = journaled_table(tmp_path / "x", ("Ana", "Ben", "Cy"), seed=7)
    again.resume(pick_up(tmp_path), 10**12)
    assert again.seats == (0, None) and again.game.bots == {1: "hard"}
    assert again.bot_seats is not None and again.bot_seats.levels == {1: "hard"}
    assert again.game.flagged(1) == "Ben (bot from move 2)" and again.game.flagged(0) == "Ana"


def test_a_closest_number_card_taken_back_in_round_2_is_as_if_never_placed_not_round_1_scores(tmp_path):
    """The first card of round 2 taken back: every station is where it was before the card
    (Ben's "Round 2: your turn"), not on round 1's scores asking for another ok."""
    table, clock, journals = box(tmp_path)
    choose(table, clock, 0, "closest")
    lobby = table.lobby
    while lobby.row is not None:
        if lobby.row < len(lobby._rows()) and lobby._rows()[lobby.row][0] == "start":
            while lobby.values["start"] != "seat1":        # seat 1 starts: no race
                press(table, clock, 0, "right")
        press(table, clock, 0, "ok")
    game = table.game
    for station in (0, 1, 2):                              # round 1: a card each
        press(table, clock, station, "ok")
    assert game.showing is not None
    press(table, clock, 0, "ok")                           # round 1's scores left
    assert game.state.round == 2 and game.state.mover() == 1
    before = [table.screen(s).tobytes() for s in range(3)]
    assert shows(table.screen(1), "Round 2: your turn")
    press(table, clock, 1, "ok", "ok")                     # Ben's first card, counting
    assert len(game.state.cards) == 1
    hold_left_press_ok(table, 1, clock)
    tap(table, 1, "ok", clock.next())
    assert game.state.cards == () and game.showing is None
    later = table.now_ns + ANNOUNCED_NS
    table.tick(later, later)
    assert [table.screen(s).tobytes() for s in range(3)] == before


def test_seats_a_bot_took_over_are_flagged_in_triangles_own_units_on_panels_replay_explain_and_games(
        tmp_path, capsys):
    """Ana and Ben leave a one-turn Triangle in its first round; Cy plays it out with their bots.
    The result flags both seats by turn and round ("Turn 1 Round 1/6" on the screens), not by a
    bare round number: Cy's end panel, the table screen, ``companion replay``, ``replay --explain``
    and ``companion games``."""
    from companion.cli import main
    from companion.screens.canvas import checking

    table, clock, journals = box(tmp_path)
    choose(table, clock, 0, "triangle")
    lobby = table.lobby
    while lobby.row is not None:
        if lobby.row < len(lobby._rows()) and lobby._rows()[lobby.row][0] == "turns":
            while lobby.values["turns"] != 1:
                press(table, clock, 0, "right")
        press(table, clock, 0, "ok")
    leave(table, 0, clock, "left")
    leave(table, 1, clock, "right")
    game = table.game
    while not (game.match.outcome is not None and not game.holding_last_round):
        run_bots(table, clock, 1)
        if game.match.outcome is not None or game.current is None or game.claimer == 2:
            press(table, clock, 2, "ok")              # Cy: the next round, a fact, the end screen
    with checking() as cut:
        end = table.screen(2)
    assert not cut, [str(c) for c in cut]
    assert shows(end, "Ana: bot from T1 R1") and shows(end, "Ben: bot from T1 R1") and shows(end, "ok: back")
    assert "Ana (bot from turn 1 round 1)" in public_view(table).lines

    path = journals[0]
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Ana (seat 1, bot from turn 1 round 1):" in out and "Ben (seat 2, bot from turn 1 round 1):" in out
    assert "Cy (seat 3):" in out
    assert main(["replay", "--explain", str(path)]) == 0
    told = capsys.readouterr().out.splitlines()
    assert "Ana (seat 1) leaves: an easy bot plays the seat from here (turn 1 round 1)." in "\n".join(told)
    assert told[-1].endswith(" Ana (seat 1): bot from turn 1 round 1. Ben (seat 2): bot from turn 1 round 1.")
    assert main(["games", "--journal-dir", str(path.parent)]) == 0
    assert "Ana (bot from turn 1 round 1); Ben (bot from turn 1 round 1)" in capsys.readouterr().out


def test_a_closest_number_game_all_its_players_left_goes_on_from_each_rounds_scores_by_itself(tmp_path):
    """Every player leaves the closest-number game to a bot: each round's scores stay on the
    screens READ_MS, then a bot goes on to the next round, where a person would press ok."""
    from companion.table.bots import READ_MS

    table, clock, journals = box(tmp_path)
    choose(table, clock, 0, "closest")
    lobby = table.lobby
    while lobby.row is not None:
        if lobby.row < len(lobby._rows()) and lobby._rows()[lobby.row][0] == "start":
            while lobby.values["start"] != "seat1":
                press(table, clock, 0, "right")
        press(table, clock, 0, "ok")
    for station in range(3):
        leave(table, station, clock, "left")
    game = table.game
    for _ in range(120):
        run_bots(table, clock, 1)
        if game.state.round >= 3 or game.match.outcome is not None:
            break
    assert game.state.round >= 3 or game.match.outcome is not None, "the bots went on from round 1's scores"
    cards = [x for x in journal_objects(journals[0]) if x.get("action") == "place"]
    last_of_round_1 = len(game.state.scored[0].cards) - 1
    assert cards[last_of_round_1 + 1]["t"] - cards[last_of_round_1]["t"] >= READ_MS / 1000
