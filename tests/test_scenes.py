"""The screens a first-time player stumbled on (``screen_scenes.py``), reached by playing and
compared with the reviewed images in ``docs/screens/after/`` (four times the panel's size; the
images before the rewrite are in ``docs/screens/before/``).

To review a changed scene, the failing test saves ``*.actual.png`` next to the reviewed image;
look at both and replace the reviewed one only if the new one is right.
"""

from pathlib import Path

import pytest
from PIL import Image, ImageChops

from glyphs import shows
from screen_scenes import SCENES, scaled

AFTER = Path(__file__).parent.parent / "docs" / "screens" / "after"


@pytest.mark.parametrize("name", sorted(SCENES))
def test_scene_matches_the_reviewed_image(name):
    image = scaled(SCENES[name]())
    reviewed = Image.open(AFTER / f"{name}.png").convert("L")
    if ImageChops.difference(image, reviewed).getbbox() is not None:
        image.save(AFTER / f"{name}.actual.png")
        pytest.fail(f"{name} differs from the reviewed image; see docs/screens/after/{name}.actual.png")


@pytest.mark.parametrize("name, wanted, unwanted", [
    ("triangle-too-early", "Slap to speak!", "Too early!"),
    ("triangle-lockout-over", "Slap to speak!", "wait"),
    ("trio-tie-judged-right", "You were right!", "Slap to guess!"),
    ("triangle-verdict", "Ana: peers even? No", "wro."),
    ("lobby-triangle-lockout", "<off>", "lockout."),
    ("pictomania-stack", "ok: next", "keeps"),
    ("pictomania-scores", "learning: all black +", "no sheep;"),
    ("pictomania-final", "Ben wins!", "Ben win;"),
    ("pictomania-swap", "Ana swapped card A", "ok: ready"),
    ("closest-scores", "Ben", "ok: next"),
    ("closest-turn", "ok: place", "number  ok"),
    ("paytoplay-accept-draw", "left: no", "Ana's turn"),
    ("paytoplay-draw-menu", "ok: offer", "your turn"),
    ("closest-decoy", "decoy", "number"),
    ("paytoplay-draw-offered", "decides", "your turn"),
    ("paytoplay-balance-win", "on points", "Alice"),
])
def test_scene_says_what_is_true_now(name, wanted, unwanted):
    image = SCENES[name]()
    assert shows(image, wanted) and not shows(image, unwanted)
