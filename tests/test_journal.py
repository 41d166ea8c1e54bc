"""The journal (``companion-journal/1``): the seed's worked game, every bad line, the writer.

The format is the product's public contract (docs/JOURNAL.md): replay must give the seed's result,
name the first bad line and why, and the writer must put every line on disk before the table
moves on.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from companion import games
from companion.cli import main
from companion.record.journal import (
    FORMAT, Header, JournalError, JournalWriter, header_for, parse_header, replay, sealed, start_match,
    summary,
)
from companion.games.options import lobby_choices

from helpers import journal_objects

JOURNALS = Path(__file__).parent / "journals"
SEED = JOURNALS / "paytoplay-seed.jsonl"
SEED_NO_AUTO = JOURNALS / "paytoplay-seed-no-auto.jsonl"
ALICE, BOB = 0, 1

# The seed's worked game, turn by turn: a cell, "pass" by choice, or "auto" (the box passes).
SEED_TURNS = [
    (ALICE, 4), (BOB, 3), (ALICE, "auto"), (BOB, 6), (ALICE, 0), (BOB, 8), (ALICE, "auto"),
    (BOB, "auto"), (ALICE, 7), (BOB, 1), (ALICE, "pass"), (BOB, 5), (ALICE, 2),
]


def hand_board() -> str:
    """The final board worked out from the moves: player 0 (Alice) is X."""
    board = ["."] * 9
    for player, move in SEED_TURNS:
        if isinstance(move, int):
            board[move] = "XO"[player]
    return "".join(board)


HEADER = {"format": FORMAT, "game": "paytoplay", "players": ["Alice", "Bob"]}


def play(player, cell, **extra):
    return {"type": "action", "action": "play", "player": player, "cell": cell, **extra}


def pass_(player, **extra):
    return {"type": "action", "action": "pass", "player": player, **extra}


def text(*objs) -> list[str]:
    return [o if isinstance(o, str) else json.dumps(o) for o in objs]


def header(**changes) -> dict:
    return {**HEADER, **changes}


def seed_lines(path=SEED_NO_AUTO) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --- the seed's worked game -----------------------------------------------------------------

def test_hand_board_matches_the_seed_final_picture():
    # Step 13 of the seed draws XOX / OXO / OXO.
    assert hand_board() == "XOX" + "OXO" + "OXO"


def test_seed_journals_are_the_worked_game_written_by_hand():
    with_auto = [json.loads(t) for t in seed_lines(SEED)]
    without = [json.loads(t) for t in seed_lines(SEED_NO_AUTO)]
    assert with_auto[0] == {**HEADER, "options": {}}
    assert parse_header(with_auto[0]) == Header("paytoplay", ("Alice", "Bob"), {}, None)
    events = with_auto[1:]
    assert all("t" not in e for e in with_auto), "a scenario has no timestamps"
    expected = []
    for player, move in SEED_TURNS:
        if move == "auto":
            expected.append(pass_(player, auto=True))
        elif move == "pass":
            expected.append(pass_(player))
        else:
            expected.append(play(player, move))
    assert events == expected
    assert without == [with_auto[0]] + [e for e in events if not e.get("auto")]
    assert len(without) == len(with_auto) - 3


def test_seed_auto_lines_are_exactly_what_the_box_derives():
    """Replaying the no-auto journal journals the same lines, forced passes included."""
    written: list[dict] = []
    lines = [json.loads(t) for t in seed_lines(SEED_NO_AUTO)]
    match = start_match(parse_header(lines[0]), record=written.append)
    for event in lines[1:]:
        match.act({k: v for k, v in event.items() if k != "type"})
    assert written == [json.loads(t) for t in seed_lines(SEED)[1:]]


@pytest.mark.parametrize("path", [SEED, SEED_NO_AUTO], ids=["auto", "no-auto"])
def test_replay_of_the_seed_game(path):
    with open(path, encoding="utf-8") as f:
        head, match = replay(f)
    assert head.players == ("Alice", "Bob")
    result = summary(head, match)
    assert result["game"] == "paytoplay"
    assert result["over"] is True
    assert result["scores"] == [1, 0]
    assert result["winners"] == [ALICE]
    assert result["detail"]["board"] == hand_board()
    assert result["detail"]["balances"] == [1, 0]
    assert result["detail"]["line"] is None, "a cat's game: no three in a row"
    assert result["detail"]["to_move"] is None


@pytest.mark.parametrize("path", [SEED, SEED_NO_AUTO], ids=["auto", "no-auto"])
def test_cli_replay_json(path, capsys):
    code, out, err = run(["replay", "--json", str(path)], capsys)
    assert (code, err) == (0, "")
    assert out.endswith("\n") and out.count("\n") == 1, "exactly one JSON object, one line"
    result = json.loads(out)
    assert set(result) == {"game", "over", "scores", "winners", "detail", "races", "late_presses", "unread"}
    assert result["races"] == result["late_presses"] == []  # Pay-to-Play has no race
    assert result["game"] == "paytoplay"
    assert result["over"] is True
    assert result["scores"] == [1, 0]
    assert result["winners"] == [0]
    assert result["detail"]["board"] == hand_board()
    assert result["detail"]["line"] is None


def test_cli_replay_human_summary_names_the_winner(capsys):
    code, out, err = run(["replay", str(SEED)], capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "Pay-to-Play Tic-Tac-Toe: Alice, Bob"
    assert lines[1:4] == ["  Alice (seat 1): 1", "  Bob (seat 2): 0", "Result: won by Alice"]


def test_cli_replay_unfinished_game(tmp_path, capsys):
    path = tmp_path / "part.jsonl"
    path.write_text("\n".join(seed_lines(SEED)[:4]) + "\n", encoding="utf-8")
    code, out, _ = run(["replay", "--json", str(path)], capsys)
    result = json.loads(out)
    assert code == 0
    assert (result["over"], result["winners"]) == (False, [])
    # Alice -3 after the centre; Bob 0 after the left side; Alice's forced pass at -1; Bob's
    # income comes with his turn (the seed's step 3: "Bob's points: 0").
    assert result["scores"] == [-1, 0]
    assert result["detail"]["to_move"] == BOB
    code, out, _ = run(["replay", str(path)], capsys)
    assert code == 0
    assert "Not over yet." in out.splitlines()
    assert not any(line.startswith("Result:") for line in out.splitlines())


def test_cli_replay_agreed_draw_names_both(tmp_path, capsys):
    path = tmp_path / "draw.jsonl"
    path.write_text("\n".join(text(
        header(options={"draw_offer_after": 1}), pass_(ALICE), pass_(BOB),
        {"type": "action", "action": "draw"},
    )) + "\n", encoding="utf-8")
    code, out, _ = run(["replay", "--json", str(path)], capsys)
    assert code == 0
    assert json.loads(out)["winners"] == [0, 1]
    code, out, _ = run(["replay", str(path)], capsys)
    assert "Result: a draw between Alice and Bob" in out.splitlines()


DRAW = {"type": "action", "action": "draw"}


@pytest.mark.parametrize("options, events, scores, winners", [
    pytest.param({}, [], [0, 0], [], id="header only"),
    pytest.param({}, [pass_(ALICE), pass_(BOB), pass_(ALICE)], [3, 2], [], id="three passes"),
    pytest.param({}, [pass_(p) for p in (ALICE, BOB) * 3] + [DRAW], [5, 6], [0, 1],
                 id="six passes then a draw"),
    pytest.param({"games": 2, "draw_offer_after": 1},
                 [pass_(ALICE), pass_(BOB), DRAW, pass_(BOB), pass_(ALICE), DRAW], [3, 3], [0, 1],
                 id="a tournament of two agreed draws"),
])
def test_balances_hold_no_income_of_the_player_about_to_move(options, events, scores, winners):
    """The seed's accounting: income belongs to the turn ("Bob gets two points and plays"), so
    an unplayed turn (the start, an agreed draw) has credited none. Offering the draw in a
    tournament gains nothing: two games of pass, pass, draw leave the totals equal."""
    head, match = replay(text(header(options=options), *events))
    result = summary(head, match)
    assert (result["scores"], result["winners"]) == (scores, winners)


def test_timestamps_and_blank_lines_are_allowed(tmp_path):
    lines = seed_lines(SEED)
    timed = [lines[0], ""] + [json.dumps({**json.loads(t), "t": 1.5 * i}) for i, t in enumerate(lines[1:])]
    head, match = replay(timed)
    assert summary(head, match)["scores"] == [1, 0]


# --- bad journals -----------------------------------------------------------------------------

KNOWN_GAMES = ", ".join(sorted(g.name for g in games.all_games()))
SEED_EVENTS = [json.loads(t) for t in seed_lines(SEED_NO_AUTO)[1:]]

BAD = {
    # name: (lines, bad line number, exact reason)
    "empty": ([], 1, "the journal is empty: a header line is needed"),
    "only blank lines": (["", "  "], 1, "the journal is empty: a header line is needed"),
    "header not JSON": (["{format: paytoplay}"], 1,
                        "not a JSON object (Expecting property name enclosed in double quotes)"),
    "event not JSON": (text(HEADER, play(0, 4), '{"type": "action", "action": "play"'), 3,
                       "not a JSON object (Expecting ',' delimiter)"),
    "header not an object": (["[1, 2]"], 1, "the header must be a JSON object"),
    "event not an object": (text(HEADER, "[1, 2]"), 2, "an event line must be a JSON object"),
    "bad format": (text(header(format="companion-journal/2")), 1,
                   "format must be 'companion-journal/1', not 'companion-journal/2'"),
    "no format": (text({k: v for k, v in HEADER.items() if k != "format"}), 1,
                  "format must be 'companion-journal/1', not None"),
    "unknown header field": (text(header(colour="red")), 1, "unknown header field 'colour'"),
    "unknown game": (text(header(game="chess")), 1,
                     f"unknown game 'chess'; known games are {KNOWN_GAMES}"),
    "unknown option": (text(header(options={"speed": 2})), 1,
                       "option 'speed': unknown option; known options are "
                       "no_double_pass, games, line_bonus, draw_offer_after"),
    "option of wrong type": (text(header(options={"games": "two"})), 1,
                             "option 'games': must be a whole number, not 'two'"),
    "bool option of wrong type": (text(header(options={"no_double_pass": 1})), 1,
                                  "option 'no_double_pass': must be true or false, not 1"),
    "option out of range": (text(header(options={"games": 0})), 1,
                            "option 'games': must be >= 1, not 0"),
    "too many players": (text(header(players=["Alice", "Bob", "Cy"])), 1,
                         "Pay-to-Play Tic-Tac-Toe is for 2 players, not 3"),
    "wrong player's turn": (text(HEADER, play(BOB, 4)), 2, "it is player 0's turn, not player 1's"),
    "occupied cell": (text(HEADER, play(ALICE, 4), play(BOB, 4)), 3, "cell 4 is already taken"),
    "cell off the board": (text(HEADER, play(ALICE, 9)), 2,
                           "'cell' must be a cell from 0 to 8 (row-major), not 9"),
    "play with a negative balance": (
        text(HEADER, play(ALICE, 4), play(BOB, 3), play(ALICE, 0)), 4,
        "you need a positive balance to play: yours is -1 after your income (the box already made player 0's "
        'move automatically: {"action": "pass", "player": 0})'),
    "play with a negative balance after its auto line": (
        text(HEADER, play(ALICE, 4), play(BOB, 3), pass_(ALICE, auto=True), play(ALICE, 0)), 5,
        "you need a positive balance to play: yours is -1 after your income (the box already made player 0's "
        'move automatically: {"action": "pass", "player": 0})'),
    "play with a zero balance": (
        # Seed turns 1-6, then Bob tries to block at turn 8, where his balance is 0.
        text(HEADER, *SEED_EVENTS[:5], play(BOB, 7)), 7,
        "you need a positive balance to play: yours is 0 after your income (the box already made player 1's "
        'move automatically: {"action": "pass", "player": 1})'),
    "occupied cell after two forced passes": (
        # Seed turns 1-8: both were passed by the box, and now Alice, who may pay, picks a taken cell.
        text(HEADER, *SEED_EVENTS[:5], play(ALICE, 4)), 7, "cell 4 is already taken"),
    "forced pass written without auto": (
        text(HEADER, play(ALICE, 4), play(BOB, 3), pass_(ALICE)), 4,
        "it is player 1's turn, not player 0's (the box already made player 0's move "
        'automatically: {"action": "pass", "player": 0})'),
    "action after the game is over": (text(HEADER, *SEED_EVENTS, pass_(BOB)), 12,
                                      "the game is already over"),
    "chance in a game with none": (
        text(HEADER, play(ALICE, 4), {"type": "chance", "event": "deal", "cards": [1, 2, 3]}), 3,
        "no chance event is due here"),
    "unknown type": (text(HEADER, {**play(ALICE, 4), "type": "move"}), 2,
                     "type must be 'chance', 'action', 'late', 'unread' or 'seat', not 'move'"),
    "no type": (text(HEADER, {"action": "play", "player": 0, "cell": 4}), 2,
                "type must be 'chance', 'action', 'late', 'unread' or 'seat', not None"),
    "unread for no time": (text(HEADER, {"type": "unread", "source": "gpio", "for_s": -1}), 2,
                           "for_s must be a number of seconds (0 or more) in an unread line"),
    "unread from a board": (text(HEADER, {"type": "unread", "source": "board", "for_s": 1}), 2,
                            "source must be one of gpio in an unread line"),
    "t is text": (text(HEADER, play(ALICE, 4, t="soon")), 2,
                  "t must be seconds since the game started (0 or more, at most a year), not 'soon'"),
    "t is negative": (text(HEADER, play(ALICE, 4, t=-1.5)), 2,
                      "t must be seconds since the game started (0 or more, at most a year), not -1.5"),
    "t is true": (text(HEADER, play(ALICE, 4, t=True)), 2,
                  "t must be seconds since the game started (0 or more, at most a year), not True"),
    "t is NaN": (text(HEADER, '{"type": "action", "action": "play", "player": 0, "cell": 4, "t": NaN}'),
                 2, "NaN is not a number a file may hold"),
    "t on an auto line": (text(HEADER, play(ALICE, 4), play(BOB, 3), pass_(ALICE, auto=True, t="x")),
                          4, "t must be seconds since the game started (0 or more, at most a year), not 'x'"),
}

SECOND_BAD = ["{oops", json.dumps(play(BOB, 4)), json.dumps({"type": "nope"})]


class Reader:
    """Lines handed out one at a time, counting how many replay asked for."""

    def __init__(self, lines):
        self.lines = lines
        self.taken = 0

    def __iter__(self):
        for line in self.lines:
            self.taken += 1
            yield line


@pytest.mark.parametrize("name", BAD)
def test_bad_journal_names_line_and_reason(name):
    lines, number, reason = BAD[name]
    with pytest.raises(JournalError) as e:
        replay(lines)
    assert (e.value.line, e.value.reason) == (number, reason)
    assert str(e.value) == f"line {number}: {reason}"


NOT_EMPTY = [n for n in BAD if not BAD[n][2].startswith("the journal is empty")]


@pytest.mark.parametrize("name", NOT_EMPTY)
def test_nothing_after_the_first_bad_line_is_read_or_applied(name):
    lines, number, reason = BAD[name]
    reader = Reader(lines + SECOND_BAD)
    with pytest.raises(JournalError) as e:
        replay(reader)
    assert (e.value.line, e.value.reason) == (number, reason)
    assert reader.taken == number


@pytest.mark.parametrize("name", BAD)
def test_cli_replay_bad_journal_exits_2(name, tmp_path, capsys):
    lines, number, reason = BAD[name]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    for argv in (["replay", str(path)], ["replay", "--json", str(path)]):
        code, out, err = run(argv, capsys)
        assert (code, out) == (2, "")
        assert err == f"companion: {path}: line {number}: {reason}\n"
    if name in NOT_EMPTY:
        path.write_text("".join(line + "\n" for line in lines + SECOND_BAD), encoding="utf-8")
        code, out, err = run(["replay", "--json", str(path)], capsys)
        assert (code, out) == (2, "")
        assert err == f"companion: {path}: line {number}: {reason}\n"


def test_cli_replay_not_utf8_names_the_line(tmp_path, capsys):
    path = tmp_path / "latin1.jsonl"
    good = json.dumps(HEADER).encode() + b"\n" + json.dumps(play(ALICE, 4)).encode() + b"\n"
    bad = b'{"type": "action", "note": "caf\xe9"}'
    path.write_bytes(good + bad + b"\n" + b"{oops\n")
    code, out, err = run(["replay", str(path)], capsys)
    assert (code, out) == (2, "")
    assert err == f"companion: {path}: line 3: not UTF-8 text (byte {bad.index(0xE9) + 1})\n"


def test_cli_replay_missing_file(tmp_path, capsys):
    path = tmp_path / "nope.jsonl"
    code, out, err = run(["replay", str(path)], capsys)
    assert (code, out) == (2, "")
    assert err == f"companion: {path}: No such file or directory\n"


def test_a_bad_option_value_in_every_game_names_the_option():
    for rules in games.all_games():
        for name, _, _ in lobby_choices(rules.Options):
            with pytest.raises(JournalError) as e:
                replay(text(header(game=rules.name, options={name: "nonsense"})))
            assert e.value.line == 1
            assert e.value.reason.startswith(f"option {name!r}: ")


# --- the writer -------------------------------------------------------------------------------

def test_writer_puts_every_line_on_disk_before_write_returns(tmp_path, monkeypatch):
    path = tmp_path / "game.jsonl"
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd):
        # By the time the writer syncs, the line must already be flushed out of Python.
        with open(path, encoding="utf-8") as other:
            synced.append(other.read())
        real_fsync(fd)

    monkeypatch.setattr("companion.record.journal.os.fsync", fsync)
    head = Header("paytoplay", ("Alice", "Bob"), {"games": 2}, 77)
    writer = JournalWriter(path, head)
    try:
        expected = [sealed(head.as_json())]
        assert journal_objects(path) == [head.as_json()]
        with open(path, encoding="utf-8") as other:
            assert other.read().splitlines() == expected
        for event in (play(ALICE, 4), play(BOB, 3), pass_(ALICE, auto=True, t=2.25)):
            writer.write(event)
            with open(path, encoding="utf-8") as other:
                on_disk = other.read()
            assert on_disk.endswith("\n")
            assert journal_objects(path)[-1] == event
            assert synced[-1] == on_disk, "fsync'd after the flush of this very line"
            expected.append(on_disk.splitlines()[-1])
        assert on_disk.splitlines() == expected
        assert len(synced) == 4
    finally:
        writer.close()


def test_writer_header_round_trips(tmp_path):
    path = tmp_path / "game.jsonl"
    for head in (Header("paytoplay", ("Alice", "Bob")),
                 Header("paytoplay", ("Ana", "Ben"), {"games": 4, "line_bonus": 0}, 2024)):
        path.unlink(missing_ok=True)
        JournalWriter(path, head).close()
        (first,) = path.read_text(encoding="utf-8").splitlines()
        assert parse_header(json.loads(first)) == head
        assert replay([first])[0] == head


def test_a_bots_seat_is_a_null_station_in_the_header(tmp_path):
    path = tmp_path / "game.jsonl"
    head = Header("triangle", ("Bot", "Ben", "Dee"), {}, 7, (None, 1, 3))
    JournalWriter(path, head).close()
    (first,) = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(first)["stations"] == [None, 2, 4]
    assert parse_header(json.loads(first)) == head
    for bad in ([None, 2, 2], [0, 2, None], [None, 2]):
        with pytest.raises(ValueError, match="stations must list a different station number"):
            parse_header(json.loads(first) | {"stations": bad})


def test_a_bots_level_is_journaled_in_the_header_and_checked(tmp_path):
    path = tmp_path / "game.jsonl"
    head = Header("triangle", ("Bot", "Ben", "Dee"), {}, 7, (None, 1, 3), bots=("hard", None, None))
    JournalWriter(path, head).close()
    first = json.loads(path.read_text(encoding="utf-8"))
    assert first["bots"] == ["hard", None, None] and parse_header(first) == head
    for bad in (["expert", None, None], ["hard", None], "hard"):
        with pytest.raises(ValueError, match=r"bots must give, for each player, a bot's level \(easy or hard\)"):
            parse_header(first | {"bots": bad})
    with pytest.raises(ValueError, match="a bot's seat has no station"):
        parse_header(first | {"bots": [None, "easy", None]})


@pytest.mark.parametrize("game_seed", range(25))
def test_replay_of_a_journaled_random_game_equals_the_live_match(tmp_path, game_seed):
    rng = random.Random(game_seed)
    rules = games.get("paytoplay")
    options = {name: rng.choice(values) for name, values, _ in lobby_choices(rules.Options)}
    head = Header("paytoplay", ("Alice", "Bob"), options, game_seed)
    path = tmp_path / "game.jsonl"
    writer = JournalWriter(path, head)
    try:
        live = start_match(head, record=writer.write)
        assert header_for(live) == Header("paytoplay", ("Alice", "Bob"),
                                          {**header_for(live).options, **options}, game_seed)
        for _ in range(1000):
            if live.outcome is not None:
                break
            live.act(rng.choice(rules.legal_actions(live.state)))
        assert live.outcome is not None, "a random game ends"
    finally:
        writer.close()

    lines = path.read_text(encoding="utf-8").splitlines()
    assert parse_header(json.loads(lines[0])) == head
    events = [json.loads(t) for t in lines[1:]]
    assert all(e["type"] == "action" for e in events)
    for source in (lines, [t for t in lines if not json.loads(t).get("auto")]):
        replayed_head, replayed = replay(source)
        assert replayed_head == head
        assert replayed.state == live.state
        assert rules.detail(replayed.state) == rules.detail(live.state)
        assert replayed.outcome == live.outcome
        assert summary(replayed_head, replayed) == summary(head, live)
    # header_for describes the same game with every option spelled out.
    full, again = replay([json.dumps(header_for(live).as_json())] + lines[1:])
    assert again.state == live.state


# --- chance events the journal leaves out are drawn from the seed --------------------------------

def journal_of(game, players, *events, options=None, seed=5):
    head = {"format": FORMAT, "game": game, "players": list(players), "options": options or {}}
    if seed is not None:
        head["seed"] = seed
    return text(head, *events)


def test_a_pictomania_journal_of_actions_only_draws_the_cards_then_the_assignment():
    """Two chance events are due before the first action: both are drawn, in order."""
    done = [{"type": "action", "action": "done", "player": p} for p in range(3)]
    head, match = replay(journal_of("pictomania", "ABC", *done, done[0], options={"rounds": 2}))
    result = summary(head, match)["detail"]
    assert result["rounds"][0]["cards"] and len(result["rounds"][0]["numbers"]) == 3
    rnd = match.state.round
    assert rnd.number == 2 and rnd.cards and rnd.assigned and rnd.done == (True, False, False)
    again = replay(journal_of("pictomania", "ABC", *done, done[0], options={"rounds": 2}))[1]
    assert again.state == match.state, "the seed decides every draw"


def test_an_assignment_without_its_word_cards_draws_the_cards_first():
    assign = {"type": "chance", "event": "assign", "letters": ["A", "B", "C"], "numbers": [3, 5, 1]}
    head, match = replay(journal_of("pictomania", "ABC", assign))
    rnd = match.state.round
    assert len(rnd.cards) == 3 and rnd.numbers == (3, 5, 1)
    with pytest.raises(JournalError, match="line 2: the word cards are shown before letters"):
        replay(journal_of("pictomania", "ABC", assign, seed=None))


def test_a_chance_event_refused_for_its_own_sake_is_not_drawn_around():
    cards = {"type": "chance", "event": "cards", "deck": "yellow", "cards": ["yellow-01"]}
    with pytest.raises(JournalError, match="line 2: round 1 uses the green deck"):
        replay(journal_of("pictomania", "ABC", cards))


def test_a_trio_journal_with_a_random_first_artist_and_no_chance_lines_replays():
    """The first artist, then the round's word, are both drawn before the first verdict."""
    head, match = replay(journal_of("trio", "ABC", {"type": "action", "action": "timeout"},
                                    options={"first_artist": "random"}))
    state = match.state
    assert state.rounds == 1 and state.artist is not None and state.word is None
    word = {"type": "chance", "event": "word", "word": "lighthouse"}
    head, match = replay(journal_of("trio", "ABC", word, options={"first_artist": "random"}))
    assert match.state.word == "lighthouse" and match.state.artist is not None


def test_cli_replay_names_players_with_seats_from_1(capsys):
    """The games describe players by index from 0; the replay says who, and the seat as on the box."""
    code, out, _ = run(["replay", str(Path(__file__).parent / "journals" / "trio-seed-example.jsonl")], capsys)
    assert code == 0
    lines = out.splitlines()
    assert "  Ben (seat 2): 9" in lines
    assert "Round 13: Ben (seat 2) draws 'homework'" in lines
    assert "Cy (seat 3) is eligible to win this round." in lines
    assert not any("player 1" in line.lower() for line in lines)


def test_cli_replay_says_an_abandoned_game_was_abandoned(tmp_path, capsys):
    from companion.record.recovery import ABANDONED

    path = tmp_path / f"20260101-000000-paytoplay{ABANDONED}"
    path.write_text("\n".join(seed_lines(SEED)[:4]) + "\n", encoding="utf-8")
    code, out, _ = run(["replay", str(path)], capsys)
    assert code == 0 and "Abandoned by the players before the end." in out.splitlines()


def test_every_command_has_a_help_description():
    from companion.cli import build_parser

    def walk(parser):
        for action in parser._actions:
            for name, sub in getattr(action, "choices", None).items() if hasattr(action, "_name_parser_map") else ():
                yield name, sub
                yield from walk(sub)

    commands = dict(walk(build_parser()))
    assert {"run", "demo", "sim", "replay", "selftest", "games", "profile", "words", "check", "print"} <= set(commands)
    assert [name for name, sub in commands.items() if not sub.description] == []


def test_replay_json_gives_a_race_field_that_is_not_a_time_as_null():
    """The race fields are informational and replay does not check them: in ``races`` an entry
    that is not a time (hand-edited, damaged) is null, a list too short is padded, never a crash."""
    lines = [json.dumps(x) for x in (
        {"format": "companion-journal/1", "game": "triangle", "players": ["Ana", "Ben", "Cy"], "seed": 4},
        {"type": "chance", "event": "deal", "cards": [1, 2, 3], "rts": 4},
        {"type": "action", "action": "claim", "player": 1, "onset_ms": ["0", 2.5],
         "reaction_ms": [1e308, 250, True], "question": [0, 3], "t": 2.0})]
    [race] = summary(*replay(lines), lines)["races"]
    assert race == {"t": 2.0, "action": "claim", "winners": [1], "onset_ms": [None, 2.5, None],
                    "reaction_ms": [None, 250.0, None]}
    without_onsets = lines[:2] + [json.dumps({"type": "action", "action": "claim", "player": 1,
                                              "reaction_ms": [None, 250], "t": 2.0})]
    [race] = summary(*replay(without_onsets), without_onsets)["races"]
    assert (race["onset_ms"], race["reaction_ms"]) == ([None, None, None], [None, 250.0, None])
