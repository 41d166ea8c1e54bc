"""The buzzer: a passive piezo (or a magnetic buzzer behind an NPN transistor) on a GPIO pin,
driven by gpiozero's ``TonalBuzzer``.

Cues are melodies of (note, seconds) from :mod:`companion.cues`, stepped by the event loop's
timers, so playing one never blocks the loop; a new cue cuts the one playing short.

On a Pi, gpiozero 2.0's lgpio pin factory makes the tone with lgpio's *software* PWM
(``lgpio.tx_pwm``, timed by lgpio's own thread), on any pin, not the hardware PWM of GPIO 18.
Stopping it (``tx_pwm(..., 0, 0)``, gpiozero ``pins/lgpio.py``) leaves the pin at whatever level the
wave was at: high about half the time, which holds a transistor on and puts DC through a magnetic
buzzer's coil. So after every cue (and every rest inside one) the pin is written low.

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
            self._silence()
        else:
            pwm = self.device.pwm_device
            pwm.pin.frequency = Tone(note).frequency
            pwm.value = self.duty

    def set_volume(self, volume: int) -> None:
        """1 (quiet) to 5 (loudest), from the next note on."""
        self.duty = duty_for(volume)

    def _silence(self) -> None:
        """Stop the tone and drive the pin low (the software PWM stops wherever its wave was)."""
        self.device.stop()
        self.device.pwm_device.pin.state = 0

    def stop(self) -> None:
        for handle in self._steps:
            handle.cancel()
        self._steps.clear()
        self._silence()

    def close(self) -> None:
        self.stop()
        self.device.close()
