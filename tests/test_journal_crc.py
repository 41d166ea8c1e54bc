"""Every line the box writes carries a CRC-32: a flipped bit that leaves valid JSON is detected,
not replayed as another game; a journal written by hand, without crc, still replays."""

import json
import random
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from companion.cli import main
from companion.games import all_games
from companion.record.history import read_game
from companion.record.journal import (
    CRC, Header, JournalError, JournalWriter, check_crc, replay, sealed, start_match,
)
from companion.record.recovery import NotResumed, pick_up

from helpers import journal_objects

GAMES = {game.name: game for game in all_games()}


def box_journal(path, game_name: str, actions: int = 24, seed: int = 5):
    """A game the box's own writer journaled: random legal actions, chance events from the seed,
    each line with its time, as the daemon writes them."""
    players = ("Ana", "Ben", "Cy", "Dee")[:GAMES[game_name].min_players]
    writer = JournalWriter(path, Header(game_name, players, {}, seed, sequence=3))
    t = 0.0

    def record(line):
        nonlocal t
        t += 1.25
        writer.write({**line, "t": round(t, 3)})

    match = start_match(Header(game_name, players, {}, seed), record)
    rnd = random.Random(seed)
    for _ in range(actions):
        if match.outcome is not None:
            break
        if match.needs_chance:
            match.draw_chance()
            continue
        match.act(rnd.choice(match.rules.legal_actions(match.state)))
    writer.close()
    return match


def flips(data: bytes):
    """Every journal with one bit flipped in one digit of ``data`` (the reproduction: a digit
    that turns into another still makes valid JSON)."""
    for at, byte in enumerate(data):
        if 0x30 <= byte <= 0x39:
            for bit in range(8):
                yield data[:at] + bytes([byte ^ (1 << bit)]) + data[at + 1:]


def outcomes(data: bytes, state) -> dict[str, int]:
    """How each flip of ``data`` replays: refused (a line's error), the same game, or another."""
    counts = {"refused": 0, "same game": 0, "another game": 0}
    for flipped in flips(data):
        try:
            _, match = replay(flipped.splitlines())
        except JournalError:
            counts["refused"] += 1
            continue
        counts["same game" if match.state == state else "another game"] += 1
    return counts


def unsealed(data: bytes) -> bytes:
    """The same journal without its crc fields, as it was written before lines carried one."""
    lines = []
    for text in data.decode().splitlines():
        obj = json.loads(text)
        obj.pop(CRC)
        lines.append(json.dumps(obj, separators=(", ", ": ")))
    return ("\n".join(lines) + "\n").encode()


def test_no_single_bit_flip_in_a_digit_replays_as_another_game(tmp_path):
    sealed_counts, before = {}, {}
    for game in GAMES:
        path = tmp_path / f"{game}.jsonl"
        match = box_journal(path, game, actions=14)
        data = path.read_bytes()
        sealed_counts[game] = outcomes(data, match.state)
        before[game] = outcomes(unsealed(data), match.state)
    for game, counts in sealed_counts.items():
        assert counts["refused"] > 100 and counts["same game"] == counts["another game"] == 0, (game, counts)
    # Without the crc the same flips went through unnoticed, some as other games: the reproduction.
    assert sum(counts["another game"] for counts in before.values()) > 20, before


def test_every_line_the_box_writes_ends_with_its_crc_of_the_bytes_before_it(tmp_path):
    path = tmp_path / "game.jsonl"
    box_journal(path, "triangle")
    for text in path.read_text().splitlines():
        body, crc = text.rsplit(', "crc": "', 1)
        assert crc.endswith('"}') and len(crc) == 10
        assert f"{zlib.crc32((body + '}').encode()):08x}" == crc[:8]
    assert len(journal_objects(path)) > 10       # and each one checks


def test_a_journal_written_by_hand_without_crc_replays_and_a_sealed_line_among_them_is_checked():
    lines = ['{"format": "companion-journal/1", "game": "paytoplay", "players": ["Ana", "Ben"]}',
             '{"type": "action", "action": "play", "player": 0, "cell": 4}',
             sealed({"type": "action", "action": "pass", "player": 1})]
    _, match = replay(lines)
    assert match.rules.scores(match.state) == (-1, 2)     # X paid 2 for the centre, then Ben's income
    with pytest.raises(JournalError, match=r'line 3: the line does not match its "crc"'):
        replay(lines[:2] + [lines[2].replace('"pass"', '"play", "cell": 0')])


def test_a_sealed_journal_refuses_a_line_without_crc_naming_how_to_edit_by_hand():
    lines = [sealed({"format": "companion-journal/1", "game": "paytoplay", "players": ["Ana", "Ben"]}),
             sealed({"type": "action", "action": "play", "player": 0, "cell": 4}),
             '{"type": "action", "action": "pass", "player": 1}']
    with pytest.raises(JournalError) as e:
        replay(lines)
    assert e.value.line == 3
    assert "no \"crc\" although its journal's header has one" in e.value.reason
    assert 'remove "crc" from the header' in e.value.reason
    # Without the header's crc, the journal reads as one edited by hand.
    unsealed_header = '{"format": "companion-journal/1", "game": "paytoplay", "players": ["Ana", "Ben"]}'
    _, match = replay([unsealed_header, *lines[1:]])
    assert match.rules.scores(match.state) == (-1, 2)


@pytest.mark.parametrize("line, reason", [
    ('{"type": "action", "crc": "00000000", "action": "pass", "player": 0}', '"crc" must be the last field'),
    ('{"type": "action", "action": "pass", "player": 0, "crc": "ABCDEF01"}', '"crc" must be the last field'),
    ('{"type": "action", "action": "pass", "player": 0, "crc": 12}', '"crc" must be the last field'),
])
def test_a_crc_in_another_shape_is_refused_showing_the_shape(line, reason):
    header = '{"format": "companion-journal/1", "game": "paytoplay", "players": ["Ana", "Ben"]}'
    with pytest.raises(JournalError, match=f"line 2: {reason}"):
        replay([header, line])


def test_replay_of_a_corrupted_line_exits_2_naming_the_file_line_and_crc(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    box_journal(path, "paytoplay")
    lines = path.read_text().splitlines()
    target = next(i for i, x in enumerate(lines) if '"cell": ' in x)
    at = lines[target].index('"cell": ') + len('"cell": ')
    cell = int(lines[target][at])
    lines[target] = lines[target][:at] + str(cell ^ 1) + lines[target][at + 1:]
    path.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: line {target + 1}: the line does not match its \"crc\"" in err


def test_the_box_does_not_resume_a_game_with_a_corrupted_line_and_says_which(tmp_path, caplog):
    path = tmp_path / "20261122-120000-triangle.jsonl"
    box_journal(path, "triangle", actions=12)
    data = path.read_bytes()
    at = data.index(b'"cards": [') + len(b'"cards": [')
    path.write_bytes(data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:])
    found = pick_up(tmp_path)
    assert isinstance(found, NotResumed)
    assert found.reason.startswith("line 2: the line does not match its \"crc\"")
    assert any("cannot be resumed: line 2" in r.getMessage() for r in caplog.records)


def test_history_refuses_a_corrupted_line_as_replay_does(tmp_path):
    path = tmp_path / "20261122-120000-closest.jsonl"
    box_journal(path, "closest")
    lines = path.read_text().splitlines()
    crc = lines[-1][-10:-2]
    lines[-1] = lines[-1][:-10] + f"{int(crc, 16) ^ 1:08x}" + '"}'      # the crc itself damaged
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(JournalError, match=f"line {len(lines)}: the line does not match"):
        read_game(path)


def test_sealed_keeps_key_order_and_puts_crc_last_even_if_the_line_had_one():
    line = {"type": "action", "action": "pass", "player": 0, "crc": "stale", "t": 1.5}
    text = sealed(line)
    assert list(json.loads(text)) == ["type", "action", "player", "t", "crc"]
    assert text == sealed({k: v for k, v in line.items() if k != "crc"})


def test_the_documented_example_is_a_line_that_checks():
    doc = (Path(__file__).resolve().parent.parent / "docs" / "JOURNAL.md").read_text(encoding="utf-8")
    section = doc.split("### The crc of a line", 1)[1]
    example = section.split("```json\n", 1)[1].split("\n```", 1)[0]
    check_crc(example, json.loads(example), required=True)
    assert example == sealed({k: v for k, v in json.loads(example).items() if k != CRC})


SEED_GAME = Path(__file__).parent / "journals" / "paytoplay-seed.jsonl"
SEALED_SEED_GAME = "".join(sealed(json.loads(line)) + "\n" for line in SEED_GAME.read_text().splitlines()).encode()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(SEALED_SEED_GAME) - 1), st.integers(0, 255)), min_size=1, max_size=3))
def test_any_few_bytes_changed_in_a_sealed_journal_are_refused_or_change_nothing(changes):
    """The property behind the crc: whatever bytes change (not only a digit's bit), replay
    either refuses a line or, when the change touched no line's content (a newline become a
    carriage return), replays the very same game."""
    _, whole = replay(SEALED_SEED_GAME.splitlines())
    data = bytearray(SEALED_SEED_GAME)
    for at, value in changes:
        data[at] = value
    try:
        _, match = replay(bytes(data).splitlines())
    except JournalError:
        return
    assert match.state == whole.state and match.chances == whole.chances
