"""Pictomania at the table on a fake clock: reading, guesses ordered by edge time, black tokens,
the scoring walk-through, the end screen; what each station may see."""

from __future__ import annotations

import random

import pytest

from companion.arbiter.inputs import InputEvent
from companion.record.journal import replay, summary
from companion.screens.canvas import LINE_H
from companion.screens.pictomania import panel

from glyphs import shows
from helpers import MS, Clock, journal_objects, journaled_table, take_seats, tap

ANA, BEN, CY, DEE = range(4)


@pytest.fixture
def box(tmp_path):
    table, journals = journaled_table(tmp_path, ("Ana", "Ben", "Cy", "Dee"), seed=11)
    return table, Clock(), journals


@pytest.fixture
def dealt(box):
    """A game with default options, dealt: everyone is drawing."""
    table, clock, journals = box
    game = start(table, clock)
    ready_all(table, clock)
    return table, clock, journals, game


def press(table, clock, station, *keys):
    for key in keys:
        tap(table, station, key, clock.next())


def lines(journal):
    return journal_objects(journal)


def start(table, clock, changes=()):
    """Pick Pictomania; ``changes`` are (row, presses of right; negative: of left) before Start."""
    while table.lobby.game.name != "pictomania":
        press(table, clock, 0, "right")
    press(table, clock, 0, "ok")
    take_seats(table, range(table.stations), clock.next)
    rows = dict(changes)
    while table.lobby.row is not None:
        steps = rows.get(table.lobby.row, 0)
        press(table, clock, 0, *["right" if steps > 0 else "left"] * abs(steps), "ok")
    return table.game


def ready_all(table, clock):
    for station in range(4):
        press(table, clock, station, "ok")


def open_guess(table, clock, station, target, number):
    """Walk ``station``'s menu to a guess on ``target`` with ``number`` chosen and ``ok`` pressed
    once: the panel asks whether to make it (a guess is final), not yet sent."""
    game = table.game
    index = game.menu(station).index(("guess", target))
    press(table, clock, station, *["right"] * index, "ok", *["right"] * (number - 1))
    assert game.seats[station].mode == "number" and game.seats[station].number == number
    press(table, clock, station, "ok")
    assert game.seats[station].mode == "sure" and station not in {p.station for p in game.pending}


def confirm(table, station, t_ms):
    table.handle(InputEvent(station, "ok", True, round(t_ms * MS)))
    table.handle(InputEvent(station, "ok", False, round((t_ms + 30) * MS)))


def settle(table, t_ms):
    table.tick(round(t_ms * MS), round(t_ms * MS))


def test_the_lobby_shows_the_token_tables_for_four_players(box):
    table, clock, journals = box
    while table.lobby.game.name != "pictomania":
        press(table, clock, 0, "right")
    assert table.lobby.players_label() == "3-4 players"
    press(table, clock, 0, "ok")
    take_seats(table, range(4), clock.next)
    assert table.lobby.values["tokens"] == "2,1,1" and table.lobby.values["black"] == "3,2,2,1"
    rows = [name for name, _, _ in table.lobby.game.lobby_options(4)]
    assert rows == ["words", "decks", "rounds", "learning_round", "competitive", "tokens", "black"]
    while table.lobby.row != rows.index("tokens"):
        press(table, clock, 0, "ok")
    press(table, clock, 0, "right")              # the flat table
    while table.lobby.row is not None:
        press(table, clock, 0, "ok")
    header = lines(journals[0])[0]
    assert header["players"] == ["Ana", "Ben", "Cy", "Dee"]
    assert header["options"]["tokens"] == "1,1,1" and header["options"]["black"] == "3,2,2,1"
    assert table.game.state.tokens.player == (1, 1, 1)


def test_reading_then_the_secret_deal_when_everyone_is_ready(box):
    table, clock, journals = box
    game = start(table, clock)
    assert game.phase == "reading" and len(game.state.round.cards) == 3
    press(table, clock, BEN, "right")
    assert game.seats[BEN].page == 1
    first_words = game.word_lines()[:4]
    assert game.screen(BEN) == panel("Card A 1/2", tuple(first_words))
    for station in (ANA, BEN, CY):
        press(table, clock, station, "ok")
    assert game.phase == "reading" and game.seats[ANA].ready
    press(table, clock, DEE, "ok")
    assert game.phase == "play" and table.cues[-1] == "go"
    rnd = game.state.round
    events = [(x["type"], x.get("event")) for x in lines(journals[0])[1:]]
    assert events == [("chance", "cards"), ("chance", "assign")]
    # Each station shows its own letter, number and word, and nobody else's.
    for station in range(4):
        secret = f"{rnd.letters[station]}{rnd.numbers[station]} {game.word(rnd.letters[station], rnd.numbers[station])}"
        assert game.screen(station) == game._play_screen(station, game.seats[station])
        assert game.screen(station).crop((0, 0, 128, LINE_H)) == panel(secret, ()).crop((0, 0, 128, LINE_H))


def test_slap_on_a_card_replaces_it_before_the_deal(box):
    table, clock, journals = box
    game = start(table, clock)
    before = game.state.round.cards
    press(table, clock, ANA, "ok")                 # ready, then Cy asks for a new card B
    press(table, clock, CY, "right", "right", "right", "slap")
    after = game.state.round.cards
    assert after[0] == before[0] and after[2] == before[2] and after[1] not in before
    assert not game.seats[ANA].ready and table.cues[-1] == "move"
    ana = table.screen(ANA)                        # on the first page, ready before the swap
    assert shows(ana, "Cy swapped card B") and shows(ana, "new card: ok again")
    assert shows(table.screen(BEN), "Cy swapped card B") and shows(table.screen(CY), "You swapped card B")
    press(table, clock, ANA, "ok")
    assert game.seats[ANA].ready and shows(table.screen(ANA), "waiting: Ben, Cy, Dee")
    cards = [x for x in lines(journals[0]) if x.get("event") == "cards"]
    assert [c["cards"] for c in cards] == [list(before), list(after)]


def test_two_guesses_2_ms_apart_take_the_tokens_in_edge_order_not_arrival_order(dealt):
    table, clock, journals, game = dealt
    ana = game.state.round.numbers[ANA]
    open_guess(table, clock, BEN, ANA, ana)
    open_guess(table, clock, CY, ANA, ana)
    t = clock.next()
    confirm(table, CY, t + 2)                      # Cy's press, 2 ms later, arrives first
    confirm(table, BEN, t)
    assert game.state.round.guesses == ()          # nothing applied before the watermark
    assert [m.label() for m in game.marks(BEN)] == [f"Ana:{ana}?", "Cy:-", "Dee:-"]
    assert game.wakeup_ns() == round(t * MS) + 1
    settle(table, t + 1)                           # only Ben's press is known complete
    assert [g.player for g in game.state.round.guesses] == [BEN]
    settle(table, t + 5)
    assert [(g.player, g.target) for g in game.state.round.guesses] == [(BEN, ANA), (CY, ANA)]
    journal = [x for x in lines(journals[0]) if x.get("action") == "guess"]
    assert [(x["player"], x["t"]) for x in journal] == [(BEN, game.seconds(round(t * MS))),
                                                         (CY, game.seconds(round((t + 2) * MS)))]
    assert [m.label() for m in game.marks(BEN)] == [f"Ana:{ana}", "Cy:-", "Dee:-"]
    # Everybody takes the highest black token; the stack on Ana's drawing pays Ben 2, then Cy 1.
    for station in (ANA, BEN, CY, DEE):
        press(table, clock, station, "left", "left", "ok", "ok")   # Done, take highest
    settle(table, clock.next())
    assert game.phase == "review"
    [r] = game.state.results
    assert [(c.player, c.token) for c in r.stacks[ANA].guesses] == [(BEN, 2), (CY, 1)]
    assert r.black == (3, 2, 2, 1)


def test_a_guessed_drawing_stays_in_the_menu_and_cannot_be_guessed_twice(dealt):
    table, clock, journals, game = dealt
    menu = [("guess", ANA), ("guess", BEN), ("guess", CY), ("words", None), ("done", None), ("wrong", None)]
    assert game.menu(DEE) == menu
    open_guess(table, clock, DEE, BEN, 3)
    confirm(table, DEE, clock.next())
    assert game.menu(DEE) == menu
    assert game.refusal(DEE, ("guess", BEN)) == "Ben: already guessed"   # sent, not applied yet
    settle(table, clock.next())
    assert game.seats[DEE].message == "sent: Ben 3"
    press(table, clock, DEE, "right", "ok")                  # ok on Ben again: refused, in words
    assert game.seats[DEE].mode == "menu" and game.seats[DEE].message == "Ben: already guessed"
    assert table.cues[-1] == "illegal" and shows(game.screen(DEE), "Ben: guessed 3")
    assert [g.target for g in game.state.round.guesses] == [BEN]


def test_the_menu_keeps_its_places_so_the_same_presses_reach_the_same_player(dealt):
    """Guessed drawings keep their place: from the top, two rights or four lefts always reach
    Cy's drawing, whatever else was guessed (on main a guessed drawing left the menu)."""
    table, clock, journals, game = dealt
    for target in (ANA, BEN):
        open_guess(table, clock, DEE, target, 2)
        confirm(table, DEE, clock.next())
        settle(table, clock.next())
    assert [g.target for g in game.state.round.guesses] == [ANA, BEN]
    press(table, clock, DEE, "right", "right")
    assert shows(game.screen(DEE), "< Guess Cy >")
    press(table, clock, DEE, "left", "left")
    assert shows(game.screen(DEE), "< Ana: guessed 2 >")    # taken: drawn unlit, not picked
    press(table, clock, DEE, "left", "left", "left", "left")
    assert game.menu(DEE)[game.seats[DEE].cursor] == ("guess", CY)
    press(table, clock, DEE, "ok")
    assert game.seats[DEE].mode == "number" and game.seats[DEE].target == CY


def test_done_takes_the_chosen_black_token_and_the_round_ends_with_the_last_player(dealt):
    table, clock, journals, game = dealt
    press(table, clock, ANA, "left", "left", "ok")          # Done: take highest (3)
    assert game.seats[ANA].mode == "token"
    press(table, clock, ANA, "right", "ok")                  # take a 2 instead
    settle(table, clock.next())
    assert game.state.round.black[ANA] == 2 and game.state.round.pool == (3, 2, 1)
    assert game.refusal(ANA, ("done", None)) == "you are done" == game.refusal(ANA, ("guess", BEN))
    assert game.refusal(ANA, ("wrong", None)) is None        # a wrong word may still be admitted
    press(table, clock, BEN, "left", "left", "ok", "left", "ok")   # no black token
    press(table, clock, CY, "left", "left", "ok", "ok")
    settle(table, clock.next())
    assert game.state.round.black == (2, None, 3, None)
    assert game.phase == "play"
    press(table, clock, DEE, "left", "left", "ok", "ok")
    settle(table, clock.next())
    assert game.phase == "review" and table.cues[-1] == "decided"
    done = [x for x in lines(journals[0]) if x.get("action") == "done"]
    assert done == [
        {"type": "action", "action": "done", "player": ANA, "token": 2, "t": done[0]["t"]},
        {"type": "action", "action": "done", "player": BEN, "token": None, "t": done[1]["t"]},
        {"type": "action", "action": "done", "player": CY, "t": done[2]["t"]},
        {"type": "action", "action": "done", "player": DEE, "t": done[3]["t"]},
    ]


def finish_round(table, clock):
    for station in range(4):
        press(table, clock, station, "left", "left", "ok", "ok")
    settle(table, clock.next())


def test_a_guess_pressed_before_the_last_done_counts_and_later_presses_are_stale(dealt):
    table, clock, journals, game = dealt
    cy = game.state.round.numbers[CY]
    open_guess(table, clock, BEN, CY, cy)
    for station in (ANA, CY, DEE):
        press(table, clock, station, "left", "left", "ok")
    for station in (ANA, CY):
        press(table, clock, station, "ok")
    t_end = clock.next()
    confirm(table, DEE, t_end)                     # Dee's done would end the round...
    confirm(table, BEN, t_end - 1)                 # ...but Ben's guess was pressed first
    press(table, clock, BEN, "left", "left", "ok", "ok")
    settle(table, clock.next())
    r = game.state.results[0]
    assert [(c.player, c.token) for c in r.stacks[CY].guesses] == [(BEN, 2)]
    assert game.phase == "review"
    # A press made before the round ended, reaching the table after it, is dropped.
    end_ns = game.since_ns
    table.handle(InputEvent(CY, "right", True, end_ns - 1))
    table.handle(InputEvent(CY, "right", False, end_ns + 1))
    assert game.seats[CY].page == 0
    table.handle(InputEvent(CY, "right", True, end_ns + 2))
    table.handle(InputEvent(CY, "right", False, end_ns + 3))
    assert game.seats[CY].page == 1


def test_competitive_a_guess_after_the_last_black_token_is_too_late(box):
    table, clock, journals = box
    game = start(table, clock, changes={4: 1})     # competitive: on
    assert game.state.options.competitive and game.state.round.pool == (3, 2, 2)
    ready_all(table, clock)
    open_guess(table, clock, DEE, ANA, 1)
    for station in (ANA, BEN, CY):
        press(table, clock, station, "left", "left", "ok")
    t = clock.next()
    for i, station in enumerate((ANA, BEN, CY)):
        confirm(table, station, t + i)
    confirm(table, DEE, t + 5)                     # after Cy took the last black token
    settle(table, t + 10)
    assert game.phase == "review" and game.state.results[0].black == (3, 2, 2, None)
    assert game.state.results[0].stacks[ANA].guesses == ()


def test_the_scoring_walk_through_then_the_next_round(dealt):
    table, clock, journals, game = dealt
    ana = game.state.round.numbers[ANA]
    open_guess(table, clock, BEN, ANA, ana)
    confirm(table, BEN, clock.next())
    settle(table, clock.next())
    finish_round(table, clock)
    r = game.state.results[0]
    pages = game.review_pages()
    assert pages == ["stack"] * 4 + ["scores"]
    screen = game.screen(CY)                        # page 0: Ana's stack
    assert screen == game._review_screen(CY, game.seats[CY])
    assert shows(screen, "Ana drew  ok: next") and not shows(screen, "keeps")
    press(table, clock, CY, "ok")                    # ok turns the page too
    assert game.seats[CY].page == 1 and shows(game.screen(CY), "Ben drew  ok: next")
    press(table, clock, CY, "left")
    assert r.stacks[ANA].guesses[0].token == 2
    assert r.scores[BEN] == 2 - (2 + 1 + 1) + 2       # nobody guessed Ben: he keeps all his tokens
    press(table, clock, CY, "right", "right", "right", "right")
    assert game.seats[CY].page == 4
    press(table, clock, CY, "ok")                    # ready for round 2
    assert game.seats[CY].ready and game.phase == "review"
    for station in (ANA, BEN, DEE):
        press(table, clock, station, *["ok"] * 6)
    assert game.phase == "reading" and game.state.round.number == 2
    assert game.state.round.deck == "yellow" and game.state.round.cards[0].startswith("yellow-")


def test_the_last_round_ends_on_a_final_page_and_everyone_sees_it_before_the_lobby(box):
    """The first player to press ok on the totals does not send the others to the lobby: each
    sees the stacks, the round's scores and the totals; the last one's ok ends the game. The
    table screen meanwhile shows no more than the slowest player has turned to."""
    from companion.tablescreen.public import public_view

    table, clock, journals = box
    game = start(table, clock, changes={2: -3})    # rounds: 4 -> 1
    assert game.state.options.rounds == 1
    ready_all(table, clock)
    finish_round(table, clock)
    assert table.game.match.outcome is not None and table.cues[-1] == "win"
    assert game.review_pages() == ["stack"] * 4 + ["scores", "final"]
    before = public_view(table)
    assert before.heading == "Round 1: the drawings" and not before.over and before.scores == (0, 0, 0, 0)
    assert len(before.lines) == 1                  # Ana's stack: the page everyone is on
    press(table, clock, ANA, "ok", "ok", "ok", "ok", "ok")
    assert table.game is game and game.seats[ANA].page == 5      # on the final page
    press(table, clock, BEN, "ok")
    assert table.game is game                      # Ben is still on Ana's stack
    press(table, clock, ANA, "ok")
    assert table.game is game                      # Ana has seen the totals; the others have not
    assert shows(table.screen(ANA), "waiting: Ben, Cy, Dee")
    assert public_view(table).heading == "Round 1: the drawings" and not public_view(table).over
    for station in (BEN, CY, DEE):
        press(table, clock, station, *["ok"] * (5 - game.seats[station].page))
    end = public_view(table)                       # everyone on the totals: the winner is told
    assert end.over and end.heading == "Ana wins" and end.footer.endswith("(waiting for Ben, Cy, Dee)")
    for station in (BEN, CY, DEE):
        assert table.game is game
        press(table, clock, station, "ok")
    assert table.game is None
    header, match = replay(journals[0].read_text().splitlines())
    result = summary(header, match)
    # Nobody guessed: every drawer keeps 2+1+1, black tokens count in the learning round.
    assert result["scores"] == [3 - 4, 2 - 4, 2 - 4, 1 - 4] and result["winners"] == [ANA]


def test_physical_cards_deal_only_letter_and_number(box):
    table, clock, journals = box
    game = start(table, clock, changes={0: 1})     # words: physical
    assert game.state.round.cards == () and game.phase == "reading"
    press(table, clock, ANA, "right")
    assert game.seats[ANA].page == 0               # only the instructions page
    ready_all(table, clock)
    rnd = game.state.round
    assert ("words", None) not in game.menu(ANA)
    letter, number = rnd.letters[ANA], rnd.numbers[ANA]
    title = f"{letter}{number} (card {letter}, word {number})"
    assert game.screen(ANA).crop((0, 0, 128, LINE_H)) == panel(title, ()).crop((0, 0, 128, LINE_H))
    assert [x.get("event") for x in lines(journals[0])[1:]] == ["assign"]


def test_wrong_word_is_confirmed_then_sent(dealt):
    table, clock, journals, game = dealt
    press(table, clock, CY, "left", "ok")
    assert game.seats[CY].mode == "wrong"
    press(table, clock, CY, "ok")
    settle(table, clock.next())
    assert game.state.round.wrong_word[CY]
    assert game.refusal(ANA, ("guess", CY)) == "Cy: wrong word"
    assert game.refusal(CY, ("wrong", None)) == "already said"


@pytest.mark.parametrize("changes", [{}, {0: 1}, {4: 1}], ids=["box", "physical", "competitive"])
def test_random_presses_never_break_the_table(tmp_path, changes):
    """Any key on any station at any moment: the table keeps to the rules and every screen draws."""
    rng = random.Random(str(changes))
    table, journals = journaled_table(tmp_path, ("Ana", "Ben", "Cy", "Dee"), seed=3)
    clock = Clock()
    start(table, clock, {**changes, 2: 2})           # two rounds
    game = table.game
    for _ in range(3000):
        if table.game is None:
            break
        t = clock.next()
        station, key = rng.randrange(4), rng.choice(["left", "right", "ok", "ok", "slap"])
        tap(table, station, key, t)
        table.tick(round((t + 60) * MS), round((t + 60) * MS))
        for s in range(4):
            assert table.game is None or table.game.screen(s).size == (128, 64)
        game.match.rules.check_invariants(game.state)
    assert table.game is None, "random presses finish the game"
    header, match = replay(journals[0].read_text().splitlines())
    assert match.state == game.state and match.outcome is not None


def test_a_table_resumed_mid_round_picks_up_in_the_right_phase(tmp_path):
    """A crash after the deal: the resumed table is in play, not asking for a second deal."""
    from companion.record.recovery import find_interrupted
    from companion.table import Table
    from companion.daemon import journal_opener

    names = ("Ana", "Ben", "Cy")
    table = Table(names, journal_opener(tmp_path), seed=3)
    clock = Clock()

    def press(station, key):
        tap(table, station, key, clock.next())

    while table.lobby.game.name != "pictomania":
        press(0, "right")
    press(0, "ok")
    while table.game is None:
        press(0, "ok")
    for station in range(3):
        press(station, "ok")                    # everyone ready: the deal
    assert table.game.phase == "play"
    state = table.game.match.state

    interrupted = find_interrupted(tmp_path)
    resumed = Table(names, journal_opener(tmp_path), seed=3)
    resumed.resume(interrupted, round(clock.next() * MS))
    assert resumed.game.phase == "play"
    assert resumed.game.match.state == state
    interrupted.writer.close()


def test_a_wrong_word_found_at_the_reveal_is_declared_on_the_drawers_own_stack(box):
    """The seed finds the wrong word when the stack is turned over: on Ben's own stack page his
    screen offers it (slap, then ok), the round is counted again, and the journal says so."""
    table, clock, journals = box
    game = start(table, clock, changes={2: 1})     # one round
    ready_all(table, clock)
    ben = game.state.round.numbers[BEN]
    open_guess(table, clock, ANA, BEN, ben)
    press(table, clock, ANA, "ok")
    settle(table, clock.next())
    finish_round(table, clock)
    assert game.phase == "review" and game.last_result.stacks[BEN].guesses[0].token == 2
    press(table, clock, BEN, "slap")               # on Ana's stack: nothing to declare
    assert game.seats[BEN].mode != "wrong"
    press(table, clock, BEN, "right")              # his own stack
    offer = "ok: next slap: wrong?"
    assert shows(game.screen(BEN), offer)
    press(table, clock, ANA, "right")              # Ana on Ben's stack: no offer on her screen
    assert game.seats[ANA].page == BEN and not shows(game.screen(ANA), offer)
    press(table, clock, ANA, "slap")
    assert game.seats[ANA].mode != "wrong"
    press(table, clock, BEN, "slap")
    assert game.seats[BEN].mode == "wrong"
    press(table, clock, BEN, "ok")
    r = game.last_result
    assert r.stacks[BEN].void and r.stacks[BEN].kept == (2, 1, 1) and r.black_counts[BEN] == 0
    assert r.gained(ANA) == () and game.seats[BEN].page == BEN
    assert not game.may_declare_at_reveal(BEN)
    assert lines(journals[0])[-1]["action"] == "wrong_word" and lines(journals[0])[-1]["player"] == BEN
    header, match = replay(journals[0].read_text().splitlines())
    assert match.state == game.state and summary(header, match)["detail"]["rounds"][0]["wrong_word"] == [BEN]


def test_the_drawer_sees_their_own_score_line_on_their_own_stack(box):
    """Ben's own stack page shows what his drawing did to his score, as everyone else's does,
    while it also offers the wrong word (on main the offer took the score line's place)."""
    table, clock, journals = box
    game = start(table, clock, changes={2: 1})     # one round
    ready_all(table, clock)
    open_guess(table, clock, ANA, BEN, game.state.round.numbers[BEN])
    press(table, clock, ANA, "ok")
    settle(table, clock.next())
    finish_round(table, clock)
    press(table, clock, BEN, "right")              # his own stack
    assert game.may_declare_at_reveal(BEN)
    line = "not taken -2 black +2"                     # kept 1 and 1; his black 2
    assert game.last_result.black_counts[BEN] == 2 and game.last_result.stacks[BEN].kept == (1, 1)
    assert shows(game.screen(BEN), line) and shows(game.screen(BEN), "slap: wrong?")
    press(table, clock, ANA, "right")
    assert shows(game.screen(ANA), line)             # the same line on everyone's screen


def test_a_wrong_word_declared_at_the_reveal_is_told_to_everyone_whose_total_it_changes(box):
    """Ben voids his drawing from the results: Ana lost the tokens she took from it. Every other
    panel says so until its next press, those who had said ready say it again on the new
    scores, and the table screen says it above the stacks."""
    from companion.tablescreen.public import public_view

    table, clock, journals = box
    game = start(table, clock, changes={2: 1})     # two rounds: the first has results between
    ready_all(table, clock)
    open_guess(table, clock, ANA, BEN, game.state.round.numbers[BEN])
    press(table, clock, ANA, "ok")
    settle(table, clock.next())
    finish_round(table, clock)
    before = game.state.totals[ANA]
    press(table, clock, CY, *["ok"] * 5)           # Cy reads to the scores and says ready
    assert game.seats[CY].ready
    press(table, clock, BEN, "right", "slap", "ok")  # Ben's own stack: wrong word, confirmed
    assert game.state.totals[ANA] < before
    for station in (ANA, CY, DEE):
        assert shows(table.screen(station), "Ben void: rescored")
    assert not shows(table.screen(BEN), "rescored")
    assert not game.seats[CY].ready
    assert public_view(table).lines[0] == "Ben drew the wrong word: the round is scored again without it"
    press(table, clock, ANA, "right")
    assert not shows(table.screen(ANA), "rescored")


def test_a_black_token_counting_0_says_why(box):
    """Outside the learning round, a drawing nobody guessed scores its drawer's black token 0:
    the stack page says "unguessed" (on main it read "black +0" with no reason), and one who
    took no black token reads "no black"."""
    table, clock, journals = box
    game = start(table, clock, changes={2: -3, 3: -1})     # one round, no learning round
    assert not game.state.options.learning_round
    ready_all(table, clock)
    for station in (ANA, BEN, CY):
        press(table, clock, station, "left", "left", "ok", "ok")      # the highest
    press(table, clock, DEE, "left", "left", "ok", "left", "ok")      # no black token
    settle(table, clock.next())
    r = game.last_result
    assert r.black == (3, 2, 2, None) and r.black_counts == (0, 0, 0, 0)
    press(table, clock, CY, "right")                                   # Ben's stack
    assert shows(game.screen(CY), "unguessed -4, black 0") and not shows(game.screen(CY), "+0")
    press(table, clock, CY, "right", "right")                          # Dee's stack
    assert shows(game.screen(CY), "not taken -4 no black")


def test_the_learning_round_is_explained_on_the_round_page_and_in_the_rules(dealt):
    from companion.rulebook import pages
    from companion.tablescreen.public import public_view

    table, clock, journals, game = dealt
    finish_round(table, clock)
    press(table, clock, ANA, *["right"] * 4)                           # the round's page
    assert game.review_pages()[game.seats[ANA].page] == "scores"
    assert shows(game.screen(ANA), "learning: all black +")
    for station in (BEN, CY, DEE):
        press(table, clock, station, *["right"] * 4)
    assert "learning round: every black token taken counts plus" in public_view(table).lines
    rules = [" ".join(page) for page in pages("pictomania")]
    assert "Round 1 is a learning round (an option): black tokens always count plus." in rules
    assert "Nobody guessed your word right? Then your black token counts 0." in rules


def test_the_round_page_has_column_heads(dealt):
    table, clock, journals, game = dealt
    finish_round(table, clock)
    press(table, clock, ANA, *["right"] * 4)
    screen = game.screen(ANA)
    assert shows(screen, "   rnd tot    rnd tot")
    r, totals = game.last_result, game.state.totals
    assert shows(screen, f"Ana{r.scores[ANA]:>+3d}{totals[ANA]:>4}")


def six_at_the_competitive_row(tmp_path):
    """Six players picked Pictomania; the lobby's cursor is on the competitive row."""
    names = ("Ana", "Ben", "Cy", "Dee", "Eli", "Fay")
    table, journals = journaled_table(tmp_path, names, seed=11)
    clock = Clock()
    while table.lobby.game.name != "pictomania":
        press(table, clock, 0, "right")
    press(table, clock, 0, "ok")
    take_seats(table, range(6), clock.next)
    while table.lobby.row != 4:
        press(table, clock, 0, "ok")
    return table, clock


def test_the_competitive_option_says_what_it_does(tmp_path):
    """The line under the competitive row says what the value shown does: off, a black token
    for every player; on, the last black token ends the round (not "1 black token fewer" under
    <off>)."""
    table, clock = six_at_the_competitive_row(tmp_path)
    assert shows(table.screen(0), "<off>") and shows(table.screen(0), "one black per player")
    press(table, clock, 0, "right")
    assert shows(table.screen(0), "<on>") and shows(table.screen(0), "last black ends round")


def test_the_table_screen_lists_the_black_tokens_in_play(tmp_path):
    """Competitive with six players: five black tokens in play, and the table screen lists
    those five (on main it listed the six of the standard table)."""
    from companion.tablescreen.public import public_view
    from companion.tablescreen.render import render

    table, clock = six_at_the_competitive_row(tmp_path)
    assert "black: 3,3,2,2,1,1" in public_view(table).lines     # off: one per player
    press(table, clock, 0, "right")
    drawn: list[str] = []
    render(public_view(table), (1280, 720), drawn)
    text = " ".join(drawn)                                     # as drawn, wrapped or not
    assert "black: 3,3,2,2,1 in play (competitive: a 1 left out)" in text and "3,3,2,2,1,1" not in text
    while table.lobby.row is not None:
        press(table, clock, 0, "ok")
    assert table.game.state.tokens.black == (3, 3, 2, 2, 1)
