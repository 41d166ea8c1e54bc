"""Station lights: an optional LED per station (the lamp in an arcade button), lit for the
race winner, blinking for a tie, off otherwise.

A station's LED is on a GPIO pin (gpiozero ``LED``, on the box's pin factory; gpiozero blinks it
from its own background thread) or on the button board (bit ``n`` of the board's ``LEDS``
message, ``firmware/PROTOCOL.md``). The board's firmware only holds an LED on or off, so a tie
blinks a board LED by the host resending the mask every :data:`BLINK_S`; the daemon's loop calls
:meth:`StationLights.blink_step` when :meth:`StationLights.next_blink_s` says so.
"""

from __future__ import annotations

from typing import Callable

from gpiozero import LED

from ..board.frames import Leds

BLINK_S = 0.25
"""Half a blink: a 2 Hz blink is read as "blinking" at a glance and cannot be taken for on."""
STATES = ("off", "on", "blink")


class StationLights:
    def __init__(self, pins: dict[int, int], pin_factory, board_leds: dict[int, int] | None = None,
                 send: Callable[[Leds], object] | None = None) -> None:
        """``pins``: station -> GPIO pin; ``board_leds``: station -> board LED number, sent
        with ``send`` (the board link's)."""
        self.leds = {station: LED(pin, pin_factory=pin_factory) for station, pin in pins.items()}
        self.board_leds = board_leds or {}
        self.send = send
        self.states: dict[int, str] = {}
        self._phase_on = True

    def show(self, states: tuple[str, ...]) -> None:
        """Each station's light: ``off``, ``on`` or ``blink``; only changes reach the pins."""
        for station, state in enumerate(states):
            if self.states.get(station, "off") == state:
                continue
            self.states[station] = state
            led = self.leds.get(station)
            if led is None:
                continue
            if state == "on":
                led.on()
            elif state == "blink":
                led.blink(on_time=BLINK_S, off_time=BLINK_S)
            else:
                led.off()
        self._phase_on = True
        self._send_board()

    def next_blink_s(self) -> float | None:
        """Seconds to the next board blink step, or None when no board LED blinks."""
        blinking = any(self.states.get(s) == "blink" for s in self.board_leds)
        return BLINK_S if blinking and self.send is not None else None

    def blink_step(self) -> None:
        self._phase_on = not self._phase_on
        self._send_board()

    def _send_board(self) -> None:
        if self.send is None or not self.board_leds:
            return
        mask = 0
        for station, bit in self.board_leds.items():
            state = self.states.get(station, "off")
            if state == "on" or (state == "blink" and self._phase_on):
                mask |= 1 << bit
        self.send(Leds(mask))

    def close(self) -> None:
        for led in self.leds.values():
            led.close()
