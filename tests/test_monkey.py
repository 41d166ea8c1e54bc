"""The table monkey (``tests/monkey.py``) in the suite: a few lives of random game nights through
the real box process, and every failure case committed under ``tests/monkey_cases/`` played again."""

from __future__ import annotations

import os
import signal
import threading
from collections import Counter
from pathlib import Path

import pytest

import tests.monkey
from tests.monkey import CASES, GAMES, Life, Night, Table, load_case, monkey, play_night

DEMO = Path(__file__).resolve().parent.parent / "companion" / "demo"

TAKEBACK = """\
0.4 1 ok
0.8 1 ok
1.2 1 ok
1.6 1 ok
2.0 1 ok
2.4 1 ok
3.0 1 right
3.4 1 right
3.8 1 right
4.2 1 right
4.6 1 ok
5.0 1 left 0.6
5.25 1 ok
5.9 1 ok
"""
"""Pay-to-Play on the demo's box: Alice takes the centre, then takes it back (left held, ok
inside it, ok to confirm); the box then stops cleanly, the game not over."""
RESUMED = """\
0.5 1 ok
1.0 1 ok
1.4 2 right
1.8 2 ok
"""
"""The next life: the offer to resume taken (ok), Alice plays, Bob plays."""


def test_a_bounded_monkey_finds_nothing(tmp_path):
    """Three nights of two short lives each, every game in reach: no failure of any kind, and the
    nights did play (presses, games whose journals were read back)."""
    said = []
    figures = monkey(seed=37, games=list(GAMES), minutes=None, nights=3, life_s=6.0, failures_dir=tmp_path,
                     shrink_s=0, say=said.append, lives=2)
    assert figures["failures"] == 0, "\n".join(said)
    assert figures["lives"] == 6 and figures["presses"] > 0 and figures["journals_checked"] > 0, figures


def known_case() -> Night:
    return Night("take-back", "paytoplay", (DEMO / "profile.toml").read_text(),
                 [Life(TAKEBACK, None, 1), Life(RESUMED, None, 2)])


def cases() -> list[Path]:
    return sorted(CASES.glob("*.json")) or [None]


@pytest.mark.parametrize("case", cases(), ids=lambda p: p.stem if p else "known-take-back")
def test_a_saved_case_plays_without_failure(case):
    """A case the monkey saved (its lives' scripts and kills) plays again through the real box
    with no failure; with none committed, a take-back resumed on the next life (whose journal
    every command refused while a take-back named the line before its action's)."""
    night = load_case(case) if case else known_case()
    figures = Counter()
    failures = play_night(night, figures)
    assert failures == [], failures
    assert figures["lives"] == len(night.lives)
    if case is None:
        assert figures["resumes_checked"] == 1 and figures["journals_checked"] >= 2, figures


def test_a_box_a_busy_machine_starts_late_is_no_hang(tmp_path, monkeypatch):
    """At load 10-20 a life was called a hang "still running 30 s after its script's end": that
    end was the script's length counted from the process's start, and a busy machine starts the
    box late and plays its script late. Here the machine gives the box no CPU at all as it starts
    (stopped, SIGSTOP, for longer than the script and the hang bound together, though within
    the watchdog's start bound: it has not pinged yet). Timed from what the box says (its
    script's last press driven), the life is no hang, and the take-back it plays is journaled."""
    monkeypatch.setattr(tests.monkey, "HANG_S", 10.0)
    script_s = 5.9
    starved_s = script_s + tests.monkey.HANG_S + 2  # past where a script's end from the start was
    assert starved_s < tests.monkey.START_S
    night = Night("starved", "paytoplay", (DEMO / "profile.toml").read_text(), [Life(TAKEBACK, None, 1)])
    table = Table(night, tmp_path)

    def starve(proc):
        os.kill(proc.pid, signal.SIGSTOP)
        threading.Timer(starved_s, os.kill, (proc.pid, signal.SIGCONT)).start()

    table.on_start = starve
    assert table.play() == []
    assert table.figures["lives"] == 1 and table.figures["journals_checked"] >= 1, table.figures


def test_some_quiz_nights_are_hosted_from_a_phone_on_a_box_with_phones():
    """Half of the quiz nights, drawn apart from the rest of the night (so a seed's other draws
    stay), also have a host's phone; their box serves phones (``[web]`` in its profile)."""
    nights = [tests.monkey.plan_night(f"46-{n}", ["quiz"], 20.0) for n in range(12)]
    hosted = [night for night in nights if night.host_phone]
    assert 0 < len(hosted) < len(nights)
    assert all("[web]" in night.profile for night in hosted)
    assert not any("[web]" in night.profile for night in nights if not night.host_phone)
