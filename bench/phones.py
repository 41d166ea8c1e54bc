"""Phones racing over shaped links: the box's verdicts from mapped phone times, beside arrival order.

``python -m bench.phones [--quick] [--json] [--races]``: these races, then (without ``--races``)
:mod:`bench.webflood` (a guests' flood against the wired races, on a slow core) and
:mod:`bench.phonedoor` (the door attacked). Every link is raced twice on the same seeds: with the
box's phone clocks measured, and as the baseline arm with their rate and step assumed (200 ppm,
1 ms: :class:`companion.web.phoneclock.PhoneClock` ``measured=False``); then a LAN run with two odd
clocks (:data:`ODD_CLOCKS`) both ways, counting presses outside their declared error.
Real sockets on loopback: the box's web companion
(:class:`companion.web.server.WebCompanion`, its real clock sync) and browser-free phones
(:class:`bench.phoneclient.PhoneClient`, aiohttp), each phone's connection through a relay that
shapes its link in user space (this machine's kernel has no ``netem``). The phones' presses go
to the real arbiter (:class:`~companion.arbiter.race.Race` and
:class:`~companion.arbiter.watermark.Watermarks`), decided when every phone's watermark has passed,
exactly as the daemon decides; beside it, in the same run, a referee that takes the first press
to arrive.

The link model (:class:`Link`), per direction of each phone's TCP connection, chunk by chunk.
A phone at the table is one radio hop from the box (the box's own access point, or the home
router one hop away), so the one-hop links are:

- **floor**: each direction's least delay, drawn per phone and per direction (0.5-1.5 ms each
  way): airtime, the access point's forwarding and both stacks. A one-hop round trip's floor is
  a few ms: a Raspberry Pi 4 on Wi-Fi answers ping in 2.8 ms once its radio is awake (hnw's
  measurement, hnw.hatenablog.com, 2020-10-11); 1-5 ms between Linux power-save spikes
  (slightfuture.com's technote on Wi-Fi DPM latency); a campus's Wi-Fi hop "as low as 3 ms"
  (Sui et al., MobiSys 2016, 47,000 devices);
- **queueing**: on top of the floor, per chunk and per direction independently (so the legs of
  one exchange differ), heavy-tailed: a Pareto of shape 1.3 and scale 2 ms less its minimum
  (per leg median 1.4 ms, p90 9.8 ms, p99 67 ms, at most 300 ms). Sui et al. found the hop's latency long-tailed,
  p90 about 20 ms and p99 about 250 ms round trip; a room of phones on one access point is
  quieter than a campus, and contention and the MAC's own retries are this tail (so TCP loss
  is left out: a lost frame is retried by 802.11 within milliseconds). Most exchanges are slow
  and a few are quick, which is what the box's bounds are made of;
- **power save** (``powersave``): a phone's radio sleeps when idle and wakes at each beacon it
  listens to (every 102.4 ms, one beacon interval of 100 TU, or every third: DTIM 1 or 3, drawn
  per phone, from a phase of its own); a frame to a sleeping phone is held at the access point
  until then. Sending wakes it at once, and after any frame it stays awake 100-200 ms (drawn per
  phone: about 100 ms on an iPhone, 200 ms on Android, Sui et al.), so a ping soon after a pong
  finds it awake (:mod:`companion.web.pings`).

And a stress link, **routed** (a far router or a VPN, as every link was modelled before): one
fixed base delay per phone for both directions, 2.5-75 ms (5-150 ms round trips), plus
exponential jitter of mean 8 ms per chunk and 1 % loss, each lost chunk retransmitted after
Linux's minimum retransmission timeout, 200 ms (``TCP_RTO_MIN``). On it the box's clock part of
the error stays near the link's floor: no round trip can say how equal legs split.

TCP delivers in order, so every chunk behind a slow one waits for it (head-of-line blocking): a
WebSocket never sees a frame reordered or dropped, only late.

Each phone's clock runs at its own rate (+-50 ppm) from its own origin; the truth of every touch
is the box's monotonic time at which the phone read its clock for it, less that phone's touch
latency (drawn per phone from WALT's 9.6-29.6 ms), so each mapped time's error is known exactly;
``sync_error`` is the clock's part of it (the stamp's), beside the declared error, which holds the
touch allowance too (``declared_over_real_error``: declared p50 over real sync p99).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from dataclasses import dataclass

import aiohttp

from companion.arbiter.inputs import InputEvent
from companion.arbiter.race import Race
from companion.arbiter.watermark import Watermarks
from companion.web.phoneclock import TOUCH_SHIFT_NS, TOUCH_SPREAD_NS, PhoneClock
from companion.web.pings import PingPlan
from companion.web.room import PhoneSeat, Room
from companion.web.server import WebCompanion

from . import phonedoor, webflood
from .phoneclient import PhoneClient

MS = 1_000_000
TIE_WINDOW_NS = 10 * MS
"""The quiz's default tie window."""
RTO_NS = 200 * MS
TOUCH_LATENCY_MS = (9.6, 29.6)
"""Each phone's glass-to-stamp latency, drawn once per phone (Google WALT's published span): the
truth of a touch is that much before its stamp, which the box knows only as a declared allowance."""


@dataclass(frozen=True)
class Profile:
    """One kind of link: each direction's floor (ms, drawn per phone; ``routed``: one base for
    both), the queueing on top (a Pareto's scale and shape; routed: exponential jitter of mean
    ``queue_ms``), loss, and power save's beacon intervals (ms; empty: the radio stays awake)."""

    name: str
    floor_ms: tuple[float, float]
    queue_ms: float
    tail: float | None = 1.3
    loss: float = 0.0
    beacons_ms: tuple[float, ...] = ()
    routed: bool = False


QUEUE_MAX_MS = 300.0
"""The longest a one-hop frame queues: Sui et al.'s p99 round trip is about 250 ms, and past a few
hundred ms 802.11 has given the frame up (its retry limit) and TCP resends it. An unbounded tail
would hold a phone's link for seconds now and then, every frame behind one."""
BEACON_MS = 102.4
"""One beacon interval: 100 TU of 1.024 ms, every access point's default."""
AWAKE_MS = (100.0, 200.0)
"""How long a phone's radio stays awake after a frame (iPhone about 100 ms, Android 200: Sui et al.)."""
PROFILES = (Profile("wifi", (0.5, 1.5), 2.0),
            Profile("powersave", (0.5, 1.5), 2.0, beacons_ms=(BEACON_MS, 3 * BEACON_MS)),
            Profile("routed", (2.5, 75.0), 8.0, tail=None, loss=0.01, routed=True))


class Link:
    """One phone's shaped link: a relay on loopback between the phone and the box."""

    def __init__(self, profile: Profile, rng: random.Random, target: tuple[str, int]) -> None:
        self.profile = profile
        self.rng = rng
        self.target = target
        down = round(rng.uniform(*profile.floor_ms) * MS)
        self.floor_ns = {True: down, False: down if profile.routed else round(rng.uniform(*profile.floor_ms) * MS)}
        """Each direction's least delay (True: to the phone)."""
        self.beacon_ns = round(rng.choice(profile.beacons_ms) * MS) if profile.beacons_ms else 0
        self.awake_ns = round(rng.uniform(*AWAKE_MS) * MS)
        self._phase_ns = time.monotonic_ns() + rng.randrange(max(self.beacon_ns, 1))
        self._awake_until = 0
        self.port = 0
        self._server: asyncio.AbstractServer | None = None

    @property
    def half_floor_ns(self) -> int:
        """Half the link's floor round trip: the tightest error any round trip can bound."""
        return (self.floor_ns[True] + self.floor_ns[False]) // 2

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        self._server.close()

    async def _accept(self, phone_r: asyncio.StreamReader, phone_w: asyncio.StreamWriter) -> None:
        box_r, box_w = await asyncio.open_connection(*self.target)
        await asyncio.gather(self._pump(phone_r, box_w, False), self._pump(box_r, phone_w, True),
                             return_exceptions=True)

    def _queued_ns(self) -> int:
        if self.profile.tail is None:
            return round(self.rng.expovariate(1 / self.profile.queue_ms) * MS)
        return round(min(QUEUE_MAX_MS, (self.rng.paretovariate(self.profile.tail) - 1) * self.profile.queue_ms) * MS)

    def _due(self, now_ns: int, last_ns: int, to_phone: bool) -> int:
        """When a chunk read now is delivered: after its direction's floor and its queueing (a
        lost one after the retransmission timeout too), never before the one ahead of it; to a
        phone whose radio sleeps, at its next beacon."""
        due = now_ns + self.floor_ns[to_phone] + self._queued_ns()
        if self.rng.random() < self.profile.loss:
            due += RTO_NS
        due = max(due, last_ns)
        if self.beacon_ns:
            if not to_phone:  # sending wakes the radio at once
                self._awake_until = max(self._awake_until, now_ns + self.awake_ns)
            elif due >= self._awake_until:  # held at the access point for the beacon it listens to
                due = self._phase_ns + -(-(due - self._phase_ns) // self.beacon_ns) * self.beacon_ns
            if to_phone:
                self._awake_until = max(self._awake_until, due + self.awake_ns)
        return due

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, to_phone: bool) -> None:
        queue: asyncio.Queue = asyncio.Queue()

        async def deliver() -> None:
            while (item := await queue.get()) is not None:
                due, data = item
                wait = (due - time.monotonic_ns()) / 1e9
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()
            writer.close()

        sender = asyncio.ensure_future(deliver())
        last = 0
        try:
            while data := await reader.read(65536):
                last = self._due(time.monotonic_ns(), last, to_phone)
                queue.put_nowait((last, data))
        finally:
            queue.put_nowait(None)
            await asyncio.gather(sender, return_exceptions=True)


class Referee:
    """The box's side for the benchmark: the real arbiter over the phones' presses and watermarks
    (what :class:`companion.web.server.WebCompanion` asks of a box), and arrival order beside it."""

    def __init__(self, stations: int) -> None:
        self.names = [f"P{i + 1}" for i in range(stations)]
        self.watermarks = Watermarks()
        self.race: Race | None = None
        self.verdict: tuple[frozenset[int], int] | None = None
        self.arrivals: list[tuple[int, int]] = []
        """(arrival ns, station) of the round's presses."""
        self.mapped: dict[int, tuple[int, int]] = {}
        """Station -> (mapped ns, error ns) of its press this round."""
        self.web: WebCompanion | None = None

    def open(self, at_ns: int, stations: range) -> None:
        self.race, self.verdict, self.arrivals, self.mapped = Race(at_ns, TIE_WINDOW_NS, stations), None, [], {}
        self.web.racing(True)  # as the daemon says while a race is open

    def _decide(self) -> None:
        if self.race is None or self.verdict is not None or self.race.decision_due_ns is None:
            return
        result = self.race.decide(self.watermarks.low(time.monotonic_ns()))
        if result is not None:
            self.verdict = (result.winners, time.monotonic_ns())
            self.web.racing(False)

    async def phone_joined(self, station: int, name: str | None) -> str:
        self.watermarks.add_source(f"phone{station}", in_order=False)
        return self.names[station]

    def phone_left(self, station: int) -> None:
        self.watermarks.remove_source(f"phone{station}")

    def phone_press(self, station: int, key: str, down: bool, t_ns: int, error_ns: int) -> None:
        if not down or self.race is None:
            return
        self.arrivals.append((time.monotonic_ns(), station))
        self.mapped.setdefault(station, (t_ns, error_ns))
        self.race.press(InputEvent(station, key, True, t_ns, f"phone{station}", error_ns))
        self._decide()
        if self.verdict is None and self.web is not None:
            self.web.want(self.race.decision_due_ns)  # as the daemon asks, from its loop

    def phone_watermark(self, station: int, t_ns: int) -> None:
        self.watermarks.report(f"phone{station}", t_ns)
        self._decide()

    def phone_painted(self, station: int, frame: int, t_ns: int, error_ns: int) -> None:
        pass

    def phone_view(self) -> dict:
        return {}


def _clock(rng: random.Random, ppm: float | None = None):
    """A phone's clock: its own rate (+-50 ppm, or ``ppm`` fast) from its own origin; returns
    (clock_ns, truth) where truth maps a phone time (ms) back to the box's monotonic ns when it was read."""
    rate = 1 + (rng.uniform(-50e-6, 50e-6) if ppm is None else ppm * 1e-6)
    origin = time.monotonic_ns()

    def clock_ns() -> int:
        return origin + round((time.monotonic_ns() - origin) * rate)

    def truth(phone_ms: float, offset_ms: float) -> int:
        return origin + round(((phone_ms - offset_ms) * MS - origin) / rate)

    return clock_ns, truth


ODD_CLOCKS = {0: ("500ppm", 500.0, 0.001), 1: ("16.67ms", None, 1000 / 60)}
"""The odd-clocks run's phones 1 and 2: a clock 500 ppm fast (NTP slews a clock up to 500 ppm), and
one that shows time in 16.67 ms steps (Firefox resisting fingerprinting); issue 48 measured 49 of
60 and 16 of 80 of their presses outside their declared error with 200 ppm and 1 ms assumed."""


async def _run_profile(profile: Profile, phones: int, rounds: int, seed: int, measured: bool = True,
                       odd: bool = False, paired: bool = True) -> dict:
    """One link's races with the box's clocks ``measured`` (False: the odd clocks' baseline arm,
    200 ppm and 1 ms assumed) and its pings ``paired`` and faster in a race (False: the links'
    baseline arm, single pings every 250 ms to every phone at once, as before); ``odd``: phones 1 and 2 have
    :data:`ODD_CLOCKS`, the rest ordinary ones."""
    rng = random.Random(seed)
    referee = Referee(phones)
    web = referee.web = WebCompanion(referee, Room([PhoneSeat(i, True) for i in range(phones)]),
                                     clock=lambda: PhoneClock(measured),
                                     pings=PingPlan() if paired else PingPlan(paired=False, race_ns=None, spread=False))
    await web.start("127.0.0.1", 0, "127.0.0.1")
    port = int(web.join_url.split(":")[2].split("/")[0])
    links = [Link(profile, random.Random(rng.random()), ("127.0.0.1", port)) for _ in range(phones)]
    clients: list[tuple[PhoneClient, object, float, int]] = []
    sync_errors, declared, over_floor, to_verdict, to_arrival = [], [], [], [], []
    kinds: list[str] = []  # each phone's kind of clock
    outside: dict[str, list[int]] = {}  # a kind of clock -> [presses outside their declared error, presses]
    misordered = ties = arrival_misordered = races = 0
    async with aiohttp.ClientSession() as session:
        for i, link in enumerate(links):
            await link.start()
            kind, ppm, step_ms = ODD_CLOCKS[i] if odd and i in ODD_CLOCKS else ("ordinary", None, 0.001)
            clock_ns, truth = _clock(random.Random(rng.random()), ppm)
            offset = rng.uniform(1.6e12, 1.8e12)
            client = PhoneClient(session, f"http://127.0.0.1:{link.port}", offset, clock_ns, step_ms)
            kinds.append(kind)
            await client.join(web.room.code, "buzzer")
            clients.append((client, truth, offset, round(rng.uniform(*TOUCH_LATENCY_MS) * MS)))
        await asyncio.sleep(3.0)  # the first exchanges, and (power save) the first nap or two
        for _ in range(rounds):
            opens = time.monotonic_ns()
            referee.open(opens, range(phones))
            presses: dict[int, int] = {}

            async def touch(station: int, client: PhoneClient, truth, offset: float, glass_ns: int) -> None:
                await asyncio.sleep(max(0.05, rng.gauss(0.35, 0.08)))  # a reaction time
                read = client.clock_ns() / 1e6 + offset  # the phone's clock as it truly stood
                t = client.coarse(read)  # and as its page shows it
                presses[station] = truth(read, offset) - glass_ns  # the finger met the glass before the stamp
                await client.press("slap", True, t)
                await client.press("slap", False, t + 60)

            await asyncio.gather(*(touch(i, *client) for i, client in enumerate(clients)))
            deadline = time.monotonic() + 10
            while (referee.verdict is None or len(referee.arrivals) < phones) and time.monotonic() < deadline:
                await asyncio.sleep(0.002)
            if referee.verdict is None or len(referee.arrivals) < phones:
                continue
            races += 1
            first = min(presses.values())
            true_first = {s for s, t in presses.items() if t == first}
            winners, decided_ns = referee.verdict
            misordered += not (winners & true_first)
            ties += len(winners) > 1
            to_verdict.append((decided_ns - first) / MS)
            arrival_ns, arrived_first = referee.arrivals[0]
            arrival_misordered += arrived_first not in true_first
            to_arrival.append((arrival_ns - first) / MS)
            for station, (mapped, error) in referee.mapped.items():  # the clock's part: the stamp's
                stamp = presses[station] + clients[station][3]
                sync_error = abs(mapped + TOUCH_SHIFT_NS - stamp)
                tally = outside.setdefault(kinds[station], [0, 0])
                tally[0] += sync_error > error - TOUCH_SPREAD_NS  # the clock's part against what it declared
                tally[1] += 1
                if kinds[station] != "ordinary":
                    continue
                sync_errors.append(sync_error / MS)
                declared.append(error / MS)
                over_floor.append((error - TOUCH_SPREAD_NS) / links[station].half_floor_ns)
            await asyncio.sleep(rng.uniform(0.3, 0.8))
        for client, *_ in clients:
            await client.close()
    for link in links:
        await link.close()
    await web.close()
    real_p99, declared_p50 = _p(sync_errors, 99), _p(declared, 50)
    return {"races": races, "sync_error_p99_ms": real_p99, "declared_error_p50_ms": declared_p50,
            "declared_error_p99_ms": _p(declared, 99),
            "declared_over_real_error": round(declared_p50 / real_p99, 2) if real_p99 and declared_p50 else None,
            "declared_within_3x": None if real_p99 is None or declared_p50 is None
            else declared_p50 <= 3 * real_p99 + TOUCH_SPREAD_NS / MS,
            "misorder_rate_beyond_error": misordered / max(races, 1), "tie_rate": ties / max(races, 1),
            "press_to_verdict_p50_ms": _p(to_verdict, 50), "press_to_verdict_p99_ms": _p(to_verdict, 99),
            "arrival_order_misorder_rate": arrival_misordered / max(races, 1),
            "arrival_order_press_to_verdict_p99_ms": _p(to_arrival, 99),
            "declared_sync_over_floor_p50": _p(over_floor, 50),
            "outside_declared_error": {kind: f"{n} of {total}" for kind, (n, total) in outside.items()}}


def _p(values: list[float], q: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 3)
    return round(statistics.quantiles(values, n=100, method="inclusive")[q - 1] if q < 100 else max(values), 3)


def figures(quick: bool, phones: int = 8, seed: int = 41) -> dict:
    """The phone keys of ``python -m bench --json``: each figure over every profile's races
    together (the worst link included), and each profile's beside it in ``phone_by_link``; the
    declared error's ratio and the tie rate per link beside the baseline arm's (single pings every
    250 ms, to every phone at once), run on the same links (the same seeds) in the same run; and the odd clocks' presses
    outside their error, their clocks measured and assumed, on the ``wifi`` link."""
    rounds = 25 if quick else 120
    arms = {arm: {p.name: asyncio.run(_run_profile(p, phones, rounds, seed + i, paired=arm == "paired"))
                  for i, p in enumerate(PROFILES)} for arm in ("single", "paired")}
    odd = {arm: asyncio.run(_run_profile(PROFILES[0], phones, rounds, seed + 7, arm == "measured", odd=True))
           for arm in ("assumed", "measured")}
    by_link = arms["paired"]
    worst = by_link["powersave"]
    total = sum(r["races"] for r in by_link.values())

    def mean_rate(key: str) -> float:
        return round(sum(r[key] * r["races"] for r in by_link.values()) / max(total, 1), 4)

    def per_link(key: str) -> dict:
        return {name: {arm: arms[arm][name][key] for arm in arms} for name in by_link}

    return {"phone_races": total, "phone_count": phones,
            "phone_sync_error_p99_ms": max(r["sync_error_p99_ms"] for r in by_link.values()),
            "phone_misorder_rate_beyond_error": mean_rate("misorder_rate_beyond_error"),
            "phone_tie_rate": mean_rate("tie_rate"),
            "phone_declared_over_real_error": per_link("declared_over_real_error"),
            "phone_declared_within_3x": per_link("declared_within_3x"),
            "phone_tie_rate_by_link": per_link("tie_rate"),
            "phone_misorder_rate_by_link": per_link("misorder_rate_beyond_error"),
            "phone_declared_error_p50_ms_by_link": per_link("declared_error_p50_ms"),
            "phone_sync_error_p99_ms_by_link": per_link("sync_error_p99_ms"),
            "phone_declared_sync_over_floor": per_link("declared_sync_over_floor_p50"),
            "phone_press_to_verdict_p50_ms_by_link": per_link("press_to_verdict_p50_ms"),
            "phone_outside_declared_error": {arm: r["outside_declared_error"] for arm, r in odd.items()},
            "phone_press_to_verdict_p99_ms": worst["press_to_verdict_p99_ms"],
            "arrival_order_phone_misorder_rate": mean_rate("arrival_order_misorder_rate"),
            "arrival_order_phone_press_to_verdict_p99_ms": worst["arrival_order_press_to_verdict_p99_ms"],
            "phone_by_link": by_link, "phone_by_link_single": arms["single"], "phone_odd_clocks": odd}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.phones", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--races", action="store_true", help="the races only: no flood, no attack on the door")
    args = parser.parse_args()
    out = figures(args.quick)
    if not args.races:
        out.update(webflood.figures(args.quick))  # a guests' flood against the wired races
        out.update(phonedoor.figures(args.quick))  # the door attacked: guesses, memory, bare sockets
    print(json.dumps(out, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
