"""Box settings: the buzzer volume, set from the lobby's last page, heard and kept across starts."""

import asyncio
import json
import logging
from pathlib import Path

import pytest

from companion.adapters.buzzer import duty_for
from companion.daemon import Daemon
from companion.profile import load_profile
from companion.settings import BoxSettings, amplitude, load_settings, save_settings
from companion.table import Table

from glyphs import shows
from helpers import Clock, tap

ROOT = Path(__file__).parent.parent
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"


def test_a_bad_settings_file_gives_the_defaults_and_one_log_line(tmp_path, caplog):
    path = tmp_path / "settings.json"
    assert load_settings(path) == BoxSettings()           # none yet: defaults, nothing said
    assert caplog.records == []
    for text, reason in (("{", "Expecting"), ('{"volume": 9}', "volume must be one of 1, 2, 3, 4, 5"),
                         ("[1]", "not a JSON object")):
        caplog.clear()
        path.write_text(text)
        with caplog.at_level(logging.WARNING):
            assert load_settings(path) == BoxSettings()
        assert len(caplog.records) == 1 and reason in caplog.text and str(path) in caplog.text
    save_settings(path, BoxSettings(2))
    assert json.loads(path.read_text()) == {"volume": 2} and load_settings(path) == BoxSettings(2)


def test_the_duty_cycle_gives_each_volumes_amplitude():
    import math

    assert duty_for(5) == 0.5
    for volume in (1, 2, 3, 4):
        assert math.sin(math.pi * duty_for(volume)) == pytest.approx(amplitude(volume))
    assert duty_for(1) < duty_for(2) < duty_for(3) < duty_for(4) < duty_for(5)


def test_the_settings_page_comes_after_the_last_game():
    table = Table(("Ana", "Ben", "Cy"), None, seed=1)
    clock = Clock()
    tap(table, 0, "left", clock.next())                    # before the first game
    assert table.on_settings_page and shows(table.screen(1), "Box settings")
    tap(table, 0, "ok", clock.next())
    tap(table, 0, "left", clock.next())
    tap(table, 0, "left", clock.next())
    assert table.settings.volume == 3 and table.cues[-2:] == ["tick", "tick"]
    assert shows(table.screen(2), "Buzzer volume: 3")
    tap(table, 0, "ok", clock.next())                       # done
    tap(table, 0, "right", clock.next())                    # on to the first game
    assert not table.on_settings_page and table.lobby.index == 0


def test_the_daemon_sets_the_buzzer_duty_and_saves_the_volume(tmp_path):
    settings = tmp_path / "settings.json"
    daemon = Daemon(load_profile(MOCK3), tmp_path / "games", settings_path=settings)
    pwm = daemon.box.buzzer.device.pwm_device
    clock = Clock()

    async def scenario():
        for key in ("left", "ok", "left", "left"):
            tap(daemon.table, 0, key, clock.next())
        daemon.step(round(clock.next() * 1e6))
        await asyncio.sleep(0)
        return pwm.value

    try:
        value = asyncio.run(scenario())
        assert json.loads(settings.read_text()) == {"volume": 3}
        assert value == pytest.approx(duty_for(3))          # the tick just played at volume 3
    finally:
        daemon.close()
    again = Daemon(load_profile(MOCK3), tmp_path / "games", settings_path=settings)
    try:
        assert again.table.settings.volume == 3 and again.box.buzzer.duty == duty_for(3)
    finally:
        again.close()


def test_the_simulator_sets_the_mixer_volume():
    pytest.importorskip("pygame")
    from companion.sim.sound import MixerBuzzer

    buzzer = MixerBuzzer()
    try:
        if buzzer.channel is None:
            pytest.skip("no sound device, not even SDL's dummy one")
        buzzer.set_volume(3)
        buzzer.play("tick")
        assert buzzer.channel.get_volume() == pytest.approx(0.25, abs=0.01)
    finally:
        buzzer.close()
