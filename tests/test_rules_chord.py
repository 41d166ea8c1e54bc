"""The rules chord (hold ``right``, press ``ok``) on the real table, on a fake clock, in every game
where ``right`` means something: only the rules open. The game's state, its journal, every
station's screen and the buzzer are as they were once the rules are closed again, and a plain
``right`` still does what it did before."""

from __future__ import annotations

import pytest

from companion.games import get
from companion.arbiter.inputs import InputEvent
from companion.table.chord import CHORD_WINDOW_NS
from companion.table.closest import ANSWER_KEYS
from companion.table.lobby import StartGame

from glyphs import shows
from helpers import MS, Clock, journaled_table, tap

ANA, BEN, CY = 0, 1, 2


def chord(table, station, t_ms):
    """A player opens the rules: ``right`` down, ``ok`` down 20 ms later, both let go; then time
    passes well beyond the chord window, every press before it delivered."""
    for key, pressed, after in (("right", True, 0), ("ok", True, 20), ("ok", False, 60), ("right", False, 80)):
        table.handle(InputEvent(station, key, pressed, round((t_ms + after) * MS)))
    end = round((t_ms + 1000) * MS)
    table.tick(end, end)
    assert station in table.rules_open and shows(table.screen(station), " 1/"), "the rules are open"


def close_rules(table, station, t_ms):
    tap(table, station, "slap", t_ms)
    assert station not in table.rules_open


def seen(table, journals):
    """Everything the chord must leave alone: the game's state, the journal, the screens, the
    lights, the buzzer's cues."""
    screens = [table.screen(s).tobytes() for s in range(table.stations)]
    return table.game.match.state, journals[-1].read_bytes(), screens, table.lights(), list(table.cues)


def chord_changes_nothing(table, clock, journals, station):
    before = seen(table, journals)
    chord(table, station, clock.next())
    close_rules(table, station, clock.next() + 1000)
    clock.ms += 2000
    assert seen(table, journals) == before


def start(table, clock, game, **options):
    table.start(StartGame(get(game), options), round(clock.next() * MS))
    return table.game


@pytest.fixture
def box(tmp_path):
    table, journals = journaled_table(tmp_path, ("Ana", "Ben", "Cy"), seed=7)
    return table, Clock(), journals


def test_the_chord_is_no_answer_in_the_closest_start_race(box):
    table, clock, journals = box
    game = start(table, clock, "closest")
    chord_changes_nothing(table, clock, journals, BEN)
    assert game.race is not None and not game.out and game.state.starter is None
    # a plain right is an answer, as before
    a, b = game.question
    right_is_right = ANSWER_KEYS[game.answers.index(a * b)] == "right"
    t = clock.next()
    tap(table, BEN, "right", t)
    table.tick(round((t + 1000) * MS), round((t + 1000) * MS))
    assert (game.state.starter == BEN) if right_is_right else (BEN in game.out)


def closest_race_on_right(tmp_path):
    """A closest game whose first question is answered with ``right`` (the seed chosen for it)."""
    for seed in range(40):
        table, journals = journaled_table(tmp_path, ("Ana", "Ben", "Cy"), seed=seed, prefix=f"s{seed}-")
        clock = Clock()
        game = start(table, clock, "closest")
        if game.race.key == "right":
            return table, clock, game
    raise AssertionError("no seed asks a question answered with right")


def test_a_right_answer_held_back_for_the_chord_still_ties_by_its_edge_time(tmp_path):
    """Ana answers at t, Ben 5 ms later (a tie) and neither lets go: Ana's press is due to the
    game before Ben's, yet the race waits for Ben's, which is earlier than the watermark."""
    table, clock, game = closest_race_on_right(tmp_path)
    t = round(clock.next() * MS)
    table.handle(InputEvent(ANA, "right", True, t))
    table.handle(InputEvent(BEN, "right", True, t + 5 * MS))
    table.tick(t + CHORD_WINDOW_NS, t + CHORD_WINDOW_NS)     # Ana's press is due to the game, Ben's not yet
    assert game.last_race is None or game.last_race.winners == {ANA, BEN}, "Ben's press was left out"
    table.tick(t + CHORD_WINDOW_NS + 5 * MS, t + CHORD_WINDOW_NS + 5 * MS)
    assert game.last_race is not None and game.last_race.winners == {ANA, BEN}


def test_a_plain_right_answer_wins_the_closest_start_race_by_its_edge_time(tmp_path):
    table, clock, game = closest_race_on_right(tmp_path)
    t = round(clock.next() * MS)
    table.handle(InputEvent(CY, "right", True, t))
    table.handle(InputEvent(ANA, "slap", True, t + 20 * MS))   # a wrong answer, passed on at once
    table.tick(t + CHORD_WINDOW_NS, t + CHORD_WINDOW_NS)
    assert game.state.starter == CY and ANA in game.out and table.cues[-1] == "decided"


def test_the_chord_moves_no_pay_to_play_cursor(box):
    table, clock, journals = box
    game = start(table, clock, "paytoplay")
    chord_changes_nothing(table, clock, journals, ANA)
    cursor = game.cursor
    tap(table, ANA, "right", clock.next())
    assert game.cursor == cursor + 1


def test_the_chord_moves_no_cursor_in_the_triangle_fact_menu(box):
    table, clock, journals = box
    game = start(table, clock, "triangle")
    to_zero = game.opens_ns
    table.tick(to_zero, to_zero)
    table.handle(InputEvent(BEN, "slap", True, to_zero + 200 * MS))
    table.tick(to_zero + 400 * MS, to_zero + 400 * MS)
    assert game.claimer == BEN
    clock.ms = (to_zero + 500 * MS) / MS
    chord_changes_nothing(table, clock, journals, BEN)
    tap(table, BEN, "right", clock.next())
    assert game.cursor == 1


def test_the_chord_turns_no_pictomania_page(box):
    table, clock, journals = box
    game = start(table, clock, "pictomania")
    chord_changes_nothing(table, clock, journals, CY)
    tap(table, CY, "right", clock.next())
    assert game.seats[CY].page == 1


def test_the_chord_takes_back_no_pictionary_judgement(box):
    table, clock, journals = box
    game = start(table, clock, "trio")
    artist = game.match.state.artist
    guesser = (artist + 1) % 3
    tap(table, artist, "ok", clock.next())                   # the timer runs
    tap(table, guesser, "slap", clock.next())
    t = clock.next()
    table.tick(round(t * MS), round(t * MS))
    tap(table, artist, "ok", clock.next())                   # judged right
    assert game.corrector() == artist
    scores = game.match.state.scores
    chord_changes_nothing(table, clock, journals, artist)
    tap(table, artist, "right", clock.next())                # taken back, as before
    assert game.match.state.scores != scores and game.match.state.scores == (0, 0, 0)


def test_the_abandon_chord_is_no_answer_in_the_closest_start_race(box):
    table, clock, journals = box
    game = start(table, clock, "closest")
    t = round(clock.next() * MS)
    table.handle(InputEvent(CY, "left", True, t))
    table.handle(InputEvent(CY, "right", True, t + 10 * MS))
    table.tick(t + 1000 * MS, t + 1000 * MS)
    assert not game.out and game.state.starter is None and table.chords.since == {CY: t + 10 * MS}


def test_a_held_key_is_drawn_when_it_reaches_the_game(box):
    """``right`` held on Pay-to-Play: once the chord window has passed, the tick that hands it to
    the game moves the cursor and bumps the table's version, so the screens are redrawn then,
    not at the key's release."""
    table, clock, journals = box
    game = start(table, clock, "paytoplay")
    mover = game.match.rules.detail(game.match.state)["to_move"]
    t = clock.next()
    table.handle(InputEvent(mover, "right", True, round(t * MS)))
    before, cursor, screen = table.version, game.cursor, table.screen(mover).tobytes()
    table.tick(round((t + 100) * MS), round((t + 100) * MS))
    assert game.cursor == cursor + 1
    assert table.version > before and table.screen(mover).tobytes() != screen


def test_the_rules_pages_say_a_race_is_on_or_it_is_your_turn_in_triangle(box):
    """Reading the rules hides the game: a badge in the title bar says "RACE!" while the race
    runs (from the countdown) and "YOUR TURN" while the game waits for the reader; nothing
    for a reader the game is not waiting for."""
    table, clock, journals = box
    game = start(table, clock, "triangle")
    chord(table, BEN, clock.next())                        # during the countdown
    assert game.racing and shows(table.screen(BEN), "RACE!")
    opens = game.opens_ns
    table.tick(opens, opens)
    assert game.count == 0 and shows(table.screen(BEN), "RACE!")
    table.handle(InputEvent(ANA, "slap", True, opens + 200 * MS))
    table.tick(opens + 400 * MS, opens + 400 * MS)
    assert game.claimer == ANA
    screen = table.screen(BEN)
    assert shows(screen, "Triangle 1/") and not shows(screen, "RACE!") and not shows(screen, "YOUR TURN")
    clock.ms = (opens + 500 * MS) / MS
    chord(table, ANA, clock.next())
    assert shows(table.screen(ANA), "YOUR TURN")


def test_the_rules_pages_say_whose_turn_it_is_in_pay_to_play(box):
    table, clock, journals = box
    game = start(table, clock, "paytoplay")
    chord(table, ANA, clock.next())
    chord(table, BEN, clock.next())
    assert game.match.state.to_move == ANA
    assert shows(table.screen(ANA), "YOUR TURN") and not shows(table.screen(BEN), "YOUR TURN")


def test_what_each_game_waits_for_from_each_seat(box):
    """The badge's words in the other games: the closest-number start race and the mover's turn,
    Pictionary's artist and guessers, the quiz's host and contestants."""
    from companion.table.game import RACE, YOUR_TURN

    table, clock, journals = box
    game = start(table, clock, "closest", start="seat1")
    assert [game.waiting_on(s) for s in (ANA, BEN, CY)] == [YOUR_TURN, "", ""]
    game = start(table, clock, "closest")
    assert [game.waiting_on(s) for s in (ANA, BEN, CY)] == [RACE] * 3

    game = start(table, clock, "trio")
    artist = game.match.state.artist
    guessers = [s for s in (ANA, BEN, CY) if s != artist]
    assert game.waiting_on(artist) == YOUR_TURN and [game.waiting_on(s) for s in guessers] == ["", ""]
    tap(table, artist, "ok", clock.next())                   # the timer runs
    assert game.deadline_ns is not None
    assert game.waiting_on(artist) == "" and [game.waiting_on(s) for s in guessers] == [RACE, RACE]
    tap(table, guessers[0], "slap", clock.next())
    t = clock.next()
    table.tick(round(t * MS), round(t * MS))
    assert game.judging and game.waiting_on(artist) == YOUR_TURN and game.waiting_on(guessers[1]) == ""

    game = start(table, clock, "quiz")
    assert [game.waiting_on(s) for s in (ANA, BEN, CY)] == [YOUR_TURN, "", ""]   # the host arms
    tap(table, ANA, "slap", clock.next())
    assert game.state.phase == "open"
    assert [game.waiting_on(s) for s in (ANA, BEN, CY)] == ["", RACE, RACE]
