"""Studying the games: ``analyze`` a Triangle journal against the best statements, and ``solve``
Pay-to-Play under perfect play."""

from __future__ import annotations

import argparse

from .common import fail


def cmd_analyze(args: argparse.Namespace) -> int:
    """The coach over a Triangle journal: each spoken round's statement against the best one."""
    from ..bots.triangle import advice_for_round, label
    from ..games.triangle import ROUNDS_PER_TURN
    from ..record.journal import replay_file
    from ..untrusted import Unreadable

    try:  # with the journal reader's limits: /dev/zero or a FIFO is refused, not read forever
        header, match = replay_file(args.file, follow_symlinks=True)
    except Unreadable as e:
        return fail(str(e))
    if header.game != "triangle":
        return fail(f"{args.file}: companion analyze reads Triangle journals, and this is a game of "
                    f"{match.rules.title}")
    print(f"Triangle: {', '.join(header.players)}. Each statement against the best one for what "
          "the speaker knew (cards seen this turn and the RtS card; expected gain in lead: "
          "points if true, -3 if false).")
    history = match.state.history
    for i, done in enumerate(history):
        where = f"Turn {i // ROUNDS_PER_TURN + 1} round {i % ROUNDS_PER_TURN + 1}:"
        advice = advice_for_round(match.state, i)
        if advice is None:
            print(f"{where} {'a draw' if done.draw else 'void'}, nobody spoke")
            continue
        said = (f"{header.players[advice.claimer]} said {label(advice.said)} "
                f"({'true' if done.correct else 'false'}), {advice.said_chance:.0%} likely, "
                f"{_gain(advice.said_gain)} expected")
        if advice.said_gain >= advice.best_gain:
            print(f"{where} {said}: the best statement")
        else:
            print(f"{where} {said}; best was {label(advice.best)}, {advice.best_chance:.0%} likely, "
                  f"{_gain(advice.best_gain)} expected")
    return 0


def _gain(points: float) -> str:
    """``+1.50``, ``-0.38``; an even chance of gaining and losing is ``+0.00``, never ``-0.00``
    (a sum of odds lands a hair below zero)."""
    return f"{round(points, 2) + 0.0:+.2f}"


def cmd_solve(args: argparse.Namespace) -> int:
    """Pay-to-Play under perfect play, beside plain tic-tac-toe."""
    import time

    from ..bots.paytoplay import solve, tictactoe
    from ..games.paytoplay import CELL_NAMES

    started = time.perf_counter()
    solution = solve(args.no_double_pass)
    took = time.perf_counter() - started
    rule = ("with the house rule (no passing with a positive account, before income, twice in a row)"
            if args.no_double_pass else "as the seed plays it")
    print(f"Pay-to-Play Tic-Tac-Toe {rule}, under perfect play:")
    print(f"  {solution.value.words()}")
    best = "best first move for X" if solution.value.result >= 0 else "X loses whatever it does; its least bad first move"
    print(f"  {best}: {' or '.join(solution.best_first)}")
    print("  (cells 1 to 9 in reading order, as the station's menu steps through them)")
    print(f"  ({solution.positions:,} positions, {took:.1f} s)")
    value, firsts = tictactoe()
    print("Plain tic-tac-toe, under perfect play:")
    print(f"  {'a draw' if value == 0 else ('X' if value > 0 else 'O') + ' wins'}; "
          f"{'every first cell keeps it' if len(firsts) == 9 else 'best first cells: ' + ', '.join(CELL_NAMES[c] for c in firsts)}")
    print("Objective: a win beats a draw beats a loss; then the final balance difference. "
          "Endless passing ends in the draw the box offers, which the other player accepts or declines.")
    return 0


def add_analyze(sub: argparse._SubParsersAction) -> None:
    analyze = sub.add_parser("analyze", help="the coach over a Triangle journal: each statement against the best one",
                             description="Reads a Triangle journal and, for every round, sets the statement "
                                         "made against the best one for what the speaker knew (the cards seen "
                                         "this turn and the RtS card), with both expected gains.")
    analyze.add_argument("file", help="a Triangle journal file, e.g. from companion games")
    analyze.set_defaults(func=cmd_analyze)


def add_solve(sub: argparse._SubParsersAction) -> None:
    solve = sub.add_parser("solve", help="a game's value under perfect play (Pay-to-Play)",
                           description="Solves Pay-to-Play Tic-Tac-Toe under perfect play and prints its "
                                       "value and X's best first moves, beside plain tic-tac-toe's.")
    solve.add_argument("game", choices=("paytoplay",))
    solve.add_argument("--no-double-pass", action="store_true",
                       help="the house rule: no passing with a positive account (before the turn's "
                            "income) two turns in a row")
    solve.set_defaults(func=cmd_solve)
