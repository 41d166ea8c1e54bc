"""When the box pings its phones: in pairs, and faster while a race is open.

A phone's clock error is half the band its quickest legs leave (:mod:`.phoneclock`), and a race
waits for every phone's watermark, which only a pong moves. On a phone's one-hop Wi-Fi link most
exchanges queue behind other frames and a few go straight through; a radio in power save holds a
ping at the access point until its next beacon (about 102.4 ms). So the box asks often where it
matters and asks so that the answer is likely quick:

- **in pairs**: a seated phone's ping is followed by a second the moment the first's pong is read
  (the "ping2" method of Sui et al., "Characterizing and Improving WiFi Latency in Large-Scale
  Operational Networks", MobiSys 2016). The phone's radio has just sent, so it is awake, and it
  stays awake for a while after traffic (about 100 ms on an iPhone, 200 ms on Android, the same
  paper), so the second ping is not held for a beacon. A second sent blind a few milliseconds
  after the first would be held at the access point behind the first, and delivered with it;
- **while a race is open** (a question armed, a round counting down: :meth:`PingPlan.race`) the
  seated phones are pinged every :data:`RACE_NS`, so the exchanges nearest the presses are many
  and fresh and every race's watermark moves three times as often; the pings themselves keep a
  phone's radio awake through the race;
- **otherwise** every phone every :data:`CALM_NS`: the heartbeat, and a table at rest's watermark;
- **spread over the round**: a round's phones are pinged one after another, evenly across its
  period, not all at once. Pongs that come back together are read one after another, and each
  waits for the ones ahead of it (their frames parsed, their clocks refitted) before it is
  stamped: that wait is in the round trip, so in the error. Measured in ``python -m bench.phones``
  on a link with no delay of its own (8 phones): pinged at once, round trips of 0.8-1.3 ms at the
  least and 2.7 ms at the median, declared clock error 1.28 ms at p50; spread, 0.25 ms and
  1.0 ms, 0.17-0.18 ms (two runs). The pings a race's decision waits for (:meth:`Pinging.want`) and a press's
  still go to every phone at once: there a moment's wait costs the verdict's time.

``paired=False, race_ns=None, spread=False`` is the schedule as it was (single pings every
250 ms, to every phone at once): the baseline arm of ``python -m bench.phones``, run on the same links.
"""

from __future__ import annotations

import asyncio
import json
from typing import Hashable

CALM_NS = 250_000_000
"""How often every phone is pinged while no race is open: its heartbeat, clock and watermark."""
RACE_NS = 75_000_000
"""How often a seated phone is pinged while a race is open (issue 48: every 50-100 ms)."""
PINGS_KEPT = 128
"""Pings awaiting their pong, per phone: in a race, nearly five seconds of pairs every 75 ms (133)
unanswered; older ones are forgotten (their pongs teach nothing then)."""


class PingPlan:
    """Which rounds of pings are due when, and which pong asks for its pair's second ping.

    The server asks :meth:`due` whenever :meth:`next_ns` has come: ``"all"`` (every phone, the
    calm round, which also finds the silent ones), ``"seated"`` (the seated phones, a race's
    round) or None. It tells :meth:`sent` of each first ping and asks :meth:`answered` of each
    pong whether to send the second of its pair now."""

    def __init__(self, paired: bool = True, race_ns: int | None = RACE_NS, calm_ns: int = CALM_NS,
                 spread: bool = True) -> None:
        self.paired = paired
        self.spread = spread
        self.race_ns = race_ns
        self.calm_ns = calm_ns
        self.racing = False
        self._calm_due: int | None = None
        self._race_due: int | None = None
        self._firsts: dict[Hashable, int] = {}
        """Phone -> the id of its latest first ping, whose pong sends the second."""

    def start(self, now_ns: int) -> None:
        self._calm_due = now_ns + self.calm_ns

    def race(self, open_: bool, now_ns: int) -> None:
        """A race opened (its round is due at once: the exchanges nearest its presses) or closed."""
        if open_ == self.racing:
            return
        self.racing = open_
        self._race_due = now_ns if open_ and self.race_ns is not None else None

    def next_ns(self) -> int | None:
        """When the next round is due (None: not started)."""
        return min((t for t in (self._calm_due, self._race_due) if t is not None), default=None)

    def due(self, now_ns: int) -> str | None:
        """The round due at ``now_ns``, if any; the next one is then planned from ``now_ns``."""
        if self._calm_due is not None and now_ns >= self._calm_due:
            self._calm_due = now_ns + self.calm_ns
            if self._race_due is not None:
                self._race_due = now_ns + self.race_ns
            return "all"
        if self._race_due is not None and now_ns >= self._race_due:
            self._race_due = now_ns + self.race_ns
            return "seated"
        return None

    def sent(self, phone: Hashable, ping_id: int, seated: bool) -> None:
        """A round's ping to ``phone``: a seated phone's pong to it asks for the pair's second."""
        if self.paired and seated:
            self._firsts[phone] = ping_id

    def answered(self, phone: Hashable, ping_id: int) -> bool:
        """A pong from ``phone``: True if it answers a first ping, so the second is sent now."""
        if self._firsts.get(phone) != ping_id:
            return False
        del self._firsts[phone]
        return True

    def forget(self, phone: Hashable) -> None:
        self._firsts.pop(phone, None)


class Pinging:
    """The web companion's part that pings its phones (:class:`~.server.WebCompanion`'s): each
    round when its :attr:`pings` plan says, a pair's second on its first's pong (:meth:`ponged`),
    and a race's phones when their answers can pass the time it waits for (:meth:`want`)."""

    pings: PingPlan
    _pinger: asyncio.TimerHandle | None = None
    _wanted_ns: int | None = None
    _want_timer: asyncio.TimerHandle | None = None
    _spreading: dict  # phone -> the timer of its ping later in this round

    def racing(self, open_: bool) -> None:
        """A race opened or closed (the referee says): the seated phones are pinged faster while it is open."""
        self.pings.race(open_, self.now_ns())
        self._plan_pings()

    def _plan_pings(self) -> None:
        if self._pinger is not None:
            self._pinger.cancel()
        due = self.pings.next_ns()
        if due is not None:
            self._pinger = asyncio.get_running_loop().call_later(max(0.0, (due - self.now_ns()) / 1e9), self._ping_round)

    def _ping_round(self) -> None:
        round_ = self.pings.due(self.now_ns())
        if round_ is not None:
            seated = sorted((p for p in self.holders.values() if p.welcomed and not p.socket.closed),
                            key=lambda p: p.seat.station)
            others = [p for p in self.pingable() if p not in seated] if round_ == "all" else []
            # While a race is open every round, the heartbeat's too, is spread over the race's
            # period, and the seated phones come first in the order of their stations: each
            # is pinged at least every RACE_NS, at the same point of every round.
            self._spread(seated + others, self.pings.race_ns if self.pings.racing and self.pings.race_ns
                         else self.pings.calm_ns)
        self._plan_pings()

    def _spread(self, phones: list, period_ns: int) -> None:
        """A round's pings, one phone after another evenly across ``period_ns`` (the module's
        docstring says why); a ping of the round before still waiting goes now."""
        for phone in list(self._spreading):
            self._spreading.pop(phone).cancel()
            self._spread_ping(phone)
        loop = asyncio.get_running_loop()
        step_s = period_ns / 1e9 / max(len(phones), 1) if self.pings.spread else 0.0
        for i, phone in enumerate(phones):
            if i == 0 or not step_s:
                self._ping(phone)
            else:
                self._spreading[phone] = loop.call_later(i * step_s, self._spread_ping, phone)

    def _spread_ping(self, phone) -> None:
        self._spreading.pop(phone, None)
        if phone.welcomed and not phone.socket.closed:
            self._ping(phone)

    def forget_pings(self, phone) -> None:
        """A phone gone: no pair's second and no ping later in this round for it."""
        self.pings.forget(phone)
        spread = self._spreading.pop(phone, None)
        if spread is not None:
            spread.cancel()

    def stop_pinging(self) -> None:
        """The server is closing: no round, pair or wanted ping goes out any more."""
        for timer in (self._pinger, self._want_timer, *self._spreading.values()):
            if timer is not None:
                timer.cancel()
        self._spreading.clear()

    def want(self, due_ns: int | None) -> None:
        """A race is decided once every phone's watermark passes ``due_ns`` (box time): ping every
        phone as soon as its answer can pass it, rather than at the next tick. A pong's watermark
        is its time less its error and how early a later press may start (``behind_ns``), so that
        is ``due_ns`` plus those, less the half round trip the pong takes to be read (about one error)."""
        if due_ns is None or due_ns == self._wanted_ns:
            return
        self._wanted_ns = due_ns
        if self._want_timer is not None:
            self._want_timer.cancel()
        errors = [p.clock.behind_ns for p in self.holders.values() if p.clock.synced]
        if not errors:
            return
        delay_s = max(0.0, (due_ns + max(errors) - self.now_ns()) / 1e9)
        self._want_timer = asyncio.get_running_loop().call_later(delay_s, self.ping_all, False)

    def _ping(self, phone, paired: bool = True) -> None:
        """A ping (``paired``: a round's, whose pong from a seated phone brings the pair's second)."""
        phone.next_ping += 1
        for old in [i for i in phone.pings if i < phone.next_ping - PINGS_KEPT]:
            del phone.pings[old]
        phone.pings[phone.next_ping] = self.now_ns()
        if paired:
            self.pings.sent(phone, phone.next_ping, phone.seat is not None)
        self._send(phone, json.dumps({"type": "ping", "id": phone.next_ping}))

    def ponged(self, phone, ping_id: int) -> None:
        """A pong read: if it answers a round's first ping, the phone's radio is awake now, so the
        pair's second goes at once."""
        if self.pings.answered(phone, ping_id):
            self._ping(phone, paired=False)
