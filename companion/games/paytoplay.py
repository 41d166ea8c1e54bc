"""Pay-to-Play Tic-Tac-Toe (``pay-to-play-tictactoe.txt``): tic-tac-toe where every mark costs.

Each turn pays income (+1 on X's first turn of a game, +2 on every other turn). A mark costs one
point per line through its cell: edge 2, corner 3, centre 4. A player may place only with a
positive balance, which may then go negative; anyone may pass and keep the points, and a player
who cannot place passes automatically (:meth:`PayToPlay.auto_action`). Three in a row wins at
once; a full board with no line goes to the higher balance.

Income belongs to the turn, as in the seed ("Bob gets two points and plays on the left side"):
the recorded balances between turns do not include the income of the player about to move, so a
new game stands at 0 and 0 and the seed's "Bob's points: 0" after turn 1 is the state. The mover
is paid when they act: :func:`after_income` is the number that decides whether they may place
(and what their own station shows), and a pass keeps it. An agreed draw ends the game before the
mover's turn is played, so it credits no income for it.

X's income is odd and O's even, and on a full board both players hold an even number of the
four corners (the only odd costs) or both an odd number, so the final balances always differ in
parity: the rules' "equal balances is a draw" never happens. Shared wins come from an agreed draw
(below) or equal tournament totals.

Options (RULES-NOTES.md; the first two come from the seed's comments):

- ``no_double_pass``: a player may not pass with a positive account on two turns in a row. The
  account is the balance at the start of the turn, before its income, as the comment counts it
  ("if your account is at -2, you can pass three times; twice to get to 2, and once at 2"): a
  pass from an account of 0 or less never counts, so from -2 the passes at -2, 0 and 2 are
  allowed and the fourth (at 4) is refused.
- ``games``: a tournament of several games alternating who is X. A game adds both final
  balances to the tournament totals and ``line_bonus`` to a three-in-a-row winner; the highest
  total after the last game wins, equal totals share the win.
- ``draw_offer_after``: the fix for endless passing when the house rule is off. Once both players
  have passed by choice (with a positive balance) on each of their last ``draw_offer_after``
  turns, the box offers a draw. This extends the journal vocabulary with ``{"action": "draw"}``
  (no player: both agree at the table), which ends the game as a draw that both players win; in a
  tournament it adds the balances but no bonus. Under the house rule nobody can keep passing, so
  no draw is offered.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from . import register
from .base import Action, Outcome, Rules, each_player, need, player_field

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
CELL_COST = tuple(sum(cell in line for line in LINES) for cell in range(9))
"""One point per line through the cell: edge 2, corner 3, centre 4."""
CELL_NAMES = ("top-left corner", "top edge", "top-right corner", "left edge", "centre",
              "right edge", "bottom-left corner", "bottom edge", "bottom-right corner")


def cell_name(cell: int) -> str:
    """A cell (0-8 in actions and journals) as a player reads the station's board: 1 to 9 in
    reading order (the order the station's menu steps through), with where it is."""
    return f"cell {cell + 1} ({CELL_NAMES[cell]})"


FIRST_INCOME = 1
INCOME = 2
EMPTY = "."


@dataclass(frozen=True)
class PayToPlayOptions:
    """The lobby's choices for a game or a tournament (see the module docstring)."""

    no_double_pass: bool = field(default=False, metadata={
        "choices": (False, True),
        "help": "house rule: no passing with a positive account (before income) two turns in a row",
        "label": "no double pass", "brief": "no 2 passes in a row",
    })
    games: int = field(default=1, metadata={
        "min": 1, "choices": (1, 2, 4, 6),
        "help": "games in a tournament; X alternates, balances add up",
        "label": "games", "brief": "games in a tournament",
    })
    line_bonus: int = field(default=8, metadata={
        "min": 0, "choices": (0, 4, 8, 12),
        "help": "tournament points for a three in a row",
        "label": "line bonus", "brief": "points for 3 in a row",
    })
    draw_offer_after: int = field(default=3, metadata={
        "min": 1, "choices": (1, 2, 3, 5),
        "help": "offer a draw after this many passes by choice from each player in a row",
        "label": "draw offer after", "brief": "after N passes each",
    })


@dataclass(frozen=True)
class PayToPlayState:
    """One moment of a game (or tournament). ``board`` is row-major ``X``/``O``/``.``.

    ``balances`` hold no income for the turn about to be played (:func:`after_income` adds it).
    ``turns`` counts the turns each player has played in this game, which is what lets
    :meth:`PayToPlay.check_invariants` recompute every balance. ``streaks`` counts each player's
    counted passes in a row (:func:`_pass_counts`). ``to_move`` is None once everything is over.
    """

    options: PayToPlayOptions
    game: int
    totals: tuple[int, int]
    board: str
    balances: tuple[int, int]
    turns: tuple[int, int]
    streaks: tuple[int, int]
    to_move: int | None
    line: tuple[int, int, int] | None = None
    agreed_draw: bool = False

    @property
    def x(self) -> int:
        return _x_in(self.game)

    def mark(self, player: int) -> str:
        return "X" if player == self.x else "O"

    def owner(self, cell: int) -> int:
        return self.x if self.board[cell] == "X" else 1 - self.x


def _x_in(game: int) -> int:
    """Player 0 is X in odd games, player 1 in even ones."""
    return (game - 1) % 2


def _start_game(options: PayToPlayOptions, game: int, totals: tuple[int, int]) -> PayToPlayState:
    x = _x_in(game)
    return PayToPlayState(
        options=options, game=game, totals=totals, board=EMPTY * 9,
        balances=(0, 0), turns=(0, 0), streaks=(0, 0), to_move=x,
    )


def income(state: PayToPlayState, player: int) -> int:
    """What ``player``'s next turn pays: 1 on X's first turn of a game, 2 on every other."""
    return FIRST_INCOME if player == state.x and state.turns[player] == 0 else INCOME


def after_income(state: PayToPlayState, player: int) -> int:
    """``player``'s balance once their next turn's income is paid: what decides whether they
    may place, and what they keep by passing."""
    return state.balances[player] + income(state, player)


def _bump(pair: tuple[int, int], player: int, amount: int) -> tuple[int, int]:
    return (pair[0] + amount, pair[1]) if player == 0 else (pair[0], pair[1] + amount)


def _set(pair: tuple[int, int], player: int, value: int) -> tuple[int, int]:
    return _bump(pair, player, value - pair[player])


def _completed_lines(board: str) -> list[tuple[int, int, int]]:
    return [line for line in LINES
            if board[line[0]] != EMPTY and len({board[c] for c in line}) == 1]


def _leaders(values: tuple[int, int]) -> tuple[int, ...]:
    return tuple(p for p, v in enumerate(values) if v == max(values))


def _draw_offered(state: PayToPlayState) -> bool:
    options = state.options
    return (state.to_move is not None and not options.no_double_pass
            and min(state.streaks) >= options.draw_offer_after)


def _pass_counts(state: PayToPlayState, player: int) -> bool:
    """Whether a pass now counts towards a streak. Under the house rule: a pass with a positive
    account before this turn's income (the seed's comment's count). Otherwise: a pass by
    choice (positive after income), which is what leads to the draw offer."""
    if state.options.no_double_pass:
        return state.balances[player] > 0
    return after_income(state, player) > 0


def _pass_refused(state: PayToPlayState, player: int) -> bool:
    """The house rule: a counted pass right after another one."""
    return state.options.no_double_pass and state.streaks[player] > 0 and _pass_counts(state, player)


class PayToPlay(Rules):
    name = "paytoplay"
    title = "Pay-to-Play Tic-Tac-Toe"
    bots_play = True
    scores_are = "balances"
    min_players = 2
    max_players = 2
    Options = PayToPlayOptions
    actions = ("play", "pass", "draw")

    def takeback_refusal(self, before: PayToPlayState, action: Action, after: PayToPlayState) -> str | None:
        """A mark or a pass by choice may be taken back until the other player moves; not one
        that ended a game (of a tournament too: the next game has begun), nor an agreed draw."""
        if action.get("action") == "draw":
            return "an agreed draw cannot be taken back"
        if after.game != before.game:
            return "that game is over"
        return None

    def new(self, players: int, options: Any) -> PayToPlayState:
        """A first game with player 0 as X; ``options`` may also be a mapping to parse."""
        return _start_game(self.checked_options(players, options), game=1, totals=(0, 0))

    def to_move(self, state: PayToPlayState) -> tuple[int, ...]:
        return () if state.to_move is None else (state.to_move,)

    def legal_actions(self, state: PayToPlayState) -> list[dict[str, Any]]:
        p = state.to_move
        if p is None:
            return []
        actions: list[dict[str, Any]] = []
        if not _pass_refused(state, p):
            actions.append({"action": "pass", "player": p})
        if _draw_offered(state):
            actions.append({"action": "draw"})
        if after_income(state, p) > 0:
            actions += [{"action": "play", "player": p, "cell": c}
                        for c in range(9) if state.board[c] == EMPTY]
        return actions

    def auto_action(self, state: PayToPlayState) -> dict[str, Any] | None:
        """The forced pass of a player whose balance after income is not positive."""
        p = state.to_move
        if p is not None and after_income(state, p) <= 0:
            return {"action": "pass", "player": p}
        return None

    def apply(self, state: PayToPlayState, action: Action) -> PayToPlayState:
        kind = self.action_kind(action)
        need(state.to_move is not None, "the game is over")
        if kind == "draw":
            need(not state.options.no_double_pass,
                 "no draws by agreement under the no-double-pass house rule")
            need(_draw_offered(state),
                 "a draw can be agreed only when both players have passed by choice on each of "
                 f"their last {state.options.draw_offer_after} turns")
            return self._end_game(replace(state, agreed_draw=True))
        p = player_field(action, 2)
        need(p == state.to_move, f"it is player {state.to_move}'s turn, not player {p}'s")
        balance = after_income(state, p)
        if kind == "pass":
            need(not _pass_refused(state, p),
                 "house rule: you may not pass with a positive account two turns in a row "
                 f"(yours was {state.balances[p]} before this turn's income): play a cell")
            streak = state.streaks[p] + 1 if _pass_counts(state, p) else 0
            return self._end_turn(state, balances=_set(state.balances, p, balance),
                                  streaks=_set(state.streaks, p, streak))
        cell = action.get("cell")
        need(not isinstance(cell, bool) and isinstance(cell, int) and 0 <= cell < 9,
             f"'cell' must be a cell from 0 to 8 (row-major), not {cell!r}")
        need(balance > 0, f"you need a positive balance to play: yours is {balance} after your income")
        need(state.board[cell] == EMPTY, f"cell {cell} is already taken")
        return self._end_turn(
            state,
            board=state.board[:cell] + state.mark(p) + state.board[cell + 1:],
            balances=_set(state.balances, p, balance - CELL_COST[cell]),
            streaks=_set(state.streaks, p, 0),
        )

    def _end_turn(self, state: PayToPlayState, **move: Any) -> PayToPlayState:
        """``state`` with the mover's ``move`` (its fields' new values) and their turn counted as
        played, then stopped at a line or a full board, or handed over: one ``replace`` for the
        whole turn, since a journal's replay makes one turn per line."""
        board = move.get("board", state.board)
        turns = _bump(state.turns, state.to_move, 1)
        lines = _completed_lines(board)
        if lines or EMPTY not in board:
            return self._end_game(replace(state, **move, turns=turns, line=lines[0] if lines else None))
        return replace(state, **move, turns=turns, to_move=1 - state.to_move)

    def _end_game(self, state: PayToPlayState) -> PayToPlayState:
        """Score a finished game into the totals, then start the next game or stop."""
        totals = (state.totals[0] + state.balances[0], state.totals[1] + state.balances[1])
        if state.line:
            totals = _bump(totals, state.owner(state.line[0]), state.options.line_bonus)
        if state.game < state.options.games:
            return _start_game(state.options, state.game + 1, totals)
        return replace(state, totals=totals, to_move=None)

    def outcome(self, state: PayToPlayState) -> Outcome | None:
        if state.to_move is not None:
            return None
        if state.options.games > 1:
            winners = _leaders(state.totals)
        elif state.line:
            winners = (state.owner(state.line[0]),)
        elif state.agreed_draw:
            winners = (0, 1)
        else:
            winners = _leaders(state.balances)
        return Outcome(winners, self.scores(state), self.detail(state))

    def scores(self, state: PayToPlayState) -> tuple[int, int]:
        """Balances for a single game, tournament totals for a series."""
        return state.balances if state.options.games == 1 else state.totals

    def detail(self, state: PayToPlayState) -> dict[str, Any]:
        return {
            "board": state.board,
            "balances": list(state.balances),
            "line": list(state.line) if state.line else None,
            "game": state.game,
            "games": state.options.games,
            "totals": list(state.totals),
            "x": state.x,
            "to_move": state.to_move,
        }

    def describe(self, state: PayToPlayState) -> list[str]:
        rows = [" ".join(state.board[r * 3:r * 3 + 3]) for r in range(3)]
        marks = [f"{state.mark(p)}: balance {state.balances[p]}" for p in (0, 1)]
        lines = [f"  {row}    {mark}" for row, mark in zip(rows, marks + [""])]
        if state.options.games > 1:
            lines.append(f"Game {state.game} of {state.options.games}, totals: {each_player(state.totals)}")
        return [line.rstrip() for line in lines]

    def check_invariants(self, state: PayToPlayState) -> None:
        over = state.to_move is None
        assert 1 <= state.game <= state.options.games, "game number within the tournament"
        assert len(state.board) == 9 and set(state.board) <= {"X", "O", EMPTY}, "a 3x3 board"
        x, o = state.x, 1 - state.x
        assert state.turns[x] - state.turns[o] in (0, 1), "X and O alternate, X first"
        if not over:
            assert (state.to_move == x) == (state.turns[x] == state.turns[o]), "turn order"
        for p in (0, 1):
            cells = [c for c in range(9) if state.board[c] == state.mark(p)]
            finished_turns = state.turns[p]
            assert len(cells) <= finished_turns, "at most one mark per played turn"
            income = INCOME * state.turns[p] - (INCOME - FIRST_INCOME) * (p == x and state.turns[p] > 0)
            assert state.balances[p] == income - sum(CELL_COST[c] for c in cells), \
                "balance is income minus the cost of the player's marks"
            assert state.balances[p] >= 1 - max(CELL_COST), "only a positive balance may place"
            assert 0 <= state.streaks[p] <= finished_turns, "passes by choice are finished turns"
            if state.options.no_double_pass:
                assert state.streaks[p] <= 1, "house rule: no two passes by choice in a row"
        lines = _completed_lines(state.board)
        assert (state.line in lines) if lines else state.line is None, "a line ends the game"
        if over:
            assert state.game == state.options.games, "a tournament ends after its last game"
            assert state.line or state.agreed_draw or EMPTY not in state.board, \
                "a game ends with a line, an agreed draw or a full board"
        else:
            assert not state.agreed_draw and EMPTY in state.board, "a live game has a free cell"
            if state.game == 1:
                assert state.totals == (0, 0), "totals count finished games only"
        assert not (state.agreed_draw and state.line), "a line wins, it is no draw"


register(PayToPlay())
