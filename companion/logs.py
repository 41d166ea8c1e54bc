"""Log lines for people and for systemd's journal.

Under systemd (``$JOURNAL_STREAM`` is set) each line starts with its syslog priority (``<4>``),
so ``journalctl -p warning`` works; by hand, lines carry the time. Logs say what the box did
(started a game, resumed, a display failed), never a game's secrets: no cards, words or
decoys, so a log shown to the table spoils nothing.
"""

from __future__ import annotations

import logging
import os
import sys

PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}


class JournalFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"<{PRIORITY.get(record.levelno, 6)}>{record.name}: {super().format(record)}"


class StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a line is logged, not what it was when the
    handler was made: if stderr is swapped (captured, redirected) and the old stream closed, the
    handler never writes to a closed file."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass  # always the current sys.stderr


def setup_logging(level: int = logging.INFO, environ=os.environ) -> logging.Handler:
    handler = StderrHandler()
    if environ.get("JOURNAL_STREAM"):
        handler.setFormatter(JournalFormatter("%(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    return handler

