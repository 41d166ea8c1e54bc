"""What more than one command family uses: where journals live by default, the one way a
command says what went wrong (a bad output path too), the player's own word decks and the
``--speed`` option."""

from __future__ import annotations

import argparse
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


def fail(message: str) -> int:
    """Say what is wrong on stderr, as ``companion: ...``; the exit status of a refused input (2)."""
    print(f"companion: {message}", file=sys.stderr)
    return 2


def unwritable(what: str, path: Path | str, error: OSError) -> str:
    """The sentence for an output path a command cannot write (``demo --out``, ``history --plot``,
    ``words print --out``...): the option, the path that failed and why, so a typo in a path is
    one line and exit 2 like any other bad input, never a traceback."""
    failed = error.filename or path
    if isinstance(error, FileExistsError):
        return f"{what} {path}: {failed} is a file, not a folder"
    return f"{what} {path}: cannot write {failed}: {error.strerror or error}"


def output_folder(what: str, path: Path) -> str | None:
    """Make the folder a command writes into, before it does any work; the problem as text if it cannot."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return unwritable(what, path, e)
    return None


def load_user_decks(args: argparse.Namespace) -> str | None:
    """Make the decks of ``--decks FILE`` known to the games; the problem as text if the file is bad."""
    if not getattr(args, "decks", None):
        return None
    from ..words import DeckError, load_decks, use_user_decks

    try:
        use_user_decks(load_decks(args.decks))
    except DeckError as e:
        return str(e)
    return None


def serve_or_play(daemon, presses: list | None, speed: float) -> None:
    """Run the box until it is stopped, or play a script of timed presses through it."""
    import asyncio

    asyncio.run(daemon.serve() if presses is None else daemon.play_script(presses, speed=speed))


def speed(text: str) -> float:
    """``--speed``: a finite number above 0 (argparse exits 2 with this message otherwise)."""
    from ..untrusted import finite_number

    try:
        value = finite_number(text, "--speed")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if not 0.01 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"--speed must be from 0.01 to 1000 (times faster), not {text}")
    return value


def speed_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--speed", type=speed, default=1.0, help="play a script this many times faster")
