"""Shared test helpers: station inputs on a fake clock (times in ms)."""

from companion.inputs import InputEvent
from companion.journal import JournalWriter
from companion.table import Table

MS = 1_000_000


def tap(table, station: int, key: str, t_ms: float) -> None:
    """Press and release a key on ``table`` at ``t_ms`` (release 50 ms later)."""
    table.handle(InputEvent(station, key, True, round(t_ms * MS)))
    table.handle(InputEvent(station, key, False, round((t_ms + 50) * MS)))


class Clock:
    """A fake clock handing out increasing times, 100 ms apart."""

    def __init__(self) -> None:
        self.ms = 0.0

    def next(self) -> float:
        self.ms += 100
        return self.ms


def journaled_table(directory, names=("Ana", "Ben", "Cy"), seed=7):
    """A Table that writes each game's journal into ``directory``: (table, journal paths)."""
    journals = []

    def open_journal(header):
        writer = JournalWriter(directory / f"game{len(journals)}.jsonl", header)
        journals.append(writer.path)
        return writer

    return Table(names, open_journal, seed=seed), journals
