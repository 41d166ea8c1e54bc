"""Games as played: a script of presses through the real box process (``companion run --script``,
the command a Pi's service runs, on mock pins), then its journal read back by the command line
(``replay``, ``replay --json``, ``replay --explain``, ``games``) and resumed by a second run.

Tests at the level of a match cannot see the journal writer's numbering, the dialogs' state or a
crash the loop turns into a hang; these can. Each run of the box is a process of its own, bounded
by :data:`TIMEOUT_S` (a hang fails the test instead of holding the suite), and waits for nothing
but its own end. The read-back commands run in the test's process, through the command line's
``main``: what they read is the file the box process wrote.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from companion.cli import main

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "hardware" / "profiles"
DEMO = ROOT / "companion" / "demo"
SCRIPTS = Path(__file__).resolve().parent / "scripts"
TIMEOUT_S = 180
"""Far longer than any script here plays: only a hang reaches it."""


@dataclass
class Run:
    """One run of the box: its exit status and its log (stderr)."""

    code: int
    out: str
    log: str


def run_box(profile: Path, script: str | Path, journals: Path, *args: str, python: list[str] | None = None) -> Run:
    """``companion run --profile PROFILE --script SCRIPT --journal-dir JOURNALS ARGS`` in a process
    of its own. ``script`` is a file or the text of one (written beside the journals).
    ``python``: what runs the command line instead of ``python -m companion`` (a test's box with
    a fault put in)."""
    if not isinstance(script, Path):
        journals.mkdir(parents=True, exist_ok=True)
        path = journals.parent / f"{journals.name}-script-{len(list(journals.parent.glob('*-script-*')))}.txt"
        path.write_text(script)
        script = path
    command = (python or [sys.executable, "-m", "companion"]) + [
        "run", "--profile", str(profile), "--script", str(script), "--journal-dir", str(journals), *args]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    return Run(proc.returncode, proc.stdout, proc.stderr)


def cli(*argv: str) -> Run:
    """A read-back command (``replay``, ``games``, ``profile``) as players type it: the command
    line's own ``main``, in this process (the box's are the processes of their own above)."""
    out, log = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(log):
        code = main(list(argv))
    return Run(code, out.getvalue(), log.getvalue())


def journal_of(journals: Path, game: str) -> Path:
    """The one journal of ``game`` in ``journals`` (abandoned or not)."""
    [path] = journals.glob(f"*-{game}*.jsonl")
    return path


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def read_back(path: Path, *args: str) -> dict:
    """Every way the command line reads a journal back; asserts each reads it, and returns
    ``replay --json``'s object (with ``explain``, the text of ``--explain``, and ``games``,
    the line ``companion games`` gives it). ``args`` go to every command (``--decks FILE``)."""
    plain = cli("replay", *args, str(path))
    assert plain.code == 0, plain.log
    explained = cli("replay", "--explain", *args, str(path))
    assert explained.code == 0, explained.log
    as_json = cli("replay", "--json", *args, str(path))
    assert as_json.code == 0, as_json.log
    listed = cli("games", "--journal-dir", str(path.parent), *args)
    assert listed.code == 0, listed.log
    [line] = [text for text in listed.out.splitlines() if text.startswith(path.name)]
    assert "unreadable" not in line, line
    return {**json.loads(as_json.out), "explain": explained.out, "games": line}
