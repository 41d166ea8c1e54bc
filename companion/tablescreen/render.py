"""Drawing the public view at any resolution: a pure function, ``render(view, size) -> Image``,
painted with :class:`~.painter.Painter` (its bitmap font makes every frame pixel-identical on
every machine, and it hands the secret-leak test every string drawn).
"""

from __future__ import annotations

from PIL import Image

from .chart import score_chart
from .painter import ACCENT, ALERT, CHAR_H, CHAR_W, DIM, PANEL, TEXT, Painter, colour
from .public import PublicView, RacePress


def render(view: PublicView, size: tuple[int, int] = (1280, 720), drawn: list[str] | None = None) -> Image.Image:
    """The table screen showing ``view``, as an RGB image of ``size``."""
    p = Painter(size, drawn)
    w, h = size
    u = p.u
    _header(p, view)
    p.text(8 * u, 20 * u, view.heading, scale=2 * u, fill=ACCENT if view.over else TEXT, width=w - 16 * u)
    top = 20 * u + p.line_h(2 * u) + 4 * u
    bottom = h - p.line_h() - 4 * u
    left = 8 * u
    if view.names:  # as wide as the longest name and a score need, within a quarter or so
        wanted = (max(len(n) for n in view.names) + 9) * CHAR_W * u  # name, " *", score
        side = min(max(wanted, 50 * u), w * 28 // 100)
        _scores(p, view, (8 * u, top, 8 * u + side, bottom))
        left = side + 18 * u
    box = (left, top, w - 8 * u, bottom)
    _body(p, view, box)
    if view.notice or view.footer:
        p.text(w // 2, h - p.line_h() - 2 * u, view.notice or view.footer, fill=ALERT if view.notice else DIM,
               align="centre", width=w - 16 * u)
    return p.image


def _header(p: Painter, view: PublicView) -> None:
    w, u = p.image.width, p.u
    p.draw.rectangle((0, 0, w - 1, 16 * u), fill=PANEL)
    title_end = 8 * u + p.text(8 * u, 3 * u, view.game, fill=ACCENT) + 8 * u
    right = w - 8 * u
    if view.clock:
        right -= p.text(right, 3 * u, view.clock, fill=ALERT if view.hurry else TEXT, align="right") + 8 * u
    if view.turn and not view.over:
        p.text(right, 3 * u, view.turn, fill=DIM, align="right", width=right - title_end)


def _scores(p: Painter, view: PublicView, box: tuple[int, int, int, int]) -> None:
    """Each player's name and score with a bar, the marked player pointed at, winners starred."""
    x0, y, x1, y1 = box
    u = p.u
    top = max([abs(s) for s in view.scores] + [1])
    row = p.line_h() + 8 * u
    for i, name in enumerate(view.names):
        if y + row > y1:
            break
        if i == view.mark and not view.over:
            p.text(x0, y, ">", fill=ACCENT)
        label = name + (" *" if i in view.winners else "")
        p.text(x0 + 8 * u, y, label, fill=colour(i), width=x1 - x0 - 38 * u)  # a score's 5 columns
        if i < len(view.scores):
            score = view.scores[i]
            p.text(x1, y, str(score), align="right")
            bar = (x1 - x0 - 8 * u) * abs(score) // top
            if bar:
                p.draw.rectangle((x0 + 8 * u, y + p.line_h(), x0 + 8 * u + bar, y + p.line_h() + 2 * u),
                                 fill=colour(i))
        y += row


def _body(p: Painter, view: PublicView, box: tuple[int, int, int, int]) -> None:
    """The blocks that apply, top to bottom: a late press's note, countdown, board, word cards,
    race, lines, chart."""
    x0, y, x1, y1 = box
    u = p.u
    if view.late:
        p.text(x0, y, view.late, fill=ALERT, width=x1 - x0)
        y += p.line_h() + 4 * u
    if view.count is not None:
        p.text((x0 + x1) // 2, y, str(view.count), scale=12 * u, fill=ACCENT, align="centre")
        y += p.line_h(12 * u)
    if view.board:
        y = _board(p, view, (x0, y, x1, y1))
    if view.cards:
        y = _word_cards(p, view, (x0, y, x1, y1))
    if view.race:
        y = _race(p, view.race, (x0, y, x1, y1))
    for s in (row for line in view.lines for row in wrap(line, (x1 - x0) // (CHAR_W * u))):
        if y + p.line_h() > y1:
            break
        p.text(x0, y, s, width=x1 - x0)
        y += p.line_h()
    if view.over and len(view.trail) > 1 and y1 - y > 40 * u:
        score_chart(p, view.trail, view.names, (x0, y + 4 * u, x1, y1))


def wrap(s: str, columns: int) -> list[str]:
    """``s`` in rows of at most ``columns`` characters, broken at spaces where it can be."""
    rows: list[str] = []
    while len(s) > columns:
        cut = s.rfind(" ", 0, columns + 1)
        cut = cut if cut > 0 else columns
        rows.append(s[:cut])
        s = s[cut:].lstrip()
    return rows + [s]


def _board(p: Painter, view: PublicView, box: tuple[int, int, int, int]) -> int:
    x0, y, x1, y1 = box
    u = p.u
    cell = min((y1 - y) // 4, (x1 - x0) // 4)
    left = x0 + (x1 - x0 - 3 * cell) // 2
    for i in range(1, 3):
        p.draw.rectangle((left + i * cell - u, y, left + i * cell + u, y + 3 * cell), fill=DIM)
        p.draw.rectangle((left, y + i * cell - u, left + 3 * cell, y + i * cell + u), fill=DIM)
    scale = max(u, cell // (CHAR_H + 4))
    for i, mark in enumerate(view.board):
        if mark in "XO":
            cx, cy = left + (i % 3) * cell + cell // 2, y + (i // 3) * cell + (cell - CHAR_H * scale) // 2
            p.text(cx, cy, mark, scale=scale, fill=ACCENT if mark == "X" else (120, 200, 245), align="centre")
    return y + 3 * cell + 6 * u


def _word_cards(p: Painter, view: PublicView, box: tuple[int, int, int, int]) -> int:
    """Pictomania's cards side by side: a letter over seven numbered words."""
    x0, y, x1, y1 = box
    u = p.u
    gap = 6 * u
    width = (x1 - x0 - gap * (len(view.cards) - 1)) // len(view.cards)
    longest = max(len(word) for card in view.cards for word in card.words) + 2
    scale = next((s for s in range(u, 1, -1) if longest * CHAR_W * s <= width - 6 * u), 1)
    height = p.line_h() + p.line_h(scale) * 7 + 8 * u
    for i, card in enumerate(view.cards):
        left = x0 + i * (width + gap)
        p.draw.rectangle((left, y, left + width, y + height), fill=PANEL)
        p.text(left + width // 2, y + 2 * u, f"Card {card.letter}", fill=ACCENT, align="centre")
        for n, word in enumerate(card.words, start=1):  # smaller type rather than cut words
            p.text(left + 3 * u, y + 4 * u + p.line_h() + (n - 1) * p.line_h(scale), f"{n} {word}",
                   scale=scale, width=width - 6 * u)
    return y + height + 6 * u


def _race(p: Painter, presses: tuple[RacePress, ...], box: tuple[int, int, int, int]) -> int:
    """A race as a timeline: an axis from the first press to the last, a dot per press in its
    player's colour, and a row per press, ``Ben +140 ms`` (a late press may be before the
    winner's: ``Ben -5 ms late``)."""
    x0, y, x1, y1 = box
    u = p.u
    counted = [r for r in presses if r.note != "false start"]
    start = min([r.delta_ms for r in counted] + [0.0])
    span = max([r.delta_ms for r in counted] + [1.0]) - start
    axis_y = y + 6 * u
    p.draw.rectangle((x0, axis_y, x1, axis_y + u // 2), fill=DIM)
    for r in counted:
        cx = x0 + round((x1 - x0) * (r.delta_ms - start) / span)
        p.draw.ellipse((cx - 3 * u, axis_y - 3 * u, cx + 3 * u, axis_y + 3 * u), fill=colour(r.player))
    y = axis_y + 6 * u
    for r in presses:
        if y + p.line_h() > y1:
            break
        if r.note == "false start":
            when = f"{r.delta_ms:+.0f} ms false start"
        elif r.delta_ms == 0:
            when = r.note or "first"
        else:
            when = f"{r.delta_ms:+.0f} ms" + (f" {r.note}" if r.note else "")
        p.text(x0, y, f"{r.name} {when}", fill=colour(r.player), width=x1 - x0)
        y += p.line_h()
    return y + 4 * u
