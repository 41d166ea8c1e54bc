"""The wall's heartbeat: how the referee knows the phones' server still answers, not only lives.

A server that dies closes its end of the pipe and the referee hears it at once. One that is alive
but no longer answers (stopped by a signal, its loop blocked on a call that never returns, or
caught in a loop of its own) keeps the pipe open, and its phones silently stop playing: each is
dropped from the races after its own silence, but none can play again until the server does. So
the referee sends a numbered *beat* across the pipe every :data:`BEAT_NS` and the server's loop
answers it with the same number; a server that leaves its beats unanswered for :data:`HUNG_NS`
is hung, and the referee kills it and starts it again (with the wall's back-off: never a crash
loop).

Judged on the box's clock, at the referee's loop steps, and by beats as well as by time: the
server is hung only once :data:`MISSED` beats in a row have gone unanswered, each sent on a step
of its own. A referee that was itself held up (a test's fake clock that jumps, or a loop that
stalled) has sent one beat over that span, not :data:`MISSED`, and the answer waiting in its
socket is read before its next step: it never judges its own delay to be the server's.
"""

from __future__ import annotations

BEAT_NS = 1_000_000_000
"""How often the referee sends a beat: a message the size of a press, once a second."""
HUNG_NS = 5_000_000_000
"""How long a server may leave its beats unanswered. Its loop answers within one turn, a few
milliseconds here and tens on a Pi under a guest's flood; five seconds is far beyond a working
loop, and soon enough that the phones play again a few seconds after their own silence
(``SILENT_NS``, 1.5 s) dropped them from the races."""
MISSED = 3
"""Beats in a row unanswered, at the least, before the server is hung."""
STARTING_NS = 60_000_000_000
"""How long a server just started has to answer its first beat: its interpreter starts and
imports the web companion first (0.7 s on this x86 machine, several seconds on a Pi Zero 2 W)."""


class Heartbeat:
    """The referee's side: which beat to send when (:meth:`beat`), what was answered
    (:meth:`answered`) and whether the server is hung (:meth:`hung`). One per server started."""

    def __init__(self, started_ns: int) -> None:
        self.started_ns = started_ns
        self.sent = 0
        """Beats sent: the last one's number."""
        self.answered_up_to = 0
        """The highest number answered (an answer stands for every beat before it too)."""
        self._sent_ns: dict[int, int] = {}
        """Beat number -> when it was sent, for those not yet answered."""
        self._last_sent_ns = started_ns

    def beat(self, now_ns: int) -> int | None:
        """The number of the beat to send now, if one is due."""
        if self.sent and now_ns - self._last_sent_ns < BEAT_NS:
            return None
        self.sent += 1
        self._sent_ns[self.sent] = now_ns
        self._last_sent_ns = now_ns
        return self.sent

    def answered(self, number: int) -> None:
        """The server answered beat ``number`` (and so every one before it)."""
        if self.answered_up_to < number <= self.sent:
            self.answered_up_to = number
            for old in [n for n in self._sent_ns if n <= number]:
                del self._sent_ns[old]

    def hung(self, now_ns: int) -> float | None:
        """Seconds the server has left its beats unanswered, if that makes it hung; else None."""
        if len(self._sent_ns) < MISSED:
            return None
        if self.answered_up_to:  # it answered before: since the oldest beat it has not
            waited_ns, limit_ns = now_ns - min(self._sent_ns.values()), HUNG_NS
        else:  # still starting: since its start
            waited_ns, limit_ns = now_ns - self.started_ns, STARTING_NS
        return waited_ns / 1e9 if waited_ns >= limit_ns else None

    def due_ns(self) -> int:
        """When the referee must next step for this heartbeat: its next beat (the server is
        judged at each, so at most :data:`BEAT_NS` after it is found hung)."""
        return self._last_sent_ns + BEAT_NS if self.sent else self.started_ns
