"""Every documented feature as played: each game, take-backs, a bot in a seat, reading the rules
mid-game, abandoning, the quiz host's actions (a tie picked, a score corrected), bare buzzers and
the box settings, played by a script through the real box process (``companion run --script``),
its journal read back by ``companion replay`` (plain, ``--json``, ``--explain``) and ``companion
games``, then resumed by a second run that plays on.

One row per feature: the script (``tests/scripts/as-played/``, each runnable by hand with the
command in its first lines), what its journal must tell, the presses after the restart and what
they must add. How to add a row: ``docs/TESTING.md``. Leaving and taking a seat, a take-back in
Pay-to-Play and the quiz's early presses are played in ``test_as_played_defects.py``; a game's
fault in ``test_game_faults.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from asplayed import DEMO, PROFILES, SCRIPTS, journal_of, lines_of, read_back, run_box
from companion.record.shelf import DISMISSED
from companion.words import use_user_decks

MOCK3 = PROFILES / "mock-3.toml"
AS_PLAYED = SCRIPTS / "as-played"
TESTS = Path(__file__).resolve().parent
DECKS = TESTS / "decks" / "kitchen.toml"
"""A deck file of a table's own: one deck, ``kitchen``, of the three cards a round shows."""
OWN_WORDS = TESTS / "words" / "own.txt"


@dataclass(frozen=True)
class Played:
    """A feature as played: ``script`` on ``profile`` with ``args`` writes a journal of ``game``
    whose lines tell ``story`` (:func:`story`); restarted on it, ``then`` (presses) adds ``more``."""

    feature: str
    game: str
    profile: Path
    script: Path | str
    """A script file, or the text of one."""
    args: tuple[str, ...]
    story: tuple[str, ...]
    then: str
    more: tuple[str, ...]
    check: Callable[[list[dict], dict, str], None] | None = None
    """What else the feature must show once resumed and played on: told the journal's lines, what
    :func:`~asplayed.read_back` read and the first run's log."""

    @property
    def read_with(self) -> tuple[str, ...]:
        """What the read-back commands need besides the journal: the deck file it was played with."""
        return ("--decks", self.args[self.args.index("--decks") + 1]) if "--decks" in self.args else ()


def story(lines: list[dict]) -> list[str]:
    """A journal's lines after the header as ``action player`` (``bot`` when a bot played it),
    a chance event by its name, a seat change as ``seat player``; the box's automatic moves are
    left out (they follow from the rest)."""
    told = []
    for line in lines[1:]:
        if line.get("auto") is True:
            continue
        kind = line["event"] if line["type"] == "chance" else line.get("action", line["type"])
        player = line.get("player")
        told.append(kind if player is None else f"{kind} {player}" + (" bot" if line.get("bot") else ""))
    return told


PAY_TO_PLAY_DEMO = ("play 0", "play 1", "play 1", "play 0", "play 1", "play 0", "play 1", "pass 0", "play 1", "play 0")
"""The seed's worked game, as the demo script plays it (``companion/demo/paytoplay.txt``)."""

def decoys_and_round_3(lines: list[dict], result: dict, log: str) -> None:
    """Round 2 is scored without the decoys (4, 5 and 6 would have changed it) and leaves Ana and
    Ben level: round 3 is played, every card counting, and Ben wins it."""
    rounds = result["detail"]["rounds"]
    assert [(r["decoys_count"], r["points"]) for r in rounds] == [(False, [1, 8, 1]), (False, [8, 1, 1]),
                                                                   (True, [2, 6, 2])]
    assert [c["number"] for c in rounds[1]["cards"] if c["decoy"]] == [4, 5, 6]
    assert result["over"] and result["winners"] == [1] and result["scores"] == [11, 15, 4]


def both_right_then_the_win(lines: list[dict], result: dict, log: str) -> None:
    """Two right guesses at once score the artist alone; Ana, ahead and eligible, skips drawing,
    guesses Ben's word alone and wins."""
    assert "only the artist Ana (seat 1) scores" in result["explain"]
    assert result["over"] and result["winners"] == [0] and result["scores"] == [2, 1, 0]


def words_from_the_file(lines: list[dict], result: dict, log: str) -> None:
    words = [line["word"] for line in lines if line.get("event") == "word"]
    assert len(words) == 2 and set(words) <= {"lighthouse", "garden gnome", "snow globe"}, words


def card_a_swapped_and_a_wrong_word(lines: list[dict], result: dict, log: str) -> None:
    """The swap replaces card A alone; Ana's drawing is void, so Ben guesses Cy's."""
    first, swapped = (line["cards"] for line in lines if line.get("event") == "cards")
    assert swapped[0] != first[0] and swapped[1:] == first[1:]
    assert "card A is swapped" in result["explain"] and "drew the wrong word" in result["explain"]
    assert lines[-1]["target"] == 2


def printed_cards(lines: list[dict], result: dict, log: str) -> None:
    """Only letters and numbers are dealt: no word card line, no word told."""
    assert lines[0]["options"]["words"] == "physical"
    assert not any(line.get("event") == "cards" for line in lines)
    assert "Secret letters and numbers are dealt: Ana (seat 1) " in result["explain"]


def competitive_round(lines: list[dict], result: dict, log: str) -> None:
    """Two black tokens for three players; Ben took the last and the round was scored, Cy holding
    none. Resumed, each station's oks walk it through the reveal (each drawing, then the round's
    scores) and then say it has read round 2's cards."""
    detail = result["detail"]
    assert detail["black_tokens"] == [2, 2] and detail["rounds"][0]["black"] == [2, 2, None]
    assert detail["round"] == 2 and lines[-2]["deck"] == "yellow"


def locked_out_not_journaled(lines: list[dict], result: dict, log: str) -> None:
    """No line for an early press; Ben's press 0.1 s after the cue, inside his lockout, is in no
    race, and once it is over he buzzes and scores."""
    assert not any(line.get("action") == "early" for line in lines)
    assert [line["order"] for line in lines if line.get("action") == "buzz"] == [[2], [1], [2]]
    assert result["scores"] == [0, 1, 0]


def the_tables_own_deck(lines: list[dict], result: dict, log: str) -> None:
    """The deck file's cards are dealt (a deck of three: one round), told by their words."""
    cards = [line for line in lines if line.get("event") == "cards"]
    assert [sorted(line["cards"]) for line in cards] == [["kitchen-01", "kitchen-02", "kitchen-03"]]
    assert "from the kitchen deck: card A (" in result["explain"] and "(spoon, fork, knife" in result["explain"]


def stuck_then_freed(lines: list[dict], result: dict, log: str) -> None:
    """Said once, for the button held past the threshold; freed, the button buzzes again."""
    assert log.count("button stuck") == 1 and "station 2 slap button stuck" in log
    assert result["scores"] == [0, 2, 0]


PLAYED = [
    Played("pay-to-play to its end", "paytoplay", DEMO / "profile.toml", DEMO / "paytoplay.txt", ("--speed", "4"),
           PAY_TO_PLAY_DEMO, "0.5 1 ok\n", ()),
    Played("pay-to-play: a tournament's second game", "paytoplay", DEMO / "profile.toml",
           (DEMO / "paytoplay.txt").read_text() + "16.4 1 ok\n17.2 2 ok\n",  # ok goes on; Bob is X now
           ("--option", "paytoplay.games=2", "--speed", "4"), PAY_TO_PLAY_DEMO + ("play 1",),
           "0.5 1 ok\n1.5 1 ok\n", ("play 0",)),
    Played("triangle: a race, a claim, a fact", "triangle", DEMO / "triangle.toml", DEMO / "triangle.txt",
           ("--option", "triangle.countdown_ms=250"),
           ("deal", "claim 1", "state 1"), "0.5 1 ok\n1.5 2 ok\n3.5 1 slap\n", ("deal", "claim 0")),
    Played("closest: cards placed and one taken back", "closest", MOCK3, SCRIPTS / "as-played" / "closest.txt",
           ("--game", "closest", "--option", "closest.start=seat1"),
           ("place 0", "place 1", "undo 1", "place 1", "place 2"), "0.5 1 ok\n1.5 1 ok\n2.0 2 ok\n2.5 2 ok\n",
           ("place 1",)),
    Played("closest: the start race", "closest", MOCK3, SCRIPTS / "as-played" / "closest-start.txt",
           ("--game", "closest", "--seed", "1"), ("start 1", "place 1"), "0.5 1 ok\n1.5 3 ok\n", ("place 2",)),
    Played("pictionary: a new word, a word guessed, the judgement taken back", "trio", MOCK3,
           SCRIPTS / "as-played" / "trio.txt", ("--game", "trio", "--option", "trio.allow_new_word=on"),
           ("word", "new_word", "word", "timer", "guessed 1", "word", "correct"),
           "0.5 1 ok\n1.5 2 ok\n2.0 2 ok\n", ("timer",)),
    Played("pictomania: a guess (final: asked once more, never taken back), a black token", "pictomania", MOCK3,
           SCRIPTS / "as-played" / "pictomania.txt", ("--game", "pictomania"),
           ("cards", "assign", "guess 0", "done 0"),
           "0.5 1 ok\n1.5 2 ok\n1.9 2 ok\n2.3 2 ok\n", ("guess 1",)),
    Played("quiz: every host action", "quiz", MOCK3, SCRIPTS / "as-played" / "quiz.txt", ("--game", "quiz"),
           ("arm", "buzz 1", "right", "arm", "buzz 2", "wrong", "skip", "arm", "buzz", "pick", "right", "correct"),
           "0.5 1 ok\n1.5 1 slap\n2.0 3 slap\n2.5 1 ok\n", ("arm", "buzz 2", "right")),
    Played("quiz: teams, a re-open, an answer timed out", "quiz", PROFILES / "mock-5.toml",
           SCRIPTS / "as-played" / "quiz-teams.txt",
           ("--game", "quiz", "--option", "quiz.teams=2", "--option", "quiz.after_wrong=reopen",
            "--option", "quiz.answer_s=5"),
           ("arm", "buzz 1", "wrong", "arm", "buzz 4", "timeout"),
           "0.5 1 ok\n1.5 1 slap\n2.0 2 slap\n2.5 1 ok\n", ("arm", "buzz 1", "right")),
    Played("quiz: bare buzzers on GPIO and the button board", "quiz", DEMO / "quiz.toml",
           SCRIPTS / "as-played" / "quiz-16.txt", (), ("arm", "buzz 11", "right"),
           "0.5 1 ok\n1.5 1 slap\n2.0 3 slap\n2.5 1 left\n", ("arm", "buzz 2", "wrong")),
    Played("quiz: a night from a question pack (its questions journaled, its points and times)", "quiz", MOCK3,
           SCRIPTS / "as-played" / "quiz-pack.txt",
           ("--game", "quiz", "--option", f"quiz.pack={Path(__file__).parent / 'packs' / 'pub-night.csv'}"),
           ("arm", "buzz 1", "right", "arm", "buzz 2", "wrong", "right"),
           "0.5 1 ok\n1.5 1 slap\n2.0 3 slap\n2.5 1 ok\n", ("arm", "buzz 2", "right")),
    Played("closest: decoys (round 2), and round 3 after a shared lead", "closest", MOCK3,
           AS_PLAYED / "closest-decoys.txt", ("--game", "closest", "--option", "closest.start=seat1"),
           ("place 0", "place 1", "place 2") + ("place 1", "place 2", "place 0") * 2,
           (AS_PLAYED / "closest-round3.txt").read_text(), ("place 2", "place 0", "place 1") * 2, decoys_and_round_3),
    Played("pictionary: two right guesses at once, then the win", "trio", MOCK3, AS_PLAYED / "trio-both.txt",
           ("--game", "trio", "--option", "trio.eligible_at=1"), ("word", "timer", "both_guessed", "word"),
           "0.5 1 ok\n1.5 2 ok\n2.0 2 ok\n3.0 1 slap\n3.6 2 ok\n", ("timer", "guessed 0"), both_right_then_the_win),
    Played("pictionary: the table's own word file (trio.word_file)", "trio", MOCK3, AS_PLAYED / "trio-words.txt",
           ("--game", "trio", "--option", f"trio.word_file={OWN_WORDS}", "--option", "trio.only_word_file=on"),
           ("word", "timer", "guessed 1", "word"), "0.5 1 ok\n1.5 2 ok\n2.0 2 ok\n", ("timer",),
           words_from_the_file),
    Played("pictomania: a card swapped, a wrong word", "pictomania", MOCK3, AS_PLAYED / "pictomania-swap.txt",
           ("--game", "pictomania"), ("cards", "cards", "assign", "wrong_word 0"),
           "0.5 1 ok\n1.5 2 right\n1.9 2 ok\n2.3 2 ok\n2.7 2 ok\n", ("guess 1",), card_a_swapped_and_a_wrong_word),
    Played("pictomania: printed word cards (words = physical)", "pictomania", MOCK3,
           AS_PLAYED / "pictomania-physical.txt", ("--game", "pictomania", "--seed", "2"), ("assign", "guess 0"),
           "0.5 1 ok\n1.5 2 ok\n1.9 2 ok\n2.3 2 ok\n", ("guess 1",), printed_cards),
    Played("pictomania: the competitive variant", "pictomania", MOCK3, AS_PLAYED / "pictomania-competitive.txt",
           ("--game", "pictomania"), ("cards", "assign", "done 0", "done 1"),
           "0.5 1 ok\n" + "".join(f"{1.5 + 0.2 * n:.1f} {n % 3 + 1} ok\n" for n in range(15)),  # 5 oks each
           ("cards", "assign"), competitive_round),
    Played("pictomania: the table's own decks (--decks)", "pictomania", MOCK3, AS_PLAYED / "pictomania.txt",
           ("--game", "pictomania", "--decks", str(DECKS), "--option", "pictomania.decks=kitchen"),
           ("cards", "assign", "guess 0", "done 0"), "0.5 1 ok\n1.5 2 ok\n1.9 2 ok\n2.3 2 ok\n", ("guess 1",),
           the_tables_own_deck),
    Played("quiz: early = lockout", "quiz", MOCK3, AS_PLAYED / "quiz-lockout.txt",
           ("--game", "quiz", "--option", "quiz.early=lockout", "--option", "quiz.lockout_ms=1000"),
           ("arm", "buzz 2", "wrong", "arm", "buzz 1", "right"), "0.5 1 ok\n1.5 1 slap\n2.0 3 slap\n",
           ("arm", "buzz 2"), locked_out_not_journaled),
    Played("a stuck button: its notice, and the button freed", "quiz", MOCK3, AS_PLAYED / "quiz-stuck.txt",
           ("--game", "quiz"), ("arm", "buzz 1", "right", "arm", "buzz 1"), "0.5 1 ok\n1.5 1 ok\n", ("right",),
           stuck_then_freed),
    Played("a bot in a seat, and the rules read mid-game", "paytoplay", DEMO / "profile.toml",
           SCRIPTS / "as-played" / "bots.txt", ("--bot", "2=easy", "--seed", "1"),
           ("play 0", "play 1 bot", "play 1 bot"), "0.5 1 ok\n1.5 1 ok\n8.0 2 slap\n",
           ("play 0", "play 1 bot", "play 1 bot")),
    Played("abandoned", "paytoplay", DEMO / "profile.toml", SCRIPTS / "as-played" / "abandon.txt", (),
           ("play 0",), "0.5 1 ok\n", ()),
]


@pytest.mark.parametrize("played", PLAYED, ids=[p.feature for p in PLAYED])
def test_as_played(played: Played, tmp_path):
    journals = tmp_path / "games"
    first = run_box(played.profile, played.script, journals, *played.args)
    assert first.code == 0 and "Traceback" not in first.log, first.log
    path = journal_of(journals, played.game)
    assert story(lines_of(path)) == list(played.story)
    read_back(path, *played.read_with)

    run = run_box(played.profile, played.then, journals, *played.args)
    assert run.code == 0 and "Traceback" not in run.log, run.log
    assert journal_of(journals, played.game) == path  # the same game went on: no other was started
    assert story(lines_of(path)) == list(played.story + played.more)
    result = read_back(path, *played.read_with)
    use_user_decks([])  # the decks a read-back was given are this process's no longer
    if played.check is not None:
        played.check(lines_of(path), result, first.log)
    if played.feature == "pay-to-play to its end":  # shown again at the restart, then left with ok
        assert result["over"] and result["winners"] == [0] and "won by Alice" in result["games"]
        assert (journals / DISMISSED).read_text().strip() == path.name
    if played.game == "quiz" and "pack" in played.feature:  # every question asked is in its arm line
        asked = [line["ask"]["answer"] for line in lines_of(path) if line.get("action") == "arm"]
        assert asked == ["Canberra", "Eight", "Mars"] and result["over"]
        assert result["scores"] == [0, 3, 1]  # Canberra's 2 points, then 1 each
    if played.feature == "abandoned":  # never offered again: the ok at the restart was the lobby's
        assert path.name.endswith(".abandoned.jsonl") and "abandoned" in result["games"]


def test_the_box_settings_are_kept_from_one_start_to_the_next(tmp_path):
    """Box settings, before the first game: ``left`` turns to it, ``ok`` opens it, ``left`` takes
    the buzzer a step quieter, ``ok`` closes it; the next start begins from what was kept."""
    journals = tmp_path / "games"
    quieter = "0.3 1 left\n0.6 1 ok\n0.9 1 left\n1.2 1 ok\n"
    for volume in (4, 3):
        run = run_box(MOCK3, quieter, journals)
        assert run.code == 0 and "Traceback" not in run.log, run.log
        assert json.loads((journals / "settings.json").read_text()) == {"volume": volume}
