"""Replay refuses seat lines and take-backs a box never writes, each with the line and the reason
that is true (docs/JOURNAL.md, "Seats changing hands"): a seat line names its player, its bot and
its station and nothing else, only in the games bots play; an ``undo`` by a player whose last
move was the box's automatic pass is refused for what happened, not as an unknown action."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.record.crc import sealed
from companion.record.journal import JournalError, replay

PAYTOPLAY = ['{"format": "companion-journal/1", "game": "paytoplay", "players": ["Ana", "Ben"]}',
             '{"type": "action", "action": "play", "player": 0, "cell": 4}']


@pytest.mark.parametrize("seat, reason", [
    ({"player": 1, "bot": "easy"}, "seat: station is missing: a seat line names its player, bot and station"),
    ({"player": 1, "station": 2}, "seat: bot is missing: a seat line names its player, bot and station"),
    ({"bot": "easy", "station": None}, "seat: player is missing: a seat line names its player, bot and station"),
    ({"player": 1, "bot": "easy", "station": None, "score": 9},
     "seat: unknown field 'score': a seat line has player, bot, station and when"),
])
def test_a_seat_line_with_a_field_missing_or_unknown_is_refused_naming_it(seat, reason):
    with pytest.raises(JournalError) as e:
        replay(PAYTOPLAY + [json.dumps({"type": "seat", **seat})])
    assert str(e.value) == f"line 3: {reason}"


@pytest.mark.parametrize("game, players, title", [
    ("quiz", ["Host", "Ana", "Ben"], "Quiz"),
    ("pictomania", ["Ana", "Ben", "Cy"], "Pictomania"),
    ("trio", ["Ana", "Ben", "Cy"], "Three-player Pictionary"),
])
def test_a_seat_line_in_a_game_bots_do_not_play_is_refused(game, players, title):
    header = json.dumps({"format": "companion-journal/1", "game": game, "players": players})
    with pytest.raises(JournalError) as e:
        replay([header, '{"type": "seat", "player": 1, "bot": "easy", "station": null}'])
    assert str(e.value) == f"line 2: seat: no bot plays {title}, so no seat changes hands in it"


def test_seat_lines_in_the_games_bots_play_still_replay():
    replay(PAYTOPLAY + ['{"type": "seat", "player": 1, "bot": "easy", "station": null, "when": "move 2", "t": 3.5}',
                        '{"type": "seat", "player": 1, "bot": null, "station": 2}'])


def test_an_undo_after_the_boxs_automatic_pass_is_refused_for_what_happened():
    """Ana's last move was the box's (she could not pay): the undo is refused because Ben has
    played since her own last move, and the reason says the pass was the box's."""
    seed = (Path(__file__).parent / "journals" / "paytoplay-seed.jsonl").read_text().splitlines()
    assert json.loads(seed[3]) == {"type": "action", "action": "pass", "player": 0, "auto": True}
    with pytest.raises(JournalError) as e:
        replay(seed[:4] + ['{"type": "action", "action": "undo", "player": 0, "line": 2}'])
    assert str(e.value) == ("line 5: Bob has played since (Alice's last move was the box's automatic "
                            "pass, which is not taken back)")


def test_the_box_plays_pay_to_play_and_replay_refuses_an_undo_of_its_pass_and_a_bare_seat_line(tmp_path, capsys):
    """As played: the Pay-to-Play demo's journal, from the box, with its automatic passes. A line
    added after a pass (sealed, as the box writes) is refused by ``companion replay``: exit 2,
    the line and the reason; the journal as the box wrote it replays."""
    assert main(["demo", "--game", "paytoplay", "--out", str(tmp_path / "demo")]) == 0
    [journal] = (tmp_path / "demo").glob("*.jsonl")
    lines = journal.read_text().splitlines()
    objects = [json.loads(line) for line in lines]
    first_pass = next(i for i, o in enumerate(objects) if o.get("auto") is True)
    passed = objects[first_pass]["player"]
    names = objects[0]["players"]
    other = names[1 - passed]
    capsys.readouterr()
    for extra, said in (
            ({"type": "action", "action": "undo", "player": passed, "t": objects[first_pass]["t"]},
             f"{other} has played since ({names[passed]}'s last move was the box's automatic pass, "
             "which is not taken back)"),
            ({"type": "seat", "player": passed, "bot": "easy", "t": objects[first_pass]["t"]},
             "seat: station is missing: a seat line names its player, bot and station")):
        hostile = tmp_path / f"{extra['type']}.jsonl"
        hostile.write_text("\n".join(lines[:first_pass + 1] + [sealed(extra)]) + "\n")
        assert main(["replay", str(hostile)]) == 2
        assert capsys.readouterr().err == f"companion: {hostile}: line {first_pass + 2}: {said}\n"
    assert main(["replay", str(journal)]) == 0
