"""Resume is exact: every game, interrupted after any line of its journal, resumes to the state the
uninterrupted game had then, and the table's own draws after it are the same."""

import json
import random
import shutil

import pytest

from companion.inputs import InputEvent
from companion.recovery import find_interrupted
from companion.table import Table
from companion.daemon import journal_opener

from helpers import MS, take_seats

GAMES = {"paytoplay": 2, "triangle": 3, "closest": 3, "trio": 3, "pictomania": 4}
NAMES = ("Ana", "Ben", "Cy", "Dee")


def play(directory, game, seed, presses=400):
    """Random presses on a fake clock; returns the journal and, for each journal length, the
    state the game had then (and its chance count)."""
    rnd = random.Random(seed)
    table = Table(NAMES[: GAMES[game]], journal_opener(directory), seed=seed)
    while table.lobby.game.name != game:
        table.lobby.index += 1
    t = 0
    snapshots = {}

    def tap(station, key):
        nonlocal t
        t += rnd.choice((40, 300, 1500)) * MS
        table.handle(InputEvent(station, key, True, t))
        table.tick(t, t)
        table.handle(InputEvent(station, key, False, t + 20 * MS))
        table.tick(t + 25 * MS, t + 25 * MS)
        t += 25 * MS

    for _ in range(12):
        tap(0, "ok")
        if table.seating is not None:  # more stations than the game's fewest players: all join
            for station in range(GAMES[game]):
                tap(station, "slap")
            tap(0, "ok")
    path = table.game.journal.path
    for _ in range(presses):
        if table.game is None:
            break
        snapshots[len(path.read_bytes().splitlines())] = (table.game.match.state, table.game.match.chances)
        tap(rnd.randrange(GAMES[game]), rnd.choice(("left", "right", "ok", "ok", "slap")))
    if table.game is not None:
        snapshots[len(path.read_bytes().splitlines())] = (table.game.match.state, table.game.match.chances)
        table.game.journal.close()
    return path, snapshots


@pytest.mark.parametrize("game", GAMES)
def test_every_game_interrupted_at_every_line_resumes_to_the_same_state(game, tmp_path):
    path, snapshots = play(tmp_path / "live", game, seed=21)
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) > 5, "the random presses should have played some of the game"
    checked = 0
    for cut, (state, chances) in snapshots.items():
        directory = tmp_path / f"cut{cut}"
        directory.mkdir()
        (directory / path.name).write_bytes(b"".join(lines[:cut]))
        found = find_interrupted(directory)
        if found is None:      # the game was over at this line
            continue
        found.writer.close()
        assert found.match.state == state, f"{game}: cut after line {cut}"
        assert found.match.chances == chances
        checked += 1
        shutil.rmtree(directory)
    assert checked >= 3


def test_a_replacement_word_card_after_a_resume_is_the_one_the_uninterrupted_game_drew(tmp_path):
    """Pictomania's replacement cards are the table's own draw: from the seed and the chance
    count, so the third card set after a resume is the uninterrupted game's."""
    def swaps(directory, resume_after=None):
        table = Table(NAMES, journal_opener(directory), seed=11)
        if resume_after is not None:
            table.resume(find_interrupted(directory), 0)
        else:
            while table.lobby.game.name != "pictomania":
                table.lobby.index += 1
            for t in range(12):
                table.handle(InputEvent(0, "ok", True, t * 100 * MS))
                table.handle(InputEvent(0, "ok", False, t * 100 * MS + MS))
                if table.seating is not None:  # all four stations join
                    take_seats(table, range(len(NAMES)), lambda: t * 100 + 10)
                if table.game is not None:
                    break
        t = 10_000
        for _ in range(2 if resume_after is None else 1):
            for key in ("right", "slap"):               # page 1 is card A: slap replaces it
                table.handle(InputEvent(2, key, True, t * MS))
                table.handle(InputEvent(2, key, False, t * MS + MS))
                t += 100
        table.game.journal.close()
        return table.game.journal.path

    live = swaps(tmp_path / "live")
    lines = live.read_text().splitlines()
    cards = [json.loads(x)["cards"] for x in lines if '"cards"' in x]
    assert len(cards) == 3 and cards[1] != cards[2]
    resumed_dir = tmp_path / "resumed"
    resumed_dir.mkdir()
    cut = max(i for i, x in enumerate(lines) if '"cards"' in x)  # lose the second replacement
    (resumed_dir / live.name).write_text("\n".join(lines[:cut]) + "\n")
    resumed = swaps(resumed_dir, resume_after=cut)
    resumed_cards = [json.loads(x)["cards"] for x in resumed.read_text().splitlines() if '"cards"' in x]
    assert resumed_cards == cards
