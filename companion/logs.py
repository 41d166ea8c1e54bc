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


def setup_logging(level: int = logging.INFO, environ=os.environ) -> logging.Handler:
    handler = logging.StreamHandler(sys.stderr)
    if environ.get("JOURNAL_STREAM"):
        handler.setFormatter(JournalFormatter("%(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    return handler
