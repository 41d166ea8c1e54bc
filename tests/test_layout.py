"""No text on any screen is cut off: every screen of every game, in every phase players reach
(the stations' panels, and the table screen at each supported size with every player on it),
and the lobby with every option value, rendered with the longest names a profile allows, and
checked by the screens' own text drawing (measured with the font) in check mode.

The games are played by random presses on every station (players and a watching station) on a
fake clock, game after game, with their options at random lobby values and at the longest ones; every station's
screen is rendered after every input and every tick. The phases each game must reach are listed,
so a change that stops the random play short fails here instead of passing on fewer screens.
"""

from __future__ import annotations

import random

import pytest

from companion import games
from companion.games.options import parse_options
from companion.arbiter.inputs import InputEvent
from companion.profile import MAX_NAME
from companion.rulebook import pages
from companion.screens.canvas import checking, one_form_per_name
from companion.table import Table
from companion.table.game import RACE, YOUR_TURN, table_for
from companion.table.lobby import rules_screen
from companion.screens.table import (abandoned_screen, bots_screen, confirm_screen, join_screen,
                                     leave_screen, not_resumed_screen, resume_screen, takeback_screen)
from companion.tablescreen.public import VIEWS
from companion.tablescreen.render import render as draw_table

MS = 1_000_000
NAMES = tuple("W" * (MAX_NAME - 1) + str(i + 1) for i in range(6))
"""The longest names, of the widest letter."""
KEYS = ("left", "ok", "right", "slap")
TABLE_SIZES = ((640, 360), (1280, 720), (1920, 1080))
"""The table screen's supported sizes: every player drawn, no text cut, at each."""


def longest(choices) -> object:
    return max(choices, key=lambda c: len(str(c)))


def min_or_first(choices) -> object:
    """The least value (the quickest game: a draw offered after one pass, one round)."""
    numbers = [c for c in choices if isinstance(c, int) and not isinstance(c, bool)]
    return min(numbers) if numbers else choices[0]


def lobby_values(rules, players: int, pick) -> dict[str, object]:
    """Every lobby option set by ``pick`` from its choices."""
    return {name: pick(choices) for name, choices, _ in rules.lobby_options(players)}


def phase(table) -> str:
    """A coarse name for what the table shows, to prove the random play reached it."""
    kind = type(table).__name__
    if table.match.outcome is not None:
        return "end"
    if kind == "TriangleTable":
        return "race" if table.racing else "speak" if table.current else "result"
    if kind == "ClosestTable":
        return "question" if table.race else "scores" if table.showing else "decoy" if table.picked else "line"
    if kind == "PictomaniaTable":
        return table.phase
    if kind == "TrioTable":
        return "judging" if table.judging else "timing" if table.deadline_ns else "word"
    if kind == "QuizTable":
        return "corrections" if table.menu else table.state.phase
    if kind == "PayToPlayTable":
        return "offer" if table.offer_from is not None else "turn"
    return "?"


STEPS = {"paytoplay": 2500, "pictomania": 1400}
"""Presses and ticks per run: Pay-to-Play's screens are quick, and a draw offer needs passes by
both players in a row; Pictomania's menu keeps every drawing in its place and asks again before
a guess, so six players pressing at random take longer to reach Done."""

REACHED = {
    "triangle": {"race", "speak", "result", "end"},
    "closest": {"question", "line", "decoy", "scores", "end"},
    "pictomania": {"reading", "play", "review", "end"},
    "trio": {"word", "timing", "judging"},
    "paytoplay": {"turn", "offer", "end"},
    "quiz": {"ready", "open", "answering", "reopen", "corrections"},
}


def play(name: str, seed: int, steps: int, options: dict, seen: set, problems: dict) -> None:
    rules = games.get(name)
    players = rules.max_players
    names = NAMES[:players]
    stations = players + 1
    options = parse_options(rules.Options, options)
    table = table_for(name)(rules, options, names, stations, seed, None, 0)
    rng = random.Random(seed)
    views: set = set()
    t = 0
    held: list[tuple[int, str, int]] = []

    def render(what: str) -> None:
        with checking() as overflows:
            for s in range(stations):  # each panel as a station draws it: one form per name
                one_form_per_name(lambda: table.screen(s))
            for seat in range(players):  # what the take-back chord would ask or refuse now
                refusal = table.takeback_refusal(seat)
                takeback_screen("" if refusal else table.takeback_word(seat), refusal)
            view = VIEWS[name](table)
            if view not in views:  # the table screen, every new view at every supported size
                views.add(view)
                for size in TABLE_SIZES:
                    drawn: list[str] = []
                    draw_table(view, size, drawn)
                    missing = [n for n in names if n not in "".join(drawn)]
                    if missing:
                        problems.setdefault(f"{size} {view.heading}", f"{name} {size}: {missing} not drawn")
        for o in overflows:
            problems.setdefault(str(o), f"{name} {options} seed {seed} after {what}: {o}")
        seen.add(phase(table))

    for step in range(steps):
        t += rng.choice((1, 3, 8, 40, 300, 1200, 4000)) * MS
        for h in [h for h in held if h[2] <= t]:
            held.remove(h)
            table.handle(InputEvent(h[0], h[1], False, h[2]))
        table.tick(t, t)
        render(f"tick {step}")
        if table.finished:  # the next game, until the steps run out
            table = table_for(name)(rules, options, names, stations, seed + step, None, t)
        station = rng.randrange(stations)
        key = rng.choices(KEYS, (3, 4, 3, 2))[0]
        if any(h[:2] == (station, key) for h in held):
            continue
        table.handle(InputEvent(station, key, True, t))
        held.append((station, key, t + rng.choice((20, 60, 2500)) * MS))
        render(f"{station} {key} at step {step}")


@pytest.mark.parametrize("name", sorted(REACHED))
def test_no_text_is_cut_off_on_any_screen_of_a_game(name):
    rules = games.get(name)
    problems: dict[str, str] = {}
    seen: set[str] = set()
    rng = random.Random(name)
    runs = [lobby_values(rules, rules.max_players, longest), lobby_values(rules, rules.max_players, min_or_first)]
    runs += [lobby_values(rules, rules.max_players, rng.choice) for _ in range(2)]
    for seed, options in enumerate(runs):
        play(name, seed, STEPS.get(name, 700), options, seen, problems)
    assert not problems, "\n".join(problems.values())
    assert REACHED[name] <= seen, f"random play never reached {REACHED[name] - seen}"


def test_no_text_is_cut_off_in_the_tables_dialogs():
    """The questions a chord opens and the table's notices over any game, with every game's
    title and the longest names: abandon or leave, take a seat, the game abandoned, the offer to
    resume, why a game was not resumed, and the seats bots played after a game's end (the
    take-backs' refusals are checked as games are played above)."""
    from companion.daemon.resuming import DAMAGED, too_big

    with checking() as overflows:
        leave_screen()
        for rules in games.all_games():
            confirm_screen(rules.title)
            resume_screen(rules.title, "23:59")
            not_resumed_screen(too_big(rules, rules.max_players))
            for name in NAMES:
                join_screen(name)
                abandoned_screen(rules.title, name)
        not_resumed_screen(DAMAGED)
        for name, spans in (("paytoplay", {0: ("move 12", "move 31"), 1: ("game 2", None)}),
                            ("closest", {0: ("round 10", "round 12"), 1: ("round 2", "round 9"), 2: ("round 1", None)})):
            game = table_for(name)(games.get(name), parse_options(games.get(name).Options, {}), NAMES[:len(spans)],
                                   len(spans), 1, None, 0)
            game.bot_played = spans   # what a game's seat lines leave, the longest the panel takes
            bots_screen(game.bots_lines())
    assert not [str(o) for o in overflows]


def test_no_text_is_cut_off_in_the_lobby():
    """Every game, every option row with every value, and every rules page (also with the badge
    a game in play puts on it), on the menus of a 6-station box."""
    table = Table(NAMES, seed=1)
    lobby = table.lobby
    problems = []
    for index in range(len(lobby.games)):
        lobby.index, lobby.row = index, None
        with checking() as overflows:
            lobby.screen()
            table.handle(InputEvent(0, "ok", True, 0))
            if table.seating is not None:   # as many as the game takes join, each screen checked
                seated = range(min(lobby.game.max_players, table.stations))
                for station in seated:
                    table.handle(InputEvent(station, "slap", True, 0))
                    table.handle(InputEvent(station, "slap", False, 0))
                    table.screen(station)
                table.handle(InputEvent(0, "ok", True, 0))
            rows = lobby._rows()
            for row, (option, choices) in enumerate(rows):
                lobby.row = row
                for value in choices:
                    lobby.values[option] = value
                    lobby.screen()
            lobby.row = len(rows)
            lobby.screen()
            lobby.row = None
            lobby.seated, table.seated = None, None
            table.handle(InputEvent(0, "slap", True, 0))
            for page in range(len(pages(lobby.game.name))):
                assert lobby.rules_page == page
                lobby.screen()
                for badge in (RACE, YOUR_TURN):  # the same page read during a game
                    rules_screen(lobby.game.name, page, badge)
                table.handle(InputEvent(0, "right", True, 0))
            table.handle(InputEvent(0, "ok", True, 0))
            assert lobby.rules_page is None
        problems += [f"{lobby.game.name}: {o}" for o in overflows]
    assert not problems, "\n".join(problems)


def test_no_text_is_cut_off_when_bots_are_added():
    """"Who plays?" on a two-station box with the longest names, for every game bots play: each
    number and level of bots ``right`` cycles through, on a station that has not joined and on
    one that has. A game both stations must play (Pay-to-Play) is asked from its first option."""
    from companion.table.bots import GAMES

    problems = []
    for name in GAMES:
        table = Table(NAMES[:2], seed=1)
        table.lobby.index = [g.name for g in table.lobby.games].index(name)
        with checking() as overflows:
            table.handle(InputEvent(0, "ok", True, 0))
            if table.seating is None:
                table.screen(0)
                table.handle(InputEvent(0, "slap", True, 0))
            assert table.seating is not None
            for joined in (False, True):
                if joined:
                    table.handle(InputEvent(1, "slap", True, 0))
                for _ in range(5):
                    table.handle(InputEvent(1 if joined else 0, "right", True, 0))
                    table.screen(0), table.screen(1)
        problems += [f"{name}: {o}" for o in overflows]
    assert not problems, "\n".join(problems)


def test_the_largest_numbers_fit():
    """Scores and balances past what a game usually reaches, with the longest names: a Triangle
    game of five turns can pass 200 points, a Pictomania total go far below zero, a Pay-to-Play
    tournament's balance reach two digits either way."""
    from companion.screens import closest, paytoplay, pictomania, triangle, trio

    names3 = NAMES[:3]
    with checking() as overflows:
        line = triangle.scores_line(("You",) + names3[1:], (240, 199, -18))
        triangle.round_screen(triangle.RoundView("Turn 5  Round 6/6", cards=((NAMES[0], 6), (NAMES[1], None)),
                                                 footer=line))
        triangle.end_screen(triangle.EndView("x", triangle.scores_line(names3, (240, 239, 199)), ()))
        closest.number_line(closest.LineView("Round 9", 10, (), names3, (99, 99, 99), me=0))
        closest.number_line(closest.LineView("Round 9", 10, (), names3, (99, 99, 99), verdicts=(None,) * 10,
                                             points=(10, 10, 10)))
        pictomania.scores(pictomania.ScoresView("Round 4  ok: next", tuple(
            (n, -19, -99) for n in NAMES), "no black sheep"))
        paytoplay.screen(paytoplay.PayToPlayView("XOXOXOOXO", NAMES[:2], (-9, 99), 0, None, 1, None,
                                                 prompt="on points ok: lobby", header="Game 6/6"))
        trio.screen(trio.TrioView(names3, (12, 11, 10), 0, "x draws", clock="10:00", eligible=0, leader=0))
    assert not overflows, "\n".join(map(str, overflows))
