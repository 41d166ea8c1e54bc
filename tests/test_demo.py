"""`companion demo`: a round of Triangle with a race, on mock pins and a fake clock (the script
and profile it ships), and the Pay-to-Play seed game by name."""

import asyncio
from pathlib import Path

import gpiozero.pins.mock
import pytest

from companion.cli import DEMOS, main, option_settings
from companion.daemon import Daemon
from companion.profile import load_profile
from companion.script import load_script

from glyphs import shows
from helpers import FakeClock, journal_objects, play_on_fake_clock

DEMO = Path(__file__).parent.parent / "companion" / "demo"


def play_triangle_demo(tmp_path, monkeypatch):
    """The Triangle demo on a fake clock: each station's last panel and light."""
    profile_file, script_file, speed, options = DEMOS["triangle"]
    assert speed is None                                 # the race runs on the box's own clock
    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    profile = load_profile(DEMO / profile_file)
    daemon = Daemon(profile, tmp_path / "games", seed=1, defaults=option_settings(options))
    try:
        presses = load_script(DEMO / script_file, len(profile.stations))
        asyncio.run(play_on_fake_clock(daemon, presses, clock))
        daemon.box.displays.flush()
        panels = [device.image for device in daemon.box.displays.devices]
        lit = [daemon.box.pin_factory.pin(st.led).state for st in profile.stations]
    finally:
        daemon.close()
    return panels, lit


def test_the_triangle_demo_races_and_bob_speaks(tmp_path, monkeypatch):
    panels, lit = play_triangle_demo(tmp_path, monkeypatch)
    [journal] = (tmp_path / "games").glob("*.jsonl")
    lines = journal_objects(journal)
    assert lines[0]["game"] == "triangle"
    actions = [x for x in lines if x.get("type") == "action"]
    assert actions[0] == {"type": "action", "action": "claim", "player": 1, "t": actions[0]["t"],
                          "onset_ms": [0.0, 0.0, 0.0], "reaction_ms": [290.0, 250.0, None]}
    assert actions[1]["action"] == "state" and actions[1]["player"] == 1
    # Bob's "even" was false (his card is 5): every panel says what it gave the others.
    assert all(shows(panel, "the others +3 each") for panel in panels)
    assert shows(panels[0], "Bob: even? No") and shows(panels[1], "You: even? No")
    assert lit == [0, 1, 0]                              # Bob's light: he won the race


def test_the_demo_shortens_alice_one_way_all_over_a_panel(tmp_path, monkeypatch):
    """The verdict's band has room for three letters beside each big card ("Al."): Bob's and
    Cy's panels then say "Al." in the scores too, never "Alice" or "Ali." beside it."""
    panels, _ = play_triangle_demo(tmp_path, monkeypatch)
    for panel in panels[1:]:
        assert shows(panel, "Al. 3")                     # the scores, as beside the card
        assert not shows(panel, "Alice") and not shows(panel, "Ali.")
    assert shows(panels[0], "You 3") and not shows(panels[0], "Al.")


@pytest.mark.parametrize("speed", ["12", "1000"])
def test_the_paytoplay_demo_plays_the_seed_game_to_its_end_at_any_speed(tmp_path, capsys, speed):
    """However fast the script is played, and however slow the machine: no tap is shorter than
    the debouncer takes for a tap, and the run ends only once the box has taken every press."""
    assert main(["demo", "--game", "paytoplay", "--out", str(tmp_path), "--speed", speed]) == 0
    [journal] = tmp_path.glob("*.jsonl")
    capsys.readouterr()
    assert main(["replay", "--json", str(journal)]) == 0
    assert '"scores": [1, 0], "winners": [0]' in capsys.readouterr().out


def test_the_triangle_demo_refuses_a_speed_that_would_lose_its_race(tmp_path, capsys):
    """Faster, the script's slaps would come before the race opens (false starts, no race), a
    demo of nothing: refused, naming why, before anything is played."""
    assert main(["demo", "--out", str(tmp_path / "out"), "--speed", "2"]) == 2
    assert "the triangle demo plays at its own pace" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_selftest_takes_no_seed_it_would_not_use(capsys):
    with pytest.raises(SystemExit):
        main(["selftest", "--profile", str(DEMO / "profile.toml"), "--seed", "3"])
    assert "unrecognized arguments: --seed 3" in capsys.readouterr().err


def test_the_quiz_demo_races_sixteen_players_on_gpio_and_the_board(tmp_path):
    """The quiz demo on 17 stations (bare buzzers on GPIO and a virtual board): a board player
    answers first and wrong, the GPIO player who pressed next answers right; then a tie."""
    profile_file, script_file, speed, options = DEMOS["quiz"]
    assert main(["demo", "--game", "quiz", "--out", str(tmp_path)]) == 0
    [journal] = tmp_path.glob("*.jsonl")
    lines = journal_objects(journal)[1:]
    assert [line.get("action") for line in lines] == ["arm", "buzz", "wrong", "right", "arm", "buzz", "pick", "right"]
    assert lines[1]["order"][:2] == [11, 2] and lines[1]["player"] == 11   # Kim (board), then Ben (GPIO)
    assert lines[5]["players"] == sorted(lines[5]["players"], key=lambda p: lines[5]["reaction_ms"][p])
    assert set(lines[5]["players"]) == {4, 13}                             # Dee (GPIO) and Max (board)


def test_the_quiz_demo_pictures_only_the_panels_and_says_why(tmp_path, capsys):
    """Fifteen of the quiz demo's seventeen stations are bare buzzers: they have no panel, so no
    picture of one (a picture would show a screen no player sees); the command says so."""
    assert main(["demo", "--game", "quiz", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["station-1.png", "station-2.png"]
    out = capsys.readouterr().out
    assert "no picture for Ben, Cy, Dee, Eve, Fay, Gus, Hal, Ida, Jo, Kim, Lou, Max, Ned, Ola, Pia: bare buzzers have no panel\n" in out


def test_every_demo_is_named_in_its_help_and_in_commands_md(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    described = " ".join(capsys.readouterr().out.split())
    assert "Triangle" in described and "Pay-to-Play" in described and "quiz night" in described
    commands = (Path(__file__).parent.parent / "docs" / "COMMANDS.md").read_text(encoding="utf-8")
    assert "[--game " + "\\|".join(DEMOS) + "]" in commands
