"""Shared test helpers: station inputs on a fake clock (times in ms), a journaled table, and
waiting for what real threads and processes do without depending on the machine's speed."""

import asyncio
import json
import time
from pathlib import Path

from companion.arbiter.inputs import InputEvent
from companion.record.journal import CRC, JournalWriter, check_crc
from companion.table import Table

MS = 1_000_000


def journal_objects(path) -> list[dict]:
    """Every line of a journal the box wrote, as it meant it: each line is checked against its
    ``crc`` (the box seals every line), which is then left out."""
    out = []
    for text in Path(path).read_text(encoding="utf-8").splitlines():
        obj = json.loads(text)
        check_crc(text, obj, required=True)
        del obj[CRC]
        out.append(obj)
    return out


def tap(table, station: int, key: str, t_ms: float) -> None:
    """Press and release a key on ``table`` at ``t_ms`` (release 50 ms later)."""
    table.handle(InputEvent(station, key, True, round(t_ms * MS)))
    table.handle(InputEvent(station, key, False, round((t_ms + 50) * MS)))


def pick(table, clock, game: str) -> None:
    """On the game menu, station 1 turns to ``game`` and picks it with ``ok``."""
    while table.lobby.game.name != game:
        tap(table, 0, "right", clock.next())
    tap(table, 0, "ok", clock.next())


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



PATIENCE_S = 30.0
"""How long a test waits for something a real thread, process or loop will do: far longer than
it takes on a busy machine (milliseconds when idle), so only a real hang fails the wait."""


def _holds(condition, end: float, timeout_s: float) -> bool:
    if condition():
        return True
    assert time.monotonic() < end, f"timed out after {timeout_s} s waiting for {condition.__doc__ or condition}"
    return False


async def until(condition, timeout_s: float = PATIENCE_S, poll_s: float = 0.005) -> None:
    """Let the loop run until ``condition()`` holds; fail if it has not within ``timeout_s``."""
    end = time.monotonic() + timeout_s
    while not _holds(condition, end, timeout_s):
        await asyncio.sleep(poll_s)


def while_running(daemon, scenario):
    """``await scenario()`` while ``daemon``'s loop runs; the loop is stopped and the daemon closed
    after, whatever happens. Returns what the scenario returned."""

    async def main():
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        try:
            return await scenario()
        finally:
            stop.set()
            await runner

    try:
        return asyncio.run(main())
    finally:
        daemon.close()


def wait_until(condition, timeout_s: float = PATIENCE_S, poll_s: float = 0.005) -> None:
    """:func:`until` outside any loop, for a test waiting on threads or processes."""
    end = time.monotonic() + timeout_s
    while not _holds(condition, end, timeout_s):
        time.sleep(poll_s)


MOCK_3 = Path(__file__).resolve().parent.parent / "hardware" / "profiles" / "mock-3.toml"
LIGHT_SENSORS = (9, 10, 11)
"""The GPIO of the light sensors :func:`sensed_mock_3` gives mock-3's stations."""


def sensed_mock_3(tmp_path: Path, extra: str = "") -> Path:
    """mock-3 with a light sensor on every station (:data:`LIGHT_SENSORS`), and ``extra`` TOML
    appended: the profile's path."""
    text = MOCK_3.read_text(encoding="utf-8")
    for led, sensor in zip((23, 24, 25), LIGHT_SENSORS):
        text = text.replace(f"led = {led}\n", f"led = {led}\nlight_sensor = {sensor}\n")
    path = tmp_path / "sensed.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path
