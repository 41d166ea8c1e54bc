"""The table screen's cost: what the loop pays (making the public view) and what the table
screen's own thread pays (drawing a frame), against drawing one station's 128x64 panel.

The loop only makes the view (:func:`companion.tablescreen.public.public_view`); drawing happens in
the table screen's thread (:mod:`companion.tablescreen.display`), so a frame's time delays the
table screen, never a race. Views are taken from a Triangle game mid-round with a decided race,
and its end with the score chart. Text is drawn from cached glyph strings, so a frame of strings
drawn before is cheaper than the first (``cold``: the cache emptied before each frame).
"""

from __future__ import annotations

import statistics
import time

from companion.arbiter.inputs import InputEvent
from companion.table import Table
from companion.tablescreen.public import public_view
from companion.tablescreen.painter import _mask
from companion.tablescreen.render import render

MS = 1_000_000


def _triangle_with_a_race() -> Table:
    table = Table(("Ana", "Ben", "Cy"), seed=8)
    t = 0
    while table.lobby.game.name != "triangle":
        t += 100 * MS
        table.handle(InputEvent(0, "right", True, t))
    while table.game is None:
        t += 100 * MS
        table.handle(InputEvent(0, "ok", True, t))
    opens = t + 3_000 * MS
    table.tick(opens, opens)
    for station, delay_ms in ((1, 5), (0, 146), (2, 215)):
        table.handle(InputEvent(station, "slap", True, opens + delay_ms * MS))
    table.tick(opens + 400 * MS, opens + 400 * MS)
    return table


def _median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def table_screen(repeats: int) -> dict:
    table = _triangle_with_a_race()
    view = public_view(table)
    assert len(view.race) == 3
    end = type(view)("Triangle", "Ana wins", view.names, (25, 18, 12), winners=(0,), over=True,
                     trail=tuple((i, i // 2, i // 3) for i in range(26)))
    return {
        "table_screen_view_ms": round(_median_ms(lambda: public_view(table), repeats * 10), 4),
        "table_screen_render_720p_ms": round(_median_ms(lambda: render(view, (1280, 720)), repeats), 2),
        "table_screen_render_1080p_ms": round(_median_ms(lambda: render(view, (1920, 1080)), repeats), 2),
        "table_screen_render_1080p_cold_ms": round(_median_ms(lambda: (_mask.cache_clear(), render(view, (1920, 1080))),
                                                              repeats), 2),
        "table_screen_end_1080p_ms": round(_median_ms(lambda: render(end, (1920, 1080)), repeats), 2),
        "baseline_station_panel_ms": round(_median_ms(lambda: table.screen(0), repeats * 10), 3),
    }
