"""Replay scaling: how long a long game's journal takes to replay, at 1 MB and at 10 MB.

Resume replays the whole journal before the box shows anything, inside the service's 30 s start
timeout (``systemd/companion.service``), so replay must stay linear in the journal's length: a
10 MB journal must take under 10 times as long as a 1 MB one. The journal is a real Triangle
game (the game with the longest history: every round is kept for the end screen), played to a
target nobody reaches, with every line written by :class:`~companion.record.journal.JournalWriter`
through a :class:`~companion.record.match.Match`, as the box writes it.
"""

from __future__ import annotations

import random
import re
import statistics
import time
from pathlib import Path

from companion.record.journal import Header, JournalWriter, replay_file, start_match
from companion.games.triangle import FACTS

MB = 1 << 20


def triangle_journal(path: Path, size: int, seed: int = 7) -> int:
    """Write a Triangle journal of about ``size`` bytes; returns its number of lines."""
    header = Header("triangle", ("Ana", "Ben", "Cy"), {"target": 10**9}, seed)
    writer = JournalWriter(path, header, sync=False)
    lines = 1

    def record(line: dict) -> None:
        nonlocal lines
        writer.write({**line, "t": round(lines * 0.5, 3)})
        lines += 1

    match = start_match(header, record)
    rnd = random.Random(seed)
    while path.stat().st_size < size:
        match.draw_chance()
        player = rnd.randrange(3)
        match.act({"action": "claim", "player": player})
        fact = rnd.choice(FACTS)
        action = {"action": "state", "player": player, "fact": fact}
        if fact == "exact":
            action["value"] = rnd.randint(1, 6)
        match.act(action)
    writer.close()
    return lines


def replay_s(path: Path) -> float:
    """Seconds to replay ``path`` from the file, as resume does."""
    start = time.perf_counter()
    replay_file(path)
    return time.perf_counter() - start


def without_crc(path: Path, target: Path) -> None:
    """``path``'s journal as it was written before lines carried a crc (the baseline of the
    check's cost): the same lines with their ``crc`` field cut off."""
    tail = re.compile(rb', "crc": "[0-9a-f]{8}"\}$', re.MULTILINE)
    target.write_bytes(tail.sub(b"}", path.read_bytes()))


def replay_scaling(directory: Path, repeats: int = 3) -> dict:
    """``replay_1mb_s``, ``replay_10mb_s`` (medians) and their ratio ``replay_scaling``; the
    same 1 MB journal without its crc fields, ``replay_1mb_unchecked_s``, and the cost of
    checking every line's crc, ``replay_crc_ratio`` (checked over unchecked).

    They are timed in turns, so a busy moment of a shared machine weighs on all alike."""
    small, large, plain = directory / "1mb.jsonl", directory / "10mb.jsonl", directory / "1mb-plain.jsonl"
    lines = triangle_journal(small, MB), triangle_journal(large, 10 * MB)
    without_crc(small, plain)
    replay_s(small)  # untimed: whatever the first replay of a run pays once is not the crc's cost
    ones, tens, plains = [], [], []
    for _ in range(repeats):
        ones.append(replay_s(small))
        tens.append(replay_s(large))
        plains.append(replay_s(plain))
    one, ten, unchecked = statistics.median(ones), statistics.median(tens), statistics.median(plains)
    return {"replay_1mb_s": one, "replay_10mb_s": ten, "replay_scaling": ten / one,
            "replay_lines_ratio": lines[1] / lines[0], "replay_1mb_unchecked_s": unchecked,
            "replay_crc_ratio": one / unchecked}


if __name__ == "__main__":
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(replay_scaling(Path(tmp), 5)))
