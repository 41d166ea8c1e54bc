"""Closest Number end to end on gpiozero's mock pins, on a fake clock: presses drive the real
daemon step (debounce, watermark, start race, table, luma dummy displays), and the journal and
every frame sent to each panel show what happened, down to the secret decoy."""

from __future__ import annotations

import asyncio
from pathlib import Path

import gpiozero.pins.mock
from PIL import Image, ImageChops

from companion.daemon import Daemon
from companion.games import get
from companion.games.options import lobby_choices
from companion.record.journal import replay, summary
from companion.profile import load_profile
from companion.screens.closest import QuestionView, question
from companion.script import ScriptPress, parse_script
from companion.table.closest import ANSWER_KEYS

from helpers import FakeClock, journal_objects, play_on_fake_clock

ROOT = Path(__file__).parent.parent
PROFILE = ROOT / "hardware" / "profiles" / "mock-3.toml"
SCRIPT = Path(__file__).parent / "scripts" / "closest.txt"
GOLDEN = Path(__file__).parent / "golden"
ANA, BEN, CY = 0, 1, 2
CY_ANSWERS_S = 0.5
"""When Cy answers, in seconds after the question is shown."""


def lobby_to_closest(daemon) -> list[ScriptPress]:
    """Station 1 walks the lobby to Closest Number and starts it with the default options."""
    steps = [g.name for g in daemon.table.lobby.games].index("closest")
    rows = len(lobby_choices(get("closest").Options))
    keys = ["right"] * steps + ["ok"] + ["ok"] * rows + ["ok"]
    return [ScriptPress(0.2 * (i + 1), 0, key) for i, key in enumerate(keys)]


def start_race(game) -> list[ScriptPress]:
    """Ben answers first but wrong; Cy answers right 200 ms later (at :data:`CY_ANSWERS_S`)."""
    right = ANSWER_KEYS[game.answers.index(17 * 34)]
    wrong = next(key for key in ANSWER_KEYS if key != right)
    return [ScriptPress(CY_ANSWERS_S - 0.2, BEN, wrong), ScriptPress(CY_ANSWERS_S, CY, right)]


def play(tmp_path: Path, monkeypatch, script: str):
    """The lobby, the start race and ``script`` on mock-3 with seed 1: (the journal, every
    distinct frame each panel was sent, in order; the answers the race showed, and when Cy
    answered in journal time)."""
    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    profile = load_profile(PROFILE)
    daemon = Daemon(profile, tmp_path, seed=1)
    frames: list[list[bytes]] = [[] for _ in profile.stations]
    show = daemon.box.displays.show

    def record(station, image):
        frame = image.tobytes()
        if not frames[station] or frames[station][-1] != frame:
            frames[station].append(frame)
        show(station, image)

    daemon.box.displays.show = record

    async def game():
        await play_on_fake_clock(daemon, lobby_to_closest(daemon), clock, tail_s=0.1)
        table = daemon.table.game
        shown, cy_answers = table.answers, table.seconds(clock.ns) + CY_ANSWERS_S
        await play_on_fake_clock(daemon, start_race(table), clock, tail_s=0.1)
        await play_on_fake_clock(daemon, parse_script(script, 3), clock, tail_s=0.1)
        return shown, cy_answers

    try:
        answers, cy_answers = asyncio.run(game())
        daemon.box.displays.flush()
    finally:
        daemon.close()
    [journal] = tmp_path.glob("*.jsonl")
    return journal, frames, answers, cy_answers


def test_the_start_race_the_game_and_a_decoy_no_other_panel_shows(tmp_path, monkeypatch):
    script = SCRIPT.read_text()
    journal, frames, answers, cy_answers = play(tmp_path / "decoy-first", monkeypatch, script)
    events = journal_objects(journal)[1:]

    # The start race: Ben's wrong answer came first, so Cy's right one, next, starts; only
    # Ben's panel told him he was out.
    assert events[0] == {"type": "action", "action": "start", "player": CY, "t": events[0]["t"],
                         "onset_ms": [0.0, 0.0, 0.0], "reaction_ms": [None, None, 645.0], "question": [17, 34]}
    # Decided once the watermark (now minus the GPIO latency bound) passed Cy's press + the 10 ms
    # tie window, at the next step; an answer on left or right is held back (it may begin a chord)
    # until Cy lets go of it 50 ms later, and the race waits for it.
    held = 0.05 if ANSWER_KEYS[answers.index(17 * 34)] in ("left", "right") else 0
    due = cy_answers + max(0.010 + load_profile(PROFILE).timing.gpio_latency_ms / 1000, held)
    assert round(due, 3) <= events[0]["t"] <= due + 0.005
    knocked_out = question(QuestionView("17 x 34 = ?", answers, "Wrong: you're out")).tobytes()
    assert knocked_out in frames[BEN] and knocked_out not in frames[ANA] + frames[CY]

    # The journal records each decoy. Ben's 10 is his, so his 7 counts and wins.
    ben = [(e["number"], e["decoy"]) for e in events[1:] if e["player"] == BEN]
    assert ben == [(8, False), (10, True), (7, False)]
    result = summary(*replay(journal.read_text().splitlines()))
    assert result["scores"] == [7, 8, 4] and result["winners"] == [BEN]
    golden = Image.open(GOLDEN / "closest-end.png").convert("L")
    end = Image.frombytes("1", (128, 64), frames[ANA][-1]).convert("L")
    assert ImageChops.difference(end, golden).getbbox() is None
    above_names = (0, 0, 128, 52)  # every panel the same but for its own "You" in the names row
    assert all(Image.frombytes("1", (128, 64), station[-1]).crop(above_names) == end.convert("1").crop(above_names)
               for station in frames)

    # The same game with Ben's other card as his decoy: no other panel ever showed anything
    # different until the scoring screen revealed it (and made Ana the winner).
    other = "\n".join(line for line in script.splitlines() if "Ben marks his decoy" not in line)
    other_journal, other_frames, *_ = play(tmp_path / "decoy-second", monkeypatch, other)
    assert summary(*replay(other_journal.read_text().splitlines()))["winners"] == [ANA]
    for station in (ANA, CY):
        assert len(frames[station]) > 10
        assert frames[station][:-1] == other_frames[station][:-1]
        assert frames[station][-1] != other_frames[station][-1]
    assert frames[BEN][:-1] != other_frames[BEN][:-1]         # his own panel knew
