"""Taking back one's last action: the rules of each game say what may be, the match takes it back
(an ``undo`` line naming the line taken back) and the game is exactly as if it had never been
made; everything else is refused with its reason. Random playouts of every game try take-backs
at random moments; scenarios check each game's allowed and refused take-backs by name."""

from __future__ import annotations

import json
import random

import pytest

from companion.games import all_games, get
from companion.games.base import IllegalAction
from companion.record.journal import Header, replay
from companion.record.match import Match

NAMES = ("Ana", "Ben", "Cy", "Di", "Ed", "Flo")


class Played:
    """A match whose journal is kept as lines (numbered as in a file, the header line 1), and
    the player actions and chance events it applied, to build the game again without one."""

    def __init__(self, game, players: int, seed: int = 5, options=None) -> None:
        self.game = game
        self.names = NAMES[:players]
        self.options = options or {}
        self.lines = [json.dumps(Header(game.name, self.names, self.options, seed).as_json())]
        self.match = Match(game, game.checked_options(players, self.options), self.names, seed, self._record)
        self.match.settle()
        self.history: list[tuple[str, dict, int]] = []
        """(``chance`` or ``action``, what, the journal line it was written on)."""

    def _record(self, line: dict) -> int:
        self.lines.append(json.dumps(line))
        return len(self.lines)

    def act(self, action: dict) -> None:
        line = len(self.lines) + 1
        self.match.act(action)
        self.history.append(("action", dict(action), line))

    def draw(self) -> None:
        line = len(self.lines) + 1
        self.history.append(("chance", self.match.draw_chance(), line))

    def take_back(self, player: int) -> None:
        undone = self.match.act(self.match.takeback_line(player))[0]
        kind, action, line = self.history.pop()
        assert kind == "action" and action["player"] == player
        assert undone == {"type": "action", "action": "undo", "player": player, "line": line}

    def without_it(self) -> Match:
        """The game built again from its chance events and the actions still standing."""
        match = Match(self.game, self.game.checked_options(len(self.names), self.options), self.names, None)
        match.settle()
        for kind, what, _ in self.history:
            match.chance(what) if kind == "chance" else match.act(what)
        return match


def same_game(a: Match, b: Match) -> None:
    assert a.state == b.state
    assert (a.chances, a.moves, a.trail) == (b.chances, b.moves, b.trail)
    assert [(s.player, s.action, s.state) for s in a.steps] == [(s.player, s.action, s.state) for s in b.steps]


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_every_take_back_allowed_leaves_the_game_as_if_the_action_was_never_made(game):
    rng = random.Random(game.name)
    taken = refused = 0
    for playout in range(12):
        players = rng.randint(game.min_players, game.max_players)
        played = Played(game, players, seed=playout)
        for _ in range(400):
            match = played.match
            if match.outcome is not None:
                break
            if match.needs_chance:
                played.draw()
                continue
            if rng.random() < 0.4:
                player = rng.randrange(players)
                before = (match.state, match.chances, match.moves, list(match.trail), len(played.lines))
                refusal = match.takeback_refusal(player)
                if refusal is None:
                    played.take_back(player)
                    same_game(match, played.without_it())
                    taken += 1
                else:
                    with pytest.raises(IllegalAction, match="."):
                        match.act({"action": "undo", "player": player})
                    assert (match.state, match.chances, match.moves, match.trail, len(played.lines)) == before
                    refused += 1
                continue
            legal = game.legal_actions(match.state)
            if not legal:
                break
            played.act(rng.choice(legal))
        _, replayed = replay(played.lines)
        assert (replayed.state, replayed.trail, replayed.moves) == (played.match.state, played.match.trail,
                                                                   played.match.moves)
    assert refused
    if game.name not in ("triangle", "trio", "quiz", "pictomania"):
        assert taken, "the playouts took nothing back"


def test_an_undo_line_must_name_the_line_it_takes_back():
    lines = ['{"format": "companion-journal/1", "game": "paytoplay", "players": ["Ana", "Ben"]}',
             '{"type": "action", "action": "play", "player": 0, "cell": 4}',
             '{"type": "action", "action": "undo", "player": 0, "line": 3}']
    with pytest.raises(Exception, match="line 3: undo names line 3, but Ana's last action is on line 2"):
        replay(lines)
    lines[-1] = '{"type": "action", "action": "undo", "player": 1, "line": 2}'
    with pytest.raises(Exception, match="line 3: you have made no move to take back"):
        replay(lines)
    lines[-1] = '{"type": "action", "action": "undo", "player": 0, "line": 2, "cell": 4}'
    with pytest.raises(Exception, match="undo has no field 'cell'"):
        replay(lines)
    lines[-1] = '{"type": "action", "action": "undo", "player": 0, "line": 2}'
    _, match = replay(lines)
    assert match.state.board == "." * 9 and match.trail == [(0, 0)]


# --- each game's own take-backs ----------------------------------------------------------------

def refusal(played: Played, player: int) -> str | None:
    return played.match.takeback_refusal(player)


def test_paytoplay_a_mark_or_a_pass_until_the_other_player_moves():
    played = Played(get("paytoplay"), 2)
    assert refusal(played, 0) == "you have made no move to take back"
    played.act({"action": "play", "player": 0, "cell": 4})
    assert refusal(played, 1) == "you have made no move to take back"
    assert refusal(played, 0) is None
    played.take_back(0)
    same_game(played.match, played.without_it())
    played.act({"action": "play", "player": 0, "cell": 4})
    played.act({"action": "pass", "player": 1})
    assert refusal(played, 0) == "Ben has played since"
    assert refusal(played, 1) is None
    played.take_back(1)
    assert refusal(played, 0) is None, "Ben's pass taken back, Ana's mark is the last move again"
    played.take_back(0)
    assert played.match.state == Played(get("paytoplay"), 2).match.state


def play_until(played: Played, ended, seed: int = 3) -> dict:
    """Random legal moves (never the agreed draw) until ``ended(before, after)``; the move that did it."""
    rng = random.Random(seed)
    while True:
        before = played.match.state
        action = rng.choice([a for a in played.game.legal_actions(before) if a["action"] != "draw"])
        played.act(action)
        if ended(before, played.match.state):
            return action


def test_paytoplay_no_take_back_of_a_winning_mark_a_game_ended_or_an_agreed_draw():
    played = Played(get("paytoplay"), 2)
    last = play_until(played, lambda before, after: played.match.outcome is not None)
    assert refusal(played, last["player"]) == "the game is over"

    tour = Played(get("paytoplay"), 2, options={"games": 3})
    last = play_until(tour, lambda before, after: after.game != before.game)
    assert tour.match.outcome is None
    assert refusal(tour, last["player"]) == "that game is over"

    draw = Played(get("paytoplay"), 2)
    for _ in range(3):
        draw.act({"action": "pass", "player": draw.match.state.to_move})
        draw.act({"action": "pass", "player": draw.match.state.to_move})
    draw.act({"action": "draw"})
    assert refusal(draw, 1) == "the game is over"
    assert get("paytoplay").takeback_refusal(None, {"action": "draw"}, None) == "an agreed draw cannot be taken back"


def test_closest_a_card_and_its_decoy_until_the_next_card_not_the_start_nor_the_last_card():
    played = Played(get("closest"), 3)
    played.act({"action": "start", "player": 1})
    assert refusal(played, 1) == "the start was a race"
    for player, number in ((1, 3), (2, 9), (0, 7)):
        played.act({"action": "place", "player": player, "number": number})
        if player != 0:
            assert refusal(played, player) is None
    assert played.match.state.round == 2
    assert refusal(played, 0) == "the cards are revealed"
    mover = played.match.state.mover()
    played.act({"action": "place", "player": mover, "number": 5, "decoy": True})
    assert refusal(played, mover) is None
    played.take_back(mover)
    same_game(played.match, played.without_it())
    played.act({"action": "place", "player": mover, "number": 6, "decoy": False})
    after = played.match.state.mover()
    played.act({"action": "place", "player": after, "number": 8, "decoy": False})
    assert refusal(played, mover) == f"{NAMES[after]} has played since"


def test_pictomania_a_guess_is_final_as_the_seed_says_and_so_are_done_and_a_wrong_word():
    played = Played(get("pictomania"), 3)
    while played.match.needs_chance:
        played.draw()
    assert refusal(played, 0) == "you have made no move to take back"
    played.act({"action": "guess", "player": 0, "target": 1, "number": 3})
    assert refusal(played, 0) == "a guess is final"
    played.act({"action": "guess", "player": 1, "target": 0, "number": 4})
    assert refusal(played, 0) == "a guess is final", "the reason, not that Ben has played since"
    played.act({"action": "done", "player": 1})
    assert refusal(played, 1) == "done guessing is final"
    played.act({"action": "wrong_word", "player": 2})
    assert refusal(played, 2) == "a wrong word cannot be taken back"
    before = played.match.state
    with pytest.raises(IllegalAction, match="done guessing is final"):
        played.match.act({"action": "undo", "player": 1})
    assert played.match.state is before


PICTOMANIA_GUESS = ['{"format": "companion-journal/1", "game": "pictomania", "players": ["Ana", "Ben", "Cy"], '
                    '"options": {"words": "physical"}}',
                    '{"type": "chance", "event": "assign", "letters": ["A", "B", "C"], "numbers": [1, 2, 3]}',
                    '{"type": "action", "action": "guess", "player": 0, "target": 1, "number": 2}',
                    '{"type": "action", "action": "undo", "player": 0, "line": 3}']


def test_replay_refuses_an_undo_of_a_pictomania_guess_naming_its_line():
    _, match = replay(PICTOMANIA_GUESS[:3])
    assert len(match.state.round.guesses) == 1
    with pytest.raises(Exception, match="line 4: a guess is final"):
        replay(PICTOMANIA_GUESS)


def test_triangle_neither_a_race_nor_a_statement():
    played = Played(get("triangle"), 3)
    played.draw()
    played.act({"action": "claim", "player": 1})
    assert refusal(played, 1) == "a race cannot be taken back"
    played.act({"action": "state", "player": 1, "fact": "even"})
    assert refusal(played, 1) == "the cards are revealed"
    played.draw()
    assert refusal(played, 1) == "the cards are dealt"


ANA_MARKS = ['{"format": "companion-journal/1", "game": "paytoplay", "players": ["Ana", "Ben"]}',
             '{"type": "action", "action": "play", "player": 0, "cell": 4}']


def told_whole(lines: list[str]) -> list[str]:
    """``replay --explain``'s sentences for a journal that replays whole."""
    from companion.record.explain import explain
    told, whole = explain(lines)
    assert whole
    return told


def test_explain_tells_a_take_back():
    told = told_whole(ANA_MARKS + ['{"type": "action", "action": "undo", "player": 0, "line": 2}',
                                   '{"type": "action", "action": "play", "player": 0, "cell": 0}'])
    assert told[2] == "line 3: Ana (seat 1) takes back line 2: the game is again as it was before it (Ana 0, Ben 0)."
    assert "takes cell 1 (top-left corner) for 3: balance -2" in told[3]


def test_explain_tells_a_seat_changing_hands_and_replay_checks_the_line():
    lines = ANA_MARKS + ['{"type": "seat", "player": 1, "bot": "easy", "station": null}',
                         '{"type": "action", "action": "pass", "player": 1, "bot": true}',
                         '{"type": "seat", "player": 1, "bot": null, "station": 2}']
    told = told_whole(lines)
    assert told[2] == "line 3: Ben (seat 2) leaves: an easy bot plays the seat from here."
    assert told[4] == "line 5: The person at station 2 plays Ben (seat 2) from here."
    for bad, reason in (('"bot": "easy", "station": 2', "a bot's seat has no station"),
                        ('"bot": "wise", "station": null', "bot must be easy or hard or null"),
                        ('"bot": null, "station": null', "a person's station must be a station number")):
        with pytest.raises(Exception, match=f"line 3: seat: {reason}"):
            replay(lines[:2] + ['{"type": "seat", "player": 1, ' + bad + '}'])
