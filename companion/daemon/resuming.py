"""Picking up the game a power cut or a crash interrupted, when the box starts.

Separate from the loop because it runs once, before the loop turns, and every way it can end
is a screen of its own: the game offered to resume, its result shown until the players leave it,
a game too big for this box kept for a bigger one, a damaged journal or a game that failed set
aside (:mod:`companion.record.recovery` finds and replays the journal).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from ..record.recovery import NotResumed, pick_up, postpone
from ..rulebook import SHORT_TITLES

log = logging.getLogger(__name__)

DAMAGED = ("journal is damaged", "companion games", "lists it")
"""Why an interrupted game was not resumed, on every panel: three lines that fit one each."""


def too_big(rules, players: int) -> tuple[str, str, str]:
    """Why a game of more players than this box has stations was not resumed, on every panel:
    the game, what it needs (``needs 17 stations``, short enough for a quiz's count) and that
    it is kept."""
    return SHORT_TITLES.get(rules.name, rules.title), f"needs {players} stations", "kept for a bigger box"


REPLAY_BYTES_PER_S = 500_000
"""A slow estimate of replay speed on a Raspberry Pi 4: ``python -m bench.replay_scaling`` replays
2.3 MB/s on a shared x86 laptop core, and a Pi 4's Cortex-A72 runs CPython 3-4 times slower.
Replaying a journal longer than 10 s of this asks systemd for that much more start time."""


class Resuming:
    """The daemon's part that picks up an interrupted game at start."""

    def _pick_up(self, journal_dir: Path, stations: int) -> None:
        """Find the interrupted game in ``journal_dir`` and put it before the players: a box of
        ``stations`` stations cannot resume a game of more players (it is kept, not lost). A game
        offered to go on sets ``_game_resumes`` (its phone seats are held for their phones)."""
        interrupted = pick_up(journal_dir, self._replay_time)
        if interrupted is not None and not isinstance(interrupted, NotResumed):
            interrupted.writer = self.saving.journal(interrupted.writer, interrupted.path, interrupted.lines,
                                                     interrupted.header.sequence)
            if interrupted.damaged is not None:
                self._tell("LAST LINE DAMAGED", "journal", "the journal's last line was damaged: the game "
                           "goes on from the line before it", cue=False)
        if isinstance(interrupted, NotResumed) and interrupted.fault is not None:
            self.table.told_set_aside(*interrupted.fault)
        elif isinstance(interrupted, NotResumed):
            self.table.cannot_resume(*DAMAGED)
        elif interrupted is not None and len(interrupted.match.players) > stations:
            log.error("cannot resume %s: it has more players than this box has stations", interrupted.path.name)
            interrupted.writer.close()
            postpone(interrupted.path)
            self.table.cannot_resume(*too_big(interrupted.match.rules, len(interrupted.match.players)))
        elif interrupted is not None and interrupted.match.outcome is not None:
            self.table.resume_or_set_aside(interrupted, time.monotonic_ns())  # its result, until they leave it
        elif interrupted is not None:
            self.table.offer_resume(interrupted)
            self._game_resumes = True

    def _replay_time(self, size: int) -> None:
        """Before replaying a journal of ``size`` bytes, ask systemd for the time it may take."""
        if size > REPLAY_BYTES_PER_S * 10:
            self.notifier.extend_start(30 + size / REPLAY_BYTES_PER_S)
