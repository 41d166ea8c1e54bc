"""The ``companion`` command. Imports are deferred into each command so ``--help`` stays fast."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def default_journal_dir() -> Path:
    """systemd's StateDirectory when run as the service, else the user's state directory."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0]) / "games"
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "companion" / "games"


def _fail(message: str) -> int:
    print(f"companion: {message}", file=sys.stderr)
    return 2


def cmd_replay(args: argparse.Namespace) -> int:
    from .journal import JournalError, replay, summary

    try:
        with open(args.file, "rb") as f:
            header, match = replay(f)
    except OSError as e:
        return _fail(f"{args.file}: {e.strerror}")
    except JournalError as e:
        return _fail(f"{args.file}: {e}")
    result = summary(header, match)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{match.rules.title}: {', '.join(header.players)}")
    for name, score in zip(header.players, result["scores"]):
        print(f"  {name}: {score}")
    if result["over"]:
        winners = [header.players[w] for w in result["winners"]]
        everyone = len(winners) == len(header.players) > 1
        print(("Result: a draw between " if everyone else "Result: won by ") + " and ".join(winners))
    else:
        print("Not over yet.")
    for line in match.rules.describe(match.state):
        print(line)
    return 0


def cmd_profile_check(args: argparse.Namespace) -> int:
    from .profile import ProfileError, load_profile

    status = 0
    for path in args.files:
        try:
            profile = load_profile(path)
        except ProfileError as e:
            print(f"companion: {e}", file=sys.stderr)
            status = 2
            continue
        board = f", button board on {profile.board.port}" if profile.board else ""
        print(f"{path}: ok ({profile.name}, {len(profile.stations)} stations, backend {profile.backend}{board})")
    return status


def _run_daemon(profile_path: Path, args: argparse.Namespace, script_path: Path | None) -> int:
    import asyncio
    import logging

    from .daemon import Daemon
    from .profile import ProfileError, load_profile
    from .script import ScriptError, load_script

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        profile = load_profile(profile_path)
        presses = load_script(script_path, len(profile.stations)) if script_path else None
    except (ProfileError, ScriptError, OSError) as e:
        return _fail(str(e))
    if presses is not None and profile.backend != "mock":
        return _fail("a script drives simulated pins: use a profile with backend = \"mock\"")
    daemon = Daemon(profile, Path(args.journal_dir), seed=args.seed)
    try:
        if presses is None:
            asyncio.run(daemon.run())
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


def cmd_run(args: argparse.Namespace) -> int:
    return _run_daemon(Path(args.profile), args, Path(args.script) if args.script else None)


def cmd_demo(args: argparse.Namespace) -> int:
    demo = Path(__file__).parent / "demo"
    args.snapshots = args.out
    args.journal_dir = args.out
    status = _run_daemon(demo / "profile.toml", args, demo / "paytoplay.txt")
    if status == 0:
        print(f"Demo game played; journal and station images in {args.out}/")
    return status


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Tabletop Companion: the box that referees tabletop games with fair, hardware-timed buttons.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def runner_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--speed", type=float, default=1.0, help="play a script this many times faster")
        p.add_argument("--seed", type=int, default=None, help="seed the chance draws (deals, words)")

    run = sub.add_parser("run", help="run the box from a hardware profile")
    run.add_argument("--profile", required=True, help="hardware profile (TOML), see hardware/profiles/")
    run.add_argument("--script", help="drive simulated buttons from a script of timed presses")
    run.add_argument("--snapshots", help="write each station's final screen as PNG into this folder")
    run.add_argument("--journal-dir", default=str(default_journal_dir()), help="where game journals go")
    runner_options(run)
    run.set_defaults(func=cmd_run)

    demo = sub.add_parser("demo", help="play a scripted demo game headlessly and write the station images")
    demo.add_argument("--out", default="demo-out", help="folder for the journal and PNGs (default demo-out)")
    runner_options(demo)
    demo.set_defaults(func=cmd_demo, speed=4.0)

    rep = sub.add_parser("replay", help="replay a game journal and print the result")
    rep.add_argument("file")
    rep.add_argument("--json", action="store_true", help="print one JSON object")
    rep.set_defaults(func=cmd_replay)

    prof = sub.add_parser("profile", help="hardware profile tools")
    prof_sub = prof.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    check = prof_sub.add_parser("check", help="validate profiles; exit 2 naming every bad field")
    check.add_argument("files", nargs="+")
    check.set_defaults(func=cmd_profile_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help()
        print("\nNo hardware? Try `companion demo` for a scripted game on simulated buttons.")
        return 0
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
