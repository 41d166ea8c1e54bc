"""Screens the table shows over any game: the offer to resume (or why a game was not resumed),
the abandon confirmation, the announcement that a game was abandoned or set aside by a fault, the
take-back question."""

from __future__ import annotations

import textwrap

from PIL import Image

from .canvas import COLUMNS, LINE_H, blank, centred, title


def _screen(heading: str, game: str, keys: tuple[str, ...]) -> Image.Image:
    """The game's title on one or two lines under ``heading``, then what each key does."""
    image, draw = blank()
    title(draw, heading)
    lines = textwrap.wrap(game, COLUMNS)[:2] + list(keys)
    for i, line in enumerate(lines[:4]):
        centred(draw, (i + 1) * LINE_H + 3, line)
    return image


def resume_screen(game: str, since: str) -> Image.Image:
    """Every station, when the box starts with a game a crash or power cut interrupted."""
    return _screen(f"Resume from {since}?", game, ("ok: resume", "left: new game"))


def confirm_screen(game: str) -> Image.Image:
    """The station that held ``left``+``right``: abandon for good, or keep playing."""
    return _screen("Abandon the game?", game, ("ok: abandon it", "other key: play on"))


def leave_screen() -> Image.Image:
    """The station that held ``left``+``right`` in a game bots play: abandon it, let a bot play
    this seat (easy or hard), or keep playing."""
    image, draw = blank()
    title(draw, "Leave the game?")
    for i, line in enumerate(("ok: abandon for all", "left: easy bot plays", "right: hard bot plays", "slap: play on")):
        centred(draw, (i + 1) * LINE_H + 3, line)
    return image


def join_screen(name: str) -> Image.Image:
    """A station without a seat that held ``left`` and pressed ``ok``: take a bot's seat."""
    return _screen("Take a seat?", f"{name}'s seat, a bot plays it", ("ok: I play it", "other key: watch"))


def takeback_screen(what: str, refusal: str | None) -> Image.Image:
    """The station that held ``left`` and pressed ``ok``: take back ``what`` (``a mark``), or why
    it cannot be (``Ben has played since``)."""
    if refusal is not None:
        return _screen("Can't take back", refusal, ("any key: play on",))
    return _screen("Take back?", what, ("ok: take it back", "other key: keep it"))


def abandoned_screen(game: str, by: str) -> Image.Image:
    """Every station, once a game was abandoned, and by whom."""
    return _screen("Game abandoned", game, (f"by {by}", "ok: back to games"))


def not_resumed_screen(why: tuple[str, ...]) -> Image.Image:
    """Every station, when the box starts with a game it cannot resume: why, in up to three
    lines, and how to go on."""
    image, draw = blank()
    title(draw, "Game not resumed")
    for i, line in enumerate((*why[:3], "any key: games")):
        centred(draw, (i + 1) * LINE_H + 3, line)
    return image


def fault_screen(sentence: str) -> Image.Image:
    """Every station, once a game hit a fault and was set aside: the sentence that says where it
    is kept ("Quiz hit a fault and is kept as game 12"), and how to go on."""
    image, draw = blank()
    title(draw, "Game set aside")
    for i, line in enumerate((*textwrap.wrap(sentence, COLUMNS)[:3], "any key: games")):
        centred(draw, (i + 1) * LINE_H + 3, line)
    return image


def settings_screen(volume: int, loudest: int) -> Image.Image:
    """The box's settings: the buzzer volume as a number and a bar."""
    image, draw = blank()
    title(draw, "Box settings")
    centred(draw, LINE_H + 3, f"Buzzer volume: {volume}")
    width = 100
    left = (128 - width) // 2
    top = 2 * LINE_H + 6
    draw.rectangle((left, top, left + width - 1, top + 9), outline=1)
    draw.rectangle((left, top, left + width * volume // loudest - 1, top + 9), fill=1)
    centred(draw, 4 * LINE_H + 3, "</>: change  ok: done")
    return image
