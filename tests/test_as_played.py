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

import pytest

from asplayed import DEMO, PROFILES, SCRIPTS, journal_of, lines_of, read_back, run_box
from companion.record.shelf import DISMISSED

MOCK3 = PROFILES / "mock-3.toml"


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
    run = run_box(played.profile, played.script, journals, *played.args)
    assert run.code == 0 and "Traceback" not in run.log, run.log
    path = journal_of(journals, played.game)
    assert story(lines_of(path)) == list(played.story)
    read_back(path)

    run = run_box(played.profile, played.then, journals, *played.args)
    assert run.code == 0 and "Traceback" not in run.log, run.log
    assert journal_of(journals, played.game) == path  # the same game went on: no other was started
    assert story(lines_of(path)) == list(played.story + played.more)
    result = read_back(path)
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
