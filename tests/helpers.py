"""Shared test helpers: station inputs on a fake clock (times in ms), a journaled table."""

from companion.inputs import InputEvent
from companion.journal import JournalWriter
from companion.table import Table

MS = 1_000_000


def tap(table, station: int, key: str, t_ms: float) -> None:
    """Press and release a key on ``table`` at ``t_ms`` (release 50 ms later)."""
    table.handle(InputEvent(station, key, True, round(t_ms * MS)))
    table.handle(InputEvent(station, key, False, round((t_ms + 50) * MS)))


def take_seats(table, stations, next_ms) -> None:
    """On the "Who plays?" screen, if the table asks: ``stations`` join with ``slap``, then the
    first of them starts with ``ok``; ``next_ms()`` gives each tap's time."""
    if table.seating is None:
        return
    for station in stations:
        tap(table, station, "slap", next_ms())
    tap(table, stations[0], "ok", next_ms())


class Clock:
    """A fake clock handing out increasing times, 100 ms apart."""

    def __init__(self) -> None:
        self.ms = 0.0

    def next(self) -> float:
        self.ms += 100
        return self.ms


def journaled_table(directory, names: tuple[str, ...], seed: int, prefix: str = "") -> tuple[Table, list]:
    """A table whose games are journaled as ``game0.jsonl``, ``game1.jsonl``... (after ``prefix``)
    in ``directory``; the list fills with their paths as games start."""
    journals = []

    def open_journal(header):
        writer = JournalWriter(directory / f"{prefix}game{len(journals)}.jsonl", header)
        journals.append(writer.path)
        return writer

    return Table(names, open_journal, seed=seed), journals


class FakeClock:
    """Simulated monotonic time for gpiozero's mock pins (patch ``gpiozero.pins.mock.monotonic``
    with :meth:`monotonic`) and for the daemon's steps."""

    def __init__(self, start_s: float = 1000.0) -> None:
        self.ns = round(start_s * 1e9)

    def monotonic(self) -> float:
        return self.ns / 1e9


async def play_on_fake_clock(daemon, presses, clock: FakeClock, step_ms: int = 5, tail_s: float = 1.0) -> None:
    """Drive a script of presses on the daemon's mock pins in simulated time: every edge at its
    own time, and a daemon step at each edge and every ``step_ms`` between, so timers and races
    run as they would live, without waiting. Runs inside a loop (the buzzer schedules notes)."""
    import asyncio

    from companion.script import edges

    start = clock.ns
    timed = [(start + round(at_s * 1e9), station, key, pressed)
             for at_s, station, key, pressed in edges(presses)]
    end = timed[-1][0] + round(tail_s * 1e9)
    grid = set(range(start, end, step_ms * MS))
    pending = iter(timed)
    edge = next(pending, None)
    for t in sorted(grid | {e[0] for e in timed}):
        clock.ns = t
        while edge is not None and edge[0] <= t:
            pin = daemon.box.pin(edge[1], edge[2])
            pin.drive_low() if edge[3] else pin.drive_high()
            edge = next(pending, None)
        daemon.step(t)
        await asyncio.sleep(0)
