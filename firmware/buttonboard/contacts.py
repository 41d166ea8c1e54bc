"""Debouncing on the board, keeping the first edge's time.

Races are decided on edge times, so a press must carry the time its contact first closed, not
the time it stopped bouncing. The first edge that changes a channel passes with its own time;
edges within ``debounce_us`` after it are bounce and only update the raw level; once the channel
has been quiet that long, a raw level that differs from the debounced one (a tap shorter than
the window) is caught up with the time of the raw edge that caused it. The host's
``companion/arbiter/debounce.py`` follows the same rules.

A caught-up edge is older than edges other channels may have produced since, so the board
sends nothing newer than :meth:`Contacts.held_since` (see ``board.py``).
"""


class Contacts:
    def __init__(self, channels, debounce_us):
        self.debounce_us = debounce_us
        self.pressed = bytearray(channels)  # debounced level
        self.raw = bytearray(channels)  # last raw level
        self.raw_us = [None] * channels  # time of the last raw edge
        self.accepted_us = [None] * channels  # time of the last edge passed on

    def edge(self, channel, pressed, t_us, out):
        """One raw edge; appends the debounced edges it releases to ``out`` as
        ``(t_us, channel, pressed)``."""
        self._catch_up(channel, t_us, out)
        self.raw[channel] = pressed
        self.raw_us[channel] = t_us
        accepted = self.accepted_us[channel]
        if accepted is not None and t_us - accepted < self.debounce_us:
            return
        if pressed != self.pressed[channel]:
            self._accept(channel, pressed, t_us, out)

    def settle(self, now_us, out):
        """Time has reached ``now_us``: catch up every quiet channel."""
        for channel in range(len(self.raw)):
            self._catch_up(channel, now_us, out)

    def held_since(self):
        """The oldest raw edge not yet caught up, or None: nothing older can still come out."""
        oldest = None
        for channel in range(len(self.raw)):
            if self.raw[channel] != self.pressed[channel]:
                t = self.raw_us[channel]
                if oldest is None or t < oldest:
                    oldest = t
        return oldest

    def _catch_up(self, channel, now_us, out):
        raw = self.raw[channel]
        if raw != self.pressed[channel] and now_us - self.raw_us[channel] >= self.debounce_us:
            self._accept(channel, raw, self.raw_us[channel], out)

    def _accept(self, channel, pressed, t_us, out):
        self.pressed[channel] = pressed
        self.accepted_us[channel] = t_us
        out.append((t_us, channel, pressed))
