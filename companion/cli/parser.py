"""The ``companion`` command line: the parser, made of each command family's own sub-commands,
and ``main``, which runs the command chosen. Each family's module defers its heavy imports into
its commands, so ``--help`` stays fast."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import analysis, make, play, review

COMMANDS = (play.add_run, play.add_demo, play.add_sim, review.add_replay, analysis.add_analyze,
            analysis.add_solve, make.add_selftest, review.add_games, review.add_history,
            make.add_profile, make.add_words, make.add_pack)
"""Each command's place on the parser, in the order ``--help`` lists them."""


def on_pi_hardware() -> bool:
    try:
        return Path("/proc/device-tree/model").read_text(errors="replace").startswith("Raspberry Pi")
    except OSError:
        return False


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Tabletop Companion: the box that referees tabletop games with fair, hardware-timed buttons.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
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
            return play.cmd_sim(parser.parse_args(["sim"]))
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
