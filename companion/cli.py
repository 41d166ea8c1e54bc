"""The ``companion`` command. Imports are deferred into each command so ``--help`` stays fast."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from .profile import MAX_SIMULATED, MIN_STATIONS


def default_journal_dir() -> Path:
    """systemd's StateDirectory when run as the service, else the user's state directory."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0]) / "games"
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "companion" / "games"


def journal_dir(args: argparse.Namespace, scripted: bool) -> Path:
    """``--journal-dir`` if given; else a fresh temporary folder for a scripted or screenshot run
    (so a script never leaves an unfinished game for the box to offer next time, nor finds one),
    and the state directory otherwise."""
    if args.journal_dir:
        return Path(args.journal_dir)
    if scripted:
        import tempfile

        path = Path(tempfile.mkdtemp(prefix="companion-games-"))
        print(f"journals of this scripted run: {path}", file=sys.stderr)
        return path
    return default_journal_dir()


def settings_file(journals: Path) -> Path:
    """The box settings beside the journals: ``settings.json`` in the state directory when the
    journals are in its ``games`` folder, else in the journal folder itself."""
    return journals.parent / "settings.json" if journals == default_journal_dir() else journals / "settings.json"


def _fail(message: str) -> int:
    print(f"companion: {message}", file=sys.stderr)
    return 2


def _load_user_decks(args: argparse.Namespace) -> str | None:
    """Make the decks of ``--decks FILE`` known to the games; the problem as text if the file is bad."""
    if not getattr(args, "decks", None):
        return None
    from .words import DeckError, load_decks, use_user_decks

    try:
        use_user_decks(load_decks(args.decks))
    except DeckError as e:
        return str(e)
    return None


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
    from .record.journal import JournalError, reaction_lines, read_journal, replay, summary
    from .arbiter.latepress import late_notes
    from .record.recovery import ABANDONED
    from .untrusted import Unreadable

    if problem := _load_user_decks(args):
        return _fail(problem)
    if args.explain:
        return _explain(args.file)
    try:
        lines = read_journal(args.file, follow_symlinks=True)
        header, match = replay(lines)
    except Unreadable as e:
        return _fail(str(e))
    except JournalError as e:
        return _fail(str(Unreadable(args.file, e.reason, e.line)))
    result = summary(header, match, lines)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{match.rules.title}: {', '.join(header.players)}")
    for seat, (name, score) in enumerate(zip(header.players, result["scores"]), start=1):
        print(f"  {name} (seat {seat}): {score}")
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


def _explain(path: str) -> int:
    """``replay --explain``: the story on stdout; a bad line ends it and exits 2."""
    from .record.explain import explain
    from .record.journal import read_journal
    from .untrusted import Unreadable

    try:
        story, ok = explain(read_journal(path, follow_symlinks=True))
    except Unreadable as e:
        return _fail(str(e))
    print("\n".join(story))
    return 0 if ok else 2


def cmd_games(args: argparse.Namespace) -> int:
    """One line per past game, newest first: when, what, who, and how it ended."""
    from .record.journal import JournalError, read_journal, replay, summary
    from .arbiter.latepress import late_notes, late_summary
    from .record.recovery import ABANDONED, journals
    from .untrusted import Unreadable

    directory = Path(args.journal_dir)
    paths = journals(directory)
    if not paths:
        print(f"no games in {directory}")
        return 0
    for path in reversed(paths):
        try:
            lines = read_journal(path)
            header, match = replay(lines)
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
        print(f"{path.name}  {match.rules.title}  {', '.join(header.players)}  "
              f"scores {result['scores']}  {state}" + (f"  {late}" if late else ""))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    """Per player across the journals: games played and won, points, reaction times; charts."""
    from .record.history import as_json, plot, read_history, report

    directory = Path(args.journal_dir)
    history = read_history(directory)
    if not history.games and not history.unreadable:
        print(f"no games in {directory}")
        return 0
    print(json.dumps(as_json(history)) if args.json else "\n".join(report(history)))
    if args.plot:
        try:
            for path in plot(history, Path(args.plot)):
                print(f"wrote {path}", file=sys.stderr if args.json else sys.stdout)
        except ImportError as e:
            return _fail(f"--plot needs matplotlib (pip install \".[plot]\"): {e}")
    return 0


def _check_files(paths: list[str], load, error: type[Exception], describe, warnings) -> int:
    """Load each file; print ``PATH: ok (what it holds)`` and any warnings, or every problem;
    2 if any was bad."""
    status = 0
    for path in paths:
        try:
            loaded = load(path)
        except error as e:
            print(f"companion: {e}", file=sys.stderr)
            status = 2
            continue
        print(f"{path}: ok ({describe(loaded)})")
        for warning in warnings(loaded):
            print(f"  warning: {warning}")
    return status


def cmd_profile_check(args: argparse.Namespace) -> int:
    from .profile import ProfileError, load_profile, warnings

    return _check_files(args.files, load_profile, ProfileError,
                        lambda p: f"{p.name}, {len(p.stations)} stations, backend {p.backend}"
                                  + (f", button board on {p.board.port}" if p.board else ""), warnings)


def cmd_profile_overlays(args: argparse.Namespace) -> int:
    """The config.txt lines a profile's display buses need (for systemd/install.sh), one a line."""
    from .profile import ProfileError, boot_config, load_profile, unknown_buses

    try:
        profile = load_profile(args.file)
    except ProfileError as e:
        return _fail(str(e))
    for line in boot_config(profile):
        print(line)
    for port in unknown_buses(profile):
        print(f"companion: display bus {port} is not one the installer sets up: provide /dev/i2c-{port} "
              "yourself (e.g. an i2c-mux overlay)", file=sys.stderr)
    return 0


def cmd_profile_diagram(args: argparse.Namespace) -> int:
    from .diagram import wiring_svg, wiring_table
    from .profile import ProfileError, load_profile

    try:
        profile = load_profile(args.file)
    except ProfileError as e:
        return _fail(str(e))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, text in (("wiring.svg", wiring_svg(profile)), ("wiring.md", wiring_table(profile))):
        (out / name).write_text(text, encoding="utf-8")
        print(f"wrote {out / name}")
    return 0


def option_settings(items: list[str]) -> dict[str, dict[str, object]]:
    """``GAME.NAME=VALUE`` settings from ``--option``, each checked against that game's options."""
    from .games import get
    from .games.options import option_from_text, parse_options

    settings: dict[str, dict[str, object]] = {}
    for item in items:
        key, _, text = item.partition("=")
        game, _, name = key.partition(".")
        if not (game and name and "=" in item):
            raise ValueError(f"--option {item!r}: expected GAME.NAME=VALUE, e.g. trio.tier=easy")
        try:
            rules = get(game)
            settings.setdefault(game, {})[name] = option_from_text(rules.Options, name, text)
            parse_options(rules.Options, settings[game])
        except (KeyError, ValueError) as e:
            raise ValueError(f"--option {item!r}: {e.args[0]}") from None
    return settings


def bot_settings(args: argparse.Namespace, stations: int) -> dict[int, str]:
    """Seat (0-based) -> level from ``--bot SEAT=LEVEL`` (seats count from 1) and ``--bots LEVEL``
    (each one the next seat after the stations); ValueError naming what is wrong."""
    from .table.bots import seats_with

    bots: dict[int, str] = {}
    for text in getattr(args, "bot", None) or []:
        seat, sep, level = text.partition("=")
        if not sep or not seat.isdigit() or int(seat) < 1:
            raise ValueError(f"--bot {text!r}: write SEAT=LEVEL with a seat from 1, e.g. --bot 3=hard")
        bots[int(seat) - 1] = level
    for i, level in enumerate(getattr(args, "bots", None) or []):
        bots[stations + i] = level
    seats_with(bots, stations)
    return bots


def _run_daemon(profile_path: Path, args: argparse.Namespace, script_path: Path | None) -> int:
    import asyncio

    from .daemon import Daemon
    from .logs import setup_logging
    from .profile import ProfileError, load_profile
    from .script import ScriptError, load_script
    from .tablescreen import TableScreenError

    setup_logging()
    if problem := _load_user_decks(args):
        return _fail(problem)
    try:
        profile = load_profile(profile_path)
        presses = load_script(script_path, len(profile.stations)) if script_path else None
        defaults = option_settings(args.option)
        bots = bot_settings(args, len(profile.stations))
    except (ProfileError, ScriptError, OSError, ValueError) as e:
        return _fail(str(e))
    if presses is not None and profile.backend != "mock":
        return _fail("a script drives simulated pins: use a profile with backend = \"mock\"")
    journals = journal_dir(args, presses is not None)
    try:
        daemon = Daemon(profile, journals, seed=args.seed, defaults=defaults, settings_path=settings_file(journals),
                        bots=bots)
    except TableScreenError as e:
        return _fail(str(e))
    except OSError as e:
        return _fail(f"journal directory {journals}: {e.strerror or e}")
    try:
        if presses is None:
            asyncio.run(daemon.serve())
        else:
            asyncio.run(daemon.play_script(presses, speed=args.speed))
        if args.snapshots:
            for path in daemon.snapshots(Path(args.snapshots)):
                print(f"wrote {path}")
    except KeyboardInterrupt:
        pass
    finally:
        daemon.close()
    return 0


def cmd_words_check(args: argparse.Namespace) -> int:
    from .words import DeckError, deck_warnings, load_decks

    return _check_files(args.files, load_decks, DeckError,
                        lambda decks: ", ".join(f"{d.name}: {len(d.cards)} cards" for d in decks), deck_warnings)


def cmd_words_print(args: argparse.Namespace) -> int:
    from . import words
    from .words.sheet import save
    from .words.vector import CardsError

    if problem := _load_user_decks(args):
        return _fail(problem)
    try:
        chosen = [words.find(name) for name in args.deck] if args.deck else list(words.catalogue().values())
    except KeyError as e:
        return _fail(e.args[0])
    try:
        written = save(chosen, args.out)
    except CardsError as e:
        return _fail(str(e))
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    return _run_daemon(Path(args.profile), args, Path(args.script) if args.script else None)


DEMOS = {"triangle": ("triangle.toml", "triangle.txt", None, ["triangle.countdown_ms=250"]),
         "paytoplay": ("profile.toml", "paytoplay.txt", 4.0, []),
         "quiz": ("quiz.toml", "quiz.txt", None, [])}
"""Each demo game's profile and script (in ``companion/demo/``), the script's default speed (None:
only its own pace) and the options it plays with. Triangle's race is timed by the box's clock, so
its script runs at the box's own pace (faster, its slaps come before the race opens: false
starts, no race) and a short countdown keeps the demo short."""


def cmd_demo(args: argparse.Namespace) -> int:
    demo = Path(__file__).parent / "demo"
    profile, script, speed, options = DEMOS[args.game]
    if speed is None and args.speed not in (None, 1.0):
        return _fail(f"the {args.game} demo plays at its own pace (its race runs on the box's clock): "
                     "leave out --speed")
    args.speed = (speed or 1.0) if args.speed is None else args.speed
    args.option = options + args.option
    args.snapshots = args.out
    args.journal_dir = args.out
    status = _run_daemon(demo / profile, args, demo / script)
    if status == 0:
        print(f"Demo game played; journal and station images in {args.out}/")
    return status


HEADLESS = """Without a display, play a game headlessly instead:
  companion demo                       the demo game on simulated buttons, screens saved as PNG
  companion run --profile FILE --script S --snapshots DIR
                                       your own script of timed presses on a mock profile"""


def on_pi_hardware() -> bool:
    try:
        return Path("/proc/device-tree/model").read_text(errors="replace").startswith("Raspberry Pi")
    except OSError:
        return False


def screen_size(text: str) -> tuple[int, int]:
    """``1280x720`` as (1280, 720)."""
    try:
        width, height = (int(n) for n in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be WIDTHxHEIGHT, e.g. 1280x720, not {text!r}") from None
    if not (320 <= width <= 7680 and 180 <= height <= 4320):
        raise argparse.ArgumentTypeError(f"must be from 320x180 to 7680x4320, not {text!r}")
    return width, height


def cmd_sim(args: argparse.Namespace) -> int:
    import asyncio

    from .logs import setup_logging
    from .profile import ProfileError, load_profile
    from .script import ScriptError, load_script

    if args.screenshot:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    else:
        from .sim import display_problem

        problem = display_problem()
        if problem:
            return _fail(f"cannot open the simulator window: {problem}.\n{HEADLESS}")
    try:
        from .sim.app import Simulator, players_profile
    except ImportError as e:
        return _fail(f"the simulator needs pygame (pip install \".[sim]\"): {e}")
    setup_logging()
    if problem := _load_user_decks(args):
        return _fail(problem)
    try:
        profile = load_profile(args.profile) if args.profile else players_profile(args.players)
        presses = load_script(args.script, len(profile.stations)) if args.script else None
        bots = bot_settings(args, len(profile.stations))
        defaults = option_settings(args.option)
    except (ProfileError, ScriptError, OSError, ValueError) as e:
        return _fail(str(e))
    journals = journal_dir(args, presses is not None or bool(args.screenshot))
    try:
        sim = Simulator(profile, journals, seed=args.seed, defaults=defaults,
                        scale=args.scale or (3 if args.screenshot else None),
                        settings_path=settings_file(journals), table_screen=args.table_screen, bots=bots)
    except OSError as e:
        return _fail(f"journal directory {journals}: {e.strerror or e}")
    try:
        if args.screenshot:
            asyncio.run(sim.screenshot(Path(args.screenshot), presses, args.speed))
            print(f"wrote {args.screenshot}")
        else:
            asyncio.run(sim.run(presses, args.speed))
    except KeyboardInterrupt:
        pass
    finally:
        sim.close()
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    """The coach over a Triangle journal: each spoken round's statement against the best one."""
    from .bots.triangle import advice_for_round, label
    from .games.triangle import ROUNDS_PER_TURN
    from .record.journal import replay_file
    from .untrusted import Unreadable

    try:  # with the journal reader's limits: /dev/zero or a FIFO is refused, not read forever
        header, match = replay_file(args.file, follow_symlinks=True)
    except Unreadable as e:
        return _fail(str(e))
    if header.game != "triangle":
        return _fail(f"{args.file}: companion analyze reads Triangle journals, not {header.game!r}")
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
                f"{advice.said_gain:+.2f} expected")
        if advice.said_gain >= advice.best_gain:
            print(f"{where} {said}: the best statement")
        else:
            print(f"{where} {said}; best was {label(advice.best)}, {advice.best_chance:.0%} likely, "
                  f"{advice.best_gain:+.2f} expected")
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    """Pay-to-Play under perfect play, beside plain tic-tac-toe."""
    import time

    from .bots.paytoplay import solve, tictactoe

    started = time.perf_counter()
    solution = solve(args.no_double_pass)
    took = time.perf_counter() - started
    rule = "with the house rule (no passing twice in a row)" if args.no_double_pass else "as the seed plays it"
    print(f"Pay-to-Play Tic-Tac-Toe {rule}, under perfect play:")
    print(f"  {solution.value.words()}")
    print(f"  best first move for X: {' or '.join(solution.best_first)}")
    print(f"  ({solution.positions:,} positions, {took:.1f} s)")
    value, firsts = tictactoe()
    print("Plain tic-tac-toe, under perfect play:")
    print(f"  {'a draw' if value == 0 else ('X' if value > 0 else 'O') + ' wins'}; "
          f"{'every first cell keeps it' if len(firsts) == 9 else 'best first cells ' + str(firsts)}")
    print("Objective: a win beats a draw beats a loss; then the final balance difference. "
          "Endless passing ends in the draw the box offers.")
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    """Walk a maker through every button, display and buzzer cue under display load; exit 1 if a
    button never reported a press, a display is not working, or the GPIO latency bound does not
    cover the delays measured."""
    import asyncio

    from .daemon import Daemon
    from .logs import setup_logging
    from .profile import ProfileError, load_profile
    from .script import ScriptError, load_script
    from .selftest import LOAD_FRAME_NS, SelfTest

    setup_logging()
    try:
        profile = load_profile(args.profile)
        presses = load_script(args.script, len(profile.stations)) if args.script else None
    except (ProfileError, ScriptError, OSError) as e:
        return _fail(str(e))
    selftest = SelfTest(tuple(st.name for st in profile.stations), frame_every_ns=LOAD_FRAME_NS)
    daemon = Daemon(profile, referee=selftest)
    print("Press every button on every station; each display shows its station number while "
          "every display is written as fast as the bus allows, to measure how late presses arrive. "
          "Ctrl-C to stop.", flush=True)
    try:
        if presses is None:
            asyncio.run(daemon.serve())
        else:
            asyncio.run(daemon.play_script(presses, speed=args.speed))
    except KeyboardInterrupt:
        pass
    finally:
        daemon.close()
    dead = daemon.box.displays.down()
    print(selftest.report(dead))
    covered, delivery = daemon.delivery.check()
    print(delivery)
    return 0 if selftest.complete and covered and not dead else 1


def speed(text: str) -> float:
    """``--speed``: a finite number above 0 (argparse exits 2 with this message otherwise)."""
    from .untrusted import finite_number

    try:
        value = finite_number(text, "--speed")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if not 0.01 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"--speed must be from 0.01 to 1000 (times faster), not {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Tabletop Companion: the box that referees tabletop games with fair, hardware-timed buttons.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def speed_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--speed", type=speed, default=1.0, help="play a script this many times faster")

    def runner_options(p: argparse.ArgumentParser) -> None:
        """Options of every command that runs games on the box."""
        speed_option(p)
        p.add_argument("--seed", type=int, default=None, help="seed the chance draws (deals, words)")
        p.add_argument("--option", action="append", default=[], metavar="GAME.NAME=VALUE",
                       help="a game option the lobby starts from, e.g. trio.word_file=~/words.txt (repeatable)")
        p.add_argument("--decks", help="a file of your own Pictomania word decks (see companion words)")

    def bot_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--bots", action="append", choices=("easy", "hard"), metavar="LEVEL",
                       help="a bot (easy or hard) in the next seat after the stations, e.g. two "
                            "players and --bots hard play Triangle (repeatable)")
        p.add_argument("--bot", action="append", metavar="SEAT=LEVEL",
                       help="seat SEAT (from 1) is a bot, easy or hard; it counts as joined when "
                            "players take their seats (repeatable)")

    run = sub.add_parser("run", help="run the box from a hardware profile",
                         description="Runs the box: buttons, displays, buzzer and lights as the profile wires "
                                     "them, until stopped (the service runs this). With --script, simulated "
                                     "pins are pressed from a script of timed presses and the run stops after "
                                     "it; --snapshots then saves each station's last screen.")
    run.add_argument("--profile", required=True, help="hardware profile (TOML), see hardware/profiles/")
    run.add_argument("--script", help="drive simulated buttons from a script of timed presses")
    run.add_argument("--snapshots", help="write each station's final screen as PNG into this folder")
    run.add_argument("--journal-dir", help="where game journals go (default: the state directory; "
                                           "a temporary folder with --script)")
    runner_options(run)
    bot_options(run)
    run.set_defaults(func=cmd_run)

    demo = sub.add_parser("demo", help="play a scripted demo game headlessly and write the station images",
                          description="Plays a scripted game on simulated buttons without any display and "
                                      "writes its journal and every station's last screen as PNG: a round of "
                                      "Triangle with a race (default), or the seed game of Pay-to-Play.")
    demo.add_argument("--out", default="demo-out", help="folder for the journal and PNGs (default demo-out)")
    demo.add_argument("--game", choices=sorted(DEMOS), default="triangle", help="which demo (default triangle)")
    runner_options(demo)
    demo.set_defaults(func=cmd_demo, speed=None)

    sim = sub.add_parser("sim", help="the whole box in a window: keys and clicks are the buttons (needs pygame)",
                         description="Every station's screen and buttons in one window. Each station's keys are "
                                     "printed on its buttons (station 1: Q, then A S D for left, ok, right); "
                                     "F1 turns the sound off and on; Esc asks before quitting.")
    stations = sim.add_mutually_exclusive_group()
    stations.add_argument("--players", type=int, default=3, choices=range(MIN_STATIONS, MAX_SIMULATED + 1),
                          help="how many stations (default 3)")
    stations.add_argument("--profile", help="take the stations (names, panel sizes, timing) from a hardware profile")
    sim.add_argument("--script", help="a script of timed presses to play in the window")
    sim.add_argument("--screenshot", metavar="FILE",
                     help="start up (and play the script), save the window as PNG and exit; needs no display")
    sim.add_argument("--scale", type=int, choices=range(1, 7), help="screen pixels per OLED pixel (default: fit the screen)")
    sim.add_argument("--journal-dir", help="where game journals go (default: the state directory; "
                                           "a temporary folder with --script or --screenshot)")
    sim.add_argument("--table-screen", nargs="?", const=(1280, 720), type=screen_size, metavar="WxH",
                     help="open the table screen (the public state, as on a TV) in a second window "
                          "(default 1280x720); with --screenshot it is saved as FILE.table.png")
    runner_options(sim)
    bot_options(sim)
    sim.set_defaults(func=cmd_sim)

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

    analyze = sub.add_parser("analyze", help="the coach over a Triangle journal: each statement against the best one",
                             description="Reads a Triangle journal and, for every round, sets the statement "
                                         "made against the best one for what the speaker knew (the cards seen "
                                         "this turn and the RtS card), with both expected gains.")
    analyze.add_argument("file", help="a Triangle journal file, e.g. from companion games")
    analyze.set_defaults(func=cmd_analyze)

    solve = sub.add_parser("solve", help="a game's value under perfect play (Pay-to-Play)",
                           description="Solves Pay-to-Play Tic-Tac-Toe under perfect play and prints its "
                                       "value and X's best first moves, beside plain tic-tac-toe's.")
    solve.add_argument("game", choices=("paytoplay",))
    solve.add_argument("--no-double-pass", action="store_true",
                       help="the house rule: no passing with a positive balance two turns in a row")
    solve.set_defaults(func=cmd_solve)

    test = sub.add_parser("selftest", help="check every button, display and buzzer cue of a built box",
                          description="Shows each station's number on its display, plays every buzzer cue in "
                                      "turn and reports each button as it is pressed; a station's light comes "
                                      "on once all its buttons were pressed, while every display is kept busy to measure how "
                                      "late presses arrive. Exits 1 if a button never reported a press, a "
                                      "display is not working or timing.gpio_latency_ms does not cover the "
                                      "delays measured.")
    test.add_argument("--profile", required=True, help="hardware profile (TOML)")
    test.add_argument("--script", help="press from a script instead (simulated pins)")
    speed_option(test)
    test.set_defaults(func=cmd_selftest)

    past = sub.add_parser("games", help="list past games (journals), newest first",
                          description="One line per game journal, newest first: the file, the game, the "
                                      "players, the scores, how it ended (won, abandoned, not finished) and "
                                      "how many late presses it had.")
    past.add_argument("--journal-dir", default=str(default_journal_dir()), help="where game journals are")
    past.set_defaults(func=cmd_games)

    hist = sub.add_parser("history", help="per player across past games: played, won, points, reaction times",
                          description="Reads every journal in the state directory (or --dir) and sums up, per "
                                      "player, the games played and won of each kind, the points, and the "
                                      "reaction times of the races; unfinished and abandoned games are listed "
                                      "but not counted, an unreadable journal is named and skipped; then "
                                      "every game with a late press.")
    hist.add_argument("--journal-dir", "--dir", default=str(default_journal_dir()), help="where game journals are")
    hist.add_argument("--json", action="store_true", help="print one JSON object")
    hist.add_argument("--plot", metavar="DIR", help="write PNG charts into DIR (needs matplotlib: pip install \".[plot]\")")
    hist.set_defaults(func=cmd_history)

    prof = sub.add_parser("profile", help="hardware profile tools",
                          description="Hardware profiles (TOML) say which pin or board channel is which "
                                      "station's button, display and light; see hardware/README.md.")
    prof_sub = prof.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    check = prof_sub.add_parser("check", help="validate profiles; exit 2 naming every bad field",
                                description="Checks each profile completely and prints every problem, each "
                                            "naming its field (pins used twice, unknown fields, bad values).")
    check.add_argument("files", nargs="+")
    check.set_defaults(func=cmd_profile_check)
    diagram = prof_sub.add_parser("diagram", help="write a wiring picture (SVG) and table (Markdown) of a profile",
                                  description="Draws the profile's wiring: every station key's GPIO pin or board "
                                              "channel, the displays and their multiplexer channels, the buzzer "
                                              "and the lights, as wiring.svg and the same as a table in wiring.md.")
    diagram.add_argument("file")
    diagram.add_argument("--out", default="wiring", help="folder for wiring.svg and wiring.md (default wiring)")
    diagram.set_defaults(func=cmd_profile_diagram)
    overlays = prof_sub.add_parser("overlays", help="print the /boot/firmware/config.txt lines a profile's buses need",
                                   description="Prints the dtoverlay lines the profile's extra display buses "
                                               "(I2C on GPIO pins) need in /boot/firmware/config.txt; nothing "
                                               "for a profile on the Pi's own I2C bus.")
    overlays.add_argument("file")
    overlays.set_defaults(func=cmd_profile_overlays)

    words = sub.add_parser("words", help="Pictomania word decks: check your own, print cards",
                           description="Word decks for Pictomania: check a deck file of your own (TOML [[deck]] "
                                       "tables: name, title, cards of seven words each) or print cards.")
    words_sub = words.add_subparsers(dest="words_command", metavar="ACTION", required=True)
    wcheck = words_sub.add_parser("check", help="validate deck files; exit 2 naming every problem",
                                  description="Checks each deck file and prints every problem, each naming "
                                              "its deck and card.")
    wcheck.add_argument("files", nargs="+")
    wcheck.set_defaults(func=cmd_words_check)
    wprint = words_sub.add_parser("print", help="render word cards as a printable A4 PDF (or PNGs)",
                                  description="Word cards, eight to an A4 page, ready to cut out: a vector "
                                              "PDF (needs the cards extra: pip install \".[cards]\") or, "
                                              "for a .png name, one 150 dpi PNG per page.")
    wprint.add_argument("--deck", action="append", help="a deck to print (repeat); default: all")
    wprint.add_argument("--decks", help="a file of your own decks to add")
    wprint.add_argument("--out", default="pictomania-cards.pdf", help="a .pdf file, or a .png name for one PNG per page")
    wprint.set_defaults(func=cmd_words_print)
    return parser


def main(argv: list[str] | None = None) -> int:
    """With no command, a laptop starts the simulator; a Pi shows the help."""
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate from a file is printed escaped, never raised
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        if not on_pi_hardware():
            return cmd_sim(parser.parse_args(["sim"]))
        parser.print_help()
        print("\nOn the box, the service runs: companion run --profile /etc/companion/profile.toml\n"
              "(from a checkout: companion run --profile hardware/profiles/mux-3.toml)")
        return 0
    try:
        return args.func(args)
    except BrokenPipeError:
        # the reader went away (``companion games | head``): nothing more to say, and nobody to say it to
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
