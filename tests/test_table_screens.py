"""The screens the table shows around the games (who plays, watching, abandon, resume, Box
settings), rendered by a real table on a fake clock and checked against golden PNGs reviewed
by eye (see tests/test_screens.py for how to review a change)."""

from companion.arbiter.inputs import InputEvent
from companion.screens.table import resume_screen
from companion.table import ABANDON_HOLD_NS, Table

from helpers import MS, Clock, tap
from test_screens import assert_golden

NAMES = ("Ana", "Ben", "Cy", "Dee")


def test_who_plays_watching_and_abandon_screens():
    table = Table(NAMES, None, seed=2)
    clock = Clock()
    tap(table, 0, "ok", clock.next())                       # Triangle, on a four-station box
    tap(table, 1, "slap", clock.next())
    tap(table, 3, "slap", clock.next())
    assert_golden(table.screen(0), "seating-join.png")
    assert_golden(table.screen(3), "seating-joined.png")
    tap(table, 2, "slap", clock.next())
    tap(table, 1, "ok", clock.next())
    while table.game is None:
        tap(table, 1, "ok", clock.next())
    opens = table.game.opens_ns
    table.tick(opens, opens)
    assert_golden(table.screen(0), "spectator.png")
    t = opens + 100 * MS
    table.handle(InputEvent(2, "left", True, t))
    table.handle(InputEvent(2, "right", True, t + 20 * MS))
    assert_golden(table.screen(2), "abandon-countdown.png")
    done = t + 20 * MS + ABANDON_HOLD_NS
    table.tick(done, done)
    assert_golden(table.screen(2), "leave-confirm.png")  # a game bots play: a bot may take the seat
    tap(table, 2, "ok", done / MS + 100)
    assert_golden(table.screen(1), "abandoned.png")


def test_resume_and_box_settings_screens():
    assert_golden(resume_screen("Three-player Pictionary", "21:04"), "resume.png")
    table = Table(NAMES[:3], None, seed=2)
    clock = Clock()
    tap(table, 0, "left", clock.next())
    assert_golden(table.screen(0), "box-settings-page.png")
    tap(table, 0, "ok", clock.next())
    tap(table, 0, "left", clock.next())
    assert_golden(table.screen(0), "box-settings.png")
