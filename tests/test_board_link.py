"""The button board end to end over real pseudo-terminals: the virtual board on one side, the
serial link (pyserial) and the daemon on the other. Races wait for a board whose frames come
late; a board unplugged mid-game is told to the players, reconnected, and nothing applied is
lost; garbage on the line is counted and dropped."""

from __future__ import annotations

import asyncio
import json
import queue
import time
from pathlib import Path

import gpiozero.pins.mock

from companion.adapters import board as board_adapter
from companion.adapters.board import BoardLink
from companion.board.frames import Leds
from companion.board.handover import UNPLUGGED, Exchanged, LinkDown, LinkUp
from companion.board.session import BoardSession
from companion.board.virtual import VirtualBoard
from companion.daemon import Daemon
from companion.arbiter.inputs import InputEvent
from companion.profile import load_profile
from companion.arbiter.race import Race
from companion.screens.canvas import blank
from companion.script import edges, load_script
from helpers import MS, PATIENCE_S, until, wait_until
from test_daemon import DEMO, SEED_GAME

PROFILE = """\
name = "On the bench with a board"
backend = "mock"

[buzzer]
pin = 18

[board]
port = "/dev/ttyACM0"

{stations}
"""
GPIO = ['pins = {{ slap = 4, left = 17, ok = 27, right = 22 }}', 'pins = {{ slap = 5, left = 6, ok = 13, right = 19 }}']
BOARD = 'channels = {{ slap = {0}, left = {1}, ok = {2}, right = {3} }}'


def profile(tmp_path: Path, *wiring: str):
    stations = "\n".join(f'[[stations]]\nname = "{name}"\n{w}\ndisplay = {{}}\n'
                         for name, w in zip(["Alice", "Bob", "Cy"], wiring))
    path = tmp_path / "box.toml"
    path.write_text(PROFILE.format(stations=stations).replace("{{", "{").replace("}}", "}"))
    return load_profile(path)


class RaceProbe:
    """In the table's place: one race over every station, decided as a game table decides it
    (from the daemon's watermark), noting the order in which presses reached it."""

    def __init__(self, race: Race) -> None:
        self.race = race
        self.result = None
        self.arrivals: list[int] = []
        self.ticked_ns = 0
        self.version, self.cues = 0, []

    def handle(self, event: InputEvent) -> None:
        if event.pressed:
            self.arrivals.append(event.station)
        self.race.press(event)

    def tick(self, now_ns: int, watermark_ns: int) -> None:
        self.ticked_ns = now_ns
        self.result = self.result or self.race.decide(watermark_ns)

    def wakeup_ns(self):
        return self.race.decision_due_ns

    def screen(self, station: int):
        return blank()[0]


def test_a_late_board_press_still_wins_against_a_later_gpio_press(tmp_path, monkeypatch):
    box = profile(tmp_path, GPIO[0], GPIO[1], BOARD.format(0, 1, 2, 3))
    daemon = Daemon(box)
    board = daemon.box.virtual_board
    # Heartbeats a second apart (its hello tells the host): however long a busy machine takes to
    # get through the stall below, the board is late, never silent long enough to be given up.
    board.heartbeat_us = 1_000_000

    async def scenario():
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        await until(lambda: daemon.board_session.clock.synced and daemon.board_session.hello.heartbeat_us == 1_000_000)
        probe = daemon.table = RaceProbe(Race(time.monotonic_ns(), tie_window_ns=5 * MS, stations=range(3)))
        await asyncio.sleep(0.02)
        board.stall()  # from now on the board's frames are held back, as on a congested USB bus
        cy_ns = daemon.board_session.clock.to_host_ns(board.press(0))  # Cy slaps first...
        await asyncio.sleep(0.012)
        monkeypatch.setattr(gpiozero.pins.mock, "monotonic", lambda: (cy_ns + 12 * MS) / 1e9)
        daemon.box.drive(0, "slap", True)  # ...Alice 12 ms later, on GPIO: her press arrives first
        monkeypatch.undo()
        # Wait until the GPIO watermark alone would have decided the race, well past its window.
        due = cy_ns + 12 * MS + 5 * MS + round(box.timing.gpio_latency_ms * MS)
        await until(lambda: probe.ticked_ns > due + 20 * MS)
        undecided = probe.result is None
        board.resume()
        await until(lambda: probe.result is not None)
        stop.set()
        await runner
        return probe, undecided, cy_ns

    try:
        probe, undecided_while_late, cy_ns = asyncio.run(scenario())
    finally:
        daemon.close()
    assert undecided_while_late, "the race must wait for the board's watermark"
    assert probe.arrivals == [0, 2]  # out of order: Alice's press reached the race first
    assert probe.result.winners == {2}
    [cy, alice] = probe.result.order
    assert (cy.station, alice.station) == (2, 0)
    # Timed by the edges, not by arrival: Alice's GPIO edge is the one set 12 ms after Cy's
    # stamped press, and the race measures her from Cy's edge as the board stamped it. (How close
    # the board's stamp, put on the host's clock, is to the host's reading at the press is the
    # clock sync's accuracy, measured in test_clocksync, not a window this test can promise on a
    # busy machine.)
    assert alice.t_ns == cy_ns + 12 * MS and alice.delta_ns == alice.t_ns - cy.t_ns > 0


def shows_notice(panel) -> bool:
    """The notice bar: the bottom text line lit across the panel."""
    strip = panel.convert("L").crop((0, 52, 128, 64))
    return strip.histogram()[255] > 128 * 12 * 0.6


def test_unplug_and_replug_mid_game_loses_no_applied_action(tmp_path):
    box = profile(tmp_path, GPIO[0], BOARD.format(4, 5, 6, 7))
    daemon = Daemon(box, tmp_path / "games", seed=1)
    board = daemon.box.virtual_board
    daemon.box.board.retry_s = 0.05
    script = edges(load_script(DEMO / "paytoplay.txt", 2))
    unplug_at = next(i for i, e in enumerate(script) if e[1] == 1) + 16  # as Bob is about to confirm his second move
    seen = {}

    handled = []
    handle = daemon.table.handle

    def handle_and_count(event):
        handled.append(event)
        handle(event)

    daemon.table.handle = handle_and_count

    def notices() -> list[bool]:
        daemon.box.displays.flush()
        return [shows_notice(d.image) for d in daemon.box.displays.devices]

    async def scenario():
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        await until(lambda: daemon.board_session.clock.synced)
        for i, (_, station, key, pressed) in enumerate(script):
            if i == unplug_at:
                board.unplug()
                await until(lambda: daemon.notice == UNPLUGGED)
                await until(lambda: all(notices()))
                seen["panels"] = notices()
                seen["cues"] = list(daemon.box.buzzer.played)
                board.replug()
                await until(lambda: daemon.notice is None and daemon.board_session.clock.synced)
            daemon.box.drive(station, key, pressed)
            await asyncio.sleep(0.03 if pressed else 0.02)  # at least: a hold, a gap between taps
            await until(lambda: len(handled) == i + 1)       # in the game before the next edge
        await until(lambda: not any(notices()))
        seen["after"] = notices()
        stop.set()
        await runner

    try:
        asyncio.run(scenario())
    finally:
        daemon.close()
    assert seen["panels"] == [True, True], "every player is told the board is unplugged"
    assert "unplugged" in seen["cues"]
    assert seen["after"] == [False, False]
    [journal] = (tmp_path / "games").glob("*.jsonl")
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [(x["action"], x["player"], x.get("cell")) for x in lines[1:]] == SEED_GAME
    assert daemon.board_session.lost_frames == 0


def test_garbage_on_the_line_is_counted_and_the_link_carries_on(tmp_path):
    board = VirtualBoard(tmp_path / "board", drift_ppm=100)
    board.start()
    items: queue.Queue = queue.Queue()
    link = BoardLink(str(board.path), items.put, retry_s=0.05)
    session = BoardSession({3: (1, "ok")})
    link.start()
    tight: list[int] = []  # when pings answered within 0.5 ms were sent

    def collect_until(done) -> list:
        out, end = [], time.monotonic() + PATIENCE_S
        while not done(out):
            assert time.monotonic() < end, "timed out"
            try:
                item = items.get(timeout=0.01)
            except queue.Empty:
                continue
            if isinstance(item, Exchanged) and item.received_ns - item.sent_ns < MS // 2:
                tight.append(item.sent_ns)
            out += session.handle(item)
        return out

    try:
        # Synced, through a ping answered within 0.5 ms: the board's clock is then known to that.
        out = collect_until(lambda _: session.clock.synced and tight)
        board.noise(b"\x05\x01\x02\x00")  # cut short
        board.noise(b"\x01" * 80 + b"\x00")  # far too long
        board.noise(b"\x03\x02\x01\x04\x87\xd6\x12\x01\x01\x01\x01\x05\x04\x01\x9b\xdf\x00")  # bad CRC
        before_ns = time.monotonic_ns()
        board.press(3)
        after_ns = time.monotonic_ns()
        link.send(Leds(0b1010))
        out += collect_until(lambda out: any(isinstance(o, InputEvent) for o in out) and board.leds == 0b1010)
        events = [o for o in out if isinstance(o, InputEvent)]
        assert events == [InputEvent(1, "ok", True, events[0].t_ns, "board")]
        # On the host's clock, drift and all: when the board stamped it, within the tight ping's
        # 0.5 ms plus what a wrong rate adds since that ping (the sync may believe any rate
        # within its max_drift; the board drifts 100 ppm). Board times never go back on the
        # host, so a time given before from a looser fit may hold it later.
        given = max((getattr(o, "t_ns", 0) for o in out[:out.index(events[0])]), default=0)
        slack = MS // 2 + (session.clock.max_drift + board.drift_ppm * 1e-6) * (after_ns - tight[0])
        assert before_ns - slack < events[0].t_ns < max(after_ns + slack, given + 1)
        assert link.errors == {"cobs": 1, "too_long": 1, "crc": 1}
    finally:
        link.close()
        board.close()


def test_the_link_says_when_the_board_goes_and_comes_back(tmp_path, monkeypatch):
    attempts = []
    open_port = board_adapter.KeptInputSerial

    def counted_open(*args, **kwargs):
        attempts.append(args[0])
        return open_port(*args, **kwargs)

    monkeypatch.setattr(board_adapter, "KeptInputSerial", counted_open)
    board = VirtualBoard(tmp_path / "board")
    board.start()
    items: queue.Queue = queue.Queue()
    link = BoardLink(str(board.path), items.put, retry_s=0.02)
    link.start()

    def kinds(until_kind) -> list:
        seen, end = [], time.monotonic() + PATIENCE_S
        while until_kind not in seen:
            assert time.monotonic() < end, f"no {until_kind.__name__} in time"
            try:
                seen.append(type(items.get(timeout=0.01)))
            except queue.Empty:
                pass
        return seen

    try:
        assert LinkUp in kinds(LinkUp)
        board.unplug()
        assert LinkDown in kinds(LinkDown)
        tried = len(attempts)
        wait_until(lambda: len(attempts) >= tried + 5)  # still gone: the link keeps trying, quietly
        assert not any(isinstance(items.get_nowait(), (LinkUp, LinkDown)) for _ in range(items.qsize()))
        board.replug()
        assert LinkUp in kinds(LinkUp)
    finally:
        link.close()
        board.close()


def race_with_a_board(tmp_path, before_gpio_slap):
    """A race over a GPIO station and a board station; ``before_gpio_slap(daemon)`` (a coroutine)
    does something to the board once the race is open, then station 1 slaps on GPIO. Returns
    the decided race (the test fails if it never is, within the tests' patience), with what the
    screens said."""
    daemon = Daemon(profile(tmp_path, GPIO[0], BOARD.format(0, 1, 2, 3)))
    daemon.box.board.retry_s = 0.05
    seen = {}

    async def scenario():
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        probe = daemon.table = RaceProbe(Race(time.monotonic_ns(), tie_window_ns=5 * MS, stations=range(2)))
        await before_gpio_slap(daemon)
        daemon.box.drive(0, "slap", True)
        try:
            await until(lambda: probe.result is not None)
            await until(lambda: daemon.notice == UNPLUGGED)
            probe.version += 1  # the probe's screens are blank: show them again, with the notice
            await until(lambda: daemon.box.displays.flush(0) and all(
                shows_notice(d.image) for d in daemon.box.displays.devices))
            seen["panels"] = True
        finally:
            seen["watermark_ahead_ns"] = daemon.watermark(time.monotonic_ns()) - time.monotonic_ns()
            stop.set()
            await runner
        return probe

    try:
        probe = asyncio.run(scenario())
    finally:
        daemon.close()
    return probe, daemon, seen


def test_a_board_absent_at_start_holds_no_race_and_every_screen_says_so(tmp_path):
    async def unplug(daemon):
        daemon.box.virtual_board.unplug()

    probe, daemon, seen = race_with_a_board(tmp_path, unplug)
    assert probe.result.winners == {0}
    assert seen["panels"] and not daemon.board_session.live


def test_a_board_silent_while_its_port_stays_open_stops_holding_races(tmp_path):
    async def go_silent(daemon):
        await until(lambda: daemon.board_session.clock.synced)
        daemon.box.virtual_board.stall()  # the port stays open; nothing comes (a Pico at its REPL)

    probe, daemon, seen = race_with_a_board(tmp_path, go_silent)
    assert probe.result.winners == {0}
    assert seen["panels"]


def test_a_board_stamping_twenty_minutes_ahead_is_dropped_and_freezes_nothing(tmp_path):
    async def press_in_the_future(daemon):
        await until(lambda: daemon.board_session.clock.synced)
        board = daemon.box.virtual_board
        board.press(0, at_us=board.now_us() + 20 * 60 * 1_000_000)  # Cy's slap, 20 minutes ahead

    probe, daemon, seen = race_with_a_board(tmp_path, press_in_the_future)
    assert probe.arrivals == [0], "the future press was not counted"
    assert probe.result.winners == {0}
    assert daemon.board_session.future_frames >= 1
    assert seen["watermark_ahead_ns"] <= 0, "no watermark from the future"
