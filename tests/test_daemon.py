"""End to end on gpiozero's mock pins: scripted presses drive the real daemon loop, and the
journal, the luma dummy displays and the buzzer pin show what happened."""

import asyncio
import json
from pathlib import Path

from PIL import Image, ImageChops

from companion.daemon import Daemon
from companion.record.journal import replay, summary
from companion.profile import load_profile
from companion.script import load_script

DEMO = Path(__file__).parent.parent / "companion" / "demo"
GOLDEN = Path(__file__).parent / "golden"

SEED_GAME = [
    ("play", 0, 4), ("play", 1, 3), ("pass", 0, None), ("play", 1, 6), ("play", 0, 0),
    ("play", 1, 8), ("pass", 0, None), ("pass", 1, None), ("play", 0, 7), ("play", 1, 1),
    ("pass", 0, None), ("play", 1, 5), ("play", 0, 2),
]
FORCED = {2, 6, 7}


def test_the_seed_game_pressed_on_mock_pins_ends_as_the_seed_says(tmp_path):
    profile = load_profile(DEMO / "profile.toml")
    presses = load_script(DEMO / "paytoplay.txt", len(profile.stations))
    daemon = Daemon(profile, tmp_path / "games", seed=1)
    buzzer_pin = daemon.box.pin_factory.pin(profile.buzzer_pin)
    try:
        asyncio.run(daemon.play_script(presses, speed=5))
        snapshots = daemon.snapshots(tmp_path / "shots")
    finally:
        daemon.close()

    [journal] = list((tmp_path / "games").glob("*.jsonl"))
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert lines[0]["players"] == ["Alice", "Bob"]
    moves = [(x["action"], x["player"], x.get("cell")) for x in lines[1:]]
    assert moves == SEED_GAME
    assert [i for i, x in enumerate(lines[1:]) if x.get("auto")] == sorted(FORCED)
    times = [x["t"] for x in lines[1:]]
    assert times == sorted(times) and times[0] > 0

    header, match = replay(journal.read_text().splitlines())
    assert summary(header, match)["scores"] == [1, 0]
    assert summary(header, match)["winners"] == [0]

    # Bob's panel (a luma dummy device) shows exactly the reviewed end screen.
    bob_panel = daemon.box.displays.devices[1].image
    golden = Image.open(GOLDEN / "paytoplay-seed-end.png").convert("L")
    assert ImageChops.difference(bob_panel.convert("L"), golden).getbbox() is None
    assert [p.name for p in snapshots] == ["station-1.png", "station-2.png"]
    saved = Image.open(snapshots[1]).convert("L")
    assert ImageChops.difference(saved, golden).getbbox() is None
    assert daemon.box.displays.failures == [0, 0]
    assert daemon.ready.is_set()

    # The buzzer sounded (PWM duty 0.5 on the buzzer pin) and fell silent at the end.
    assert 0.5 in [s.state for s in buzzer_pin.states]
    assert buzzer_pin.state == 0


def test_displays_dim_when_the_table_is_idle_and_brighten_on_a_press(tmp_path):
    from dataclasses import replace

    from companion.arbiter.inputs import InputEvent
    from companion.profile import Displays

    profile = load_profile(DEMO / "profile.toml")
    profile = replace(profile, displays=Displays(contrast=200, dim_contrast=10, dim_after_s=60))
    daemon = Daemon(profile)
    try:
        start = daemon._last_input_ns
        daemon.step(start + 59 * 10**9)
        assert not daemon.dimmed and daemon.box.displays.contrast_level == 200  # sent at start
        assert daemon._next_wake_s(start + 58 * 10**9) == 1.0                 # idle wake caps it
        assert abs(daemon._next_wake_s(start + int(59.5 * 10**9)) - 0.4985) < 1e-6  # wakes to dim
        assert daemon._next_wake_s(start + int(59.999 * 10**9)) == 0.0  # spins the last 1.5 ms
        daemon.step(start + 60 * 10**9)
        assert daemon.dimmed and daemon.box.displays.contrast_level == 10
        daemon._inbox.append(InputEvent(1, "left", True, start + 70 * 10**9))
        daemon.step(start + 70 * 10**9)
        assert not daemon.dimmed and daemon.box.displays.contrast_level == 200
    finally:
        daemon.close()


def test_a_script_running_late_moves_later_instead_of_squeezing_its_taps(monkeypatch):
    """On a busy machine the loop wakes late; the script's presses and releases must keep at
    least their written gaps, or a squeezed tap would be swallowed as contact bounce."""
    import companion.daemon
    from companion.script import edges, parse_script

    now = [100.0]

    async def late_sleep(seconds):
        now[0] += seconds + 0.07              # every wake-up 70 ms late
    monkeypatch.setattr(companion.daemon.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(companion.daemon.asyncio, "sleep", late_sleep)
    profile = load_profile(DEMO / "profile.toml")
    presses = parse_script("0.1 1 ok 0.01\n0.12 1 ok 0.01\n0.5 2 left\n", 2)
    daemon = Daemon(profile)
    driven = []
    monkeypatch.setattr(daemon.box, "drive", lambda *edge: driven.append((now[0], *edge)))
    try:
        asyncio.run(daemon.press_script(presses, speed=2))
    finally:
        daemon.close()
    written = edges(presses)
    assert [d[1:] for d in driven] == [e[1:] for e in written]
    for (t0, *_), (t1, *_), (s0, *_), (s1, *_) in zip(driven, driven[1:], written, written[1:]):
        assert t1 - t0 >= (s1 - s0) / 2 - 1e-9
