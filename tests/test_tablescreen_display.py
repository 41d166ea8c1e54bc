"""The table screen on pygame's dummy SDL driver: frames drawn off the loop, only the newest of a
burst, the profile's [table_screen], and the daemon handing it the public view of a real game."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from pathlib import Path

import gpiozero.pins.mock
import pygame
import pytest
from PIL import Image, ImageChops

from companion.cli import main
from companion.web.room import CODE_LENGTH, CODE_LETTERS
from companion.daemon import Daemon
from companion.profile import ProfileError, TableScreenProfile, load_profile, parse_profile
from companion.script import ScriptPress
from companion.tablescreen.display import PygameScreen, TableScreen, open_table_screen
from companion.tablescreen.public import PublicView
from companion.tablescreen.render import render

from helpers import FakeClock, play_on_fake_clock

ROOT = Path(__file__).parent.parent
PROFILE = ROOT / "hardware" / "profiles" / "mock-3.toml"
VIEW = PublicView("Triangle", "Ben speaks", ("Ana", "Ben", "Cy"), (1, 2, 3), mark=1)


@pytest.fixture(autouse=True)
def dummy_video(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def test_a_frame_reaches_the_pygame_display_pixel_for_pixel():
    screen = TableScreen((640, 360), PygameScreen(TableScreenProfile(True, 640, 360, False)))
    try:
        screen.show(VIEW)
        assert screen.flush()
        shown = pygame.display.get_surface()
        pixels = Image.frombytes("RGB", shown.get_size(), pygame.image.tobytes(shown, "RGB"))
        assert ImageChops.difference(pixels, render(VIEW, (640, 360))).getbbox() is None
    finally:
        screen.close()
    assert not pygame.display.get_init()


def test_views_that_come_while_a_frame_is_drawn_are_not_queued_only_the_newest_is_drawn():
    drawing = threading.Event()
    go_on = threading.Event()
    shown: list[Image.Image] = []

    def slow_sink(image):
        drawing.set()
        go_on.wait(10)
        shown.append(image)

    screen = TableScreen((320, 180), slow_sink)
    try:
        screen.show(replace(VIEW, heading="first"))
        assert drawing.wait(10)
        for n in range(20):  # the loop never waits for the screen
            screen.show(replace(VIEW, heading=f"burst {n}"))
        go_on.set()
        assert screen.flush()
        assert screen.frames == 2
        assert ImageChops.difference(shown[-1], render(replace(VIEW, heading="burst 19"), (320, 180))).getbbox() is None
    finally:
        go_on.set()
        screen.close()


def test_a_sink_that_fails_is_logged_and_the_screen_goes_on(caplog):
    calls = []

    def broken(image):
        calls.append(image)
        if len(calls) == 1:
            raise OSError("HDMI unplugged")

    screen = TableScreen((320, 180), broken)
    try:
        screen.show(VIEW)
        assert screen.flush()
        screen.show(replace(VIEW, heading="again"))
        assert screen.flush()
        assert len(calls) == 2 and "could not be shown" in caplog.text
    finally:
        screen.close()


# --- the profile ------------------------------------------------------------------------------

BASE = {"backend": "mock", "stations": [{"pins": {"slap": 4 + i * 5, "left": 5 + i * 5, "ok": 6 + i * 5,
                                                  "right": 7 + i * 5}, "display": {}} for i in range(2)]}


def test_the_table_screen_is_off_by_default_and_the_box_runs_without_it():
    profile = parse_profile(BASE)
    assert profile.table_screen == TableScreenProfile(enabled=False, width=1280, height=720, fullscreen=True)
    assert open_table_screen(profile.table_screen) is None


def test_table_screen_settings_are_read_and_bad_ones_named():
    profile = parse_profile({**BASE, "table_screen": {"enabled": True, "width": 1920, "height": 1080,
                                                      "fullscreen": False}})
    assert profile.table_screen == TableScreenProfile(True, 1920, 1080, False)
    with pytest.raises(ProfileError) as e:
        parse_profile({**BASE, "table_screen": {"enabled": "yes", "width": 100, "depth": 3}})
    assert e.value.problems == [
        "table_screen.depth: unknown field; known fields are enabled, width, height, fullscreen",
        "table_screen.enabled: must be true or false, not 'yes'",
        "table_screen.width: must be a whole number from 320 to 7680, not 100",
    ]


def test_profile_check_names_a_bad_table_screen(tmp_path, capsys):
    path = tmp_path / "p.toml"
    path.write_text(PROFILE.read_text() + "\n[table_screen]\nheight = 99999\n")
    assert main(["profile", "check", str(path)]) == 2
    assert "table_screen.height: must be a whole number from 180 to 4320, not 99999" in capsys.readouterr().err


# --- the daemon ---------------------------------------------------------------------------------

def test_the_daemon_shows_the_public_view_of_the_game_on_the_table_screen(tmp_path, monkeypatch):
    """A game of Pay-to-Play started from the lobby on mock pins: the table screen follows it."""
    clock = FakeClock()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    profile = replace(load_profile(PROFILE), table_screen=TableScreenProfile(True, 640, 360, False))
    daemon = Daemon(profile, tmp_path / "games", seed=3)
    try:
        assert daemon.box.table_screen is not None
        games = [g.name for g in daemon.table.lobby.games]
        keys = ([(0, "right")] * games.index("paytoplay") + [(0, "ok")]
                + [(0, "slap"), (1, "slap")]     # Ana and Ben take the two seats; Cy watches
                + [(0, "ok")] * 8 + [(0, "right"), (0, "ok")])
        presses = [ScriptPress(0.2 * (i + 1), station, k) for i, (station, k) in enumerate(keys)]
        asyncio.run(play_on_fake_clock(daemon, presses, clock))
        screen = daemon.box.table_screen
        assert screen.flush()
        view = daemon.public_view(daemon.table)
        assert view.game == "Pay-to-Play" and view.board.count(".") == 8
        assert ImageChops.difference(screen.image, render(view, (640, 360))).getbbox() is None
        assert 1 < screen.frames <= daemon.table.version + 1
        # what every station is told is told the table too
        daemon._notices["board"] = ("Board unplugged", "Board unplugged")
        daemon._shown = -1
        daemon._present()
        assert screen.flush()
        told = replace(view, notice="Board unplugged")
        assert ImageChops.difference(screen.image, render(told, (640, 360))).getbbox() is None
    finally:
        daemon.close()


# --- the simulator ------------------------------------------------------------------------------

def test_sim_table_screen_screenshot_is_the_public_view_after_the_script(tmp_path, monkeypatch):
    """``companion sim --table-screen 640x360 --script S --screenshot F`` saves F.table.png: the
    game the script started, drawn as the renderer draws its public view (with the room code phones
    join with in its header: the simulator always lets phones watch)."""
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setattr("companion.web.room.secrets.choice", lambda letters: letters[0])
    script = tmp_path / "start.txt"
    script.write_text("".join(f"{0.06 * (i + 1):.2f} 1 ok 0.02\n" for i in range(6)))
    shot = tmp_path / "shot.png"
    status = main(["sim", "--players", "2", "--table-screen", "640x360", "--script", str(script),
                   "--screenshot", str(shot), "--journal-dir", str(tmp_path / "games")])
    assert status == 0
    table = Image.open(tmp_path / "shot.table.png").convert("RGB")
    assert table.size == (640, 360)
    room = CODE_LETTERS[0] * CODE_LENGTH
    view = PublicView("Pay-to-Play", "Ana to play (X)", ("Ana", "Ben"), (0, 0), mark=0, board="." * 9,
                      trail=((0, 0),), room=room)  # the balances hold no income before a turn is played
    assert ImageChops.difference(table, render(view, (640, 360))).getbbox() is None


@pytest.mark.parametrize("size", ["12x7", "wide", "10000x10000"])
def test_a_bad_table_screen_size_is_named(size, capsys):
    with pytest.raises(SystemExit):
        main(["sim", "--table-screen", size])
    assert "--table-screen: must be" in capsys.readouterr().err
