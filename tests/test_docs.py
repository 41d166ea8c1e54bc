"""The README is a front door and the details live in ``docs/``: every link between them must
lead somewhere. Each relative link or image in ``README.md`` and ``docs/*.md`` names a file that
exists, and each ``#anchor`` a heading in the file it points at (as GitHub makes anchors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCED = re.compile(r"```.*?```", re.S)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the page's headings: lower case, punctuation dropped, spaces to ``-``."""
    text = FENCED.sub("", page.read_text(encoding="utf-8"))
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
            for heading in re.findall(r"^#{1,6} +(.+?) *$", text, re.M)}


def links(page: Path) -> list[str]:
    """The page's link targets, outside code."""
    return LINK.findall(FENCED.sub("", page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_leads_somewhere(page):
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto: and the like: not ours to check here
            continue
        path, _, anchor = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        if not goal.exists():
            broken.append(f"{target}: no such file")
        elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
            broken.append(f"{target}: no heading #{anchor} in {goal.relative_to(ROOT)}")
    assert broken == []


def test_the_anchor_rule_is_githubs():
    page = ROOT / "docs" / "PLAYING.md"
    assert {"pay-to-play-tic-tac-toe", "the-closest-number-game", "who-plays"} <= anchors(page)


def test_the_readme_starts_with_the_two_commands_and_links_every_doc():
    """The first screen says how to run the box and the tests; the "More" list reaches every
    page in docs/ (directly or through a page it links)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    assert blocks[0].endswith("companion sim") and blocks[1].endswith("pytest")
    reached, todo = set(), [ROOT / "README.md"]
    while todo:
        page = todo.pop()
        for target in links(page):
            goal = (page.parent / target.partition("#")[0]).resolve()
            if goal.suffix == ".md" and goal.parent == ROOT / "docs" and goal not in reached:
                reached.add(goal)
                todo.append(goal)
    assert set((ROOT / "docs").glob("*.md")) - reached == set()


def test_the_readme_lists_the_games_in_the_lobby_menu_order():
    """A new player reads the README's games table and then meets the lobby's menu: the same games in
    the same order. Each row names its game by title (``Closest number`` as "The closest-number game")."""
    from companion.games import all_games

    def plain(words: str) -> str:
        return words.lower().replace("-", " ")

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| game | players"):].split("\n\n")[0].splitlines()[2:]
    games = all_games()
    rows = [[g.name for g in games if plain(g.title) in plain(row.split("|")[1])] for row in table]
    assert rows == [[g.name] for g in games]


def test_every_page_about_installing_names_the_releases_the_installer_takes():
    """The installer goes on only on Trixie or Bookworm (systemd/install.sh): the README, the Pi's
    page and the service's page all say both, so none reads as if one were the only one."""
    for page in (ROOT / "README.md", ROOT / "docs" / "RASPBERRY-PI.md", ROOT / "systemd" / "README.md"):
        text = page.read_text(encoding="utf-8")
        assert "Trixie" in text and "Bookworm" in text, page.name
