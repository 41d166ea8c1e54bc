"""Taking back as played through the real box process (``companion run --script``): the
closest-number game's first card of round 2 taken back leaves every panel as if it had never
been placed; the journal's ``undo`` names the card's line in the file, so ``companion replay``
reads it back and the game resumes from it."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from companion.cli import main

from glyphs import shows

ROOT = Path(__file__).parent.parent
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"

ROUND_2_CARD_TAKEN_BACK = """\
0.5 1 ok            # the closest-number game, picked on the menu
1.0 1 ok            # its options, seat 1 starting (--option)
1.5 1 ok
2.0 1 ok
2.5 1 ok
3.0 1 ok            # round 1: a card each
3.5 2 ok
4.0 3 ok
4.5 1 ok            # round 1's scores left: round 2, Ben first
5.0 2 ok            # Ben picks 1...
5.5 2 ok            # ...counting
6.0 2 left 0.5      # take back?
6.05 2 ok
6.6 2 ok            # yes
"""

RESUMED = """\
0.5 1 ok            # resume
1.0 1 ok            # the last scores shown again, as a resumed game shows them, left
1.5 2 right         # Ben picks 2 this time...
2.0 2 ok
2.5 2 ok            # ...counting
"""


def run_box(tmp_path: Path, script: str, name: str, capsys) -> list[Image.Image]:
    path = tmp_path / f"{name}.txt"
    path.write_text(script)
    code = main(["run", "--profile", str(MOCK3), "--game", "closest", "--option", "closest.start=seat1",
                 "--script", str(path), "--speed", "4", "--seed", "3", "--journal-dir", str(tmp_path / "games"),
                 "--snapshots", str(tmp_path / name)])
    capsys.readouterr()
    assert code == 0
    return [Image.open(tmp_path / name / f"station-{s}.png") for s in (1, 2, 3)]


def test_closest_round_2_first_card_taken_back_played_replayed_and_resumed(tmp_path, capsys):
    ana, ben, cy = run_box(tmp_path, ROUND_2_CARD_TAKEN_BACK, "played", capsys)
    assert shows(ben, "Round 2: your turn") and shows(ana, "Round 2: Ben's turn") and shows(cy, "Round 2: Ben's turn")
    assert not any(shows(panel, "Round 1 scores") for panel in (ana, ben, cy))
    assert all(shows(panel, "Ben took back a card") for panel in (ana, ben, cy))
    [journal] = (tmp_path / "games").glob("*.jsonl")
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert lines[5]["action"] == "place" and lines[5]["player"] == 1
    assert {k: lines[6][k] for k in ("action", "player", "line")} == {"action": "undo", "player": 1, "line": 6}

    assert main(["replay", "--explain", str(journal)]) == 0
    assert "line 7: Ben (seat 2) takes back line 6: the game is again as it was before it" in capsys.readouterr().out
    assert main(["replay", "--json", str(journal)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["over"] is False and replayed["scores"] == [1, 1, 8]

    run_box(tmp_path, RESUMED, "resumed", capsys)
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert {k: lines[-1][k] for k in ("action", "player", "number")} == {"action": "place", "player": 1, "number": 2}
    assert main(["replay", str(journal)]) == 0
