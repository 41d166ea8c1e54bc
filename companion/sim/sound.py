"""The buzzer, synthesised: every cue of :mod:`companion.cues` as sine tones through pygame's mixer.

The samples are an ``array('h')`` handed to ``pygame.mixer.Sound(buffer=...)`` (no numpy), at the
pitches the hardware buzzer plays (gpiozero's ``Tone``). As on the hardware, a new cue cuts the one
playing short. Muting silences the sound only: every cue still lights the window's buzzer lamp.
A machine without a sound device gets the lamp alone.
"""

from __future__ import annotations

import logging
import math
import time
from array import array

import pygame
from gpiozero.tones import Tone

from ..cues import CUES, steps
from ..settings import amplitude

log = logging.getLogger(__name__)

SAMPLE_RATE = 44100
AMPLITUDE = 0.3
FADE_S = 0.004
"""Each note fades in and out this long, so notes start and stop without a click."""
FLASH_MIN_S = 0.3
"""The lamp stays lit at least this long, so the shortest cue is still seen."""


def samples(cue: str, rate: int, channels: int = 1) -> array:
    """The cue as signed 16-bit samples at ``rate`` Hz, each frame repeated for every channel."""
    out = array("h")
    peak = AMPLITUDE * 32767
    fade = max(1, round(FADE_S * rate))
    for note, seconds in CUES[cue]:
        count = round(seconds * rate)
        if note is None:
            out.extend([0] * (count * channels))
            continue
        step = 2 * math.pi * Tone(note).frequency / rate
        for i in range(count):
            envelope = min(1.0, i / fade, (count - 1 - i) / fade)
            value = round(peak * envelope * math.sin(step * i))
            out.extend([value] * channels)
    return out


def length_s(cue: str) -> float:
    return steps(cue)[-1][0]


class MixerBuzzer:
    """Plays cues on one mixer channel and keeps the lamp's state for the window."""

    def __init__(self, muted: bool = False) -> None:
        self.muted = muted
        self.played: list[str] = []
        """Every cue started, in order."""
        self._lit: tuple[str, float] | None = None
        self._sounds: dict[str, pygame.mixer.Sound] = {}
        self.volume = 1.0
        try:
            pygame.mixer.init(frequency=SAMPLE_RATE, size=-16, channels=1, buffer=512)
        except pygame.error as e:
            log.warning("no sound (%s): cues only light the buzzer lamp", e)
            self.channel = None
        else:
            self.channel = pygame.mixer.Channel(0)

    def play(self, cue: str) -> None:
        self.played.append(cue)
        self._lit = (cue, time.monotonic() + max(FLASH_MIN_S, length_s(cue)))
        if self.channel is not None and not self.muted:
            self.channel.play(self.sound(cue))
            self.channel.set_volume(self.volume)  # play() may reset a channel's volume

    def sound(self, cue: str) -> pygame.mixer.Sound:
        if cue not in self._sounds:
            rate, _, channels = pygame.mixer.get_init()
            self._sounds[cue] = pygame.mixer.Sound(buffer=samples(cue, rate, channels))
        return self._sounds[cue]

    def lit(self, now_s: float) -> str | None:
        """The cue the lamp shows at monotonic time ``now_s``, if any."""
        if self._lit is not None and now_s < self._lit[1]:
            return self._lit[0]
        return None

    def set_volume(self, volume: int) -> None:
        """1 (quiet) to 5 (loudest): the mixer channel's volume, the same amplitude steps as
        the buzzer's duty cycle on the box (:mod:`companion.settings`)."""
        self.volume = amplitude(volume)
        if self.channel is not None:
            self.channel.set_volume(self.volume)

    def toggle_mute(self) -> None:
        self.muted = not self.muted
        if self.muted and self.channel is not None:
            self.channel.stop()

    def close(self) -> None:
        if self.channel is not None:
            self.channel.stop()
            pygame.mixer.quit()
