"""Real-time priority for the GPIO reader and the daemon's loop, as the unit grants it
(companion/realtime.py; systemd/companion.service's LimitRTPRIO=)."""

import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bench.latency import unit_rtprio
from companion import realtime
from vm import game

ROOT = Path(__file__).parent.parent
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"
REFUSED = "normal priority (real-time refused"


def test_the_unit_grants_the_priority_the_threads_ask_for_and_does_not_refuse_it():
    unit = (ROOT / "systemd" / "companion.service").read_text()
    assert unit_rtprio() >= realtime.PRIORITY
    assert "RestrictRealtime=yes" not in unit  # its seccomp filter would refuse sched_setscheduler
    assert "\nCapabilityBoundingSet=\n" in unit  # and still no capability: the limit is enough


@pytest.mark.skipif(os.geteuid() != 0, reason="real-time priority needs root or an RLIMIT_RTPRIO here")
def test_the_loop_thread_is_real_time_while_it_runs_and_what_it_starts_is_not():
    seen = {}

    def loop_thread():
        with realtime.while_running() as said:
            seen["said"] = said
            seen["inside"] = (os.sched_getscheduler(0) & ~os.SCHED_RESET_ON_FORK, os.sched_getparam(0).sched_priority)
            started = threading.Thread(target=lambda: seen.setdefault("started", os.sched_getscheduler(0)))
            started.start()
            started.join()
        seen["after"] = os.sched_getscheduler(0)

    thread = threading.Thread(target=loop_thread)
    thread.start()
    thread.join()
    assert seen["said"] == "real-time priority 20 (SCHED_FIFO)"
    assert seen["inside"] == (os.SCHED_FIFO, 20)
    assert seen["started"] == os.SCHED_OTHER  # SCHED_RESET_ON_FORK: the display writer stays ordinary
    assert seen["after"] == os.SCHED_OTHER


def as_the_unit_limits() -> None:
    """The unit's limit where this process may raise it to that (else root's CAP_SYS_NICE grants it)."""
    hard = resource.getrlimit(resource.RLIMIT_RTPRIO)[1]
    limit = unit_rtprio()
    try:
        resource.setrlimit(resource.RLIMIT_RTPRIO, (limit, max(limit, hard)))
    except ValueError:
        resource.setrlimit(resource.RLIMIT_RTPRIO, (min(limit, hard), hard))


def test_a_box_run_says_at_which_priority_its_loop_and_reader_run(tmp_path):
    """As played: `companion run` with the GPIO reader (a real child process), under the unit's
    limit; its log names both threads' priority, and its journal reads back."""
    profile = tmp_path / "reader.toml"
    profile.write_text(MOCK3.read_text() + '\n[timing]\ngpio_watermark = "reader"\n')
    journals = tmp_path / "journals"
    script = tmp_path / "triangle.txt"  # the virtual Pi's game: the lobby walked to Triangle, then played
    script.write_text(game.script_text(game.presses(ROOT)))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SDL_VIDEODRIVER": "dummy"}
    run = subprocess.run([sys.executable, "-m", "companion", "run", "--profile", str(profile), "--script", str(script),
                          "--journal-dir", str(journals)],
                         env=env, capture_output=True, text=True, timeout=300, preexec_fn=as_the_unit_limits)
    assert run.returncode == 0, run.stderr[-2000:]
    expected = "real-time priority 20 (SCHED_FIFO)" if os.geteuid() == 0 else REFUSED
    assert f"event loop at {expected}" in run.stderr
    assert f"gpio reader: {expected}" in run.stderr
    [journal] = journals.glob("*.jsonl")
    replay = subprocess.run([sys.executable, "-m", "companion", "replay", str(journal)], env=env,
                            capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0 and "triangle" in replay.stdout.lower(), replay.stderr
