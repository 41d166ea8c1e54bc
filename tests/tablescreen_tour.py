"""Games played through the referee's Table on a fake clock by seeded random presses, for the
table screen's tests: every state the monkey reaches is a state the public view must handle."""

from __future__ import annotations

import random

from companion.arbiter.inputs import KEYS

from helpers import MS, journaled_table, tap

NAMES = ("Ana", "Ben", "Cy", "Dee")
WEIGHTS = {"slap": 3, "ok": 4, "left": 2, "right": 2}


def next_in_lobby(table, game: str) -> tuple[range, str]:
    """On the way to ``game`` with its default options: the stations that take a seat with
    ``slap`` now (every one that fits, if the lobby asks who plays), then station 1's key."""
    if table.seating is not None:
        return range(min(table.lobby.game.max_players, table.stations)), "ok"
    if table.offer is None and table.abandoned is None and table.lobby.rules_page is None \
            and table.lobby.row is None and (table.on_settings_page or table.lobby.game.name != game):
        return range(0), "right"
    return range(0), "ok"


def start(table, game: str, t_ms: float) -> float:
    """Pick ``game`` in the lobby with its default options, every station that fits taking a seat
    if the lobby asks who plays; returns the clock after."""
    for _ in range(1000):
        if table.game is not None:
            return t_ms
        t_ms += 100
        seats, key = next_in_lobby(table, game)
        for station in seats:
            tap(table, station, "slap", t_ms)
            t_ms += 100
        tap(table, 0, key, t_ms)
    raise AssertionError(f"the lobby never started {game}")


def tour(tmp_path, game: str, seed: int, steps: int, players: int = 3):
    """Yield the table after every press and every tick of a randomly played game (and the
    games after it, back from the lobby), ``steps`` presses in all; journals go to ``tmp_path``."""
    table, _ = journaled_table(tmp_path, NAMES[:players], seed=seed, prefix=f"{game}-{seed}-")
    rng = random.Random(seed)
    keys = [k for k in KEYS for _ in range(WEIGHTS[k])]
    yield table
    t_ms = start(table, game, 0)
    yield table
    for _ in range(steps):
        if table.game is None:
            t_ms = start(table, game, t_ms)
        t_ms += rng.choice((3, 7, 60, 120, 400, 1100))
        tap(table, rng.randrange(players), rng.choice(keys), t_ms)
        yield table
        table.tick(round((t_ms + 60) * MS), round((t_ms + 55) * MS))
        yield table
