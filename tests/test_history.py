"""``companion history``: per player across journals, games played and won, points, reaction
times (measured from the journal's ``reaction_ms``, else estimated for Triangle), and charts."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from companion.cli import main
from companion.record.history import read_game, read_history
from companion.record.journal import replay, summary

from tablescreen_tour import tour
from companion.games.options import SCREEN_TIE_WINDOW_MS

GAMES = (("triangle", 3), ("closest", 3), ("trio", 3), ("pictomania", 4), ("paytoplay", 2))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Every game played to its end (several times) by random presses, journaled in one folder
    (Pictomania asks again before each guess: random presses take longer to finish a round)."""
    directory = tmp_path_factory.mktemp("games")
    for game, players in GAMES:
        for _ in tour(directory, game, seed=4, steps=4000 if game == "pictomania" else 1500, players=players):
            pass
    return directory


def expected(directory: Path):
    """Played and won per (player, game), from ``companion replay``'s own summary."""
    played, won, points = Counter(), Counter(), Counter()
    for path in sorted(directory.glob("*.jsonl")):
        header, match = replay(path.read_bytes().splitlines())
        result = summary(header, match)
        if not result["over"]:
            continue
        for p, name in enumerate(header.players):
            played[name, match.rules.title] += 1
            won[name, match.rules.title] += p in result["winners"]
            points[name, match.rules.title] += result["scores"][p]
    return played, won, points


def test_history_counts_every_finished_game_per_player_as_replay_does(played, capsys):
    assert main(["history", "--dir", str(played), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    games, won, points = expected(played)
    assert len(games) >= 10 and out["games"] == sum(1 for p in played.glob("*.jsonl")
                                                    if replay(p.read_bytes().splitlines())[1].outcome)
    got_played = Counter({(n, t): s["played"] for n, v in out["players"].items() for t, s in v["games"].items()})
    got_won = Counter({(n, t): s["won"] for n, v in out["players"].items() for t, s in v["games"].items()})
    got_points = Counter({(n, t): sum(s["points"]) for n, v in out["players"].items() for t, s in v["games"].items()})
    assert (got_played, got_won, got_points) == (games, won, points)
    assert out["not_counted"]  # each tour leaves its last game unfinished: listed, not counted


def test_the_text_report_has_a_block_per_player(played, capsys):
    assert main(["history", "--journal-dir", str(played)]) == 0
    out = capsys.readouterr().out
    for name in ("Ana", "Ben", "Cy", "Dee"):
        assert f"\n{name}\n" in f"\n{out}"
    assert "Triangle" in out and "reactions:" in out and "estimated from journal times" in out


def test_triangle_claims_without_reaction_times_are_estimated_from_journal_times(tmp_path):
    path = tmp_path / "t.jsonl"
    header = {"format": "companion-journal/1", "game": "triangle", "players": ["Ana", "Ben", "Cy"],
              "options": {}, "seed": 3}
    lines = [header, {"type": "chance", "event": "deal", "cards": [1, 2, 3], "rts": 4, "t": 2.0},
             {"type": "action", "action": "claim", "player": 1, "t": 5.262}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    game = read_game(path)
    (reaction,) = game.reactions
    # opened at 2.0 + 3 x 1 s; decided 262 ms later, less the default tie window (11 ms)
    assert (reaction.player, reaction.ms, reaction.estimated) == ("Ben", 262.0 - SCREEN_TIE_WINDOW_MS, True)


def test_reaction_times_journaled_per_player_are_read_as_measured(tmp_path):
    path = tmp_path / "t.jsonl"
    header = {"format": "companion-journal/1", "game": "triangle", "players": ["Ana", "Ben", "Cy"],
              "options": {}, "seed": 3}
    lines = [header, {"type": "chance", "event": "deal", "cards": [1, 2, 3], "rts": 4, "t": 2.0},
             {"type": "action", "action": "claim", "player": 1, "onset_ms": [0.0, 0.0, 0.0],
              "reaction_ms": [301.5, 285.0, None], "t": 5.4}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    game = read_game(path)
    assert [(r.player, r.ms, r.estimated) for r in game.reactions] == [("Ana", 301.5, False), ("Ben", 285.0, False)]
    assert game.trail == [(0.0, (0, 0, 0))] and not game.over


def test_a_bad_journal_is_named_and_skipped(played, tmp_path, capsys):
    for path in list(played.glob("paytoplay-*"))[:3]:
        shutil.copy(path, tmp_path)
    (tmp_path / "zz-broken.jsonl").write_text('{"format": "companion-journal/1", "game": "chess"}\n')
    history = read_history(tmp_path)
    assert [(p.name, reason) for p, reason in history.unreadable] == [
        ("zz-broken.jsonl", "line 1: players must be a list of names")]
    assert main(["history", "--dir", str(tmp_path)]) == 0
    assert "skipped zz-broken.jsonl: line 1: players must be a list of names" in capsys.readouterr().out


def test_the_score_trail_follows_the_game_to_its_final_scores(played):
    for path in sorted(played.glob("closest-*"))[:3]:
        game = read_game(path)
        if game.over:
            assert game.trail[0] == (0.0, (0, 0, 0)) and game.trail[-1][1] == game.scores
            assert [t for t, _ in game.trail] == sorted(t for t, _ in game.trail)


def test_plot_writes_a_chart_per_game_and_the_reaction_times(played, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["history", "--dir", str(played), "--plot", str(tmp_path / "charts")]) == 0
    written = sorted(p.name for p in (tmp_path / "charts").iterdir())
    assert written == ["reactions.png"] + [f"scores-{g}.png" for g in sorted(g for g, _ in GAMES)]
    for name in written:
        with Image.open(tmp_path / "charts" / name) as image:
            assert image.width >= 400 and len(image.getcolors(1 << 16) or range(300)) > 20


def test_every_panel_of_a_score_chart_names_its_players_and_their_final_scores(tmp_path, monkeypatch):
    """Six-player plays, then plays of other people: each panel has its own legend, every line
    named with its final score (lines of equal scores lie on one another)."""
    pytest.importorskip("matplotlib")
    import matplotlib.figure

    import tablescreen_tour

    journals = tmp_path / "journals"
    journals.mkdir()
    for names, seed, players in ((("Ana", "Ben", "Cy", "Dee", "Eli", "Fay"), 5, 6), (("Gus", "Hal", "Ivy", "Jo"), 7, 4)):
        monkeypatch.setattr(tablescreen_tour, "NAMES", names)
        for _ in tour(journals, "pictomania", seed=seed, steps=12000 if players == 6 else 3000, players=players):
            pass
    quiz = [{"format": "companion-journal/1", "game": "quiz", "players": ["Hal", "Ben", "Cy"], "options": {"questions": 1}},
            {"type": "action", "action": "correct", "target": 2, "score": 3, "t": 1.0},
            {"type": "action", "action": "arm", "t": 2.0}, {"type": "action", "action": "skip", "t": 3.0}]
    (journals / "quiz-night.jsonl").write_text("".join(json.dumps(line) + "\n" for line in quiz))
    legends = {}
    save = matplotlib.figure.Figure.savefig

    def saved(figure, path, **kwargs):  # what each written chart shows, panel by panel
        legends[Path(path).name] = [(ax.get_title(), [t.get_text() for t in ax.get_legend().get_texts()]
                                     if ax.get_legend() else None) for ax in figure.axes if ax.get_visible()]
        return save(figure, path, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", saved)
    assert main(["history", "--dir", str(journals), "--plot", str(tmp_path / "charts")]) == 0
    assert legends["scores-quiz.png"] == [("quiz-night", ["Ben 0", "Cy 3"])]  # the host plays for no points
    plays = [read_game(p) for p in sorted(journals.glob("pictomania-*.jsonl"))][-6:]
    assert len({g.players for g in plays}) == 2 and max(len(g.players) for g in plays) == 6
    assert legends["scores-pictomania.png"] == [
        (p.path.name.split(".")[0] + ("" if p.over else " (not finished)"),
         [f"{name} {score}" for name, score in zip(p.players, p.trail[-1][1])]) for p in plays]


def test_no_journals_says_so_and_a_folder_that_is_not_there_is_refused(tmp_path, capsys):
    """An empty folder has no games; a folder that does not exist (a typo) is no answer."""
    (tmp_path / "empty").mkdir()
    assert main(["history", "--dir", str(tmp_path / "empty")]) == 0
    assert capsys.readouterr().out == f"no games in {tmp_path / 'empty'}\n"
    for command in ("history", "games"):
        assert main([command, "--journal-dir", str(tmp_path / "none")]) == 2
        assert f"{tmp_path / 'none'} does not exist" in capsys.readouterr().err


def test_plot_without_matplotlib_says_how_to_get_it(played, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    assert main(["history", "--dir", str(played), "--plot", str(tmp_path / "charts")]) == 2
    assert 'companion: --plot needs matplotlib (pip install ".[plot]")' in capsys.readouterr().err


def chart_legends(monkeypatch) -> dict[str, list]:
    """What each chart written from now on shows, panel by panel: its title and legend, and the figure's title."""
    import matplotlib.figure

    legends = {}
    save = matplotlib.figure.Figure.savefig

    def saved(figure, path, **kwargs):
        legends[Path(path).name] = [figure.get_suptitle()] + [
            (ax.get_title(), [t.get_text() for t in ax.get_legend().get_texts()], ax.get_lines()[0].get_xdata()[-1])
            for ax in figure.axes if ax.get_visible() and ax.get_legend()]
        return save(figure, path, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", saved)
    return legends


def test_a_team_quiz_is_charted_as_its_teams(tmp_path, monkeypatch, capsys):
    """A quiz of 16 players in four teams, played by the box from a script: the chart draws four
    teams (their players' points added up, as the TV shows them), not sixteen players."""
    pytest.importorskip("matplotlib")
    demo = Path(__file__).parent.parent / "companion" / "demo"
    assert main(["run", "--profile", str(demo / "quiz.toml"), "--script", str(demo / "quiz.txt"),
                 "--option", "quiz.teams=4", "--journal-dir", str(tmp_path)]) == 0
    [journal] = tmp_path.glob("*.jsonl")
    assert main(["replay", str(journal)]) == 0
    assert "1. team 1, team 4: 1" in capsys.readouterr().out
    legends = chart_legends(monkeypatch)
    assert main(["history", "--dir", str(tmp_path), "--plot", str(tmp_path / "charts")]) == 0
    [title, (_, labels, _)] = legends["scores-quiz.png"]
    assert labels == ["Team 1: Ana, Ben, Cy, Dee 1", "Team 2: Eve, Fay, Gus, Hal 0",
                      "Team 3: Ida, Jo, Kim, Lou 0", "Team 4: Max, Ned, Ola, Pia 1"]


def test_unfinished_games_are_charted_for_as_long_as_they_went_on_and_unbegun_ones_left_out(tmp_path, monkeypatch):
    """A game stopped before any score changed draws its flat lines up to its last line (not
    empty axes at 0 s); a journal with nothing after its header has nothing to draw: it is left
    out and counted in the chart's title."""
    pytest.importorskip("matplotlib")
    assert main(["demo", "--out", str(tmp_path / "demo")]) == 0
    [played] = (tmp_path / "demo").glob("*.jsonl")
    lines = played.read_text().splitlines(keepends=True)
    (tmp_path / "20260101-100000-triangle.jsonl").write_text("".join(lines[:3]))  # the deal and the claim
    (tmp_path / "20260101-110000-triangle.jsonl").write_text(lines[0])
    stopped_at = json.loads(lines[2])["t"]
    legends = chart_legends(monkeypatch)
    assert main(["history", "--dir", str(tmp_path), "--plot", str(tmp_path / "charts")]) == 0
    [title, (panel, labels, end)] = legends["scores-triangle.png"]
    assert title == "Triangle: score over time (1 more not begun, left out)"
    assert panel == "20260101-100000-triangle (not finished)" and labels == ["Alice 0", "Bob 0", "Cy 0"]
    assert end == stopped_at > 0
    (tmp_path / "20260101-100000-triangle.jsonl").unlink()
    legends.clear()
    assert main(["history", "--dir", str(tmp_path), "--plot", str(tmp_path / "charts")]) == 0
    assert "scores-triangle.png" not in legends  # only a header: no chart of empty axes


def test_a_quiz_is_charted_question_by_question(tmp_path, monkeypatch):
    """The quiz's chart has a point per question closed (0 before the first), each player's score
    as that question closed, not a step per second."""
    pytest.importorskip("matplotlib")
    import matplotlib.figure

    demo = Path(__file__).parent.parent / "companion" / "demo"
    assert main(["run", "--profile", str(demo / "quiz.toml"), "--script", str(demo / "quiz.txt"),
                 "--journal-dir", str(tmp_path)]) == 0
    drawn = {}
    save = matplotlib.figure.Figure.savefig

    def saved(figure, path, **kwargs):
        [ax] = [ax for ax in figure.axes if ax.get_visible()] if Path(path).name == "scores-quiz.png" else [None]
        if ax is not None:
            drawn.update(title=figure.get_suptitle(), x=ax.get_xlabel(),
                         lines={line.get_label(): (list(line.get_xdata()), list(line.get_ydata()))
                                for line in ax.get_lines()})
        return save(figure, path, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", saved)
    assert main(["history", "--dir", str(tmp_path), "--plot", str(tmp_path / "charts")]) == 0
    assert drawn["title"] == "Quiz: question by question" and drawn["x"] == "question"
    scored = {label: ys for label, (xs, ys) in drawn["lines"].items() if xs == [0, 1, 2]}
    assert len(scored) == len(drawn["lines"]) == 16
    assert sorted(ys[-1] for ys in scored.values()) == [0] * 14 + [1, 1]
    assert all(ys[0] == 0 for ys in scored.values())
