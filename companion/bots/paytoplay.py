"""Pay-to-Play Tic-Tac-Toe solved: the value of every position under perfect play.

**Objective.** X maximizes and O minimizes the pair (result, margin), compared result first:
result is +1 when X wins, 0 for a draw, -1 when O wins; margin is X's final balance minus O's.
So a player prefers any win to a draw and a draw to any loss, and among equal results wins by
the most (or loses by the least) balance. A full board goes to the higher balance, so there the
margin *is* the result.

**Endless passing.** Without the house rule both players may pass forever, and the box then
offers a draw (``draw_offer_after`` passes by choice from each in a row, RULES-NOTES.md). On
the box an offer is the *other* player's choice: they accept or decline, so an offer is worth
the worse of the draw and playing on, for the one who offers, and never raises a position's
value. Once a draw is on offer the mover places a mark or passes on; passing on hands the other
player the same choice, who places a mark if that beats the draw for them, and otherwise the
passing ends in the draw (:meth:`Solver.passing_on`). Every other line of play is finite (a
forced pass raises a balance that is at least -3, and a pass by choice counts towards the
offer), so the search needs no depth limit. Under the house rule (``no_double_pass``, counted
on the account before the turn's income) the game is finite as it stands and the solution is
exact.

**State.** A position is (board, the stored balances of X and O, whether X has had the first
turn's income, each player's passes by choice in a row capped at what the rules read, the
mover), memoized, so balances are bounded by the game's own length. Marks are X/O, not seats,
so a tournament's second game (player 1 as X) reads the same table.

The test checks the table against a plain minimax over :class:`companion.games.paytoplay.PayToPlay`
itself, without memo, on positions with few empty cells.
"""

from __future__ import annotations

import functools
import sys
import threading
from dataclasses import dataclass
from typing import Iterator

from ..games.paytoplay import (CELL_COST, EMPTY, FIRST_INCOME, INCOME, LINES, PayToPlayOptions, PayToPlayState,
                              cell_name)

MARKS = "XO"
RESULT_WEIGHT = 1000
"""Value = result * RESULT_WEIGHT + margin: margins stay far below 1000 in any finite line."""

Key = tuple[str, int, int, bool, int, int, int]
"""(board, X's balance, O's balance, X has played, X's streak, O's streak, mover 0=X 1=O)."""


@dataclass(frozen=True)
class Value:
    """A position's worth under perfect play, from X's side."""

    result: int
    margin: int

    @classmethod
    def of(cls, v: int) -> "Value":
        result = (v > RESULT_WEIGHT // 2) - (v < -RESULT_WEIGHT // 2)
        return cls(result, v - result * RESULT_WEIGHT)

    def words(self) -> str:
        """``O wins, 3 behind X in balance at the end`` / ``a draw, O ahead by 1 in balance``."""
        if self.result == 0:
            lead = "X" if self.margin > 0 else "O"
            return "a draw" + (f", {lead} ahead by {abs(self.margin)} in balance" if self.margin else ", balances level")
        winner, loser = ("X", "O") if self.result > 0 else ("O", "X")
        ahead = self.margin if self.result > 0 else -self.margin
        return f"{winner} wins, {abs(ahead)} {'ahead of' if ahead >= 0 else 'behind'} {loser} in balance at the end"


@functools.lru_cache(maxsize=None)
def _winner_line(board: str) -> bool:
    return any(board[a] != EMPTY and board[a] == board[b] == board[c] for a, b, c in LINES)


class Solver:
    """The memoized game tree of one rule set (house rule on or off)."""

    def __init__(self, no_double_pass: bool = False, draw_offer_after: int = 3) -> None:
        self.no_double_pass = no_double_pass
        self.offer_after = None if no_double_pass else draw_offer_after
        self.cap = 1 if no_double_pass else draw_offer_after
        self.memo: dict[Key, int] = {}

    # --- the moves ---------------------------------------------------------------------------

    def moves(self, key: Key) -> Iterator[tuple[str, object, int | None, Key | None]]:
        """(kind, cell, terminal value or None, next key or None) for every move searched except
        the draw offer (:meth:`value` and :meth:`best_moves` add it)."""
        board, bx, bo, x_played, sx, so, m = key
        balance = (bx, bo)[m]
        income = FIRST_INCOME if m == 0 and not x_played else INCOME
        after = balance + income
        streak = (sx, so)[m]
        counts = balance > 0 if self.no_double_pass else after > 0
        refused = self.no_double_pass and streak > 0 and counts
        if not refused:
            new_streak = min(streak + 1, self.cap) if counts else 0
            nxt = self._next(key, m, after, new_streak, board)
            if self.offered(key) and counts:
                yield "pass", None, self.passing_on(nxt), None
            else:
                yield "pass", None, None, nxt
        if after > 0:
            yield from self.plays(key, board, after, m)

    def plays(self, key: Key, board: str, after: int, m: int) -> Iterator[tuple[str, int, int | None, Key | None]]:
        """The mover's marks, each with ``after`` (their balance once paid) to spend."""
        bx, bo = key[1], key[2]
        for cell in range(9):
            if board[cell] == EMPTY:
                placed = board[:cell] + MARKS[m] + board[cell + 1:]
                left = after - CELL_COST[cell]
                nb = (left, bo) if m == 0 else (bx, left)
                if _winner_line(placed):
                    yield "play", cell, (1 if m == 0 else -1) * RESULT_WEIGHT + nb[0] - nb[1], None
                elif EMPTY not in placed:
                    margin = nb[0] - nb[1]
                    yield "play", cell, ((margin > 0) - (margin < 0)) * RESULT_WEIGHT + margin, None
                else:
                    yield "play", cell, None, self._next(key, m, left, 0, placed)

    def offered(self, key: Key) -> bool:
        """Whether the box offers a draw in this position (both have passed on long enough)."""
        return self.offer_after is not None and min(key[4], key[5]) >= self.offer_after

    def passing_on(self, key: Key) -> int:
        """What passing on in an offer position is worth; ``key`` is the other player's turn,
        with the draw still on offer. They place a mark if that is better for them than the
        draw; otherwise the passing goes on, and endless passing ends in the draw (at this
        position's balances). Offering never helps the one who offers (the other accepts only
        what is not worse for them), so it is left out here."""
        board, bx, bo, _, _, _, m = key
        after = (bx, bo)[m] + INCOME
        values = [bx - bo]
        if after > 0:
            values += [t if n is None else self.value(n) for _, _, t, n in self.plays(key, board, after, m)]
        return max(values) if m == 0 else min(values)

    @staticmethod
    def _next(key: Key, m: int, balance: int, streak: int, board: str) -> Key:
        _, bx, bo, x_played, sx, so, _ = key
        if m == 0:
            return board, balance, bo, True, streak, so, 1
        return board, bx, balance, x_played, sx, streak, 0

    # --- the search --------------------------------------------------------------------------

    def value(self, key: Key) -> int:
        """The position's value (see the module docstring), X maximizing."""
        key = _level(key)
        known = self.memo.get(key)
        if known is not None:
            return known
        best = None
        maximize = key[6] == 0
        for _, _, terminal, nxt in self.moves(key):
            v = terminal if nxt is None else self.value(nxt)
            if best is None or (v > best if maximize else v < best):
                best = v
        self.memo[key] = best
        return best

    def best_moves(self, key: Key, draw: bool = True) -> list[tuple[str, object, int]]:
        """Every optimal move of the position: (``play``/``pass``/``draw``, cell or None, value).

        A draw offer is listed (first) when one is on offer, ``draw`` is True and the draw is
        at least as good for the mover as playing on: the other player decides, so an offer can
        only lose value for the mover, never gain it. With ``draw`` False (the other player
        declined) the other moves only."""
        scored = [(kind, cell, terminal if nxt is None else self.value(nxt))
                  for kind, cell, terminal, nxt in self.moves(key)]
        pick = max if key[6] == 0 else min
        best = pick(v for _, _, v in scored)
        moves = [s for s in scored if s[2] == best]
        if draw and self.offered(key) and pick(key[1] - key[2], best) == key[1] - key[2]:
            moves.insert(0, ("draw", None, best))
        return moves


def _turned(cells: tuple[int, ...]) -> tuple[int, ...]:
    """A quarter turn of the board: the cell now at i was at cells[...]."""
    return tuple(cells[6 - 3 * (i % 3) + i // 3] for i in range(9))


def _symmetries() -> tuple[tuple[int, ...], ...]:
    cells = tuple(range(9))
    mirror = tuple(cells[3 * (i // 3) + 2 - i % 3] for i in range(9))
    out = []
    for start in (cells, mirror):
        for _ in range(4):
            out.append(start)
            start = _turned(start)
    return tuple(out)


SYMMETRIES = _symmetries()
"""The board's eight turns and mirror images: each keeps a cell's cost, so a position's value."""


@functools.lru_cache(maxsize=None)
def _board_class(board: str) -> tuple[str, int]:
    """(the board turned or mirrored to its least spelling, the cost of its empty cells)."""
    return (min("".join(map(board.__getitem__, s)) for s in SYMMETRIES),
            sum(CELL_COST[c] for c in range(9) if board[c] == EMPTY))


def _level(key: Key) -> Key:
    """The position's representative: the board turned or mirrored to its least spelling, and
    both balances lowered alike while both players stay rich.

    A player whose stored balance covers every empty cell can never be stopped from placing, and
    every outcome reads only the balance difference, so two rich players' position is worth the
    same at any common level: the lowest keeps the memo small (mutual passing would grow it).
    """
    canon, rich = _board_class(key[0])
    shift = max(min(key[1], key[2]) - rich, 0)
    return (canon, key[1] - shift, key[2] - shift) + key[3:]


START: Key = (EMPTY * 9, 0, 0, False, 0, 0, 0)


def key_of(state: PayToPlayState, solver: Solver) -> Key:
    """The solver's key of a live game state (the mover's marks as X/O, streaks capped)."""
    x = state.x
    o = 1 - x
    return (state.board, state.balances[x], state.balances[o], state.turns[x] > 0,
            min(state.streaks[x], solver.cap), min(state.streaks[o], solver.cap),
            0 if state.to_move == x else 1)


_SOLVERS: dict[tuple[bool, int], Solver] = {}
_READY: dict[tuple[bool, int], threading.Event] = {}


def solver_for(options: PayToPlayOptions) -> Solver:
    """One shared, lazily filled table per rule set."""
    k = (options.no_double_pass, options.draw_offer_after)
    if k not in _SOLVERS:
        _SOLVERS[k] = Solver(*k)
    return _SOLVERS[k]


def prepare(options: PayToPlayOptions) -> threading.Event:
    """Solve the rule set's whole table in a background thread, once; the event is set when it
    is done. The box's loop must not stop for the seconds a solve takes (tens on a Pi Zero), so
    the table starts this with the game and the bot moves once it is set."""
    k = (options.no_double_pass, options.draw_offer_after)
    if k not in _READY:
        _READY[k] = threading.Event()
        solver = solver_for(options)

        def work() -> None:
            solver.value(START)
            _READY[k].set()

        threading.Thread(target=work, name="paytoplay-solve", daemon=True).start()
    return _READY[k]


def best_action(state: PayToPlayState, draw: bool = True) -> dict:
    """The hard bot's move: the first optimal move of the solved table (a journal action).

    Several moves may be equally good; the first is the lowest cell, a pass or draw first, so
    the bot is deterministic. With ``draw`` False (the other player declined the draw) the best
    of the other moves. In a tournament it plays each game for that game's own result (the
    table knows no line bonus or totals).
    """
    solver = solver_for(state.options)
    kind, cell, _ = solver.best_moves(key_of(state, solver), draw)[0]
    if kind == "draw":
        return {"action": "draw"}
    action = {"action": kind, "player": state.to_move}
    if kind == "play":
        action["cell"] = cell
    return action


@dataclass(frozen=True)
class Solution:
    value: Value
    best_first: list[str]
    positions: int


def solve(no_double_pass: bool = False) -> Solution:
    """The whole game from the empty board, solved from scratch (every table emptied first)."""
    _board_class.cache_clear()
    _winner_line.cache_clear()
    solver = Solver(no_double_pass)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10_000))
    try:
        value = solver.value(START)
        best = solver.best_moves(START)
    finally:
        sys.setrecursionlimit(old)
    names = ["pass" if kind == "pass" else cell_name(cell) for kind, cell, _ in best if kind != "draw"]
    return Solution(Value.of(value), names, len(solver.memo))


def tictactoe() -> tuple[int, list[int]]:
    """Plain tic-tac-toe by minimax: (+1 X wins / 0 draw / -1 O wins, optimal first cells)."""
    memo: dict[str, int] = {}

    def value(board: str, mark: str) -> int:
        if board in memo:
            return memo[board]
        other = "O" if mark == "X" else "X"
        results = []
        for cell in range(9):
            if board[cell] == EMPTY:
                placed = board[:cell] + mark + board[cell + 1:]
                if _winner_line(placed):
                    results.append(1 if mark == "X" else -1)
                elif EMPTY not in placed:
                    results.append(0)
                else:
                    results.append(value(placed, other))
        memo[board] = max(results) if mark == "X" else min(results)
        return memo[board]

    start = EMPTY * 9
    best = value(start, "X")
    firsts = [c for c in range(9) if value(start[:c] + "X" + start[c + 1:], "O") == best]
    return best, firsts
