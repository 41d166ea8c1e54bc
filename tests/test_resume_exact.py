"""Resume is exact: every game, interrupted after any line of its journal, resumes to the state the
uninterrupted game had then, shows the same screens and lights, and the table's own draws after
it are the same.

The resumed table is built as the box builds it after a crash: the daemon's journal opener,
:func:`~companion.record.recovery.pick_up` on a copy of the journal cut at that moment, the game offered
on every station and taken up by a player's ``ok`` (a finished game is resumed at once, to show
its result). The uninterrupted table at the same moment is a copy of the live table
(:func:`copy.deepcopy`, so the live game plays on untouched), and both run on the journal's own
clock: the resumed game's clock carries on from its last line, so the live copy is compared when
it is just as far into the game. Every station's screen is compared pixel for pixel as the
panels would show it (:meth:`Table.screen`), with the lights and the table screen's public view
(its frame drawn too at every tenth moment), then again after five seconds on both fake clocks
(timers and countdowns running on, the resume banner gone).

What a resume deliberately does not restore ("What resume restores" in ``docs/JOURNAL.md``) is
named in :data:`RESETS`, game by game: before comparing, the uninterrupted copy is put where a
resume puts it, one named thing at a time, and nothing else is forgiven:

- *menus*: where a player was in a menu (Pay-to-Play's cell cursor, Triangle's fact menu, the
  closest game's number and counts/decoy choice, Pictomania's pages and menus) starts again at
  its first item: it is the player's browsing, and pressing on repeats it;
- *ready*: Pictomania players who had said ready (to deal, or for the next round) say it again;
- *notes*: a line that only says what just happened until the next move (Pay-to-Play's "can't
  pay", "Draw declined" and an unanswered draw offer; Pictomania's "not allowed now" and a
  wrong word declared at the reveal, on the other panels and the table screen);
- *races*: a race that was not decided is run again from its start (Triangle counts down again
  from the resume, its false starts forgotten; the closest game asks its first product to all);
- *later slaps*: who slapped after a race was decided, and who pressed before their screen
  showed it, are not journaled: a resumed Triangle round leaves the panels' line of who else
  slapped blank (and a hard bot claimer does without it), and the table screen's timeline shows
  the presses of the race's journal line only (the closest game's start race too, without its
  false starts);
- *claims*: in Pictionary a guess not yet judged, or judged wrong, is forgotten (the guesser
  slaps again; the artist can no longer call a wrong guess right; the table screen's slaps of
  the round start again empty);
- *results again*: the closest game shows the last round's scores again until ``ok``, a
  finished Triangle its last round before the end screen, Pictionary's next artist how the last
  round ended before their word, and Pictomania with physical cards
  the last round's review, even if the players had left them before the box stopped (nothing
  journals that ``ok``; showing a result twice loses nothing).
"""

import copy
import json
import random
import shutil
from dataclasses import replace

import pytest

from companion.games import get

from companion.daemon import journal_opener
from companion.arbiter.inputs import InputEvent
from companion.record.journal import JournalWriter
from companion.arbiter.race import Race
from companion.record.recovery import Interrupted, find_interrupted, pick_up
from companion.screens.canvas import with_notice
from companion.table import Table
from companion.tablescreen.public import public_view
from companion.tablescreen.render import render

from helpers import MS, take_seats

GAMES = {"paytoplay": 2, "triangle": 3, "closest": 3, "trio": 3, "pictomania": 4, "quiz": 4}
NAMES = ("Ana", "Ben", "Cy", "Dee")
S = 1000 * MS
RESUMED_AT = 10_000 * S
"""When the box comes back: any time at all, the resumed game's clock carries on from its journal."""
TABLE_SCREEN = (640, 360)
DRAWN_EVERY = 10
"""The table screen's frame is drawn and compared at every tenth moment; its public view, of
which the frame is a pure function, at every moment."""


def _menus_paytoplay(game, resumed_ns):
    game.cursor = 0


def _notes_paytoplay(game, resumed_ns):
    game.message, game.passed, game.offer_from = "", (), None


def _menus_triangle(game, resumed_ns):
    game.cursor, game.choosing_value = 0, False


def _later_slaps_triangle(game, resumed_ns):
    game.result = None  # the table screen shows the race from the table's race_line, as journaled


def _later_slaps_closest(game, resumed_ns):
    if game.last_race is not None:  # a press before its own screen's onset: only with real panels
        game.last_race = replace(game.last_race, false_starts=())


def _races_triangle(game, resumed_ns):
    if game.racing:
        game.early = {}
        game.round_start_ns = resumed_ns
        game.opens_ns = resumed_ns + 3 * game.step_ns
        game.race = Race(game.opens_ns, game.window_ns, range(3), "slap", game.lockout_ns, revealed=True)
        game.count = 3
        game.tick(game.now_ns, game.now_ns)


def _results_again_triangle(game, resumed_ns):
    game.holding_last_round = game.match.outcome is not None


def _menus_closest(game, resumed_ns):
    game.cursor, game.picked, game.decoy = 0, None, False


def _races_closest(game, resumed_ns):
    if game.race is not None:
        game.open_race(resumed_ns)
        game.message, game.lit = "", {}


def _results_again_closest(game, resumed_ns):
    if game.state.scored and not game.state.cards:
        game.showing, game.message = game.state.scored[-1], ""


def _claims_trio(game, resumed_ns):
    game.claims, game.judging, game.tie, game.correct = {}, (), False, []
    game.wrong_at, game.last_wrong, game.slaps = {}, None, {}


def _results_again_trio(game, resumed_ns):
    if game.deadline_ns is None and game.match.state.ended is not None:
        game.artist_told = False  # nothing journals the new artist's ok that left the result


def _menus_pictomania(game, resumed_ns):
    for seat in game.seats:
        seat.mode, seat.cursor, seat.target, seat.number, seat.page = "menu", 0, 0, 1, 0


def _ready_pictomania(game, resumed_ns):
    for seat in game.seats:
        seat.ready = seat.unready = False


def _results_again_pictomania(game, resumed_ns):
    if game.phase == "reading" and game.state.results and not game.state.round.cards:
        game.phase = "review"  # physical cards: nothing is journaled when the players leave it


def _notes_pictomania(game, resumed_ns):
    for seat in game.seats:
        seat.message = ""
    game.rescored = ""


def _menus_quiz(game, resumed_ns):
    game.menu, game.correcting, game.cursor, game.edit = False, None, 0, 0


def _races_quiz(game, resumed_ns):
    """A race not decided is armed again at the resume; a lockout's early presses are forgotten
    (prelocks are the match's: journaled)."""
    game.waiting, game.early = [], {}
    game.now_ns = resumed_ns
    if game.state.phase == "open":
        game._open_race(resumed_ns)


def _later_slaps_quiz(game, resumed_ns):
    """A decided race is its journal line: presses after its verdict are not journaled."""
    if game.state.phase != "open":
        game.race = game.result = None


def _timers_quiz(game, resumed_ns):
    game.answer_due_ns = game.seconds_left = None
    if game.state.phase == "answering":
        game._start_timer()


RESETS = {
    "paytoplay": {"menus": _menus_paytoplay, "notes": _notes_paytoplay},
    "triangle": {"menus": _menus_triangle, "races": _races_triangle, "later slaps": _later_slaps_triangle,
                 "results again": _results_again_triangle},
    "closest": {"menus": _menus_closest, "races": _races_closest, "later slaps": _later_slaps_closest,
                "results again": _results_again_closest},
    "trio": {"claims": _claims_trio, "results again": _results_again_trio},
    "quiz": {"menus": _menus_quiz, "races": _races_quiz, "later slaps": _later_slaps_quiz, "timers": _timers_quiz},
    "pictomania": {"menus": _menus_pictomania, "ready": _ready_pictomania, "notes": _notes_pictomania,
                   "results again": _results_again_pictomania},
}
"""What resume deliberately resets, by game: each puts the uninterrupted game's table where a
resume puts it (``resumed_ns``: the resume's moment on that table's clock)."""


class Live:
    """A game played with random presses on a fake clock through a real table and journal."""

    def __init__(self, directory, game, seed, options=None, bots=None, takebacks=False):
        self.rnd = random.Random(seed)
        self.takebacks = takebacks
        """Now and then a station holds ``left`` and presses ``ok`` (take back), then ``ok``."""
        self.game_name = game
        self.stations = GAMES[game] - len(bots or {})
        self.table = Table(NAMES[: self.stations], journal_opener(directory), seed=seed,
                           defaults={game: options or {}}, bots=bots)
        while self.table.lobby.game.name != game:
            self.table.lobby.index += 1
        self.t = 0
        for _ in range(max(12, len(get(game).Options.__dataclass_fields__) + 3)):  # the lobby's rows
            self.tap(0, "ok")
            if self.table.seating is not None:  # more stations than the game's fewest players: all join
                for station in range(self.stations):
                    self.tap(station, "slap")
                self.tap(0, "ok")
        self.path = self.table.game.journal.path

    def tap(self, station=None, key=None):
        table, rnd = self.table, self.rnd
        if station is None and self.takebacks and rnd.random() < 0.15:
            self.take_back(rnd.randrange(self.stations))
            return
        if station is None:
            station, key = rnd.randrange(self.stations), rnd.choice(("left", "right", "ok", "ok", "slap"))
        self.t += rnd.choice((40, 300, 1500)) * MS
        table.handle(InputEvent(station, key, True, self.t))
        table.tick(self.t, self.t)
        table.handle(InputEvent(station, key, False, self.t + 20 * MS))
        table.tick(self.t + 25 * MS, self.t + 25 * MS)
        self.t += 25 * MS

    def take_back(self, station):
        """Hold ``left``, press ``ok`` (the chord), let go, then ``ok`` (take it back, if asked)."""
        table = self.table
        self.t += 300 * MS
        for key, pressed, after in (("left", True, 0), ("ok", True, 30), ("ok", False, 60), ("left", False, 90),
                                    ("ok", True, 400), ("ok", False, 450)):
            table.handle(InputEvent(station, key, pressed, self.t + after * MS))
            table.tick(self.t + after * MS, self.t + after * MS)
        self.t += 475 * MS

    def copy(self, scratch) -> Table:
        """The live table as it is now, to play on without touching the live game; its journal
        lines go to ``scratch``."""
        return copy.deepcopy(self.table, {id(self.table.game.journal): JournalWriter(scratch)})


def resume(directory, game, bots=None) -> Table | None:
    """The table the box builds after a crash from the journal in ``directory``, the game taken up
    as the players take it up; None if there is nothing to resume."""
    table = Table(NAMES[: GAMES[game] - len(bots or {})], journal_opener(directory), seed=5, bots=bots)
    found = pick_up(directory)
    if not isinstance(found, Interrupted):
        return None
    if found.match.outcome is not None:
        table.resume(found, RESUMED_AT)  # the daemon: its result, until the players leave it
    else:
        table.offer_resume(found)
        table.handle(InputEvent(0, "ok", True, RESUMED_AT))
        table.handle(InputEvent(0, "ok", False, RESUMED_AT + 20 * MS))
    return table


def same_screens(resumed: Table, uninterrupted: Table, where: str, drawn: bool) -> None:
    """Every station's screen, pixel for pixel as the box shows it, the lights, and the table
    screen's public view (``drawn``: and its frame, pixel for pixel); the resumed table's banner
    is expected on the uninterrupted screens while it shows."""
    banner = resumed.resumed_until_ns is not None
    view, expected_view = public_view(resumed), public_view(uninterrupted)
    if banner:
        expected_view = replace(expected_view, notice="RESUMED")
    assert view == expected_view, f"{where}: the table screen differs"
    if drawn:
        assert render(view, TABLE_SCREEN).tobytes() == render(expected_view, TABLE_SCREEN).tobytes(), where
    for station in range(resumed.stations):
        expected = uninterrupted.screen(station)
        if banner:
            expected = with_notice(expected, "RESUMED")
        if resumed.screen(station).tobytes() != expected.tobytes():
            view = getattr(resumed.game, "view", None)
            seat = resumed.seat_of(station)
            detail = "" if view is None else \
                f"\n resumed: {view(seat)}\n uninterrupted: {uninterrupted.game.view(seat)}"
            pytest.fail(f"{where}: station {station + 1} differs{detail}")
    assert resumed.lights() == uninterrupted.lights(), where


def tick(table: Table, now_ns: int) -> None:
    table.tick(now_ns, now_ns)


def interrupt_everywhere(directory, game, seed, options=None, bots=None, takebacks=False) -> int:
    """Play ``game`` and, before every press, resume its journal as it is then and compare the
    resumed table with the uninterrupted one; returns how many moments were compared."""
    live = Live(directory / "live", game, seed, options, bots, takebacks)
    checked = 0
    for moment in range(300):
        if live.table.game is None:
            break
        data = live.path.read_bytes()
        cut = directory / f"cut{moment}"
        cut.mkdir()
        (cut / live.path.name).write_bytes(data)
        resumed = resume(cut, game, bots)
        if resumed is not None:
            where = f"{game} {options or ''} (seed {seed}): moment {moment}, cut after line {len(data.splitlines())}"
            compare(live, resumed, cut, where, drawn=checked % DRAWN_EVERY == 0)
            checked += 1
        shutil.rmtree(cut)
        live.tap()
    return checked


def compare(live: Live, resumed: Table, cut, where: str, drawn: bool) -> None:
    uninterrupted = live.copy(cut / "scratch.jsonl")
    assert resumed.game.match.state == uninterrupted.game.match.state, where
    assert resumed.game.match.chances == uninterrupted.game.match.chances, where
    assert resumed.game.match.moves == uninterrupted.game.match.moves, where
    assert resumed.game.match.trail == uninterrupted.game.match.trail, where
    # The same moment on both clocks: as far into the game as the live one is now.
    into_game = live.t - live.table.game.start_ns
    resumed_ns = uninterrupted.game.start_ns + (RESUMED_AT - resumed.game.start_ns)
    for reset in RESETS[live.game_name].values():
        reset(uninterrupted.game, resumed_ns)
    uninterrupted.announced = None  # a note: "Ana took back a mark" is not said again
    uninterrupted.taking_back.clear()  # a menu: the take-back question is not asked again
    for player in range(len(resumed.game.names)):  # the same take-backs are allowed, for the same reasons
        assert resumed.game.takeback_refusal(player) == uninterrupted.game.takeback_refusal(player), where
    for later in (0, 5 * S):
        tick(resumed, resumed.game.start_ns + into_game + later)
        tick(uninterrupted, live.t + later)
        if resumed.game is None or uninterrupted.game is None:
            assert resumed.game is uninterrupted.game, where
            return
        same_screens(resumed, uninterrupted, f"{where}, {later // S} s on", drawn)
        assert resumed.game.match.state == uninterrupted.game.match.state, f"{where}, {later // S} s on"
    for table in (resumed, uninterrupted):
        table.game.journal.close()


VARIANTS = {
    "paytoplay": {"games": 4, "draw_offer_after": 1},
    "triangle": {"false_start_lockout_ms": 250, "round_timeout_s": 10, "countdown_ms": 250, "coach": True,
                 "counting_aid": True, "target": 15},
    "closest": {"start": "products", "line_length": 6, "tie_window_ms": 50},
    "trio": {"seconds": 30, "first_artist": "random", "eligible_at": 5},
    "pictomania": {"words": "physical", "competitive": True, "rounds": 2, "learning_round": False},
    "quiz": {"early": "prelock", "teams": 2, "tie": "draw", "answer_s": 5, "after_wrong": "reopen",
             "questions": 5, "penalty": 1},
}
"""Options other than the defaults, where timers, lockouts and tournaments come in."""


@pytest.mark.parametrize("options", ["defaults", "variant"])
@pytest.mark.parametrize("game", GAMES)
def test_every_game_interrupted_at_every_moment_resumes_to_the_same_state_and_screens(game, options, tmp_path):
    """Games that end soon (Pay-to-Play, the closest game) are played again with the next seeds
    until 150 moments have been compared."""
    checked = 0
    for seed in range(21, 41):
        chosen = VARIANTS[game] if options == "variant" else None
        checked += interrupt_everywhere(tmp_path / str(seed), game, seed, chosen)
        if checked >= 150:
            break
    assert checked >= 150


def test_a_replacement_word_card_after_a_resume_is_the_one_the_uninterrupted_game_drew(tmp_path):
    """Pictomania's replacement cards are the table's own draw: from the seed and the chance
    count, so the third card set after a resume is the uninterrupted game's."""
    def swaps(directory, resume_after=None):
        table = Table(NAMES, journal_opener(directory), seed=11)
        if resume_after is not None:
            table.resume(find_interrupted(directory), 0)
        else:
            while table.lobby.game.name != "pictomania":
                table.lobby.index += 1
            for t in range(12):
                table.handle(InputEvent(0, "ok", True, t * 100 * MS))
                table.handle(InputEvent(0, "ok", False, t * 100 * MS + MS))
                if table.seating is not None:  # all four stations join
                    take_seats(table, range(len(NAMES)), lambda: t * 100 + 10)
                if table.game is not None:
                    break
        t = 10_000
        for _ in range(2 if resume_after is None else 1):
            for key in ("right", "slap"):               # page 1 is card A: slap replaces it
                table.handle(InputEvent(2, key, True, t * MS))
                table.handle(InputEvent(2, key, False, t * MS + MS))
                t += 100
        table.game.journal.close()
        return table.game.journal.path

    live = swaps(tmp_path / "live")
    lines = live.read_text().splitlines()
    cards = [json.loads(x)["cards"] for x in lines if '"cards"' in x]
    assert len(cards) == 3 and cards[1] != cards[2]
    resumed_dir = tmp_path / "resumed"
    resumed_dir.mkdir()
    cut = max(i for i, x in enumerate(lines) if '"cards"' in x)  # lose the second replacement
    (resumed_dir / live.name).write_text("\n".join(lines[:cut]) + "\n")
    resumed = swaps(resumed_dir, resume_after=cut)
    resumed_cards = [json.loads(x)["cards"] for x in resumed.read_text().splitlines() if '"cards"' in x]
    assert resumed_cards == cards


BOTS = {"paytoplay": {1: "easy"}, "triangle": {1: "easy", 2: "hard"}, "closest": {1: "hard", 2: "easy"}}


@pytest.mark.parametrize("game", BOTS)
def test_a_game_with_bots_interrupted_at_every_moment_resumes_to_the_same_state_and_screens(game, tmp_path):
    """Bots draw their reaction times and moves from the seed and the journal's place (the chance
    events and actions applied), so resumed bots play on as the uninterrupted ones did."""
    checked = 0
    for seed in range(21, 41):
        checked += interrupt_everywhere(tmp_path / str(seed), game, seed, bots=BOTS[game])
        if checked >= 100:
            break
    assert checked >= 100


@pytest.mark.parametrize("game", ["paytoplay", "closest", "trio"])
def test_a_game_with_take_backs_interrupted_at_every_moment_resumes_to_the_same_state_and_screens(game, tmp_path):
    """Players take back their last actions now and then (``undo`` lines, Pictionary's
    corrections): the resumed game is the uninterrupted one, and allows the same take-backs.
    (Pictomania takes nothing back: a guess is final.)"""
    checked = 0
    for seed in range(21, 41):
        path = tmp_path / str(seed)
        checked += interrupt_everywhere(path, game, seed, takebacks=True)
        if checked >= 100 and any('"undo"' in p.read_text() or '"correct"' in p.read_text()
                                  for p in tmp_path.glob("*/live/*.jsonl")):
            break
    assert checked >= 100
    assert any('"undo"' in p.read_text() or '"correct"' in p.read_text() for p in tmp_path.glob("*/live/*.jsonl"))
