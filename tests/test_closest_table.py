"""The closest-number table on a fake clock: the start race, placing, secret decoys, scoring."""

from __future__ import annotations

import random

import pytest

from companion.games import get
from companion.arbiter.inputs import InputEvent
from companion.record.journal import replay, summary
from companion.table import Table
from companion.table.closest import ANSWER_KEYS, answers
from companion.table.lobby import StartGame

from glyphs import shows
from helpers import MS, Clock, journal_objects, journaled_table, tap
from companion.games.options import SCREEN_TIE_WINDOW_MS

ANA, BEN, CY = 0, 1, 2
NAMES = ("Ana", "Ben", "Cy")


@pytest.fixture
def box(tmp_path):
    table, journals = journaled_table(tmp_path, NAMES, seed=7)
    return table, Clock(), journals


@pytest.fixture
def racing(box):
    """A game of the default options, its start race open: (table, game, now in ms, journals)."""
    table, clock, journals = box
    game = start(table, clock)
    return table, game, clock.ms, journals


def start(table, clock, **options):
    table.start(StartGame(get("closest"), options), round(clock.next() * MS))
    return table.game


def journal(journals):
    return journal_objects(journals[-1])[1:]


def right_key(game):
    a, b = game.question
    return ANSWER_KEYS[game.answers.index(a * b)]


def wrong_key(game):
    return next(k for k in ANSWER_KEYS if k != right_key(game))


def answer(table, *answers):
    """Each ``(station, right, t_ms)`` answers the question on screen, arriving in this order;
    the buttons are let go 50 ms later."""
    pressed = []
    for station, right, t_ms in answers:
        key = right_key(table.game) if right else wrong_key(table.game)
        table.handle(InputEvent(station, key, True, round(t_ms * MS)))
        pressed.append((station, key, t_ms))
    for station, key, t_ms in pressed:
        table.handle(InputEvent(station, key, False, round((t_ms + 50) * MS)))


def tick(table, now_ms, watermark_ms=None):
    """Time reaches ``now_ms``; every press before ``watermark_ms`` (default: now) has arrived."""
    table.tick(round(now_ms * MS), round((now_ms if watermark_ms is None else watermark_ms) * MS))


def test_the_lobby_offers_the_game_and_its_options():
    table = Table(("Ana", "Ben", "Cy"), None, seed=1)
    clock = Clock()
    while table.lobby.game.name != "closest":
        tap(table, ANA, "right", clock.next())
    tap(table, ANA, "ok", clock.next())
    tap(table, ANA, "right", clock.next())                 # line length 10 is the most
    assert table.lobby.values == {"line_length": 10, "start": "17x34", "tie_window_ms": SCREEN_TIE_WINDOW_MS}
    tap(table, ANA, "left", clock.next())                  # 10 -> 9
    assert table.lobby.values == {"line_length": 9, "start": "17x34", "tie_window_ms": SCREEN_TIE_WINDOW_MS}
    for _ in range(3):
        tap(table, ANA, "ok", clock.next())
    tap(table, ANA, "ok", clock.next())                    # Start
    game = table.game
    assert game.view(BEN).question == "17 x 34 = ?"
    assert 578 in game.answers and len(set(game.answers)) == 4


def test_near_misses_share_the_last_digit_and_are_positive():
    rng = random.Random(1)
    for a, b in [(17, 34), (12, 21), (19, 49)]:
        shown = answers(a, b, rng)
        assert a * b in shown and len(set(shown)) == 4
        assert all(x > 0 and x % 10 == a * b % 10 for x in shown)


def test_a_wrong_fastest_answer_loses_to_the_right_second_one(racing):
    table, game, t, journals = racing
    answer(table, (BEN, False, t + 100))
    assert table.cues[-1] == "wrong"
    assert game.view(BEN).prompt == "Wrong: you're out"
    answer(table, (CY, True, t + 150),
           (BEN, True, t + 120),                           # knocked out already: no use
           (ANA, True, t + 300))
    assert game.wakeup_ns() == round((t + 150 + SCREEN_TIE_WINDOW_MS) * MS)
    tick(table, t + 400, t + 149 + SCREEN_TIE_WINDOW_MS)
    assert game.race is not None                           # the watermark has not passed
    tick(table, t + 400, t + 150 + SCREEN_TIE_WINDOW_MS)
    assert game.race is None and table.cues[-1] == "decided"
    assert journal(journals) == [{"type": "action", "action": "start", "player": CY, "t": 0.4,
                                  "onset_ms": [0.0, 0.0, 0.0], "reaction_ms": [300.0, None, 150.0],
                                  "question": [17, 34]}]
    assert game.view(ANA).title == "Round 1: Cy's turn"
    assert game.view(ANA).prompt == "Cy answered first"


def test_companion_replay_json_gives_the_start_race_with_its_question(racing, capsys):
    import json

    from companion.cli import main

    table, game, t, journals = racing
    answer(table, (BEN, False, t + 100), (CY, True, t + 150), (ANA, True, t + 300))
    tick(table, t + 400)
    assert main(["replay", "--json", str(journals[-1])]) == 0
    assert json.loads(capsys.readouterr().out)["races"] == [
        {"t": 0.4, "action": "start", "winners": [CY], "onset_ms": [0.0, 0.0, 0.0],
         "reaction_ms": [300.0, None, 150.0], "question": [17, 34]}]


def test_the_race_goes_by_edge_time_not_by_arrival(racing):
    table, game, t, journals = racing
    answer(table, (ANA, True, t + 200),                    # arrives first, pressed last
           (BEN, True, t + 150), (BEN, False, t + 140),    # Ben's first answer was wrong
           (CY, True, t + 180))
    tick(table, t + 300)
    assert journal(journals)[0]["player"] == CY


def test_a_tie_asks_the_tied_players_a_new_product(racing):
    table, game, t, journals = racing
    answer(table, (ANA, True, t + 100), (BEN, True, t + 105))   # within the 10 ms window
    tick(table, t + 120)
    assert table.cues[-1] == "tie" and game.race.stations == {ANA, BEN}
    assert game.question != (17, 34)
    assert game.view(CY).prompt == "Tie-break: Ana & Ben"
    assert game.view(ANA).prompt == "Tie: Ana & Ben again"
    answer(table, (ANA, True, t + 110),                    # aimed at the old question: stale
           (CY, True, t + 230),                            # not in the tie-break
           (BEN, True, t + 240))                           # read for 120 ms since t + 120
    tick(table, t + 300)
    assert journal(journals)[0]["player"] == BEN


def test_when_everyone_answers_wrong_everyone_gets_a_new_product(racing):
    table, game, t, journals = racing
    for station in (ANA, BEN, CY):
        answer(table, (station, False, t + 100 + station))
    assert game.wakeup_ns() == round((t + 102) * MS)
    tick(table, t + 110, t + 101)
    assert game.race.stations == {ANA, BEN, CY} and game.out == {ANA, BEN, CY}
    tick(table, t + 110, t + 102)
    assert game.out == set() and game.view(ANA).prompt == "All wrong: new one"
    answer(table, (ANA, True, t + 250))
    tick(table, t + 300)
    assert journal(journals)[0]["player"] == ANA


def test_other_start_options_need_no_race(box):
    table, clock, journals = box
    game = start(table, clock, start="seat1")
    assert game.race is None and game.view(BEN).prompt == "Ana starts"
    assert journal(journals)[0] == {"type": "action", "action": "start", "player": ANA,
                                    "auto": True, "t": 0.0}
    game = start(table, clock, start="random")
    assert game.race is None and journal(journals)[0]["action"] == "start"
    assert game.view(ANA).prompt.endswith("drawn at random")


def place(table, clock, station, number, decoy=None):
    """Move the cursor to ``number`` and place it; answer the decoy question if asked."""
    game = table.game
    free = game.state.free()
    for _ in range(free.index(number)):
        tap(table, station, "right", clock.next())
    tap(table, station, "ok", clock.next())
    if game.picked is not None:
        if decoy:
            tap(table, station, "right", clock.next())
        tap(table, station, "ok", clock.next())


def test_the_mover_picks_a_free_number_with_the_cursor(box):
    table, clock, journals = box
    game = start(table, clock, start="seat1")
    assert game.view(ANA).cursor == (1, ANA, False)
    assert game.view(BEN).cursor is None                    # only the mover's panel
    tap(table, ANA, "left", clock.next())                   # wraps to 10
    assert game.view(ANA).cursor == (10, ANA, False)
    tap(table, BEN, "ok", clock.next())                     # not Ben's turn
    tap(table, ANA, "ok", clock.next())
    assert journal(journals)[-1] == {"type": "action", "action": "place", "player": ANA,
                                     "number": 10, "decoy": False, "t": journal(journals)[-1]["t"]}
    assert table.cues[-1] == "move"
    assert game.view(BEN).cursor == (1, BEN, False)
    tap(table, BEN, "left", clock.next())                   # 10 is taken: 9 is the last free
    assert game.view(BEN).cursor == (9, BEN, False)


def round_1(table, clock):
    place(table, clock, ANA, 5)
    place(table, clock, BEN, 6)
    place(table, clock, CY, 4)


def test_the_scoring_screen_shows_each_numbers_winner_until_ok(box):
    table, clock, journals = box
    game = start(table, clock, start="seat1")
    round_1(table, clock)
    assert table.cues[-1] == "decided"
    view = game.view(CY)
    assert view.title == "Round 1 scores"
    assert view.verdicts == (CY, CY, CY, CY, ANA, BEN, BEN, BEN, BEN, BEN)
    assert view.points == (1, 5, 4) and view.totals == (1, 5, 4)
    image = game.screen(CY)
    assert shows(image, "round") and shows(image, "Ana") and shows(image, "You"), \
        "the rows say which is which, and whose shape is whose"
    assert shows(image, "+5") and not shows(image, "+0")
    t = clock.next()
    table.handle(InputEvent(CY, "ok", True, round(t * MS)))
    assert game.showing is None and game.view(BEN).title == "Round 2: your turn"
    table.handle(InputEvent(BEN, "ok", True, round((t - 1) * MS)))   # stale: no card placed
    assert game.state.cards == ()


def test_the_decoy_is_chosen_and_shown_on_the_owners_panel_only(box):
    table, clock, journals = box
    game = start(table, clock, start="seat1")
    round_1(table, clock)
    tap(table, CY, "ok", clock.next())
    tap(table, BEN, "ok", clock.next())                     # Ben picks 1
    assert game.view(BEN).menu == ("counts", "decoy") and game.view(BEN).selected == 0
    tap(table, BEN, "right", clock.next())
    assert game.view(BEN).cursor == (1, BEN, True)
    tap(table, BEN, "slap", clock.next())                   # back to the numbers
    assert game.picked is None
    tap(table, BEN, "ok", clock.next())
    tap(table, BEN, "right", clock.next())
    tap(table, BEN, "ok", clock.next())                     # 1 is Ben's decoy
    assert journal(journals)[-1]["decoy"] is True
    assert game.view(BEN).cards == ((1, BEN, True),)
    assert game.view(ANA).cards == game.view(CY).cards == ((1, BEN, False),)
    assert table.cues[-1] == "move"
    place(table, clock, CY, 9, decoy=False)
    place(table, clock, ANA, 5, decoy=True)
    assert game.view(BEN).prompt == "This one counts"       # his second card must count
    place(table, clock, BEN, 7)
    assert journal(journals)[-1]["decoy"] is False


def secret_screens(box, ben_decoy_first: bool):
    """Ana's and Cy's panel images, each change once, while round 2 is played and scored."""
    table, clock, journals = box
    game = start(table, clock, start="seat1")
    round_1(table, clock)
    tap(table, CY, "ok", clock.next())
    shots = []

    def look():
        shot = (game.screen(ANA).tobytes(), game.screen(CY).tobytes())
        if not shots or shots[-1] != shot:
            shots.append(shot)

    choice = ["right"] if ben_decoy_first else ["right", "left", "right", "right"]
    for key in ["right", "ok", *choice, "ok"]:               # Ben's first card, on 2
        tap(table, BEN, key, clock.next())
        look()
    for station, number, decoy in [(CY, 9, False), (ANA, 5, True)]:
        place(table, clock, station, number, decoy)
        look()
    for key in ["right", "ok"]:                              # Ben's second card, on 3
        tap(table, BEN, key, clock.next())
        look()
    place(table, clock, CY, 8)
    look()
    place(table, clock, ANA, 10)                            # the round is scored
    look()
    return shots, game


def test_no_other_panel_shows_the_decoy_before_scoring(tmp_path):
    boxes = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        table, journals = journaled_table(tmp_path / name, NAMES, seed=7)
        boxes.append((table, Clock(), journals))
    decoy_first, game_a = secret_screens(boxes[0], ben_decoy_first=True)
    decoy_second, game_b = secret_screens(boxes[1], ben_decoy_first=False)
    assert [(c.number, c.decoy) for c in game_a.showing.cards if c.player == BEN] == [(2, True), (3, False)]
    assert [(c.number, c.decoy) for c in game_b.showing.cards if c.player == BEN] == [(2, False), (3, True)]
    assert len(decoy_first) == len(decoy_second) == 7
    assert decoy_first[:-1] == decoy_second[:-1]            # the same pictures until scoring,
    assert decoy_first[-1] != decoy_second[-1]              # which reveals the decoys


def test_the_game_ends_on_the_scoring_screen_with_the_winner(box):
    table, clock, journals = box
    game = start(table, clock, start="seat1")
    round_1(table, clock)
    tap(table, ANA, "ok", clock.next())
    # Round 2, Ben first: Ben 9 decoy, Cy 2, Ana 5, Ben 8, Cy 3 decoy, Ana 6 decoy.
    for station, number, decoy in [(BEN, 9, True), (CY, 2, False), (ANA, 5, False),
                                   (BEN, 8, None), (CY, 3, None), (ANA, 6, None)]:
        place(table, clock, station, number, decoy)
    assert table.cues[-1] == "win"
    view = game.view(ANA)
    assert view.title == "Ben wins!"
    assert view.cards[0] == (9, BEN, True)                  # decoys revealed to everyone
    assert view.points == (3, 4, 3) and view.totals == (4, 9, 7)
    header, match = replay(journals[-1].read_text().splitlines())
    assert summary(header, match)["winners"] == [BEN]
    tap(table, CY, "ok", clock.next())
    assert table.game is None


def test_a_fourth_station_watches_without_answering_or_seeing_decoys(tmp_path):
    table = Table(("Ana", "Ben", "Cy", "Dee"), None, seed=3)
    clock = Clock()
    game = start(table, clock)
    assert game.names == ("Ana", "Ben", "Cy")
    assert game.view(3).prompt == "First right answer"
    t = clock.ms
    answer(table, (3, True, t + 110),                      # Dee is no player: ignored
           (BEN, True, t + 120))
    tick(table, t + 200)
    assert game.state.starter == BEN
    place(table, clock, BEN, 3)
    place(table, clock, CY, 4)
    place(table, clock, ANA, 5)
    tap(table, 3, "ok", clock.next())                      # Dee watches: no say
    assert game.view(ANA).title.startswith("Round 1")
    tap(table, ANA, "ok", clock.next())                    # any player goes on from the scores
    place(table, clock, CY, 1, decoy=True)
    assert game.view(3).title == "Round 2: Ana's turn"
    assert game.view(3).cards == ((1, CY, False),) and game.view(CY).cards == ((1, CY, True),)


def revealed_race(table, clock, onset_after_ms=80):
    """A game whose start race is shown on real panels, every onset ``onset_after_ms`` after the
    race opened: (game, when it opened, the onset), in ms; call ``show`` to report the onsets."""
    table.screens_take_time = True
    game = start(table, clock)
    opens = game.race.opens_at_ns / MS
    return game, opens, opens + onset_after_ms


def show(table, onset_ms):
    number = table.take_reveal()
    table.revealed(number, dict.fromkeys(range(3), round(onset_ms * MS)))


def test_an_answer_while_the_panel_was_dark_is_too_early_and_no_answer(box):
    """Real panels: the question shows on every station tens of ms after the race opened. An
    answer in that dark, right or wrong, is a false start: it neither counts nor knocks the player
    out, and once the question shows the player reads why; their next answer counts."""
    from companion.table.game import TOO_EARLY_SHOWN_NS

    table, clock, journals = box
    game, opens, onset = revealed_race(table, clock)
    answer(table, (BEN, True, opens + 10), (CY, False, opens + 20))
    assert table.cues == ["go"] and not game.out, "nobody is out before seeing the question"
    show(table, onset)
    for station in (BEN, CY):
        assert game.view(station).prompt == "Too early!" and shows(table.screen(station), "Too early!")
    assert game.view(ANA).prompt == "First right answer"
    assert table.wakeup_ns() <= round(onset * MS) + TOO_EARLY_SHOWN_NS
    tick(table, onset + TOO_EARLY_SHOWN_NS / MS)
    assert game.state.starter is None and not game.out
    assert game.view(CY).prompt == "First right answer"
    answer(table, (ANA, False, onset + 1100), (CY, True, onset + 1200))
    assert game.out == {ANA} and table.cues[-1] == "wrong"    # after the onset, wrong is out
    tick(table, onset + 1500)
    assert game.state.starter == CY
    assert journal(journals)[-1]["reaction_ms"] == [None, None, 1200.0]


def test_an_answer_made_in_the_dark_but_arriving_after_the_onsets_is_too_early_too(box):
    """The daemon learns the onsets when the panels flip, often before the presses made meanwhile
    have been handed to the table: those are false starts all the same."""
    table, clock, journals = box
    game, opens, onset = revealed_race(table, clock)
    show(table, onset)
    answer(table, (CY, False, opens + 20), (BEN, False, onset + 105))
    assert game.out == {BEN} and table.cues.count("wrong") == 1    # Ben had seen the question
    assert game.view(CY).prompt == "Too early!" and game.view(BEN).prompt == "Wrong: you're out"


def test_an_answer_in_the_same_instant_as_the_question_is_too_early(racing):
    """The Start ``ok`` opens the race and, on the simulator, every screen shows it at once: an
    answer pressed with it (a scripted "2.0 2 slap") was made before anyone could read the
    question. It neither wins nor knocks its player out; their screen says "Too early!"."""
    table, game, t, journals = racing
    answer(table, (BEN, True, t + 0.058), (CY, False, t + 0.058))
    tick(table, t + 50)
    assert game.race is not None and game.state.starter is None and game.out == set()
    assert game.view(BEN).prompt == game.view(CY).prompt == "Too early!"
    answer(table, (ANA, True, t + 400), (CY, True, t + 450))
    tick(table, t + 500)
    assert journal(journals)[0]["player"] == ANA


def test_a_name_reads_one_way_on_a_panel_the_message_too(tmp_path):
    """The players' row has room for three letters ("Al."): the line that says who starts names
    Alice the same way on that panel, made when the panel is drawn, not when she won; the table
    screen, with room for every name, says it whole."""
    from companion.tablescreen.public import closest_view

    table, _ = journaled_table(tmp_path, ("Alice", "Bob", "Cy"), seed=7)
    game = start(table, Clock(), start="seat1")
    assert shows(table.screen(BEN), "Al. starts")
    assert not shows(table.screen(BEN), "Alice") and not shows(table.screen(CY), "Alice")
    assert "Alice starts" in closest_view(game).lines
