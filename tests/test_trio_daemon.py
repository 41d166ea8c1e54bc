"""Pictionary end to end on gpiozero's mock pins, on a fake clock: scripted presses drive the
real daemon step (debounce, watermark, table, luma dummy displays, buzzer), and the journal, the
panels and the buzzer show what happened."""

import asyncio
from dataclasses import replace
from pathlib import Path

import gpiozero.pins.mock
from PIL import ImageChops

from companion.daemon import Daemon
from companion.games import get
from companion.games.options import lobby_choices
from companion.record.journal import replay, summary
from companion.profile import load_profile
from companion.screens.trio import TrioView, screen
from companion.script import ScriptPress, load_script

from helpers import FakeClock, journal_objects, play_on_fake_clock

ROOT = Path(__file__).parent.parent
PROFILE = ROOT / "hardware" / "profiles" / "mock-3.toml"
SCRIPT = Path(__file__).parent / "scripts" / "trio.txt"


def lobby_to_trio(daemon) -> list[ScriptPress]:
    """Station 1 walks the lobby to Pictionary and starts it with the default options."""
    steps = [g.name for g in daemon.table.lobby.games].index("trio")
    rows = len(lobby_choices(get("trio").Options))
    keys = ["right"] * steps + ["ok"] + ["ok"] * rows + ["ok"]
    return [ScriptPress(0.2 * (i + 1), 0, key) for i, key in enumerate(keys)]


def test_three_rounds_on_mock_pins_tie_wrong_then_right_and_timeout(tmp_path, monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    profile = load_profile(PROFILE)
    daemon = Daemon(profile, tmp_path / "games", seed=3)
    try:
        lobby = lobby_to_trio(daemon)
        begin = lobby[-1].at_s + 0.1
        game = [replace(p, at_s=begin + p.at_s) for p in load_script(SCRIPT, len(profile.stations))]
        asyncio.run(play_on_fake_clock(daemon, lobby + game, clock))
        daemon.box.displays.flush()
        panels = [device.image for device in daemon.box.displays.devices]
        played = list(daemon.box.buzzer.played)
    finally:
        daemon.close()

    [journal] = list((tmp_path / "games").glob("*.jsonl"))
    lines = journal_objects(journal)
    assert lines[0]["game"] == "trio" and lines[0]["players"] == ["Ana", "Ben", "Cy"]
    words = [x["word"] for x in lines[1:] if x["type"] == "chance"]
    actions = [{k: v for k, v in x.items() if k not in ("type", "t")}
               for x in lines[1:] if x["type"] == "action"]
    assert actions == [
        {"action": "timer"}, {"action": "both_guessed"},  # 4 ms apart, both right: Ana only
        {"action": "timer"}, {"action": "guessed", "player": 2},  # Ana wrong, then Cy right
        {"action": "timer"}, {"action": "timeout"},  # Ana's slap after the alarm did not count
    ]
    assert len(words) == 4 and len(set(words)) == 4
    times = [x["t"] for x in lines[1:] if x["type"] == "action" and x["action"] != "timer"]
    assert times[:2] == [0.1 + 6.5, 0.1 + 13.0]   # the artist's verdicts, since the game started
    bound = load_profile(PROFILE).timing.gpio_latency_ms / 1000
    assert 0.1 + 75.0 + bound <= times[2] < 0.1 + 75.01 + bound  # the alarm, once every earlier slap is in

    header, match = replay(journal.read_text().splitlines())
    result = summary(header, match)
    assert result["scores"] == [1, 1, 1] and not result["over"] and result["detail"]["artist"] == 0

    # The buzzer: the tie, the wrong and right verdicts, ten ticks and the alarm.
    assert played[:4] == ["go", "go", "tie", "correct"]
    assert played[4:9] == ["go", "decided", "wrong", "decided", "correct"]
    assert played[9:] == ["go"] + ["last_seconds"] * 10 + ["time_up"]

    # Ana, the next artist, and Ben both see how round 3 ended; Ana's ok will show her word.
    common = dict(names=("Ana", "Ben", "Cy"), scores=(1, 1, 1), highlight=0, clock="1:00")
    ana = TrioView(heading="You draw next", lines=("Time up! It was:", words[2]), footer="ok: your word", **common)
    ben = TrioView(heading="Ana draws", lines=("Time up! It was:", words[2]), **common)
    for panel, view in ((panels[0], ana), (panels[1], ben)):
        assert ImageChops.difference(panel.convert("L"), screen(view).convert("L")).getbbox() is None
    assert daemon.box.displays.failures == [0, 0, 0]
