"""The end's score-over-time chart, drawn with Pillow (no plotting library at run time)."""

from __future__ import annotations

from .painter import DIM, Painter, colour


def score_chart(p: Painter, trail: tuple[tuple[int, ...], ...], names: tuple[str, ...],
                box: tuple[int, int, int, int]) -> None:
    """One line per player through their score after each change, the axis at 0, the highest
    and lowest score labelled, each line named at its end."""
    x0, y0, x1, y1 = box
    u = p.u
    y0, y1 = y0 + 5 * u, y1 - 5 * u  # room for the labels centred on the extreme values
    label_w = 6 * u * max(len(str(v)) for s in trail for v in s) + 4 * u
    name_w = 6 * u * min(8, max(len(n) for n in names)) + 4 * u
    left, right = x0 + label_w, x1 - name_w
    high = max(max(s) for s in trail)
    low = min(0, min(min(s) for s in trail))
    span = max(1, high - low)
    steps = max(1, len(trail) - 1)

    def at(i: int, v: int) -> tuple[int, int]:
        return left + (right - left) * i // steps, y1 - (y1 - y0) * (v - low) // span

    zero = at(0, 0)[1]
    p.draw.rectangle((left, y0, left + u // 2, y1), fill=DIM)
    p.draw.rectangle((left, zero, right, zero + u // 2), fill=DIM)
    for value in sorted({high, low}):
        p.text(left - 2 * u, at(0, value)[1] - 5 * u, str(value), fill=DIM, align="right")
    ends = []
    for player in range(len(names)):
        points = [at(i, s[player]) for i, s in enumerate(trail) if player < len(s)]
        if len(points) > 1:
            p.draw.line(points, fill=colour(player), width=max(1, u))
        ends.append((points[-1][1], player))
    labels, label_y = [], y0 - p.line_h()
    for end_y, player in sorted(ends):  # names at the lines' ends, pushed apart so none overlap...
        label_y = max(end_y - 5 * u, label_y + p.line_h())
        labels.append([label_y, player])
    limit = box[3] - p.line_h()
    for label in reversed(labels):  # ...and up, so the lowest stays inside the box
        label[0] = min(label[0], limit)
        limit = label[0] - p.line_h()
    for label_y, player in labels:
        p.text(right + 3 * u, label_y, names[player], fill=colour(player), width=name_w)
