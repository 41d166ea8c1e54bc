"""The simulator under SDL's dummy video and audio drivers: keys and clicks reach the game through
the daemon's own arbiter, the window shows every panel pixel for pixel, the mixer plays cues."""

import asyncio
import json
import os
import pathlib
import time
from array import array

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402
from PIL import Image, ImageChops  # noqa: E402

from companion import cli  # noqa: E402
from companion.arbiter.inputs import KEYS  # noqa: E402
from companion.cues import CUES  # noqa: E402
from companion.profile import DisplayProfile, Profile, StationProfile, load_profile  # noqa: E402
from companion.script import parse_script  # noqa: E402
from companion.sim import keys  # noqa: E402
from companion.sim.app import Simulator, players_profile  # noqa: E402
from companion.sim.look import BEZEL, LAMP_OFF, OLED_OFF, OLED_ON, SMALL  # noqa: E402
from companion.sim.sound import MixerBuzzer, length_s  # noqa: E402
from companion.sim.window import layout  # noqa: E402

from helpers import PATIENCE_S, until  # noqa: E402

TAP_S = 0.03
"""Real time at least between a tap's edges: longer than the debounce window, so no tap is a
bounce. (A busy machine only makes it longer; the window stamps keys when it reads them.)"""

START_GAME = "".join(f"{0.06 * (i + 1):.2f} 1 ok 0.02\n" for i in range(6))
"""Station 1 picks the first game in the lobby, keeps its options and starts it (with two
stations the lobby's first game is Pay-to-Play)."""


@pytest.fixture
def sim(tmp_path):
    simulator = Simulator(players_profile(2), tmp_path / "games", seed=1, scale=2)
    yield simulator
    simulator.close()


def journal_moves(directory):
    journals = list(directory.glob("*.jsonl"))
    if not journals:
        return []
    [journal] = journals
    return [(line["action"], line["player"]) for line in map(json.loads, journal.read_text().splitlines()[1:])]


def post(kind, **attributes):
    pygame.event.post(pygame.event.Event(kind, **attributes))


async def tap_key(name):
    post(pygame.KEYDOWN, key=pygame.key.key_code(name))
    await asyncio.sleep(TAP_S)
    post(pygame.KEYUP, key=pygame.key.key_code(name))
    await asyncio.sleep(TAP_S)


async def running(sim, play, done):
    """Run the simulator's daemon and event pump while ``play`` posts window events, until
    ``done()`` says the window and the daemon have handled them."""
    stop = asyncio.Event()
    runner = asyncio.gather(sim.daemon.run(stop), sim.window.pump(stop))
    try:
        await play()
        await until(done)
    finally:
        stop.set()
        await runner


def test_a_keypress_drives_a_station_button_through_the_arbiter_to_a_game_action(sim, tmp_path):
    async def play():
        for _ in range(6):
            await tap_key("s")              # station 1's ok: through the lobby to Start
        await tap_key("s")                  # Ana places her first X

    asyncio.run(running(sim, play, lambda: journal_moves(tmp_path / "games")))
    assert journal_moves(tmp_path / "games") == [("play", 0)]
    assert sim.daemon.table.game.match.state.board[0] == "X"   # where her cursor began
    assert "go" in sim.window.buzzer.played


def test_a_click_on_a_drawn_button_presses_it(sim, tmp_path):
    bens_ok = sim.window.layout.stations[1].buttons["ok"].center
    held = []

    async def play():
        for _ in range(7):
            await tap_key("s")
        post(pygame.MOUSEBUTTONDOWN, pos=bens_ok, button=1)
        await asyncio.sleep(TAP_S)
        await until(lambda: sim.window.is_down(1, "ok"))
        held.append(sim.window.is_down(1, "ok"))
        post(pygame.MOUSEBUTTONUP, pos=(0, 0), button=1)   # released wherever the mouse went
        await asyncio.sleep(TAP_S)

    asyncio.run(running(sim, play, lambda: len(journal_moves(tmp_path / "games")) >= 2))
    assert held == [True]
    assert not sim.window.is_down(1, "ok")
    assert journal_moves(tmp_path / "games")[:2] == [("play", 0), ("play", 1)]


def test_a_window_playing_a_script_stops_when_the_window_is_closed(sim, tmp_path):
    script = parse_script(START_GAME + "0.45 1 ok 0.02\n" + "300 2 ok\n", 2)

    async def play():
        running = asyncio.ensure_future(sim.run(script))
        await until(lambda: journal_moves(tmp_path / "games"))    # Ana's move is in
        post(pygame.QUIT)                                          # Bob's comes at 300 s
        await asyncio.wait_for(running, PATIENCE_S)

    asyncio.run(play())
    assert journal_moves(tmp_path / "games") == [("play", 0)]


def test_the_screenshot_shows_every_station_panel_pixel_for_pixel(tmp_path):
    simulator = Simulator(players_profile(2), None, seed=1, scale=3)
    shot = tmp_path / "sim.png"
    try:
        script = parse_script(START_GAME + "0.45 1 ok 0.02\n", 2)
        asyncio.run(simulator.screenshot(shot, script))
        window = Image.open(shot).convert("RGB")
        assert window.size == simulator.window.layout.size
        for station, area in enumerate(simulator.window.layout.stations):
            panel = window.crop(tuple(area.panel.topleft) + tuple(area.panel.bottomright))
            pixels = panel.resize((128, 64), Image.Resampling.NEAREST)
            # every OLED pixel is a uniform 3x3 block ...
            assert ImageChops.difference(pixels.resize(panel.size, Image.Resampling.NEAREST), panel).getbbox() is None
            # ... in one of the two OLED colours, lit exactly where the station's image is
            assert set(pixels.get_flattened_data()) <= {OLED_ON, OLED_OFF}
            lit = Image.new("1", (128, 64))
            lit.putdata([1 if p == OLED_ON else 0 for p in pixels.get_flattened_data()])
            screen = simulator.daemon.table.screen(station)
            assert ImageChops.difference(lit.convert("L"), screen.convert("L")).getbbox() is None, station
        assert simulator.daemon.table.game.match.state.board[0] == "X", "the shot is mid-game"
    finally:
        simulator.close()


def test_the_mixer_plays_a_cue_as_sine_tones_and_mute_silences_it_but_not_the_lamp():
    buzzer = MixerBuzzer()
    try:
        assert buzzer.channel is not None
        started = time.monotonic()
        buzzer.play("decided")
        sound = buzzer.sound("decided")
        playing = buzzer.channel.get_busy() and buzzer.channel.get_sound() is sound
        # Playing, unless a busy machine only got here after the cue's end.
        assert playing or time.monotonic() - started >= length_s("decided")
        rate, _, channels = pygame.mixer.get_init()
        samples = array("h", sound.get_raw())[::channels]
        (first, first_s), (_, second_s) = CUES["decided"]
        assert len(samples) == round(first_s * rate) + round(second_s * rate)
        note = samples[: round(first_s * rate)]
        crossings = sum(1 for a, b in zip(note, note[1:]) if (a < 0) != (b < 0))
        assert crossings == pytest.approx(2 * 1318.51 * first_s, abs=3)   # E6
        assert max(samples) == pytest.approx(0.3 * 32767, rel=0.01)
        assert buzzer.lit(started) == "decided"      # lit from the moment it played, for its length

        buzzer.toggle_mute()
        assert not buzzer.channel.get_busy()
        started = time.monotonic()
        buzzer.play("tie")
        assert not buzzer.channel.get_busy()
        assert buzzer.lit(started) == "tie"
        assert buzzer.lit(time.monotonic() + 1) is None
        assert buzzer.played == ["decided", "tie"]
    finally:
        buzzer.close()


def test_escape_asks_before_quitting(sim):
    window = sim.window

    def press(name):
        window.handle([pygame.event.Event(pygame.KEYDOWN, key=pygame.key.key_code(name))])

    press("escape")
    assert window.asking and not window.quitting
    press("n")
    assert not window.asking and not window.quitting
    press("escape")
    press("y")
    assert window.quitting
    stop = asyncio.Event()
    asyncio.run(asyncio.wait_for(window.pump(stop), PATIENCE_S))
    assert stop.is_set()


def test_f1_and_the_drawn_switch_toggle_the_sound(sim):
    window = sim.window
    window.handle([pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F1)])
    assert window.buzzer.muted
    window.handle([pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=window.layout.sound.center, button=1)])
    assert not window.buzzer.muted


def test_every_station_button_has_its_own_real_key():
    pygame.init()
    names = [name for station in keys.STATION_KEYS for name in station.values()]
    assert len(set(names)) == len(names) == 24
    assert not set(names) & {keys.MUTE, keys.QUIT, *keys.CONFIRM_QUIT}
    for name in names + [keys.MUTE, keys.QUIT, *keys.CONFIRM_QUIT]:
        assert pygame.key.name(pygame.key.key_code(name)) == name
    assert keys.station_button("k", [KEYS] * 3) == (1, "ok")
    assert keys.station_button("m", [KEYS] * 5) is None          # station 6's key on a five-station box
    quiz = [KEYS, KEYS, ("slap",)]                                # station 3 a buzzer-only seat
    assert keys.station_button("t", quiz) == (2, "slap")
    assert [keys.station_button(name, quiz) for name in "fgh"] == [None] * 3
    assert keys.legend(2, ("slap",)) == "key T" and keys.legend(6, ("slap",)) == "click"


@pytest.mark.parametrize("players", range(2, 7))
def test_stations_fit_the_window_without_overlapping(players):
    plan = layout(players_profile(players), 2)
    window = pygame.Rect((0, 0), plan.size)
    cards = [area.card for area in plan.stations]
    assert len(cards) == players
    for i, card in enumerate(cards):
        assert window.contains(card) and not card.colliderect(plan.table)
        assert all(not card.colliderect(other) for other in cards[i + 1:])
        assert all(card.contains(r) for r in plan.stations[i].buttons.values())


def test_cli_screenshot_writes_the_window(tmp_path):
    shot = tmp_path / "shot.png"
    status = cli.main(["sim", "--players", "4", "--screenshot", str(shot), "--journal-dir", str(tmp_path)])
    assert status == 0
    assert Image.open(shot).size == layout(players_profile(4), 3).size


@pytest.mark.skipif(cli.on_pi_hardware(), reason="a Pi shows the help instead")
def test_no_command_without_a_display_explains_the_headless_mode(capsys, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert "cannot open the simulator window" in err
    assert "companion demo" in err and "--script" in err


def test_a_scripted_screenshot_leaves_no_game_in_the_state_directory(tmp_path, monkeypatch, capsys):
    """A script that starts the first game with its default options and stops mid-game: its
    journal goes to a temporary folder, never where the box would offer to resume it."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    lobby = tmp_path / "lobby.txt"
    lobby.write_text("".join(f"{0.1 * (i + 1):.1f} 1 ok\n" for i in range(12)))
    shot = tmp_path / "shot.png"
    assert cli.main(["sim", "--script", str(lobby), "--screenshot", str(shot), "--speed", "4"]) == 0
    assert not (tmp_path / "state").exists()
    used = pathlib.Path(capsys.readouterr().err.split("journals of this scripted run: ")[1].split()[0])
    assert list(used.glob("*.jsonl")), "the game was journaled in the temporary folder"


ROOT = pathlib.Path(__file__).parent.parent
QUIZ = ROOT / "hardware/profiles/mock-quiz-16.toml"


def box(stations, buzzers):
    """A box of ``stations`` stations; with ``buzzers``, every one after the first a buzzer-only
    seat (the first hosts). 17 with buzzers is the quiz demo's box: two full stations, 15 seats."""
    if stations == 17 and buzzers:
        return load_profile(ROOT / "companion/demo/quiz.toml")
    seats = tuple(StationProfile(f"P{i + 1}", {}, DisplayProfile(), buzzer_only=buzzers and i > 0)
                  for i in range(stations))
    return Profile(f"{stations} stations", "mock", None, seats)


@pytest.mark.parametrize("scale", [1, 2, 3])
@pytest.mark.parametrize("buzzers", [False, True])
@pytest.mark.parametrize("stations", [2, 3, 4, 5, 6, 17])
def test_nothing_on_the_table_overlaps_at_any_station_count(stations, buzzers, scale):
    """The title, the buzzer lamp with its glow and label (the longest cue's too), the sound
    switch and "Esc quit" as drawn, each clear of the others and on the table; the table clear
    of every station; each station's panel, buttons and light in its own box; the quit question
    inside the window. Two stations make a one-column window (the lamp used to cover the title
    there); 17 are a quiz box's; buzzer-only seats take narrower, shorter boxes."""
    from companion.sim.window import Window

    profile = box(stations, buzzers)
    assert len(profile.stations) == stations
    window = Window(profile, [type("Panel", (), {"image": None})()] * stations, MixerBuzzer(muted=True),
                    lambda event: None, scale)
    try:
        plan = window.layout
        whole = pygame.Rect((0, 0), plan.size)
        drawn = window._draw_table()
        for i, rect in enumerate(drawn):
            assert plan.table.contains(rect), (rect, plan.table)
            assert all(not rect.colliderect(other) for other in drawn[i + 1:]), (rect, drawn)
        font = pygame.font.Font(None, 24)
        assert max(font.size(cue)[0] for cue in CUES) <= plan.cue.width
        assert plan.cue.right <= plan.table.right
        cards = [area.card for area in plan.stations]
        assert all(whole.contains(card) and not card.colliderect(plan.table) for card in cards)
        assert all(not a.colliderect(b) for i, a in enumerate(cards) for b in cards[i + 1:])
        for station, area in zip(profile.stations, plan.stations):
            things = list(area.buttons.values()) + [area.lamp] + ([area.panel] if area.panel else [])
            assert all(area.card.contains(thing) for thing in things), (station.name, area)
            assert (area.panel is None) == station.buzzer_only
            assert list(area.buttons) == (["slap"] if station.buzzer_only else list(KEYS))
        assert whole.contains(window._draw_quit_question())
    finally:
        window.close()


def test_a_buzzer_only_seat_is_drawn_as_a_slap_button_with_its_light_and_only_its_slap_is_pressed(tmp_path):
    """On the quiz box's window: Ben (station 3, key T) and Kim (station 12, clicked) are bare
    slap buttons with a light ring, no panel and no left/ok/right keys; their slap is reached by
    key and by click, the keys of buttons they lack reach nothing; Ana's station is whole."""
    simulator = Simulator(load_profile(QUIZ), None, seed=1, scale=2)
    shot = tmp_path / "quiz.png"
    edges = []
    try:
        asyncio.run(simulator.screenshot(shot))
        window = simulator.window
        picture = Image.open(shot).convert("RGB")
        ana, ben, kim = (window.layout.stations[i] for i in (1, 2, 11))
        for seat in (ben, kim):
            assert seat.panel is None and list(seat.buttons) == ["slap"]
            assert seat.card.width < ana.card.width
            colours = set(picture.crop((*seat.card.topleft, *seat.card.bottomright)).get_flattened_data())
            assert not colours & {OLED_ON, OLED_OFF, SMALL}, "no panel, no left/ok/right keys"
            assert picture.getpixel((seat.lamp.centerx, seat.lamp.y + 2)) == LAMP_OFF   # its light ring
        assert kim.card.height < ana.card.height == ben.card.height   # a row of seats only is short
        shown = set(picture.crop((*ana.panel.topleft, *ana.panel.bottomright)).get_flattened_data())
        assert shown == {OLED_ON, OLED_OFF} and len(ana.buttons) == 4
        for key in KEYS[1:]:                                 # each key's face and its shadow
            rect = ana.buttons[key]
            assert picture.getpixel((rect.x + 4, rect.centery)) == SMALL
            assert picture.getpixel((rect.centerx, rect.bottom + 1)) == BEZEL

        window.on_edge = lambda event: edges.append((event.station, event.key, event.pressed))
        for name in "tfghj":
            window.handle([pygame.event.Event(kind, key=pygame.key.key_code(name))
                           for kind in (pygame.KEYDOWN, pygame.KEYUP)])
        for seat in (ben, kim, ana):     # the slap, then where a full station's right key is
            for pos in [seat.buttons["slap"].center, (seat.card.right - 20, seat.buttons["slap"].centery)]:
                window.handle([pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1),
                               pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1)])
    finally:
        simulator.close()
    tap = lambda station, key: [(station, key, True), (station, key, False)]  # noqa: E731
    assert edges == (tap(2, "slap") + tap(1, "left")                      # T, then F G H nothing, J
                     + tap(2, "slap") + tap(11, "slap")                   # Ben's and Kim's slap
                     + tap(1, "slap") + tap(1, "right"))                  # Ana's slap and right


def test_a_simulated_box_with_a_button_board_does_not_say_the_board_is_missing(tmp_path):
    """The quiz box's seats on board channels are pressed in the window: the simulator has no
    board to wait for, and no station shows "Board not connected" once a board would be silent."""
    simulator = Simulator(load_profile(QUIZ), None, seed=1, scale=1)
    try:
        asyncio.run(simulator.daemon.play_script(parse_script("1.0 2 left\n", 17)))
        assert simulator.daemon.board_session is None
        assert simulator.daemon.notice is None
    finally:
        simulator.close()


def with_a_phone(simulator: Simulator, play) -> None:
    """Run ``simulator`` while ``play(web, phone)`` runs: ``phone`` a browser-free phone client
    on the address the web companion listens at, ``web`` that companion."""
    import aiohttp

    from bench.phoneclient import PhoneClient

    async def scenario():
        stop = asyncio.Event()
        runner = asyncio.ensure_future(simulator.run(stop=stop))
        try:
            web = simulator.daemon.web
            await until(lambda: bool(web.join_url))
            port = web.join_url.split(":")[2].split("/")[0]
            async with aiohttp.ClientSession() as session:
                phone = PhoneClient(session, f"http://127.0.0.1:{port}")
                await play(web, phone)
                await phone.close()
        finally:
            stop.set()
            await runner

    try:
        asyncio.run(scenario())
    finally:
        simulator.close()


def test_phones_can_watch_the_simulator_at_the_address_it_prints(tmp_path, capsys):
    """The simulator serves phones by default: it prints the join address, and a phone that
    joins there with the room code watches the table screen's public view."""
    printed = []

    async def watch(web, watcher):
        await until(lambda: printed.append(capsys.readouterr().out) or "Phones join at http://" in "".join(printed))
        assert f"{web.join_url} (room {web.room.code})" in "".join(printed)
        welcome = await watcher.join(web.room.code, "watch")
        assert welcome["role"] == "watch" and welcome["seat"] is None and welcome["token"] is None
        await until(lambda: watcher.view is not None)
        assert watcher.view["names"] == ["Ana", "Ben"] and watcher.view["room"] == web.room.code

    with_a_phone(Simulator(players_profile(2), tmp_path / "games", seed=1, scale=2), watch)


def test_a_phone_takes_the_seat_sim_phones_adds_and_is_sent_that_seats_panel(tmp_path):
    """``companion sim --phones 1``: a seat after the keyboard's stations that a phone takes with
    the room code; the phone is sent that seat's panel, and its name becomes the station's."""
    profile = players_profile(2, phones=1)
    assert [st.phone for st in profile.stations] == [False, False, True]
    assert profile.name == "2 stations and 1 phone, simulated"
    simulator = Simulator(profile, tmp_path / "games", seed=1, scale=2)

    async def sit(web, phone):
        welcome = await phone.join(web.room.code, "seat", name="Zoe")
        assert welcome["role"] == "seat" and welcome["seat"] == 3 and welcome["token"]  # seats count from 1
        await until(lambda: phone.panel is not None)
        await until(lambda: simulator.daemon.table.names[2] == "Zoe")

    with_a_phone(simulator, sit)
