"""Saving a journal line: from the table handing it over to its being on disk, through the
journal writer thread (:mod:`companion.record.saving`), against the baseline of writing and
fsyncing it on the caller's own thread, as the loop did before (:class:`JournalWriter`).

``journal_line_saved_ms``: hand-over, write and fsync, until the loop may show the result (what
a race's verdict waits for); ``journal_loop_blocked_ms``: how long the loop itself is held by
handing a line over. The baseline holds the loop for the whole write and fsync. Both on a
temporary directory of the machine running the bench (its disk's fsync sets the figure).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from companion.record.journal import Header, JournalWriter, sealed
from companion.record.saving import Saving

HEADER = Header("paytoplay", ("Ana", "Ben"), {}, 1)
LINE = {"type": "action", "action": "play", "player": 0, "cell": 4, "t": 1.25}


def saving(directory: Path, lines: int) -> dict:
    directory.mkdir(parents=True, exist_ok=True)
    baseline, saved, blocked = [], [], []
    writer = JournalWriter(directory / "baseline.jsonl", HEADER)
    for _ in range(lines):
        start = time.perf_counter_ns()
        writer.write(LINE)
        baseline.append(time.perf_counter_ns() - start)
    writer.close()
    thread = Saving()
    path = directory / "thread.jsonl"
    journal = thread.journal(JournalWriter(path, HEADER), path, [sealed(HEADER.as_json()).encode()])
    for _ in range(lines):
        start = time.perf_counter_ns()
        journal.write(LINE)
        handed = time.perf_counter_ns()
        thread.wait()
        blocked.append(handed - start)
        saved.append(time.perf_counter_ns() - start)
    journal.close()
    thread.close()
    median_ms = lambda values: round(statistics.median(values) / 1e6, 4)
    return {"journal_lines": lines, "journal_line_saved_ms": median_ms(saved),
            "journal_loop_blocked_ms": median_ms(blocked), "baseline_journal_line_sync_ms": median_ms(baseline)}


if __name__ == "__main__":
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(saving(Path(tmp), 300)))
