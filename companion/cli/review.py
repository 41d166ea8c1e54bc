"""Looking back at played games: ``replay`` one journal (its result, reaction times, late presses,
or ``--explain`` in the players' words), list the ``games`` kept, and each player's ``history``."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from .common import default_journal_dir, fail, load_user_decks, output_folder, unwritable


PLAYER_NUMBERS = re.compile(r"\b[Pp]layers? (\d+(?:, \d+)*)\b")
"""``player 1`` or ``players 0, 2`` in the games' own descriptions, which number players from 0."""


def named(line: str, names: tuple[str, ...]) -> str:
    """A game's description line with each player index replaced by the name and the seat as
    the box numbers them, from 1: ``player 1 stated greater`` -> ``Ben (seat 2) stated greater``."""
    def name(match: re.Match) -> str:
        seats = [int(n) for n in match.group(1).split(", ")]
        if any(seat >= len(names) for seat in seats):
            return match.group(0)
        return " and ".join(f"{names[seat]} (seat {seat + 1})" for seat in seats)

    return PLAYER_NUMBERS.sub(name, line)


def cmd_replay(args: argparse.Namespace) -> int:
    from ..record.journal import JournalError, reaction_lines, read_journal, summary
    from ..arbiter.latepress import late_notes
    from ..record.recovery import ABANDONED
    from ..record.seats import flag, replayed
    from ..untrusted import Unreadable

    if problem := load_user_decks(args):
        return fail(problem)
    if args.explain:
        return _explain(args.file)
    try:
        lines = read_journal(args.file, follow_symlinks=True)
        header, match, spans = replayed(lines)
    except Unreadable as e:
        return fail(str(e))
    except JournalError as e:
        return fail(str(Unreadable(args.file, e.reason, e.line)))
    result = summary(header, match, lines)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{match.rules.title}: {', '.join(header.players)}")
    for seat, (name, score) in enumerate(zip(header.players, result["scores"]), start=1):
        bot = f", {flag(*spans[seat - 1])}" if seat - 1 in spans else ""
        print(f"  {name} (seat {seat}{bot}): {'the host' if seat == 1 and match.rules.host_seat else score}")
    if result["over"]:
        winners = [header.players[w] for w in result["winners"]]
        everyone = len(winners) == len(header.players) > 1
        print(("Result: a draw between " if everyone else "Result: won by ") + " and ".join(winners))
    elif str(args.file).endswith(ABANDONED):
        print("Abandoned by the players before the end.")
    else:
        print("Not over yet.")
    for line in match.rules.describe(match.state):
        print(named(line, header.players))
    if match.rules.name == "quiz":
        _quiz_story(header, match, lines)
    races = reaction_lines(lines, header.players)
    if races:
        print("Reaction times, each from the player's own screen:")
        for line in races:
            print("  " + line)
    late = late_notes(lines, len(header.players))
    if late:
        print("Late presses: the box decided before they arrived, and the verdict stood:")
        for note in late:
            print(f"  {note.t:.3f} s {note.told(header.players.__getitem__)}")
    return 0


def _quiz_story(header, match, lines) -> None:
    """A quiz night's story, as its panels and the table screen tell it at its end: each player's
    rank, right and wrong answers and fastest buzz, the closest races with their margins."""
    from ..record.quiz_night import night_races, night_story, story_lines

    story = night_story(match.state, night_races(lines))
    print("The night's story:" if match.outcome is not None else "The night so far:")
    for line in story_lines(story, header.players, bool(match.options.teams)):
        print("  " + line)


def _explain(path: str) -> int:
    """``replay --explain``: the story on stdout; a bad line ends it and exits 2."""
    from ..record.explain import explain
    from ..record.journal import read_journal
    from ..untrusted import Unreadable

    try:
        story, ok = explain(read_journal(path, follow_symlinks=True))
    except Unreadable as e:
        return fail(str(e))
    print("\n".join(story))
    return 0 if ok else 2


def no_directory(directory: Path) -> str:
    """Why a journal directory cannot be listed: it is not there (a typo lists no games)."""
    what = "is not a directory" if directory.exists() else "does not exist"
    return f"{directory} {what}: give the folder the box keeps its journals in (--journal-dir)"


def cmd_games(args: argparse.Namespace) -> int:
    """One line per past game, newest first: when, what, who, and how it ended."""
    from ..record.journal import JournalError, read_journal, summary
    from ..arbiter.latepress import late_notes, late_summary
    from ..games.base import standing
    from ..record.recovery import ABANDONED, journals
    from ..record.seats import flagged, replayed
    from ..untrusted import Unreadable

    if problem := load_user_decks(args):
        return fail(problem)
    directory = Path(args.journal_dir)
    if not directory.is_dir():
        return fail(no_directory(directory))
    paths = journals(directory)
    if not paths:
        print(f"no games in {directory}")
        return 0
    for path in reversed(paths):
        try:
            lines = read_journal(path)
            header, match, spans = replayed(lines)
        except Unreadable as e:
            print(f"{path.name}: unreadable ({e.detail})")
            continue
        except JournalError as e:
            print(f"{path.name}: unreadable ({e})")
            continue
        result = summary(header, match)
        if path.name.endswith(ABANDONED):
            state = "abandoned"
        elif result["over"] and len(result["winners"]) == len(header.players) > 1:
            state = "a draw"
        elif result["over"]:
            state = "won by " + " and ".join(header.players[w] for w in result["winners"])
        else:
            state = "not finished (offered on start)" if path == paths[-1] else "not finished"
        late = late_summary(late_notes(lines, len(header.players)))
        scores = standing(match.rules, header.players, result["scores"])
        bots = "; ".join(flagged(header.players[p], p, spans) for p in sorted(spans))
        print(f"{path.name}  {match.rules.title}  {scores}  {state}" + "".join(f"  {x}" for x in (bots, late) if x))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    """Per player across the journals: games played and won, points, reaction times; charts."""
    from ..record.history import as_json, plot, read_history, report

    if problem := load_user_decks(args):
        return fail(problem)
    directory = Path(args.journal_dir)
    if not directory.is_dir():
        return fail(no_directory(directory))
    history = read_history(directory)
    if not history.games and not history.unreadable:
        print(f"no games in {directory}")
        return 0
    if args.plot and (problem := output_folder("--plot", Path(args.plot))):
        return fail(problem)
    print(json.dumps(as_json(history)) if args.json else "\n".join(report(history)))
    if args.plot:
        try:
            for path in plot(history, Path(args.plot)):
                print(f"wrote {path}", file=sys.stderr if args.json else sys.stdout)
        except ImportError as e:
            return fail(f"--plot needs matplotlib (pip install \".[plot]\"): {e}")
        except OSError as e:
            return fail(unwritable("--plot", args.plot, e))
    return 0


def add_replay(sub: argparse._SubParsersAction) -> None:
    rep = sub.add_parser("replay", help="replay a game journal and print the result",
                         description="Reads a game journal (companion-journal/1) from the start and prints the "
                                     "players with their seats, the scores, how it ended and the game's last "
                                     "state, then every race's reaction times and any late press. A bad "
                                     "line exits 2 naming the line and the reason.")
    rep.add_argument("file", help="a journal file, e.g. from companion games")
    rep.add_argument("--json", action="store_true", help="print one JSON object")
    rep.add_argument("--explain", action="store_true",
                     help="tell each line in the players' words: who did what, who gained what and why")
    rep.add_argument("--decks", help="the word deck file the game was played with, if your own")
    rep.set_defaults(func=cmd_replay)


def add_games(sub: argparse._SubParsersAction) -> None:
    past = sub.add_parser("games", help="list past games (journals), newest first",
                          description="One line per game journal, newest first: the file, the game, the "
                                      "players, the scores, how it ended (won, abandoned, not finished) and "
                                      "how many late presses it had.")
    past.add_argument("--journal-dir", default=str(default_journal_dir()), help="where game journals are")
    past.add_argument("--decks", help="the word deck file of your own that Pictomania games were played with")
    past.set_defaults(func=cmd_games)


def add_history(sub: argparse._SubParsersAction) -> None:
    hist = sub.add_parser("history", help="per player across past games: played, won, points, reaction times",
                          description="Reads every journal in the state directory (or --dir) and sums up, per "
                                      "player, the games played and won of each kind, the points, and the "
                                      "reaction times of the races; unfinished and abandoned games are listed "
                                      "but not counted, an unreadable journal is named and skipped; then "
                                      "every game with a late press.")
    hist.add_argument("--journal-dir", "--dir", default=str(default_journal_dir()), help="where game journals are")
    hist.add_argument("--json", action="store_true", help="print one JSON object")
    hist.add_argument("--decks", help="the word deck file of your own that Pictomania games were played with")
    hist.add_argument("--plot", metavar="DIR", help="write PNG charts into DIR (needs matplotlib: pip install \".[plot]\")")
    hist.set_defaults(func=cmd_history)
