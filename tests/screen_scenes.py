"""The screens a first-time player stumbled on, reached by playing: each scene drives a real
table with key presses on a fake clock and returns what one station shows.

The same scenes are the golden images (``tests/golden/scene-*.png``) and the before/after
gallery in ``docs/screens/``: ``python tests/screen_scenes.py DIR`` writes each scene as a PNG
scaled four times for reading.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

from companion import games
from companion.games.options import parse_options
from companion.games.triangle import FACTS, fact_true
from companion.arbiter.inputs import InputEvent
from companion.table import Table
from companion.table.game import table_for

MS = 1_000_000
SCALE = 4


def tap(table, station: int, key: str, t_ns: int) -> int:
    """Press and release ``key``; the release 50 ms later. Returns the time after it."""
    table.handle(InputEvent(station, key, True, t_ns))
    table.handle(InputEvent(station, key, False, t_ns + 50 * MS))
    return t_ns + 100 * MS


def settle(table, t_ns: int) -> None:
    table.tick(t_ns, t_ns)


def game_table(name: str, names: tuple[str, ...], seed: int = 3, **options):
    rules = games.get(name)
    opts = parse_options(rules.Options, options)
    return table_for(name)(rules, opts, names, len(names), seed, None, 1000 * MS)


def lobby_options(game: str, row: int) -> Image.Image:
    table = Table(("Ana", "Ben", "Cy"), seed=1)
    t = 100 * MS
    while table.lobby.game.name != game:
        t = tap(table, 0, "right", t)
    t = tap(table, 0, "ok", t)
    if table.seating is not None:                  # Ana and Ben play, Cy watches
        for station in (0, 1):
            t = tap(table, station, "slap", t)
        t = tap(table, 0, "ok", t)
    for _ in range(row):
        t = tap(table, 0, "ok", t)
    return table.screen(0)


def triangle_verdict() -> Image.Image:
    """Ana claims, states something false; Ben and Cy (this station) slapped later."""
    table = game_table("triangle", ("Ana", "Ben", "Cy"))
    opens = table.opens_ns
    for n in (1, 2, 3):
        settle(table, table.round_start_ns + n * table.step_ns)
    table.handle(InputEvent(0, "slap", True, opens + 100 * MS))
    table.handle(InputEvent(1, "slap", True, opens + 240 * MS))
    table.handle(InputEvent(2, "slap", True, opens + 363 * MS))
    settle(table, opens + 400 * MS)
    rnd = table.current
    wrong = next(i for i, f in enumerate(FACTS) if f != "exact" and not fact_true(rnd.cards, 0, f))
    t = opens + 500 * MS
    while table.cursor != wrong:
        t = tap(table, 0, "right", t)
    tap(table, 0, "ok", t)
    return table.screen(2)


def triangle_early(lockout_ms: int, after_open_ms: int) -> Image.Image:
    """Ben slapped during the countdown; the screen ``after_open_ms`` after the race opened."""
    table = game_table("triangle", ("Ana", "Ben", "Cy"), false_start_lockout_ms=lockout_ms)
    table.handle(InputEvent(1, "slap", True, table.round_start_ns + 2500 * MS))
    table.handle(InputEvent(1, "slap", False, table.round_start_ns + 2550 * MS))
    settle(table, table.opens_ns + after_open_ms * MS)
    return table.screen(1)


def trio_tie_judged_right() -> Image.Image:
    """Both guessers slap within the tie window; the artist says the first one is right."""
    table = game_table("trio", ("Ana", "Ben", "Cy"))
    artist = table.match.state.artist
    t = tap(table, artist, "ok", 2000 * MS)
    first, second = table.match.state.guessers
    table.handle(InputEvent(first, "slap", True, t + 1000 * MS))
    table.handle(InputEvent(second, "slap", True, t + 1004 * MS))
    settle(table, t + 1100 * MS)
    tap(table, artist, "ok", t + 1200 * MS)
    return table.screen(first)


def _pictomania_round(table, t: int) -> int:
    """Every player says ready, guesses every other drawing with number 1, and takes a token."""
    for s in range(table.players):
        t = tap(table, s, "ok", t)
    for s in range(table.players):
        for i in range(table.players - 1):   # each drawing in menu order, from the top
            for _ in range(i):
                t = tap(table, s, "right", t)
            t = tap(table, s, "ok", t)
            t = tap(table, s, "ok", t)
            t = tap(table, s, "ok", t)          # a guess is final: asked once more
            settle(table, t)
        while table.menu(s)[table.seats[s].cursor % len(table.menu(s))][0] != "done":
            t = tap(table, s, "right", t)
        t = tap(table, s, "ok", t)
        t = tap(table, s, "ok", t)
        settle(table, t)
    return t


def pictomania_review(page: int, rounds: int = 2) -> Image.Image:
    table = game_table("pictomania", ("Ana", "Ben", "Cy"), rounds=rounds)
    t = _pictomania_round(table, 2000 * MS)
    for _ in range(page):
        t = tap(table, 0, "ok" if page < 4 else "right", t)
    return table.screen(0)


def pictomania_final() -> Image.Image:
    table = game_table("pictomania", ("Ana", "Ben", "Cy"), rounds=1)
    t = _pictomania_round(table, 2000 * MS)
    for _ in range(len(table.review_pages()) - 1):
        t = tap(table, 0, "right", t)
    return table.screen(0)


def pictomania_swap() -> Image.Image:
    """Ben says ready on the first page; Ana swaps card A. Ben's screen."""
    table = game_table("pictomania", ("Ana", "Ben", "Cy"))
    t = tap(table, 1, "ok", 2000 * MS)
    t = tap(table, 0, "right", t)
    tap(table, 0, "slap", t)
    return table.screen(1)


def _closest_place(table, t: int, count: int) -> int:
    for _ in range(count):
        mover = table.state.mover()
        t = tap(table, mover, "ok", t)
        if table.picked is not None:
            t = tap(table, mover, "ok", t)
    return t


def closest(stage: str) -> Image.Image:
    table = game_table("closest", ("Ana", "Ben", "Cy"), start="seat1")
    t = 2000 * MS
    if stage == "turn":
        t = _closest_place(table, t, 2)
        return table.screen(table.state.mover())
    while table.showing is None:
        t = _closest_place(table, t, 1)
    if stage == "scores":
        return table.screen(0)
    t = tap(table, 0, "ok", t)
    t = _closest_place(table, t, 2)
    mover = table.state.mover()
    t = tap(table, mover, "right", t)
    if stage == "decoy":  # the first card of round 2: counts, or the decoy?
        t = tap(table, mover, "ok", t)
        t = tap(table, mover, "right", t)
    return table.screen(mover)


def paytoplay(stage: str) -> Image.Image:
    table = game_table("paytoplay", ("Ana", "Ben"), draw_offer_after=1)
    t = 2000 * MS
    if stage == "turn":
        return table.screen(0)
    if stage == "balance":
        for move in (4, 3, 6, 0, 8, 7, 1, "pass", 5, 2):
            mover = table.match.rules.to_move(table.match.state)
            if not mover:
                break
            (p,) = mover
            choices = table.choices()
            want = [i for i, a in enumerate(choices)
                    if (a.get("cell") == move if isinstance(move, int) else a["action"] == move)]
            if not want:
                continue
            while table.cursor % len(choices) != want[0]:
                t = tap(table, p, "right", t)
            t = tap(table, p, "ok", t)
        return table.screen(0)
    for p in (0, 1):
        choices = table.choices()
        while choices[table.cursor % len(choices)]["action"] != "pass":
            t = tap(table, p, "right", t)
        t = tap(table, p, "ok", t)
    if stage == "menu":
        p = table.match.rules.to_move(table.match.state)[0]
        choices = table.choices()
        while choices[table.cursor % len(choices)]["action"] != "draw":
            t = tap(table, p, "right", t)
        return table.screen(p)
    p = table.match.rules.to_move(table.match.state)[0]
    choices = table.choices()
    while choices[table.cursor % len(choices)]["action"] != "draw":
        t = tap(table, p, "right", t)
    tap(table, p, "ok", t)
    return table.screen(p if stage == "offered" else 1 - p)


SCENES = {
    "lobby-triangle-lockout": lambda: lobby_options("triangle", 3),
    "lobby-paytoplay-options": lambda: lobby_options("paytoplay", 0),
    "lobby-trio-options": lambda: lobby_options("trio", 0),
    "triangle-verdict": triangle_verdict,
    "triangle-too-early": lambda: triangle_early(0, 1500),
    "triangle-lockout-over": lambda: triangle_early(250, 1500),
    "trio-tie-judged-right": trio_tie_judged_right,
    "pictomania-stack": lambda: pictomania_review(0),
    "pictomania-scores": lambda: pictomania_review(3),
    "pictomania-final": pictomania_final,
    "pictomania-swap": pictomania_swap,
    "closest-turn": lambda: closest("turn"),
    "closest-scores": lambda: closest("scores"),
    "closest-round-2": lambda: closest("round 2"),
    "closest-decoy": lambda: closest("decoy"),
    "paytoplay-turn": lambda: paytoplay("turn"),
    "paytoplay-draw-menu": lambda: paytoplay("menu"),
    "paytoplay-draw-offered": lambda: paytoplay("offered"),
    "paytoplay-accept-draw": lambda: paytoplay("accept"),
    "paytoplay-balance-win": lambda: paytoplay("balance"),
}


def scaled(image: Image.Image) -> Image.Image:
    return image.convert("L").resize((image.width * SCALE, image.height * SCALE), Image.Resampling.NEAREST)


def main(out: str) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, scene in SCENES.items():
        scaled(scene()).save(folder / f"{name}.png")
        print(folder / f"{name}.png")


if __name__ == "__main__":
    main(sys.argv[1])
