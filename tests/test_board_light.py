"""Light sensors on button board channels, end to end over real pseudo-terminals: the virtual
board's LIGHT frames, the serial link (pyserial) and the daemon's light-sensor store. A reveal
waits for the board's watermark to pass its light window, a rise later than the stamped onset
changes the verdict as the players' true reactions say, and repeated, stale or future frames add
no light onset. The board session's own rules for LIGHT frames on a fake clock."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from companion.adapters.lightsensor import LIGHT_WAIT_NS
from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race
from companion.board.frames import Edge, Heartbeat, Light
from companion.board.handover import Lit, Watermark
from companion.board.session import BoardSession
from companion.daemon import Daemon
from companion.games.options import SCREEN_TIE_WINDOW_MS
from companion.profile import load_profile
from companion.selftest import BoardLight, light_report, measure_light
from companion.wiring import build_box
from helpers import MS, until, wait_until, while_running
from test_board_link import RaceProbe
from test_board_session import BOOT_NS, HELLO, Feed

PROFILE = """\
name = "Two on a board, with light sensors"
backend = "mock"

[board]
port = "/dev/ttyACM0"

[[stations]]
name = "Ana"
channels = { slap = 0, left = 1, ok = 2, right = 3 }
light_sensor = { channel = 12 }
display = {}

[[stations]]
name = "Ben"
channels = { slap = 4, left = 5, ok = 6, right = 7 }
light_sensor = { channel = 13 }
display = {}
"""
SENSOR = {0: 12, 1: 13}
SLAP = {0: 0, 1: 4}


class RevealProbe(RaceProbe):
    """:class:`RaceProbe` for a race revealed on the screens: the daemon hands it the stamps and
    the light onsets once the sensors have had their time; every press it took is kept."""

    def __init__(self, race: Race) -> None:
        super().__init__(race)
        self.presses: list[InputEvent] = []

    def handle(self, event: InputEvent) -> None:
        self.presses.append(event)
        super().handle(event)

    def revealed(self, number: int, onsets: dict[int, int], light: dict[int, int] | None = None,
                 errors: dict[int, int] | None = None) -> None:
        self.race.reveal(onsets, light)


def daemon_with_board_sensors(tmp_path: Path, heartbeat_us: int) -> Daemon:
    path = tmp_path / "box.toml"
    path.write_text(PROFILE, encoding="utf-8")
    daemon = Daemon(load_profile(path), tmp_path / "games", seed=1)
    daemon.box.virtual_board.heartbeat_us = heartbeat_us  # its next hello tells the host
    return daemon


def test_a_board_sensor_s_late_light_changes_the_verdict_its_stamp_would_give(tmp_path):
    # Heartbeats 10 s apart: the board's watermark moves only with its frames, so the reveal can
    # be seen waiting for it, however busy the machine.
    daemon = daemon_with_board_sensors(tmp_path, heartbeat_us=10_000_000)
    board = daemon.box.virtual_board
    seen = {}

    async def scenario():
        session = daemon.board_session
        await until(lambda: session.clock.synced and session.hello.heartbeat_us == 10_000_000)
        # A sync within 0.5 ms, so that later refits move no time by more (a loaded machine's
        # first pings can leave a band of several ms): the verdicts below are 2.25 ms clear.
        await until(lambda: session.clock.uncertainty_ns(board.now_us()) < MS // 2)
        probe = daemon.table = RevealProbe(Race(time.monotonic_ns(), 2 * MS, range(2), revealed=True))
        lit_us = {station: board.light(SENSOR[station]) for station in (0, 1)}
        lit_ns = {station: session.clock.to_host_ns(t) for station, t in lit_us.items()}
        # Ana's panel lit 9 ms after its display-on was stamped (a whole frame), Ben's 0.5 ms after his.
        stamps = {0: lit_ns[0] - 9 * MS, 1: lit_ns[1] - MS // 2}
        daemon._on_shown(1, [], stamps)
        sensors = daemon.box.light_sensors
        await until(lambda: sensors.light_onsets(stamps).keys() == {0, 1})
        # Past the light window and the GPIO bound: only the board's watermark is missing.
        quiet = max(stamps.values()) + LIGHT_WAIT_NS + round(daemon.profile.timing.gpio_latency_ms * MS)
        await until(lambda: probe.ticked_ns > quiet + 20 * MS)
        seen["waiting"] = probe.race.onsets is None
        # Ana reacts 290 ms after her light (299 after her stamp), Ben 294.25 ms after his (294.75):
        # 2.25 ms clear of the 2 ms tie window either way.
        await until(lambda: board.now_us() > lit_us[1] + 300_000)
        board.press(SLAP[0], at_us=lit_us[0] + 290_000)
        board.press(SLAP[1], at_us=lit_us[1] + 294_250)
        await until(lambda: probe.result is not None)
        return probe, stamps, lit_ns

    probe, stamps, lit_ns = while_running(daemon, scenario)
    assert seen["waiting"], "the reveal waits for the board's watermark to pass its light window"
    race = probe.race
    assert race.stamped == stamps
    assert race.light.keys() == {0, 1} and all(abs(race.light[s] - lit_ns[s]) < 50_000 for s in (0, 1))
    # Within the clock sync's accuracy (test_clocksync).
    assert abs(race.reaction_ns(0) - 290 * MS) < 1 * MS and abs(race.reaction_ns(1) - 294.25 * MS) < 1 * MS
    assert probe.result.winners == {0}
    by_stamps = Race(race.opens_at_ns, 2 * MS, range(2), revealed=True)
    by_stamps.reveal(stamps)
    for press in probe.presses:
        by_stamps.press(press)
    assert by_stamps.decide(1 << 62).winners == {1}  # the verdict the stamps alone would give


def test_repeated_stale_and_future_light_frames_add_no_onset(tmp_path):
    daemon = daemon_with_board_sensors(tmp_path, heartbeat_us=10_000)
    board = daemon.box.virtual_board
    sensors = daemon.box.light_sensors

    async def scenario():
        session = daemon.board_session
        await until(lambda: session.clock.synced)
        first = board.light(SENSOR[0])
        first_ns = session.clock.to_host_ns(first)
        board.repeat()                                     # the same frame, byte for byte
        await until(lambda: session.out_of_step_frames == 1)
        board.inject(Light(first - 1, SENSOR[1]))          # older than the board's watermark
        await until(lambda: session.stale_frames == 1)
        board.inject(Light(board.now_us() + 5_000_000, SENSOR[1]))  # 5 s ahead of the board's clock
        await until(lambda: session.future_frames == 1)
        board.light(SENSOR[1])
        await until(lambda: len(sensors.edges(1)) == 1)
        return first_ns

    first_ns = while_running(daemon, scenario)
    assert len(sensors.edges(0)) == 1 and abs(sensors.edges(0)[0] - first_ns) < MS  # within the sync
    assert len(sensors.edges(1)) == 1 and sensors.edges(1)[0] > sensors.edges(0)[0]


# --- the session's rules for LIGHT frames, on a fake clock ------------------------------------------

def sensed() -> tuple[BoardSession, Feed]:
    session = BoardSession({0: (0, "slap")}, sensors={12: 0, 13: 1})
    feed = Feed(session)
    feed(HELLO)
    feed.sync(0)
    return session, feed


def test_a_light_frame_is_a_rise_of_its_station_on_the_host_clock_and_a_watermark():
    session, feed = sensed()
    assert feed(Light(1_500, 13)) == [Lit(1, BOOT_NS + 1_500_000), Watermark("board", BOOT_NS + 1_500_000)]
    assert session.reported_ns == BOOT_NS + 1_500_000


def test_light_frames_follow_the_board_s_order_and_sequence_rules():
    session, feed = sensed()
    feed(Heartbeat(2_000, 0, 0, 0))
    assert feed(Light(1_999, 12)) == []                    # older than the board's own watermark
    assert session.stale_frames == 1
    assert feed(Light(10_000_000, 12), at_ns=BOOT_NS + 3 * MS) == []  # mapped 7 s after it was read
    assert session.future_frames == 1
    assert feed(Light(2_500, 12)) == [Lit(0, BOOT_NS + 2_500_000), Watermark("board", BOOT_NS + 2_500_000)]
    feed.seq -= 1                                          # the same frame again
    assert feed(Light(2_500, 12)) == []
    feed(Heartbeat(3_000, 0, 0, 0))                        # the board's next frame: that one was a repeat
    assert session.out_of_step_frames == 1


def test_a_board_and_profile_that_disagree_on_a_sensor_are_named(caplog):
    session, feed = sensed()
    with caplog.at_level(logging.WARNING, logger="companion.board.session"):
        assert feed(Edge(1_000, 12, 1)) == [Watermark("board", BOOT_NS + 1 * MS)]
        assert feed(Light(2_000, 0)) == [Watermark("board", BOOT_NS + 2 * MS)]
    assert session.unmapped_edges == 2
    assert [r.getMessage() for r in caplog.records if "not taken" in r.getMessage()] == [
        "button board: 1 inputs not taken; the last, a button's edge on channel 12, which is a light sensor in "
        "the profile: list it in SENSOR_CHANNELS in the board's config.py",
        "button board: 2 inputs not taken; the last, a light sensor's rise on channel 0, which is a button in "
        "the profile: remove it from SENSOR_CHANNELS in the board's config.py"]


def test_the_selftest_reads_board_sensors_on_a_link_of_its_own(tmp_path):
    """After the daemon's loop has stopped, :class:`BoardLight` reads the board: every reveal's
    rises reach the sensors, on the host's clock, and the light report has every panel."""
    path = tmp_path / "box.toml"
    path.write_text(PROFILE, encoding="utf-8")
    profile = load_profile(path)
    box = build_box(profile, lambda event: None, on_board=lambda item: None)
    board = box.virtual_board
    reveal = box.displays.reveal

    def revealing(frames, on_shown):
        def shown(onsets):
            time.sleep(0.002)                              # the panels light 2 ms after their display-on
            for station in sorted(onsets):
                board.light(SENSOR[station])
            on_shown(onsets)

        reveal(frames, shown)

    box.displays.reveal = revealing
    session = BoardSession(profile.board_channels(), sensors=profile.light_channels())
    light = BoardLight(box.board.port, session, box.light_sensors)
    try:
        wait_until(lambda: session.clock.synced and session.clock.uncertainty_ns(board.now_us()) < MS // 2)
        samples = measure_light(box.displays, box.light_sensors, 2, reveals=5, wait=light.wait)
    finally:
        light.close()
        box.close()
    assert len(samples) == 5
    for sample in samples:
        assert sample.light.keys() == {0, 1}
        assert all(sample.light[s] - sample.stamped[s] > 1.5 * MS for s in (0, 1))  # 2 ms, within the sync
    report = light_report(samples, ("Ana", "Ben"), SCREEN_TIE_WINDOW_MS)
    assert report.window_ms is not None and "saw nothing" not in report.text
