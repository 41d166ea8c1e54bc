"""A first night from a pack, as docs/QUIZ.md walks a new host through it: the 10-question CSV of
``docs/packs/first-night.csv`` for a host and 8 players, its screens (the host's panel reading a
question, the table screen with the question read and at the end with the night's story) by
pixels against the PNGs docs/QUIZ.md shows (looked at when they were made)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageChops

from companion.arbiter.inputs import InputEvent
from companion.games import get
from companion.table.quiz import QuizTable
from companion.tablescreen.public import quiz_view
from companion.tablescreen.render import render

from asplayed import cli

ROOT = Path(__file__).parent.parent
PACK = ROOT / "docs" / "packs" / "first-night.csv"
PICTURES = ROOT / "docs" / "quiz"
MS = 1_000_000
NAMES = ("Host", "Ana", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")
NIGHT = [  # per question: (station, ms after the cue), the host's verdicts
    ([(1, 420)], ["ok"]),
    ([(3, 380), (5, 392)], ["left", "ok"]),          # Cy wrong, Eve 12 ms later is right
    ([(2, 300), (6, 300.004)], ["ok", "ok"]),         # a tie 4 us apart: the host picks Ben, right
    ([(4, 510)], ["ok"]),
    ([(7, 450), (8, 455)], ["ok", "left", "ok"]),    # a tie 5 ms apart: Gus picked, wrong; Hal right
    ([(1, 350)], ["left", "right"]),                  # wrong, nobody left: the host skips
    ([(5, 610)], ["ok"]),
    ([(2, 333), (1, 360)], ["ok"]),
    ([(8, 290)], ["ok"]),
    ([(3, 400), (4, 480)], ["ok"]),
]


def press(table, station, key, t_ms):
    table.handle(InputEvent(station, key, True, round(t_ms * MS)))
    table.handle(InputEvent(station, key, False, round((t_ms + 40) * MS)))


def same(image: Image.Image, picture: Path) -> bool:
    return ImageChops.difference(image.convert("RGB"), Image.open(picture).convert("RGB")).getbbox() is None


def panel(image: Image.Image) -> Image.Image:
    """A 128x64 panel as docs show it: four times as large, lit pixels light on dark."""
    return image.convert("L").resize((512, 256), Image.NEAREST)


def play(shots: dict[str, Image.Image]) -> QuizTable:
    rules = get("quiz")
    options = rules.checked_options(len(NAMES), rules.lobby_start({"pack": str(PACK), "tv_question": True}))
    table = QuizTable(rules, options, NAMES, len(NAMES), 1, None, 0)
    t = 0.0
    for q, (presses, verdicts) in enumerate(NIGHT, start=1):
        if q == 2:
            shots["host-reads"] = panel(table.screen(0))
        t += 1000
        press(table, 0, "slap", t)
        for station, after in presses:
            press(table, station, "slap", t + after)
        t += 1000
        table.tick(round(t * MS), round(t * MS))
        if q == 2:
            shots["tv-question"] = render(quiz_view(table))
        for key in verdicts:
            t += 200
            press(table, 0, key, t)
    shots["tv-story"] = render(quiz_view(table))
    return table


def test_a_new_host_checks_a_pack_and_plays_a_night_of_eight_from_it():
    checked = cli("pack", "check", str(PACK))
    assert checked.code == 0 and "10 questions" in checked.out
    shots: dict[str, Image.Image] = {}
    table = play(shots)
    assert table.match.outcome is not None and table.state.question == 10
    assert [a.answer for a in [table.pack.questions[i] for i in range(10)]][-1] == "France"
    view = quiz_view(table)
    assert view.lines[0].startswith("1. ") and view.lines[-3] == "Closest: Q3: Ben and Fay tied, 4 us apart"
    for name, image in shots.items():
        path = PICTURES / f"pack-{name}.png"
        assert same(image, path), f"{path} differs: look at it and replace it if it is right"
