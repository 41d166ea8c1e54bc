"""Real-time priority for the two threads a GPIO race waits on: the GPIO reader's and the daemon's
event loop.

A race is decided when the GPIO reader's watermark has passed its tie window and the daemon's loop
has read it. At normal priority both wait their turn behind whatever else the box runs (the
display writer, a busy SD card's flush, another program): the decision latency's p99 was 9.2 ms
beside load 4 and 15-82 ms at load 8-12, against 3.7 ms with the whole benchmark at real-time
priority. So each of the two threads asks for ``SCHED_FIFO`` at :data:`PRIORITY`, below the
kernel's interrupt threads (50: gpio-cdev queues the edges the reader waits for from one of
them). An unprivileged process may do that up to its ``RLIMIT_RTPRIO``: the unit grants it with
``LimitRTPRIO=`` (no capability; ``RestrictRealtime=`` off, which would refuse the call), and
``python -m bench`` measures under the same limit. Where it is refused (a laptop, a shell without
the limit) the thread says so once and runs at normal priority, as before.

``SCHED_RESET_ON_FORK``: a thread or process the loop starts afterwards (the display writer, the
board's link, the reader itself) begins at normal priority; only these two run ahead of the rest.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

PRIORITY = 20
"""The ``SCHED_FIFO`` priority asked for: the unit's ``LimitRTPRIO=`` must be at least this."""


def raise_priority(priority: int = PRIORITY) -> str:
    """Put the calling thread at ``SCHED_FIFO`` ``priority`` if allowed; a sentence saying which."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK, os.sched_param(priority))
    except (PermissionError, AttributeError) as e:  # AttributeError: no SCHED_FIFO on this system
        why = e.strerror if isinstance(e, OSError) else "not on this system"
        return f"normal priority (real-time refused: {why}; the unit's LimitRTPRIO={priority} allows it)"
    return f"real-time priority {priority} (SCHED_FIFO)"


@contextmanager
def while_running(priority: int = PRIORITY) -> Iterator[str]:
    """The calling thread at real-time priority while the block runs (the daemon's loop), then back
    to what it was: a test or a simulator that runs a daemon goes on at its own priority after."""
    policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
    try:
        yield raise_priority(priority)
    finally:
        os.sched_setscheduler(0, policy, param)
