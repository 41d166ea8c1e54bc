"""Playing on the box: ``run`` it from a hardware profile (what the service does), play a scripted
``demo`` headlessly, or ``sim``, the whole box in a window. Also what these share: where a run's
journals and settings go, and the game options and bots chosen on the command line."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import closing, suppress
from pathlib import Path

from ..profile import MAX_SIMULATED, MIN_STATIONS
from .common import default_journal_dir, fail, load_user_decks, serve_or_play, speed_option


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


def option_settings(items: list[str]) -> dict[str, dict[str, object]]:
    """``GAME.NAME=VALUE`` settings from ``--option``, each checked against that game's options."""
    from ..games import get
    from ..games.options import option_from_text, parse_options

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
    from ..table.bots import seats_with

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
    from ..daemon import Daemon
    from ..logs import setup_logging
    from ..profile import ProfileError, load_profile
    from ..script import ScriptError, load_script
    from ..tablescreen import TableScreenError
    from ..wiring import NoGpio

    setup_logging()
    if problem := load_user_decks(args):
        return fail(problem)
    try:
        profile = load_profile(profile_path)
        presses = load_script(script_path, profile.station_keys()) if script_path else None
        defaults = option_settings(args.option)
        bots = bot_settings(args, len(profile.stations))
    except (ProfileError, ScriptError, OSError, ValueError) as e:
        return fail(str(e))
    if presses is not None and profile.backend != "mock":
        return fail("a script drives simulated pins: use a profile with backend = \"mock\"")
    journals = journal_dir(args, presses is not None)
    try:
        daemon = Daemon(profile, journals, seed=args.seed, defaults=defaults, settings_path=settings_file(journals),
                        bots=bots)
    except (TableScreenError, NoGpio) as e:
        return fail(str(e))
    except OSError as e:
        return fail(f"journal directory {journals}: {e.strerror or e}")
    if getattr(args, "lobby_game", None):  # run --game: the lobby's menu starts on it
        offered = [g.name for g in daemon.table.lobby.games]
        if args.lobby_game not in offered:
            daemon.close()
            return fail(f"--game {args.lobby_game}: the lobby of this box offers {', '.join(offered)}")
        daemon.table.lobby.index = offered.index(args.lobby_game)
    with closing(daemon), suppress(KeyboardInterrupt):  # Ctrl-C stops the box, quietly
        serve_or_play(daemon, presses, args.speed)
        if args.snapshots:
            for path in daemon.snapshots(Path(args.snapshots)):
                print(f"wrote {path}")
    if presses is not None and daemon.table.faults:  # the box played on; the script still fails
        print(f"companion: {daemon.table.faults} game(s) hit a fault and were set aside (the log above has "
              "the traceback)", file=sys.stderr)
        return 1
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
    demo = Path(__file__).parent.parent / "demo"
    profile, script, speed, options = DEMOS[args.game]
    if speed is None and args.speed not in (None, 1.0):
        return fail(f"the {args.game} demo plays at its own pace (its race runs on the box's clock): "
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

    from ..logs import setup_logging
    from ..profile import ProfileError, load_profile
    from ..script import ScriptError, load_script

    if args.screenshot:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    else:
        from ..sim import display_problem

        problem = display_problem()
        if problem:
            return fail(f"cannot open the simulator window: {problem}.\n{HEADLESS}")
    try:
        from ..sim.app import Simulator, players_profile
    except ImportError as e:
        return fail(f"the simulator needs pygame (pip install \".[sim]\"): {e}")
    setup_logging()
    if problem := load_user_decks(args):
        return fail(problem)
    try:
        profile = load_profile(args.profile) if args.profile else players_profile(args.players)
        presses = load_script(args.script, profile.station_keys()) if args.script else None
        bots = bot_settings(args, len(profile.stations))
        defaults = option_settings(args.option)
    except (ProfileError, ScriptError, OSError, ValueError) as e:
        return fail(str(e))
    journals = journal_dir(args, presses is not None or bool(args.screenshot))
    try:
        sim = Simulator(profile, journals, seed=args.seed, defaults=defaults,
                        scale=args.scale or (3 if args.screenshot else None),
                        settings_path=settings_file(journals), table_screen=args.table_screen, bots=bots,
                        light_sensors=args.light_sensors)
    except OSError as e:
        return fail(f"journal directory {journals}: {e.strerror or e}")
    with closing(sim), suppress(KeyboardInterrupt):
        if args.screenshot:
            asyncio.run(sim.screenshot(Path(args.screenshot), presses, args.speed))
            print(f"wrote {args.screenshot}")
        else:
            asyncio.run(sim.run(presses, args.speed))
    return 0


def runner_options(parser: argparse.ArgumentParser) -> None:
    """Options of every command that runs games on the box."""
    speed_option(parser)
    parser.add_argument("--seed", type=int, default=None, help="seed the chance draws (deals, words)")
    parser.add_argument("--option", action="append", default=[], metavar="GAME.NAME=VALUE",
                        help="a game option the lobby starts from, e.g. trio.word_file=~/words.txt (repeatable)")
    parser.add_argument("--decks", help="a file of your own Pictomania word decks (see companion words)")


def bot_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bots", action="append", choices=("easy", "hard"), metavar="LEVEL",
                        help="a bot (easy or hard) in the next seat after the stations, e.g. two "
                             "players and --bots hard play Triangle (repeatable)")
    parser.add_argument("--bot", action="append", metavar="SEAT=LEVEL",
                        help="seat SEAT (from 1) is a bot, easy or hard; it counts as joined when "
                             "players take their seats (repeatable)")


def add_run(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="run the box from a hardware profile",
                         description="Runs the box: buttons, displays, buzzer and lights as the profile wires "
                                     "them, until stopped (the service runs this). With --script, simulated "
                                     "pins are pressed from a script of timed presses and the run stops after "
                                     "it; --snapshots then saves each station's last screen.")
    run.add_argument("--profile", required=True, help="hardware profile (TOML), see hardware/profiles/")
    run.add_argument("--script", help="drive simulated buttons from a script of timed presses")
    run.add_argument("--game", dest="lobby_game", help="start with this game selected on the lobby's menu (e.g. quiz): ok picks it")
    run.add_argument("--snapshots", help="write each station's final screen as PNG into this folder")
    run.add_argument("--journal-dir", help="where game journals go (default: the state directory; "
                                           "a temporary folder with --script)")
    runner_options(run)
    bot_options(run)
    run.set_defaults(func=cmd_run)


def add_demo(sub: argparse._SubParsersAction) -> None:
    demo = sub.add_parser("demo", help="play a scripted demo game headlessly and write the station images",
                          description="Plays a scripted game on simulated buttons without any display and "
                                      "writes its journal and every station's last screen as PNG: a round of "
                                      "Triangle with a race (default), or the seed game of Pay-to-Play.")
    demo.add_argument("--out", default="demo-out", help="folder for the journal and PNGs (default demo-out)")
    demo.add_argument("--game", choices=sorted(DEMOS), default="triangle", help="which demo (default triangle)")
    runner_options(demo)
    demo.set_defaults(func=cmd_demo, speed=None)


def add_sim(sub: argparse._SubParsersAction) -> None:
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
    sim.add_argument("--light-sensors", action="store_true",
                     help="a light sensor on every station, over a panel that lights as the datasheet's row "
                          "scan says: races revealed on the screens are timed from each panel's light (as a "
                          "profile's light_sensor does)")
    runner_options(sim)
    bot_options(sim)
    sim.set_defaults(func=cmd_sim)
