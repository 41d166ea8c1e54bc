"""When the box pings its phones (companion/web/pings.py): in pairs, the second on the first's
pong, and every 75 ms to the seated phones while a race is open; on a fake clock, then through the
daemon and its wall on one."""

from __future__ import annotations

import asyncio
import time

from companion.web.pings import CALM_NS, RACE_NS, PingPlan

from helpers import MS, until
from phonebox import PhoneBox, profile_with_phones
from test_phone_quiz import HOST, start_quiz


def rounds(plan: PingPlan, start_ns: int, end_ns: int, step_ns: int = MS) -> list[tuple[int, str]]:
    """Every round the plan says is due, asked every ``step_ns`` from ``start_ns`` to ``end_ns``."""
    out = []
    for now in range(start_ns, end_ns, step_ns):
        due = plan.due(now)
        if due is not None:
            out.append((now, due))
    return out


def test_a_table_at_rest_pings_every_phone_every_250_ms():
    plan = PingPlan()
    plan.start(0)
    assert rounds(plan, 0, 1_000 * MS + 1) == [(t * CALM_NS, "all") for t in (1, 2, 3, 4)]


def test_an_open_race_pings_the_seated_phones_at_once_and_every_75_ms_until_it_closes():
    plan = PingPlan()
    plan.start(0)
    plan.race(True, 10 * MS)
    got = rounds(plan, 10 * MS, 400 * MS)
    assert got[:4] == [(10 * MS, "seated"), (85 * MS, "seated"), (160 * MS, "seated"), (235 * MS, "seated")]
    assert (250 * MS, "all") in got  # the heartbeat goes on; the race's next round is planned from it
    assert (325 * MS, "seated") in got
    plan.race(False, 400 * MS)
    assert rounds(plan, 400 * MS, 1_000 * MS) == [(500 * MS, "all"), (750 * MS, "all")]


def test_a_pong_to_a_rounds_ping_asks_for_the_second_of_its_pair_once():
    plan = PingPlan()
    plan.sent("zoe", 7, seated=True)
    plan.sent("watcher", 3, seated=False)
    assert not plan.answered("zoe", 6)  # an older ping's pong
    assert plan.answered("zoe", 7)
    assert not plan.answered("zoe", 7)  # the second's own pong asks for nothing
    assert not plan.answered("watcher", 3)  # a watcher's clock places no press
    plan.sent("zoe", 8, seated=True)
    plan.sent("zoe", 9, seated=True)  # a newer round before the pong: its pong asks
    assert not plan.answered("zoe", 8) and plan.answered("zoe", 9)


def test_the_old_schedule_pings_singly_every_250_ms_race_or_not():
    plan = PingPlan(paired=False, race_ns=None)
    plan.start(0)
    plan.race(True, 10 * MS)
    plan.sent("zoe", 1, seated=True)
    assert not plan.answered("zoe", 1)
    assert rounds(plan, 0, 600 * MS) == [(250 * MS, "all"), (500 * MS, "all")]
    assert RACE_NS == 75 * MS


def test_through_the_box_a_seated_phone_is_pinged_in_pairs_and_faster_while_a_question_is_armed(tmp_path, monkeypatch):
    """On main (single pings every 250 ms, race or not) the first wait is never met (the fake clock
    stands still), and a second of an armed question brings 8 pings, not 26."""
    box = PhoneBox(profile_with_phones(tmp_path, [HOST, ("Ben", {"slap": 5})], [(2, "Zoe", True)]),
                   tmp_path / "games", monkeypatch=monkeypatch)

    async def night() -> None:
        async with box:
            zoe = await box.join("buzzer")
            # the welcome's ping, answered, brings the pair's second with the clock standing still
            await until(lambda: len(zoe.frames("ping")) >= 2)
            await start_quiz(box)
            game = box.daemon.table.game
            await box.tap(0, "slap")  # the host arms question 1
            await box.settle()
            while game.race is None or game.race.onsets is None:  # every panel shows it, the phone painted it
                await box.run_for(10)
            assert box.daemon.table.race_open()
            seated = next(p for p in box.server.phones if p.seat is not None)
            pinged = len(zoe.frames("ping"))
            for _ in range(40):  # a second of the clock, in 25 ms steps, each round due sent and answered
                box.step(25)
                await until(lambda: box.server.pings.next_ns() > box.clock.ns and not seated.pings)
            # pairs every 75 ms: 13 rounds and more; the heartbeats alone (4, and the tests' own 4) are 8
            assert len(zoe.frames("ping")) - pinged >= 2 * 13

    asyncio.run(night())


def test_a_rounds_pings_are_spread_over_its_period_not_sent_at_once(tmp_path, monkeypatch):
    """Four seated phones, a race opened: its first round pings them one after another, 75/4 ms
    apart. Pongs that come back together are read one after another, and each one's wait for the
    others is in its round trip, so in its clock's error. Timers never fire early, so the k-th
    phone to hear its ping heard it no sooner than k steps after the race opened, however busy
    the machine; on main all four were pinged at once."""
    names = [(2, "Zoe", True), (3, "Yan", True), (4, "Xia", True), (5, "Wim", True)]
    box = PhoneBox(profile_with_phones(tmp_path, [HOST, ("Ben", {"slap": 5})], names),
                   tmp_path / "games", monkeypatch=monkeypatch)
    step_ns = RACE_NS // len(names)

    async def night() -> list[int]:
        async with box:
            phones = [await box.join("buzzer") for _ in names]
            await until(lambda: not any(p.pings for p in box.server.phones))  # every ping so far answered
            before = [len(p.frames("ping")) for p in phones]
            heard: dict[int, int] = {}
            opened = time.monotonic_ns()
            box.server.racing(True)
            while len(heard) < len(phones):
                for i, phone in enumerate(phones):
                    if i not in heard and len(phone.frames("ping")) > before[i]:
                        heard[i] = time.monotonic_ns()  # no sooner than it arrived
                await asyncio.sleep(0.0005)
                assert time.monotonic_ns() - opened < 30e9, f"pings heard by {sorted(heard)} only"
            box.server.racing(False)
            return sorted(t - opened for t in heard.values())

    heard = asyncio.run(night())
    for k, after_ns in enumerate(heard):
        assert after_ns >= k * step_ns - MS, f"the phone {k + 1}th to hear its ping heard it {after_ns / MS:.1f} ms in"


def test_a_seated_phone_answering_the_boxs_pings_is_never_closed_for_its_frames(tmp_path, monkeypatch):
    """A table of quick thumbs: every phone's press pings every phone, on top of a race's pairs.
    Seventy pings in one second of the clock, each answered: the pongs are the box's asking, not
    the phone's frames (FRAMES_PER_S is 60). On main the phone was refused at its 61st frame."""
    box = PhoneBox(profile_with_phones(tmp_path, [HOST, ("Ben", {"slap": 5})], [(2, "Zoe", True)]),
                   tmp_path / "games", monkeypatch=monkeypatch)

    async def night() -> tuple[int, int | None, bool]:
        async with box:
            zoe = await box.join("buzzer")
            box.pinging = False  # only the pings below (and the box's own rounds, the clock standing still)
            pinged = len(zoe.frames("ping"))
            for _ in range(70):
                box.server.ping_all(paired=False)
                await until(lambda: not any(p.pings for p in box.server.phones) or zoe.closed_code is not None)  # answered
            seq = await zoe.tap()  # and the phone may still press
            await until(lambda: seq in zoe.got or zoe.closed_code is not None)
            return len(zoe.frames("ping")) - pinged, zoe.closed_code, seq in zoe.got

    pings, closed, got = asyncio.run(night())
    assert pings >= 70
    assert closed is None and got, f"closed {closed}"


def test_a_silent_phone_is_closed_once_and_no_longer_pinged_while_its_close_winds_down(tmp_path, monkeypatch):
    """Zoe's phone says nothing for over SILENT_NS: the next round closes it for its silence. Its
    close handshake can take seconds (a phone gone from the Wi-Fi never answers it), and rounds
    come every 75-250 ms meanwhile: none of them pings it, closes it again or counts it refused
    again. On main every round did all three."""
    from companion.web.server import CLOSE_SILENT, SILENT_NS

    box = PhoneBox(profile_with_phones(tmp_path, [HOST, ("Ben", {"slap": 5})], [(2, "Zoe", True)]),
                   tmp_path / "games", monkeypatch=monkeypatch)

    async def night() -> tuple[list[int], list[int], int, int]:
        async with box:
            zoe = await box.join("buzzer")
            box.pinging = False
            [phone] = [p for p in box.server.phones if p.seat is not None]
            closes, refused = [], []
            close = phone.socket.close
            monkeypatch.setattr(phone.socket, "close", lambda **kw: closes.append(kw["code"]) or close(**kw))
            tally = box.server.tally.refused
            monkeypatch.setattr(box.server.tally, "refused", lambda peer, why: refused.append(why) or tally(peer, why))
            box.clock.ns += SILENT_NS + MS
            pinged = len(zoe.frames("ping"))
            rounds = [box.server.pingable() for _ in range(5)]  # five rounds before the close is done
            box.server.ping_all()
            await until(lambda: zoe.closed_code is not None)
            return [len(r) for r in rounds], closes, len(refused), len(zoe.frames("ping")) - pinged

    rounds, closes, refused, pinged = asyncio.run(night())
    assert rounds == [0, 0, 0, 0, 0]
    assert closes == [CLOSE_SILENT] and refused == 1 and pinged == 0
