"""Which Pico pins are which channel (edit to match your wiring, then copy to the board).

Buttons connect a GPIO to ground (active-low, the internal pull-ups hold them high). Channel
numbers are positions in ``CHANNEL_PINS``; a host profile maps them to stations and keys.
The default is three stations of four buttons (slap, left, ok, right) and one LED per station.
For six stations without LEDs use 24 pins, e.g. GP0..GP21, GP26, GP27, and ``LED_PINS = ()``.
"""

CHANNEL_PINS = (
    2, 3, 4, 5,  # station A: slap, left, ok, right
    6, 7, 8, 9,  # station B
    10, 11, 12, 13,  # station C
)
LED_PINS = (14, 15, 16)  # through a resistor to ground; () for none
LED_ECHO = (0, 4, 8)  # each LED lights while this channel (its station's slap) is held
DEBOUNCE_US = 5000
HEARTBEAT_US = 10000  # the longest a host's race waits on an idle board, plus USB latency
RING_SIZE = 128  # edges the interrupt can queue between two turns of the main loop
