"""The buzzer: a passive piezo on a PWM pin, driven by gpiozero's ``TonalBuzzer``.

Cues are melodies of (note, seconds) from :mod:`companion.cues`, stepped by the event loop's
timers, so playing one never blocks the loop; a new cue cuts the one playing short.
"""

from __future__ import annotations

import asyncio

from gpiozero import TonalBuzzer
from gpiozero.tones import Tone

from ..cues import steps


class Buzzer:
    def __init__(self, pin: int, pin_factory) -> None:
        self.device = TonalBuzzer(pin, mid_tone=Tone("A5"), octaves=2, pin_factory=pin_factory)
        self._steps: list[asyncio.TimerHandle] = []
        self.played: list[str] = []
        """Every cue started, in order (for the self-test and the logs)."""

    def play(self, cue: str) -> None:
        loop = asyncio.get_running_loop()
        self.stop()
        self.played.append(cue)
        first, *rest = steps(cue)
        self._sound(first[1])  # now, not on the loop's next turn: a decision is heard at once
        for at, note in rest:
            self._steps.append(loop.call_later(at, self._sound, note))

    def _sound(self, note: str | None) -> None:
        if note is None:
            self.device.stop()
        else:
            self.device.play(Tone(note))

    def stop(self) -> None:
        for handle in self._steps:
            handle.cancel()
        self._steps.clear()
        self.device.stop()

    def close(self) -> None:
        self.stop()
        self.device.close()
