"""Throughput: input events through the arbiter and the referee, and journal replay speed."""

from __future__ import annotations

import random
import time

from companion import games
from companion.arbiter.debounce import Debouncer
from companion.arbiter.inputs import InputEvent
from companion.record.journal import JournalWriter, header_for, replay
from companion.record.match import Match
from companion.table import Table

MS = 1_000_000


def events_per_s(events: int) -> float:
    """Presses and releases through debounce, the table (lobby, then a Pay-to-Play game whose
    mover moves the cursor) and its tick: everything the loop does per input but drawing.

    Timed in this process's CPU time: the loop is pure computation in one thread, and on a
    shared machine the wall clock counts the other work too (it halved this figure between
    two runs of the same code, docs/MEASURED.md)."""
    table = Table(("Ana", "Ben"))  # two stations: the lobby offers Pay-to-Play
    debouncer = Debouncer()
    t = 0
    for key in ("ok",) * 6:  # into the game with default options
        for pressed in (True, False):
            t += 20 * MS
            for e in debouncer.edge(InputEvent(0, key, pressed, t)):
                table.handle(e)
    assert table.game is not None
    feed = []
    for i in range(events // 2):
        key = "left" if i % 2 else "right"
        t += 20 * MS
        feed.append(InputEvent(0, key, True, t))
        feed.append(InputEvent(0, key, False, t + 10 * MS))
    start = time.process_time()
    for event in feed:
        for e in debouncer.edge(event):
            table.handle(e)
        table.tick(event.t_ns, event.t_ns)
    return len(feed) / (time.process_time() - start)


def replay_actions_per_s(path, games_count: int, seed: int = 3) -> float:
    """Replay speed of a long journal: a Pay-to-Play tournament of random legal play."""
    rules = games.get("paytoplay")
    options = rules.Options(games=games_count)
    writer = JournalWriter(path)
    match = Match(rules, options, ("Ana", "Ben"), None, None)
    writer.write(header_for(match).as_json())
    rnd = random.Random(seed)
    lines = []
    match.record = lines.append
    while match.outcome is None:
        match.act(rnd.choice(rules.legal_actions(match.state)))
    for line in lines:
        writer.write(line)
    writer.close()
    actions = sum(1 for line in lines if not line.get("auto"))
    text = path.read_text().splitlines()
    start = time.perf_counter()
    replay(text)
    return actions / (time.perf_counter() - start)
