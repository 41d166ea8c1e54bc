"""Drawing the public view at any resolution: a pure function, ``render(view, size) -> Image``,
painted with :class:`~.painter.Painter` (its bitmap font makes every frame pixel-identical on
every machine, and it hands the secret-leak test every string drawn).
"""

from __future__ import annotations

import segno
from PIL import Image

from ..screens.canvas import overflow
from ..arbiter.touch import TOUCH_SPREAD_NS
from .chart import score_chart
from .painter import ACCENT, ALERT, CHAR_H, CHAR_W, DIM, LINE, PANEL, TEXT, Painter, colour
from .publicview import PublicView, RacePress


def render(view: PublicView, size: tuple[int, int] = (1280, 720), drawn: list[str] | None = None) -> Image.Image:
    """The table screen showing ``view``, as an RGB image of ``size``."""
    p = Painter(size, drawn)
    w, h = size
    u = p.u
    _header(p, view)
    scale, rows = fit(view.heading, w - 16 * u, 2 * p.line_h(2 * u), range(2 * u, 0, -1))
    top = 20 * u
    for row in rows:
        p.text(8 * u, top, row, scale=scale, fill=ACCENT if view.over else TEXT)
        top += p.line_h(scale)
    top = max(top, 20 * u + p.line_h(2 * u)) + 4 * u
    bottom = h - 4 * u
    if view.notice or view.footer:
        scale, rows = fit(view.notice or view.footer, w - 16 * u, 3 * p.line_h(), range(u, 0, -1))
        bottom = h - len(rows) * p.line_h(scale) - 2 * u
        for i, row in enumerate(rows):
            p.text(w // 2, bottom + i * p.line_h(scale), row, scale=scale,
                   fill=ALERT if view.notice else DIM, align="centre")
        bottom -= 2 * u
    left = 8 * u
    if view.names:  # as wide as the longest name and a score need, within a quarter or so
        wanted = (max(len(n) for n in view.names) + 9) * CHAR_W * u  # name, " *", score
        columns = score_columns(p, len(view.names), bottom - top)
        side = min(max(wanted * columns + COLUMN_GAP * u * (columns - 1), 50 * u),
                   w * (28 if columns == 1 else 48) // 100)
        _scores(p, view, (8 * u, top, 8 * u + side, bottom))
        left = side + 18 * u
    right = w - 8 * u
    if view.join:
        right = _join_code(p, view, (left, top, right, bottom))
    box = (left, top, right, bottom)
    _body(p, view, box)
    return p.image


def _join_code(p: Painter, view: PublicView, box: tuple[int, int, int, int]) -> int:
    """The QR code of the phones' join address at the box's right, the address under it: a phone
    camera opens the page with the room code filled in. Returns where the body's room ends."""
    x0, y0, x1, y1 = box
    u = p.u
    qr = segno.make(view.join, error="m")
    modules = qr.symbol_size(border=2)[0]
    cell = max(1, min((y1 - y0 - 2 * p.line_h(1)) // modules, (x1 - x0) // 3 // modules))
    side = modules * cell
    left = x1 - side
    p.draw.rectangle((left, y0, x1 - 1, y0 + side - 1), fill=(255, 255, 255))
    for row, line in enumerate(qr.matrix_iter(border=2)):
        for col, dark in enumerate(line):
            if dark:
                x, y = left + col * cell, y0 + row * cell
                p.draw.rectangle((x, y, x + cell - 1, y + cell - 1), fill=(0, 0, 0))
    scale, rows = fit(view.join, side, 2 * p.line_h(1), range(u, 0, -1))
    for i, row in enumerate(rows):
        p.text(left + side // 2, y0 + side + u + i * p.line_h(scale), row, scale=scale, fill=DIM, align="centre")
    return left - 8 * u


def fit(s: str | tuple[str, ...], width: int, height: int, scales) -> tuple[int, list[str]]:
    """The largest of ``scales`` at which ``s`` (a string, or lines of it), wrapped at spaces
    into rows of ``width`` pixels, fits ``height`` pixels, and its rows: shrunk or wrapped,
    never cut. If it fits at none, the smallest scale's rows that fit, the last one cut with a
    '.' (not silently)."""
    scales = list(scales)
    lines = (s,) if isinstance(s, str) else s
    for scale in scales:
        columns = max(1, width // (CHAR_W * scale))
        rows = wrap_lines(lines, columns)
        if len(rows) * LINE * scale <= height and all(len(r) <= columns for r in rows):
            return scale, rows
    scale = scales[-1]
    columns = max(1, width // (CHAR_W * scale))
    rows = wrap_lines(lines, columns)
    keep = max(1, height // (LINE * scale))
    if len(rows) > keep:
        overflow(" ".join(rows[keep - 1:]), -1, -1, width)
        rows = rows[:keep]
        rows[-1] = rows[-1][: columns - 1] + "."
    return scale, rows


def _header(p: Painter, view: PublicView) -> None:
    w, u = p.image.width, p.u
    p.draw.rectangle((0, 0, w - 1, 16 * u), fill=PANEL)
    title_end = 8 * u + p.text(8 * u, 3 * u, view.game, fill=ACCENT) + 8 * u
    right = w - 8 * u
    if view.room:
        right -= p.text(right, 3 * u, f"Room {view.room}", fill=ACCENT, align="right") + 8 * u
    if view.clock:
        right -= p.text(right, 3 * u, view.clock, fill=ALERT if view.hurry else TEXT, align="right") + 8 * u
    if view.turn and not view.over:  # smaller type rather than a cut
        scale, rows = fit(view.turn, right - title_end, p.line_h(), range(u, 0, -1))
        p.text(right, 3 * u + p.line_h() - p.line_h(scale), rows[0], scale=scale, fill=DIM, align="right")


COLUMN_GAP = 6
"""Pixels (at scale 1) between two columns of the standings."""


def score_columns(p: Painter, count: int, height: int) -> int:
    """How many columns the standings of ``count`` players take in ``height`` pixels: one while
    every row keeps a line of the smallest type and its bar, else two, else three."""
    return next((c for c in (1, 2) if height // -(-max(1, count) // c) >= p.line_h(1) + 3 * p.u), 3)


def _scores(p: Painter, view: PublicView, box: tuple[int, int, int, int]) -> None:
    """Each player's name and score with a bar, the marked player pointed at, winners starred.
    Every player gets a row: with many players the rows close up, then go into two or three
    columns (a quiz night seats up to 16), and a name too long for its row wraps or shrinks
    (never dropped, never cut)."""
    x0, y0, x1, y1 = box
    u = p.u
    top = max([abs(s) for s in view.scores] + [1])
    bar_h = 2 * u
    columns = score_columns(p, len(view.names), y1 - y0)
    per_column = -(-max(1, len(view.names)) // columns)
    row = min(p.line_h() + 8 * u, (y1 - y0) // per_column)
    gap = COLUMN_GAP * u
    width = (x1 - x0 - gap * (columns - 1)) // columns
    score_w = 30 * u  # a score's 5 columns
    for i, name in enumerate(view.names):
        left = x0 + (i // per_column) * (width + gap)
        right = left + width
        y = y0 + (i % per_column) * row
        room = row - bar_h - u
        scale = next((s for s in range(u, 0, -1) if p.line_h(s) <= room), 1)
        if i == view.mark and not view.over:
            p.text(left, y, ">", scale=scale, fill=ACCENT)
        label = name + (" *" if i in view.winners else "")
        size, rows = fit(label, right - left - 8 * u - score_w, room, range(scale, 0, -1))
        for n, text in enumerate(rows):
            p.text(left + 8 * u, y + n * p.line_h(size), text, scale=size, fill=colour(i))
        below = y + max(len(rows) * p.line_h(size), p.line_h(scale))
        if i < len(view.scores):
            score = view.scores[i]
            p.text(right, y, str(score), scale=scale, align="right")
            bar = (right - left - 8 * u) * abs(score) // top
            if bar:
                p.draw.rectangle((left + 8 * u, below, left + 8 * u + bar, below + bar_h), fill=colour(i))


def _body(p: Painter, view: PublicView, box: tuple[int, int, int, int]) -> None:
    """The blocks that apply, top to bottom: a late press's note, countdown, board, word cards,
    race, lines, chart."""
    x0, y, x1, y1 = box
    u = p.u
    if view.late:
        p.text(x0, y, view.late, fill=ALERT, width=x1 - x0)
        y += p.line_h() + 4 * u
    if view.count is not None:  # huge, in what the lines under it leave
        below = len(wrap_lines(view.lines, (x1 - x0) // (CHAR_W * u))) * p.line_h()
        scale = max(u, min(12 * u, (y1 - y - below) // LINE))
        p.text((x0 + x1) // 2, y, str(view.count), scale=scale, fill=ACCENT, align="centre")
        y += p.line_h(scale)
    if view.board:
        y = _board(p, view, (x0, y, x1, y1))
    if view.cards:
        y = _word_cards(p, view, (x0, y, x1, y1))
    if view.race:
        y = _race(p, view.race, (x0, y, x1, y1))
    if view.lines:
        scale, rows = fit(view.lines, x1 - x0, y1 - y, range(u, 0, -1))
        for s in rows:
            p.text(x0, y, s, scale=scale)
            y += p.line_h(scale)
    if view.over and len(view.trail) > 1 and y1 - y > 40 * u:
        score_chart(p, view.trail, view.names, (x0, y + 4 * u, x1, y1))


def wrap_lines(lines, columns: int) -> list[str]:
    """Each of ``lines`` wrapped (:func:`wrap`), one after the other."""
    return [row for line in lines for row in wrap(line, columns)]


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


def margin(ms: float) -> str:
    """``+140 ms``; under a millisecond in microseconds, ``+57 us`` (a tie's margin), never a
    ``+0 ms`` that reads as the same instant."""
    return f"{ms * 1000:+.0f} us" if abs(ms) < 1 else f"{ms:+.0f} ms"


def _race(p: Painter, presses: tuple[RacePress, ...], box: tuple[int, int, int, int]) -> int:
    """A race as a timeline: an axis from the first press to the last, a dot per press in its
    player's colour, and a row per press, ``Ben +140 ms`` (a late press may be before the
    winner's: ``Ben -5 ms late``). When a phone is in a declared tie, a last row says what its
    margin holds: its clock's error and the touch allowance no box can measure (:func:`allowance`)."""
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
    note = allowance(presses)

    def notes(scale: int) -> list[str]:
        return wrap(note, (x1 - x0) // (CHAR_W * scale)) if note else []

    scale = next((s for s in range(u, 0, -1) if (len(presses) + len(notes(s))) * p.line_h(s) <= y1 - y), 1)
    for r in presses:
        if r.note == "false start":
            when = f"{r.delta_ms:+.0f} ms false start"
        elif r.delta_ms == 0:
            when = r.note or "first"
        else:
            when = margin(r.delta_ms) + (f" {r.note}" if r.note else "")
        if r.error_ms >= 0.5 and r.note != "false start":  # a phone's: the margin the verdict allowed it
            when += f" +-{r.error_ms:.0f} ms"
        p.text(x0, y, f"{r.name} {when}", scale=scale, fill=colour(r.player), width=x1 - x0)
        y += p.line_h(scale)
    for row in notes(scale):
        p.text(x0, y, row, scale=scale, fill=DIM, width=x1 - x0)
        y += p.line_h(scale)
    return y + 4 * u


def allowance(presses: tuple[RacePress, ...]) -> str:
    """What a phone's margin in a declared tie is made of: the table sees a tie it might have
    called by eye, so it is told that part of the margin is declared, not measured (the touch's
    latency, glass to timestamp, which differs between phones: :data:`TOUCH_SPREAD_NS`)."""
    if not any(r.note == "tie" and r.error_ms >= 0.5 for r in presses):
        return ""
    return f"+- a phone's margin: its clock's error and a {TOUCH_SPREAD_NS / 1e6:.0f} ms touch allowance"
