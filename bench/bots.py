"""Bot benchmarks: Triangle bots measured on the box, bot decision and move times, and
Pay-to-Play solved from scratch.

Triangle bots measured on the box: every seat a bot at the real :class:`companion.table.Table`
on a fake clock, pressing through the arbiter exactly as at a table.

Each bot commits its slap through the bot input source and its watermark, a race is decided by
edge time and the tie window, a press that falls due after the race is decided is withdrawn, and
the claimer states its fact on the table after its thinking time; ``ok`` is given to the game a
second after each result shows, as a seated player's station would (the box lets only a seated
station deal, and every seat here is a bot). Nothing of the bots'
own timing model decides a race.

Pairings, each over games of ``turns`` turns with the measured seat rotating over the three
seats (a fresh table and seed per game):

- ``hard`` against two easy bots (the seed's basic strategy);
- ``hard`` against two speed-matched counters (they reach when the hard bot would and state the
  coach's counting-only best);
- one counter against two easy bots.
"""

from __future__ import annotations

import random
import statistics
import time

from companion.bots.closest import hard_move
from companion.bots.paytoplay import START, best_action, solve, solver_for
from companion.arbiter.inputs import InputEvent
from companion.bots.triangle import seat_view
from companion.games import get
from companion.games.closest import ClosestOptions
from companion.games.paytoplay import PayToPlayOptions
from companion.games.triangle import ROUNDS_PER_TURN, VALUES
from companion.table import Table
from companion.table.lobby import StartGame

MS = 1_000_000
READ_RESULT_MS = 1000
"""How long a round's result shows before ``ok`` deals the next (a player reading it)."""


def play_at_table(roles: list[str], turns: int, seed: int):
    """A game of ``turns`` turns at a real table whose three seats are bots in ``roles``
    (``hard``, ``easy`` or ``counter``), played to its end; returns the game table."""
    table = Table(("A", "B", "C"), seed=seed)
    table.start(StartGame(get("triangle"), {"turns": turns}), 0,
                bots={p: "easy" if role == "easy" else "hard" for p, role in enumerate(roles)})
    table.bot_seats.counting = frozenset(p for p, role in enumerate(roles) if role == "counter")
    game = table.game
    t = 0
    while game.match.outcome is None:
        if game.current is None:       # the result shows: ok deals the next round
            t += READ_RESULT_MS * MS
            table.tick(t, t)
            game.handle(InputEvent(0, "ok", True, t))   # the game's own input, as a seat's ok
            game.handle(InputEvent(0, "ok", False, t + 50 * MS))
            continue
        nxt = table.wakeup_ns()
        t = max(t + MS, nxt if nxt is not None else t + 5 * MS)
        table.tick(t, t)
    return game


def play_game(measured: str, others: str, seat: int, turns: int, seed: int) -> tuple[list[float], int, int]:
    """One game at a real table: the ``measured`` bot (``hard`` or ``counter``) in ``seat``,
    ``others`` (``easy`` or ``counter``) in the other two. Returns the measured seat's lead a
    turn (its points minus the mean of the others', per turn), and how many statements it made
    and how many were false."""
    game = play_at_table([measured if p == seat else others for p in range(3)], turns, seed)
    history = game.match.state.history
    leads, said, false = [], 0, 0
    for start in range(0, len(history), ROUNDS_PER_TURN):
        points = [sum(r.points[p] for r in history[start:start + ROUNDS_PER_TURN]) for p in range(3)]
        leads.append(points[seat] - statistics.fmean(points[p] for p in range(3) if p != seat))
    for r in history:
        if r.claimer == seat and r.fact is not None:
            said += 1
            false += not r.correct
    return leads, said, false


def _ci(xs: list[float]) -> list[float]:
    """95 % normal interval of the mean."""
    half = 1.96 * statistics.stdev(xs) / len(xs) ** 0.5
    return [round(statistics.fmean(xs) - half, 3), round(statistics.fmean(xs) + half, 3)]


def pairing(measured: str, others: str, turns: int, seed: int) -> dict:
    """The measured bot against two ``others`` over three games of ``turns`` turns (its seat
    rotating): mean lead a turn with its 95 % interval, and the share of its statements that
    were false."""
    leads, said, false = [], 0, 0
    for seat in range(3):
        lead, s, f = play_game(measured, others, seat, turns, seed + seat)
        leads += lead
        said += s
        false += f
    return {"turns": len(leads), "lead_per_turn": round(statistics.fmean(leads), 3), "lead_ci95": _ci(leads),
            "statements": said, "false_rate": round(false / said, 3) if said else None}


def triangle_on_table(turns: int, seed: int = 21) -> dict:
    """The bench keys ``bot_triangle_hard_on_table`` (against the basic strategy and against the
    speed-matched counter, and its false-statement rate among easy bots) and
    ``bot_triangle_counter_on_table`` (the counter against the basic strategy)."""
    vs_basic = pairing("hard", "easy", turns, seed)
    vs_counter = pairing("hard", "counter", turns, seed + 10)
    counter = pairing("counter", "easy", turns, seed + 20)
    return {"bot_triangle_hard_on_table": {"vs_basic": vs_basic, "vs_counter": vs_counter,
                                           "false_rate": vs_basic["false_rate"]},
            "bot_triangle_counter_on_table": counter}


def triangle_decision_ms(samples: int, seed: int = 5) -> dict:
    """Median and p99 time of one hard decision: when to reach (the plan) and what to state."""
    rng = random.Random(seed)
    took = []
    for _ in range(samples):
        deck = [v for v in VALUES for _ in range(4)]
        rng.shuffle(deck)
        before = deck[:4 * rng.randrange(6)]
        cards = tuple(deck[len(before):len(before) + 3])
        rts = deck[len(before) + 3]
        start = time.perf_counter()
        view = seat_view(0, cards, before[::2])
        slot = view.claim_slot()
        view.best(view.odds(slot, frozenset(), rts))
        took.append((time.perf_counter() - start) * 1000)
    took.sort()
    return {"median": round(statistics.median(took), 3), "p99": round(took[int(0.99 * (len(took) - 1))], 3)}


def other_moves_ms(samples: int, seed: int = 6) -> dict:
    """Median time of one hard move in the closest-number game (random positions of rounds 1-3)
    and in Pay-to-Play (a lookup in its solved table, random positions of random games)."""
    rng = random.Random(seed)
    house = PayToPlayOptions(no_double_pass=True)
    solver_for(house).value(START)
    out = {}
    for name, move, options in (("closest", hard_move, ClosestOptions()), ("paytoplay", best_action, house)):
        rules = get(name)
        took = []
        while len(took) < samples:
            state = rules.new(rules.min_players, options)
            if name == "closest":
                state = rules.apply(state, {"action": "start", "player": rng.randrange(3)})
            for _ in range(rng.randrange(12)):
                if rules.outcome(state) is not None:
                    break
                state = rules.apply(state, rng.choice(rules.legal_actions(state)))
            if rules.outcome(state) is not None:
                continue
            start = time.perf_counter()
            move(state)
            took.append((time.perf_counter() - start) * 1000)
        out[name] = round(statistics.median(took), 3)
    return out


def paytoplay() -> dict:
    """Both rule sets solved from scratch: time and value."""
    out = {}
    for name, house in (("", False), ("_no_double_pass", True)):
        start = time.perf_counter()
        solution = solve(house)
        out[f"paytoplay_solve{name}_s"] = round(time.perf_counter() - start, 2)
        out[f"paytoplay_value{name}"] = {"result": solution.value.result, "margin": solution.value.margin,
                                         "words": solution.value.words(), "best_first": solution.best_first,
                                         "positions": solution.positions}
    return out
