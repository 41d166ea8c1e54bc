"""Pay-to-Play as played through the real box process (``companion run --script``), two players
and a station that watches: the watching panel shows the whole board and both accounts under
"Watching" (a title bar there covered X's line and the board's top row), and after a forced
pass the player whose turn it is still reads "after your income: N"; the journal replays and
the game resumes."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image, ImageChops

from companion.cli import main

from glyphs import shows

ROOT = Path(__file__).parent.parent
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"
BOARD = (0, 0, 64, 64)
"""The panel's left half: the board, the same public state on every station."""

FORCED_PASS = """\
0.5 1 ok            # Pay-to-Play, picked on the menu
1.0 1 slap          # who plays: Ana and Ben; Cy watches
1.5 2 slap
2.0 1 ok
""" + "".join(f"{2.5 + n / 2} 1 ok\n" for n in range(5)) + """\
5.0 1 right         # Ana: the centre, for 4 of her 1
5.2 1 right
5.4 1 right
5.6 1 right
5.8 1 ok
6.5 2 right         # Ben: the left side; Ana can't pay and the box passes for her
6.7 2 right
6.9 2 right
7.1 2 ok
"""


def run_box(tmp_path: Path, script: str, name: str, capsys) -> list[Image.Image]:
    path = tmp_path / f"{name}.txt"
    path.write_text(script)
    code = main(["run", "--profile", str(MOCK3), "--game", "paytoplay", "--script", str(path), "--speed", "4",
                 "--seed", "3", "--journal-dir", str(tmp_path / "games"), "--snapshots", str(tmp_path / name)])
    capsys.readouterr()
    assert code == 0
    return [Image.open(tmp_path / name / f"station-{s}.png").convert("1") for s in (1, 2, 3)]


def test_watching_and_the_movers_income_after_a_forced_pass_played_replayed_and_resumed(tmp_path, capsys):
    ana, ben, cy = run_box(tmp_path, FORCED_PASS, "played", capsys)
    assert shows(cy, "Watching") and shows(cy, "X Ana") and shows(cy, "O Ben") and shows(cy, "can't")
    assert ImageChops.difference(cy.crop(BOARD), ana.crop(BOARD)).getbbox() is None, "the whole board, uncovered"
    assert shows(ben, "Ana passed") and shows(ben, "after your") and shows(ben, "income: 2")
    assert not shows(ana, "Watching") and not shows(ben, "Watching")

    [journal] = (tmp_path / "games").glob("*.jsonl")
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [(x["action"], x["player"], x.get("auto", False)) for x in lines[1:]] == \
        [("play", 0, False), ("play", 1, False), ("pass", 0, True)]
    assert main(["replay", "--json", str(journal)]) == 0
    assert json.loads(capsys.readouterr().out)["detail"]["balances"] == [-1, 0]

    _, ben, cy = run_box(tmp_path, "0.5 1 ok  # resume\n", "resumed", capsys)
    assert shows(cy, "Watching") and shows(cy, "X Ana") and shows(ben, "after your")
