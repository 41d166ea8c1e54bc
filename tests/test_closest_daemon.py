"""Closest Number end to end on gpiozero's mock pins: the scripted game through the real daemon
loop, its journal, every frame sent to the luma dummy displays, and the secret decoy."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from PIL import Image, ImageChops

from companion.daemon import Daemon
from companion.journal import replay, summary
from companion.profile import load_profile
from companion.screens.closest import QuestionView, question
from companion.script import parse_script

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "companion" / "demo" / "closest.txt"
GOLDEN = Path(__file__).parent / "golden"
ANA, BEN, CY = 0, 1, 2
SPEED = 10


def play(tmp_path: Path, script: str):
    """Play ``script`` on mock-3 with seed 1: (journal lines, every distinct frame per station in
    the order shown, the final panel images)."""
    profile = load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml")
    presses = parse_script(script, len(profile.stations))
    daemon = Daemon(profile, tmp_path, seed=1)
    frames: list[list[bytes]] = [[] for _ in profile.stations]
    show = daemon.box.displays.show

    def record(station, image):
        frame = image.tobytes()
        if not frames[station] or frames[station][-1] != frame:
            frames[station].append(frame)
        show(station, image)

    daemon.box.displays.show = record
    try:
        asyncio.run(daemon.play_script(presses, speed=SPEED))
        daemon.box.displays.flush()
        panels = [device.image.copy() for device in daemon.box.displays.devices]
    finally:
        daemon.close()
    [journal] = tmp_path.glob("*.jsonl")
    return journal.read_text().splitlines(), frames, panels


def test_the_scripted_game_races_places_scores_and_keeps_the_decoy_secret(tmp_path):
    script = SCRIPT.read_text()
    lines, frames, panels = play(tmp_path / "decoy-first", script)
    events = [json.loads(x) for x in lines[1:]]

    # The start race: Ben's wrong answer came first; Cy's right one, next, starts.
    assert events[0]["action"] == "start" and events[0]["player"] == CY
    knocked_out = question(QuestionView("17 x 34 = ?", (578, 598, 558, 478), "Wrong: you're out"))
    assert knocked_out.tobytes() in frames[BEN]
    assert knocked_out.tobytes() not in frames[ANA] + frames[CY]

    # The journal records every decoy; Ben's 10 is his, so his 7 counts and wins.
    ben = [(e["number"], e["decoy"]) for e in events if e.get("player") == BEN and e["action"] == "place"]
    assert ben == [(8, False), (10, True), (7, False)]
    header, match = replay(lines)
    assert summary(header, match)["scores"] == [7, 8, 4]
    assert summary(header, match)["winners"] == [BEN]
    golden = Image.open(GOLDEN / "closest-end.png").convert("L")
    for panel in panels:
        assert ImageChops.difference(panel.convert("L"), golden).getbbox() is None

    # The same game with Ben's other card as the decoy: nobody else's panel ever looked any
    # different until the scoring screen revealed it (and made Ana the winner).
    other = "\n".join(line for line in script.splitlines() if "Ben marks his decoy" not in line)
    other_lines, other_frames, _ = play(tmp_path / "decoy-second", other)
    assert summary(*replay(other_lines))["winners"] == [ANA]
    for station in (ANA, CY):
        assert len(frames[station]) > 10
        assert frames[station][:-1] == other_frames[station][:-1]
        assert frames[station][-1] != other_frames[station][-1]
    # Ben's own panel showed him which card was his decoy.
    assert frames[BEN][:-1] != other_frames[BEN][:-1]
