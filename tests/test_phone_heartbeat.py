"""The wall's heartbeat: a phones' server alive but no longer answering is found hung on the box's
clock, killed and started again, while the wired stations' races go on. The judgment on plain
clock values; then the box on a fake clock, its server behind the real pipe on the test's loop
(tests/test_phone_wall.py stops the real child process)."""

from __future__ import annotations

import asyncio
import logging

from companion.web.heartbeat import BEAT_NS, HUNG_NS, MISSED, STARTING_NS, Heartbeat

from helpers import PATIENCE_S, until
from phonebox import PhoneBox, profile_with_phones, wired
from test_phone_seat import FAST, until_race_open, walk_to_triangle

S = 1_000_000_000


def beats_until(heartbeat: Heartbeat, start_ns: int, end_ns: int, answer: bool) -> list[int]:
    """The referee's steps every 100 ms from ``start_ns`` to ``end_ns``: the beats sent, each
    answered at once if ``answer``."""
    sent = []
    for now in range(start_ns, end_ns, 100_000_000):
        number = heartbeat.beat(now)
        if number is not None:
            sent.append(number)
            if answer:
                heartbeat.answered(number)
        assert heartbeat.hung(now) is None
    return sent


def test_a_server_that_answers_is_never_hung_and_one_that_stops_is_hung_after_its_deadline():
    heartbeat = Heartbeat(0)
    assert beats_until(heartbeat, 0, 60 * S, answer=True) == list(range(1, 61))  # one a second
    stopped = 60 * S
    beats_until(heartbeat, stopped, stopped + HUNG_NS - BEAT_NS, answer=False)
    assert heartbeat.hung(stopped + HUNG_NS - 1) is None  # the oldest unanswered beat was sent at `stopped`
    assert heartbeat.hung(stopped + HUNG_NS) == HUNG_NS / S


def test_a_late_answer_clears_every_beat_before_it():
    heartbeat = Heartbeat(0)
    heartbeat.answered(heartbeat.beat(0))
    beats_until(heartbeat, S, S + HUNG_NS - BEAT_NS, answer=False)
    heartbeat.answered(heartbeat.sent)  # its loop came back: the latest beat's answer stands for all
    assert heartbeat.hung(S + 10 * HUNG_NS) is None
    heartbeat.answered(1)  # an old number after a newer one changes nothing
    assert heartbeat.answered_up_to == heartbeat.sent


def test_a_referee_held_up_itself_does_not_judge_the_server_by_one_beat():
    """The referee's loop (or a test's fake clock) jumps: one beat sent over the span, its answer
    not yet read; the server is judged only once MISSED beats in a row go unanswered."""
    heartbeat = Heartbeat(0)
    heartbeat.answered(heartbeat.beat(0))
    heartbeat.beat(S)
    assert heartbeat.hung(S + 10 * HUNG_NS) is None
    for n in range(1, MISSED):
        heartbeat.beat(S + 10 * HUNG_NS + n * BEAT_NS)
    assert heartbeat.hung(S + 10 * HUNG_NS + (MISSED - 1) * BEAT_NS) is not None


def test_a_server_starting_has_longer_to_answer_its_first_beat():
    heartbeat = Heartbeat(0)
    beats_until(heartbeat, 0, STARTING_NS, answer=False)  # its interpreter still importing
    assert heartbeat.hung(STARTING_NS) == STARTING_NS / S


def test_a_hung_server_is_found_on_the_box_clock_killed_and_started_again_while_wired_races_go_on(
        tmp_path, monkeypatch, caplog):
    """The server's loop stops (its pipe no longer read, its phones no longer pinged): Zoe's phone
    is dropped from the race after its silence and Ana's press wins it; 5 s after the first beat it
    left unanswered, not before, the box kills the server, says so once and every screen says the
    phones are restarting; the server is started again and Zoe's page takes its seat back."""
    async def play():
        profile = profile_with_phones(tmp_path, wired("Ana", "Ben"), [(1, "Zoe", False)])
        async with PhoneBox(profile, tmp_path / "games", seed=8, monkeypatch=monkeypatch, defaults=FAST) as box:
            zoe = await box.join("seat", "Zoe")
            await box.run_for(10_000, every_ms=50)  # a server that answers is left alone
            assert box.daemon.web.restarts == 0
            await walk_to_triangle(box)
            await until_race_open(box)
            hung, its_run = box.daemon.web.server, box.daemon.web.running
            try:
                asyncio.get_running_loop().remove_reader(hung._pipe.sock.fileno())  # its loop blocked
                box.pinging = False
                stopped_ns = box.clock.ns
                await box.tap(0)  # Ana buzzes: the race waits for Zoe's phone until it is silent
                game = box.daemon.table.game
                while box.clock.ns - stopped_ns < HUNG_NS - BEAT_NS:
                    await box.run_for(50)
                assert game.current.claimer == 0  # decided without the silent phone
                assert box.daemon.web.serving.is_set() and box.daemon.web.restarts == 0  # not judged before its time
                while box.daemon.web.serving.is_set() and box.clock.ns - stopped_ns < HUNG_NS + 2 * BEAT_NS:
                    await box.run_for(50)
                found_ns = box.clock.ns - stopped_ns
                assert not box.daemon.web.serving.is_set(), "the box never found its server hung"
            finally:
                its_run.cancel()  # it ends if the box did not end it (else the box's close waits on it)
            box.step()
            assert box.daemon.notice == "phones restarting"
            box.pinging = True
            await asyncio.wait_for(box.daemon.web.serving.wait(), PATIENCE_S)  # after its back-off
            assert box.daemon.web.server is not hung
            back = box.phone()
            assert (await back.join(box.room, "seat", token=zoe.welcome["token"]))["seat"] == 2
            await box.synced(back)
            box.step()
            assert box.daemon.notice is None and box.daemon.table.seat_of(1) == 1
        return found_ns

    with caplog.at_level(logging.INFO):
        found_ns = asyncio.run(play())
    # the first beat it left unanswered went at most one beat after it stopped; judged at a beat
    assert HUNG_NS <= found_ns <= HUNG_NS + 2 * BEAT_NS
    said = [r.getMessage() for r in caplog.records if "is hung" in r.getMessage()]
    assert len(said) == 1 and "answered none of the last" in said[0]
