"""The reveal: a screen change that opens a race appears on every station at the same instant.

One writer thread on one I2C bus writes the stations' frames one after another, about 26 ms
each at 400 kHz through a multiplexer (106 ms at the Pi's default 100 kHz; see
``bench/busmodel.py`` for the numbers and their sources). Written that way, the sixth station
would see Triangle's cards or the quiz question some 130 ms after the first: as much as the
difference between two players' hands, so the writer order would pick the winner.

So a reveal, like a psychology lab's screen flip, separates *drawing* from *showing*:

1. hide every panel (the display-off command, 0xAE: one short transaction each; the panel keeps
   its RAM and goes dark);
2. write every station's frame while the panels are dark;
3. show them back to back (0xAF, again one short transaction each), stamping each panel's onset
   (host monotonic ns) as its display-on command returns.

The onsets then differ by one short transaction per panel (0.12 ms at 400 kHz, selects
included), and the race (:class:`companion.arbiter.race.Race`) times each station from its own onset,
so even that is compensated. The buzzer's "go" sounds when the writer reports the onsets, not
when the table asked for the screens. The panels are dark for the time it takes to write the
frames, which players see as a blink before the cards or the question appear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PIL import Image


@dataclass
class Reveal:
    """Frames that open a race, one per station, to show on every panel at once.

    ``on_shown`` is called from the writer thread with every station's onset (host monotonic
    ns). A station whose panel is down, or failed during the reveal, shows nothing: it is given
    the latest onset of the others, so its player is never timed from before anyone could see.
    """

    frames: dict[int, Image.Image]
    on_shown: Callable[[dict[int, int]], None] | None = None

    def onsets(self, shown: dict[int, int], now_ns: int) -> dict[int, int]:
        """Every station's onset: its own if it was shown, else the latest (or ``now_ns``)."""
        late = max(shown.values(), default=now_ns)
        return {station: shown.get(station, late) for station in self.frames}
