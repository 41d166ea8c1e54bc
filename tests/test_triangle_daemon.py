"""Triangle end to end on gpiozero's mock pins, on a fake clock: a script of slaps drives the
real daemon step (hardware/profiles/mock-3.toml: debounce, watermark, table, luma dummy displays,
buzzer), and the journal and every frame sent to the displays show what the players saw."""

import asyncio
from dataclasses import replace
from pathlib import Path

import gpiozero.pins.mock
import pytest

from companion.daemon import Daemon
from companion.games import get
from companion.games.options import lobby_choices
from companion.games.triangle import fact_true, peers
from companion.record.journal import NOTES, replay, summary
from companion.profile import load_profile
from companion.script import ScriptPress, load_script

from glyphs import shows
from helpers import FakeClock, journal_objects, play_on_fake_clock
from companion.games.options import SCREEN_TIE_WINDOW_MS

ROOT = Path(__file__).parent.parent
PROFILE = ROOT / "hardware" / "profiles" / "mock-3.toml"
SCRIPT = Path(__file__).parent / "scripts" / "triangle.txt"
SEED = 8
"""The box's seed, chosen so that the first deal has four different values: a value on a screen
after the draw can then only be that card."""


def lobby_to_triangle(daemon) -> list[ScriptPress]:
    """Station 1 walks the lobby to Triangle and starts it with the default options."""
    steps = [g.name for g in daemon.table.lobby.games].index("triangle")
    rows = len(lobby_choices(get("triangle").Options))
    keys = ["right"] * steps + ["ok"] + ["ok"] * rows + ["ok"]
    return [ScriptPress(0.2 * (i + 1), 0, key) for i, key in enumerate(keys)]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("triangle")
    clock = FakeClock()
    patch = pytest.MonkeyPatch()
    patch.setattr(gpiozero.pins.mock, "monotonic", clock.monotonic)
    profile = load_profile(PROFILE)
    daemon = Daemon(profile, tmp / "games", seed=SEED)
    buzzer_pin = daemon.box.pin_factory.pin(profile.buzzer_pin)
    frames = []
    show = daemon.box.displays.show

    def record(station, image):
        """Pass each frame on to the dummy display, noting which round phase it showed."""
        game = daemon.table.game
        phase = None
        if game is not None:
            state = game.match.state
            phase = (len(state.history), state.current is None, game.count)
        frames.append((station, image, phase))
        show(station, image)

    daemon.box.displays.show = record
    try:
        lobby = lobby_to_triangle(daemon)
        begin = lobby[-1].at_s
        game_presses = [replace(p, at_s=begin + p.at_s) for p in load_script(SCRIPT, 3)]
        asyncio.run(play_on_fake_clock(daemon, lobby + game_presses, clock))
        daemon.box.displays.flush()
        panels = [device.image for device in daemon.box.displays.devices]
        game = daemon.table.game
    finally:
        daemon.close()
        patch.undo()
    [journal] = (tmp / "games").glob("*.jsonl")
    lines = journal_objects(journal)
    return lines, frames, panels, game, buzzer_pin, journal


def test_the_journal_holds_the_draw_then_bens_claim_and_statement(played):
    lines, frames, panels, game, buzzer_pin, journal = played
    assert lines[0]["game"] == "triangle" and lines[0]["players"] == ["Ana", "Ben", "Cy"]
    assert lines[0]["options"]["tie_window_ms"] == SCREEN_TIE_WINDOW_MS
    events = [{k: v for k, v in x.items() if k != "t"} for x in lines[1:]]
    assert events[0]["event"] == "deal"
    assert events[1] == {"type": "action", "action": "draw", "players": [0, 1, 2],
                         "onset_ms": [0.0, 0.0, 0.0], "reaction_ms": [400.0, 403.0, 406.0]}
    assert events[2]["event"] == "deal"
    assert [{k: v for k, v in x.items() if k not in NOTES} for x in events[3:]] == [
                          {"type": "action", "action": "claim", "player": 1},
                          {"type": "action", "action": "state", "player": 1, "fact": "peers_even"}]
    header, match = replay(journal.read_text().splitlines())
    cards = tuple(events[2]["cards"])
    expected = [0, 1, 0] if fact_true(cards, 1, "peers_even") else [3, 0, 3]
    assert summary(header, match)["scores"] == expected


def test_a_slap_before_zero_is_a_false_start_shown_to_cy_alone(played):
    lines, frames, *_ = played
    early = [(s, image) for s, image, phase in frames if phase and phase[0] == 0 and phase[2] > 0]
    assert {s for s, _ in early} == {0, 1, 2}
    warned = {s for s, image in early if shows(image, "Too early!")}
    assert warned == {2}


def test_after_the_draw_no_station_ever_shows_its_own_card_or_the_rts(played):
    lines, frames, *_ = played
    cards, rts = lines[1]["cards"], lines[1]["rts"]
    assert len({*cards, rts}) == 4, "choose a SEED whose first deal has four different values"
    after = [(s, image) for s, image, phase in frames if phase and phase[:2] == (1, True)]
    assert {s for s, _ in after} == {0, 1, 2}
    for station, image in after:
        assert shows(image, "Draw:")
        assert not shows(image, str(cards[station])), f"station {station + 1} saw its own card"
        assert not shows(image, str(rts)), f"station {station + 1} saw the Right to Speak"
        assert all(shows(image, str(cards[p])) for p in peers(station))


def test_ben_alone_sees_the_rts_and_everyone_sees_who_slapped_after_him(played):
    lines, frames, panels, game, *_ = played
    rts = lines[3]["rts"]
    speaking = [(s, image) for s, image, phase in frames if phase and phase[:2] == (1, False)]
    bens = [image for s, image in speaking if s == 1]
    assert any(shows(image, f"Right to Speak: {rts}") for image in bens)
    assert not any(shows(image, "Right to Speak") for s, image in speaking if s != 1)
    assert game.view(0).status == "You +30ms  Cy +60ms"
    assert game.view(1).status == "Ana +30ms  Cy +60ms"
    # The result: every station shows all three cards of round 2.
    cards = lines[3]["cards"]
    for station, panel in enumerate(panels):
        assert all(shows(panel, str(c)) for c in cards)
        assert shows(panel, "You")


def test_the_buzzer_sounded(played):
    *_, buzzer_pin, journal = played
    assert 0.5 in [s.state for s in buzzer_pin.states]
