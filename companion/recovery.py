"""Never lose a game: find the game a crash or power cut interrupted, and pick it up again.

The journal is written (and fsync'd) before the table shows any result, so after a crash it
holds every applied action. A power cut in the middle of a write leaves a *torn* last line: bytes
without their newline. It is cut off, never fatal, since the action it held was never shown.
Journals are one file per game, named by start time; abandoned games are renamed so they are
not resumed, and only the newest :data:`KEEP_JOURNALS` are kept.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from .journal import Header, JournalError, JournalWriter, replay
from .match import Match

log = logging.getLogger(__name__)

KEEP_JOURNALS = 500
ABANDONED = ".abandoned.jsonl"


@dataclass
class Interrupted:
    """A game to resume: its journal reopened for appending, and the journal time it reached."""

    path: Path
    header: Header
    match: Match
    writer: JournalWriter
    last_t: float


def journals(directory: Path) -> list[Path]:
    """Every game journal in ``directory``, oldest first (names start with the start time)."""
    return sorted(directory.glob("*.jsonl")) if directory.is_dir() else []


def cut_torn_line(path: Path) -> bool:
    """Drop a last line that lacks its newline (a write cut short); True if one was dropped."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return False
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as f:
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    log.warning("%s: dropped a torn last line (%d bytes)", path.name, len(data) - keep)
    return True


def find_interrupted(directory: Path) -> Interrupted | None:
    """The newest journal's game if it is neither over nor abandoned, reopened to carry on."""
    candidates = [p for p in journals(directory) if not p.name.endswith(ABANDONED)]
    if not candidates:
        return None
    path = candidates[-1]
    cut_torn_line(path)
    lines = path.read_bytes().splitlines()
    try:
        header, match = replay(lines)
    except JournalError as e:
        log.error("%s cannot be resumed: %s", path.name, e)
        return None
    if match.outcome is not None:
        return None
    last_t = max((json.loads(line).get("t", 0) for line in lines[1:] if line.strip()), default=0)
    log.info("resuming %s from %s", header.game, path.name)
    return Interrupted(path, header, match, JournalWriter(path), last_t)


def abandon(path: Path) -> Path:
    """Mark a journal's game as abandoned by the players, so it is never resumed."""
    target = path.with_name(path.name[: -len(".jsonl")] + ABANDONED)
    path.rename(target)
    return target


def rotate(directory: Path, keep: int = KEEP_JOURNALS) -> list[Path]:
    """Delete the oldest journals beyond ``keep``; returns what was deleted."""
    old = journals(directory)[:-keep] if keep > 0 else journals(directory)
    for path in old:
        path.unlink()
    return old
