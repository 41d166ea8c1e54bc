"""The door's counting on a fake clock: wrong room codes backed off per peer and budgeted in all,
refusals logged once a minute per peer, watchers' frames held past the budget."""

from __future__ import annotations

import asyncio
import logging
import time

from companion.web.door import FREE_TRIES, LONGEST_WAIT_S, WRONG_BURST, FrameBudget, Guesses, Tally, peer_of

from helpers import FakeClock


def test_wrong_codes_wait_longer_and_longer_per_peer_and_a_right_one_forgives():
    clock = FakeClock()
    guesses = Guesses(lambda: clock.ns)
    for _ in range(FREE_TRIES - 1):
        assert guesses.wait_s("10.0.0.9") == 0
        guesses.wrong("10.0.0.9")
    waits = []
    for _ in range(10):
        guesses.wrong("10.0.0.9")
        waits.append(guesses.wait_s("10.0.0.9"))
        clock.ns += round(waits[-1] * 1e9)
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60] and max(waits) == LONGEST_WAIT_S
    assert guesses.wait_s("10.0.0.10") == 0  # another peer is not held up
    guesses.right("10.0.0.9")
    assert guesses.wait_s("10.0.0.9") == 0


def test_once_the_budget_of_wrong_codes_is_spent_only_peers_never_wrong_are_checked():
    clock = FakeClock()
    guesses = Guesses(lambda: clock.ns)
    for n in range(WRONG_BURST):
        guesses.wrong(f"10.0.{n // 250}.{n % 250}")
    assert guesses.wait_s("10.0.0.1") > 0  # wrong once, the budget spent: unchecked
    assert guesses.wait_s("10.9.9.9") == 0  # a phone that never was wrong is still checked
    clock.ns += 1_000_000_000
    assert guesses.wait_s("10.0.0.1") == 0  # two a second come back


def test_a_peer_is_an_ipv4_address_or_an_ipv6_64():
    assert peer_of("192.168.1.7") == "192.168.1.7" == peer_of("::ffff:192.168.1.7")
    assert peer_of("fd00::1:2:3:4") == peer_of("fd00::9:9:9:9") == "fd00::/64"
    assert peer_of("fd00:0:0:1::1") != peer_of("fd00::1")


def test_refusals_are_logged_once_a_minute_per_peer(caplog):
    clock = FakeClock()
    tally = Tally(lambda: clock.ns)
    with caplog.at_level(logging.WARNING):
        for _ in range(1000):
            tally.refused("10.0.0.9", "closed: a broken frame")
        tally.refused("10.0.0.10", "closed: a broken frame")
        clock.ns += 61_000_000_000
        tally.refused("10.0.0.9", "closed: a broken frame")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["web: refused 10.0.0.9: closed: a broken frame", "web: refused 10.0.0.10: closed: a broken frame",
                     "web: refused 10.0.0.9 999 more times in 61 s", "web: refused 10.0.0.9: closed: a broken frame"]


def test_frames_past_the_budget_wait_for_the_next_second():
    async def scenario():
        budget = FrameBudget(per_s=5)
        while time.monotonic() % 1 > 0.5:  # room in this second for five takes, however slow
            await asyncio.sleep(0.05)
        second = int(time.monotonic())
        for _ in range(5):
            await budget.take()
        sixth = asyncio.ensure_future(budget.take())
        await asyncio.sleep(0)
        assert not sixth.done() and budget.binding()
        await sixth
        assert int(time.monotonic()) > second

    asyncio.run(scenario())
