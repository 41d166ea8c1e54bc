"""The buzzer: a passive piezo (or a magnetic buzzer behind an NPN transistor) on a GPIO pin,
driven by gpiozero's ``TonalBuzzer``.

Cues are melodies of (note, seconds) from :mod:`companion.cues`, stepped by the event loop's
timers, so playing one never blocks the loop; a new cue cuts the one playing short.

On a Pi, gpiozero 2.0's lgpio pin factory makes the tone with lgpio's *software* PWM
(``lgpio.tx_pwm``, timed by lgpio's own thread), on any pin, not the hardware PWM of GPIO 18.
Stopping it (``tx_pwm(..., 0, 0)``, gpiozero ``pins/lgpio.py``) leaves the pin at whatever level the
wave was at: high about half the time, which holds a transistor on and puts DC through a magnetic
buzzer's coil. So after every cue (and every rest inside one) the pin is written low.
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
            self._silence()
        else:
            self.device.play(Tone(note))

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
