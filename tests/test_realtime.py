"""Real-time priority for the box as deployed: the unit sets it for the whole service, the GPIO
reader included, and the decision-latency bench measures under the same (bench/latency.py)."""

import os
import threading
from pathlib import Path

import pytest

from bench.latency import as_deployed, unit_scheduling

ROOT = Path(__file__).parent.parent


def test_the_unit_runs_the_box_at_real_time_priority_below_the_kernels_interrupt_threads():
    unit = (ROOT / "systemd" / "companion.service").read_text()
    policy, priority = unit_scheduling()
    assert policy == "fifo" and 0 < priority < 50  # gpio-cdev's interrupt threads run at 50
    assert "RestrictRealtime=yes" in unit  # set by systemd at the start: the box itself may not
    assert "\nCapabilityBoundingSet=\n" in unit and "CPUSchedulingResetOnFork=yes" not in unit  # the reader inherits


@pytest.mark.skipif(os.geteuid() != 0, reason="real-time priority needs root (CAP_SYS_NICE) here")
def test_the_bench_measures_at_the_units_priority_and_what_it_starts_inherits_it():
    seen = {}
    with as_deployed() as said:
        seen["said"] = said
        started = threading.Thread(target=lambda: seen.update(started=(os.sched_getscheduler(0),
                                                                       os.sched_getparam(0).sched_priority)))
        started.start()
        started.join()
    assert seen["said"] == "fifo 20, as the unit"
    assert seen["started"] == (os.SCHED_FIFO, 20)  # the display writer and the reader too
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # and back after
