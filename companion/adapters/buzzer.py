"""The buzzer: a passive piezo on a PWM pin, driven by gpiozero's ``TonalBuzzer``.

Cues are melodies of (note, seconds) from :mod:`companion.cues`, stepped by the event loop's
timers, so playing one never blocks the loop; a new cue cuts the one playing short.

Volume: ``TonalBuzzer`` has none (it always drives a 50 % square wave), so a note is set on its
PWM device directly, at the tone's frequency with a shorter duty cycle for a quieter box. A
rectangular wave of duty ``d`` has a fundamental of amplitude (2/pi)*sin(pi*d) (its Fourier
series), at most at 50 %; :func:`duty_for` inverts that for the wanted amplitude. A piezo also
sounds the harmonics a short duty adds, so the steps are approximate by ear.
"""

from __future__ import annotations

import asyncio
import math

from gpiozero import TonalBuzzer
from gpiozero.tones import Tone

from ..cues import steps
from ..settings import LOUDEST, amplitude


def duty_for(volume: int) -> float:
    """The PWM duty cycle whose fundamental has :func:`~companion.settings.amplitude` of the
    loudest (50 %): 0.5 at volume 5, about 0.02 at volume 1."""
    return math.asin(amplitude(volume)) / math.pi


class Buzzer:
    def __init__(self, pin: int, pin_factory) -> None:
        self.device = TonalBuzzer(pin, mid_tone=Tone("A5"), octaves=2, pin_factory=pin_factory)
        self._steps: list[asyncio.TimerHandle] = []
        self.duty = duty_for(LOUDEST)
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
            pwm = self.device.pwm_device
            pwm.pin.frequency = Tone(note).frequency
            pwm.value = self.duty

    def set_volume(self, volume: int) -> None:
        """1 (quiet) to 5 (loudest), from the next note on."""
        self.duty = duty_for(volume)

    def stop(self) -> None:
        for handle in self._steps:
            handle.cancel()
        self._steps.clear()
        self.device.stop()

    def close(self) -> None:
        self.stop()
        self.device.close()
