"""Pictomania as played through the real box process: a guess is final, as the seed says ("once
you have made a guess, you cannot take it back"). The menu asks once more before a guess (a
misclick is caught there, not by a take-back); the take-back chord on a guess says why not, in
the game and in the same game resumed from its journal; ``companion replay`` reads the journal
back, and refuses a journal whose ``undo`` takes back a guess, naming its line."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from companion.cli import main
from companion.screens.table import takeback_screen

from glyphs import shows

ROOT = Path(__file__).parent.parent
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"

START = """\
0.5 1 ok            # Pictomania, picked on the menu
1.0 1 slap          # who plays: all three
1.5 2 slap
2.0 3 slap
2.5 1 ok
""" + "".join(f"{3 + n / 2} 1 ok\n" for n in range(8)) + """\
7.0 1 ok            # ready: the box deals
7.5 2 ok
8.0 3 ok
9.0 2 ok            # Ben: Guess Ana, number 1...
9.5 2 ok            # ...asked once more: a guess is final...
10.0 2 ok           # ...sent
9.2 1 ok            # Ana: Guess Ben, number 1, asked once more, and left there
9.7 1 ok
11.0 2 left 0.5     # Ben holds left and presses ok: take back?
11.05 2 ok
"""

RESUME = """\
0.5 1 ok            # resume the game
1.5 2 left 0.5      # Ben asks again to take his guess back
1.55 2 ok
"""


def run_box(tmp_path: Path, script: str, name: str, capsys) -> list[Image.Image]:
    path = tmp_path / f"{name}.txt"
    path.write_text(script)
    shots = tmp_path / name
    code = main(["run", "--profile", str(MOCK3), "--game", "pictomania", "--script", str(path), "--speed", "4",
                 "--seed", "3", "--journal-dir", str(tmp_path / "games"), "--snapshots", str(shots)])
    capsys.readouterr()
    assert code == 0
    return [Image.open(shots / f"station-{s}.png").convert("1") for s in (1, 2, 3)]


def same(a: Image.Image, b: Image.Image) -> bool:
    return a.convert("1").tobytes() == b.convert("1").tobytes()


def test_a_guess_is_asked_once_sent_and_never_taken_back_played_replayed_and_resumed(tmp_path, capsys):
    ana, ben, _ = run_box(tmp_path, START, "played", capsys)
    assert shows(ana, "Guess Ben: 1?") and shows(ana, "a guess is final") and shows(ana, "ok: guess it")
    assert same(ben, takeback_screen("", "a guess is final"))
    [journal] = (tmp_path / "games").glob("*.jsonl")
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    guesses = [(x["player"], x["target"], x["number"]) for x in lines if x.get("action") == "guess"]
    assert guesses == [(1, 0, 1)], "Ben's guess sent, Ana's still asked"
    assert not any(x.get("action") == "undo" for x in lines)

    assert main(["replay", "--json", str(journal)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["over"] is False and replayed["detail"]["round"] == 1
    assert main(["replay", str(journal)]) == 0
    assert "Round 1: 1 guesses, 0 of 3 done" in capsys.readouterr().out
    assert main(["replay", "--explain", str(journal)]) == 0
    assert "line 4: Ben (seat 2) guesses 1 on Ana (seat 1)'s drawing" in capsys.readouterr().out

    _, ben, _ = run_box(tmp_path, RESUME, "resumed", capsys)
    assert same(ben, takeback_screen("", "a guess is final"))
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert not any(x.get("action") == "undo" for x in lines)


def test_replay_refuses_a_journal_that_takes_back_a_guess_naming_the_line(tmp_path, capsys):
    path = tmp_path / "undo.jsonl"
    path.write_text("\n".join([
        '{"format": "companion-journal/1", "game": "pictomania", "players": ["Ana", "Ben", "Cy"], '
        '"options": {"words": "physical"}}',
        '{"type": "chance", "event": "assign", "letters": ["A", "B", "C"], "numbers": [1, 2, 3]}',
        '{"type": "action", "action": "guess", "player": 0, "target": 1, "number": 2}',
        '{"type": "action", "action": "undo", "player": 0, "line": 3}']) + "\n")
    assert main(["replay", str(path)]) == 2
    assert "line 4: a guess is final" in capsys.readouterr().err
    assert main(["replay", "--explain", str(path)]) == 2   # tells the good lines, then where it stops
    assert "line 4: a guess is final (the replay stops here)" in capsys.readouterr().out
