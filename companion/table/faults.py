"""One game's fault never takes the box down: a game that raises while it handles a press, the
time passing or its screens being shown is set aside, its journal kept as it is, and every
station and the table screen say so in a sentence ("Quiz hit a fault and is kept as game 12")
until someone presses a button; the lobby comes back. The log has the traceback.

Set aside as a game kept for a bigger box is (:func:`~companion.record.shelf.postpone`): its
journal holds every line written before the fault, so ``companion replay`` reads it and the box
offers it again at a later start; if it faults again then, it is set aside again, never resumed
into a crash loop. A scripted run counts the faults (:attr:`Faults.faults`) and ends non-zero.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator

from .. import games
from ..games.base import Rules
from ..record.journal import JournalWriter
from ..record.recovery import Interrupted, postpone
from ..record.saving import SavedJournal
from ..rulebook import SHORT_TITLES

log = logging.getLogger(__name__)


def fault_sentence(title: str, number: int | None, kept: bool = True) -> str:
    """What every screen says of a game set aside by a fault: where it is kept, if it is."""
    if not kept:  # no journal (a read-only state directory): nothing of it is kept
        return f"{title} hit a fault and was stopped"
    if number is None:  # a journal from before games were numbered
        return f"{title} hit a fault and is kept"
    return f"{title} hit a fault and is kept as game {number}"


class Faults:
    """The table's part that sets a faulting game aside and says so."""

    faults = 0
    """How many games were set aside by a fault since the box started."""
    fault_notice: str | None = None
    """The sentence every station and the table screen show, until a press."""

    @contextmanager
    def refereeing(self) -> Iterator[None]:
        """Run the game in play; if it raises, set it aside (:meth:`set_aside`) and go on. A
        fault with no game in play (the lobby's) is the box's own, and raised as ever."""
        try:
            yield
        except Exception:
            if self.game is None:
                raise
            self.set_aside(self.game.match.rules, self.game.journal, self.game_number, "while it was played")

    def set_aside(self, rules: Rules, journal: JournalWriter | SavedJournal | None, number: int | None,
                  when: str) -> None:
        """The game of ``rules`` raised ``when``: log the traceback, close its ``journal`` as it
        is and keep it for a later start, go back to the lobby and say so on every screen."""
        log.exception("the game's fault, %s", when)
        if journal is not None:
            journal.close()
            postpone(journal.path)
        self._leave_game()
        self.told_set_aside(rules.name, number, kept=journal is not None)

    def told_set_aside(self, game: str, number: int | None, kept: bool = True) -> None:
        """Say on every screen (and in the log) that a game of ``game`` hit a fault and is kept
        as game ``number`` (or, not ``kept``, was stopped)."""
        self.faults += 1
        self.fault_notice = fault_sentence(SHORT_TITLES.get(game, games.get(game).title), number, kept)
        log.error("%s", self.fault_notice)
        self.cues.append("wrong")
        self.version += 1

    def resume_or_set_aside(self, interrupted: Interrupted, now_ns: int) -> None:
        """Resume ``interrupted`` (:meth:`resume`); if resuming it raises, set it aside instead
        of letting every start fail on it again."""
        try:
            self.resume(interrupted, now_ns)
        except Exception:
            writer = self.game.journal if self.game is not None else interrupted.writer
            self.set_aside(interrupted.match.rules, writer, interrupted.header.sequence, "as it was resumed")
