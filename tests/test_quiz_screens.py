"""Quiz night's screens: the host's panel and a player's, by pixels against reviewed golden
PNGs, and the table screen as docs/QUIZ.md shows it (docs/table-screen/quiz.png)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageChops

from companion.arbiter.inputs import InputEvent
from companion.games import get
from companion.record.match import Match
from companion.table.quiz import QuizTable, delay_ms
from companion.tablescreen.public import quiz_view
from companion.tablescreen.render import render

from glyphs import shows

ROOT = Path(__file__).parent.parent
GOLDEN = Path(__file__).parent / "golden"
PICTURE = ROOT / "docs" / "table-screen" / "quiz.png"
MS = 1_000_000
NAMES = ("Host", "Ana", "Ben", "Cy", "Dee", "Eve")


def press(table, station, key, t_ms):
    table.handle(InputEvent(station, key, True, round(t_ms * MS)))
    table.handle(InputEvent(station, key, False, round((t_ms + 40) * MS)))


def night(**options) -> QuizTable:
    """Question 3 of 10: Ana and Cy answered right before; Eve pressed 80 ms before the cue (her
    250 ms lockout runs to 1.17 s); the host armed at 1 s; Ben first at 1.05 s, Cy 12 ms and
    Dee 40 ms after him; it is 1.15 s."""
    rules = get("quiz")
    table = QuizTable(rules, rules.checked_options(6, options), NAMES, 6, 1, None, 0)
    for p in (1, 3):
        table.match.act({"action": "arm"})
        table.match.act({"action": "buzz", "player": p, "order": [p]})
        table.match.act({"action": "right"})
    press(table, 5, "slap", 920)
    press(table, 0, "slap", 1000)
    for station, t in ((2, 1050), (3, 1062), (4, 1090)):
        press(table, station, "slap", t)
    table.tick(1150 * MS, 1150 * MS)
    return table


def same(image: Image.Image, golden: Path) -> bool:
    return ImageChops.difference(image.convert("RGB"), Image.open(golden).convert("RGB")).getbbox() is None


def test_the_host_sees_who_answers_the_race_and_its_keys():
    table = night()
    host = table.screen(0)
    assert shows(host, "Q3 Ben answers") and shows(host, "ok:right left:wrong") and shows(host, "Dee +40ms")
    assert same(host, GOLDEN / "quiz-host.png")


def test_the_answering_player_and_the_early_one_are_told():
    table = night()
    assert same(table.screen(2), GOLDEN / "quiz-player.png")
    assert shows(table.screen(2), "YOU ANSWER") and shows(table.screen(2), "Ben first")
    assert shows(table.screen(5), "Too early! wait")
    assert table.lights() == {2: "on", 5: "blink"}
    table.tick(1170 * MS, 1170 * MS)                       # Eve's lockout (250 ms) is over
    assert table.lights() == {2: "on"}


def test_a_tie_shows_its_margins_and_blinks_the_tied():
    rules = get("quiz")
    table = QuizTable(rules, rules.checked_options(4, {}), NAMES[:4], 4, 1, None, 0)
    press(table, 0, "slap", 100)
    press(table, 1, "slap", 300)
    press(table, 3, "slap", 300.004)
    table.tick(400 * MS, 400 * MS)
    assert table.state.tied == (1, 3) and table.lights() == {1: "blink", 3: "blink"}
    assert table.race_lines(1) == ["Ana tie  Cy +4us tie"]  # a margin, not a ranking, as on the TV
    assert [(r.name, r.note) for r in quiz_view(table).race] == [("Ana", "tie"), ("Cy", "tie")]
    assert shows(table.screen(0), "Pick: < Ana >")
    assert delay_ms(12 * MS) == "+12ms" and delay_ms(2_100 * MS) == "+2.1s"


def test_the_table_screen_has_the_standings_the_question_and_the_race():
    view = quiz_view(night())
    assert view.names == NAMES[1:] and view.scores == (1, 0, 1, 0, 0)
    assert view.heading == "Ben answers" and view.turn == "Question 3 of 10"
    assert [(r.name, r.delta_ms) for r in view.race] == [("Ben", 0.0), ("Cy", 12.0), ("Dee", 40.0)]
    assert view.lines == ("Eve: too early",)
    assert same(render(view), PICTURE)


def test_teams_on_the_table_screen_score_together_in_their_colours():
    """Five players in two teams: Ana, Ben and Cy, then Dee and Eve. Cy's press after his team
    mate Ben's is shown, not counted."""
    table = night(teams=2)
    view = quiz_view(table)
    assert view.names == ("Team 1", "Team 2") and view.scores == (2, 0)
    assert [(r.name, r.player, r.note) for r in view.race] == [("Ben", 0, ""), ("Cy", 0, "team mate"), ("Dee", 1, "")]
    assert table.state.order == (2, 4) and table.race_lines(2) == ["Ben first Cy +12ms(t)", "Dee +40ms"]


def test_the_answer_timer_ticks_on_the_table_screen_and_the_answering_panel():
    table = night(answer_s=5)
    assert quiz_view(table).clock == "5s" and shows(table.screen(2), "YOU ANSWER 5s")
    table.tick(3200 * MS, 3200 * MS)
    assert quiz_view(table).clock == "3s" and quiz_view(table).hurry and "tick" in table.cues
    table.tick(6200 * MS, 6200 * MS)                      # out of time (5 s from 1.15 s): wrong
    assert table.state.phase == "answering" and table.state.answering == 3     # Cy, next in press order


def test_the_table_screen_never_shows_the_buzzers_armed_before_the_panels_and_the_cue():
    rules = get("quiz")
    table = QuizTable(rules, rules.checked_options(3, {}), NAMES[:3], 3, 1, None, 0, screens_take_time=True)
    press(table, 0, "slap", 100)
    assert table.state.phase == "open" and table.reveal_asked
    assert quiz_view(table).heading == "Question 1"
    assert table.revealed({0: 130 * MS, 1: 131 * MS, 2: 132 * MS}), "the view changed: it must be shown again"
    assert quiz_view(table).heading == "Buzzers armed!"


def test_a_tie_resumed_before_its_draw_is_drawn_as_the_box_would_have():
    rules = get("quiz")
    options = rules.checked_options(4, {"tie": "draw"})
    live = QuizTable(rules, options, NAMES[:4], 4, 9, None, 0)
    press(live, 0, "slap", 100)
    press(live, 1, "slap", 300)
    press(live, 2, "slap", 300)
    live.tick(400 * MS, 400 * MS)
    cut = Match(rules, options, NAMES[:4], 9)
    cut.act({"action": "arm"})
    cut.act({"action": "buzz", "players": [1, 2], "order": [1, 2]})
    resumed = QuizTable(rules, options, NAMES[:4], 4, 9, None, 0, match=cut)
    assert resumed.state == live.state and resumed.state.phase == "answering"


def test_a_press_before_the_panel_showed_the_cue_is_a_prelock_once_the_onsets_tell_it():
    """Prelock: Ana presses 5 ms after the host armed, while her panel (onset at 30 ms) is still
    being written: early, so out of the question (journaled as an ``early`` action), re-open
    included. Ben's press after his onset counts."""
    rules = get("quiz")
    table = QuizTable(rules, rules.checked_options(4, {"early": "prelock", "after_wrong": "reopen"}), NAMES[:4],
                      4, 1, None, 0, screens_take_time=True)
    press(table, 0, "slap", 100)
    press(table, 1, "slap", 105)
    assert table.state.prelocked == ()                     # not known to be early yet
    table.revealed({0: 130 * MS, 1: 130 * MS, 2: 131 * MS, 3: 132 * MS})
    assert table.state.prelocked == (1,)
    assert shows(table.screen(1), "Too early: out") and table.lights() == {1: "blink"}
    press(table, 2, "slap", 300)
    table.tick(400 * MS, 400 * MS)
    assert table.state.answering == 2 and table.state.order == (2,)
    press(table, 0, "left", 500)                           # wrong: the rest may re-open
    press(table, 0, "slap", 600)                           # re-open: Ana still out
    assert table.state.phase == "open" and set(table.race.stations) == {3}
