"""Which Pico pins are which channel (edit to match your wiring, then copy to the board).

Buttons connect a GPIO to ground (active-low, the internal pull-ups hold them high). Channel
numbers are positions in ``CHANNEL_PINS``; a host profile maps them to stations and keys.
The default is three stations of four buttons (slap, left, ok, right) and one LED per station.
For six stations without LEDs use 24 pins, e.g. GP0..GP21, GP26, GP27, and ``LED_PINS = ()``.

A light sensor (a comparator's output, high while its panel's marker is lit; ``hardware/BUILD.md``)
is a channel too: add its pin to ``CHANNEL_PINS`` and its channel number to ``SENSOR_CHANNELS``.
For the default three stations: GP17, GP18, GP19 as channels 12, 13, 14, and the host's profile
says ``light_sensor = { channel = 12 }`` (and so on) under each station.
"""

CHANNEL_PINS = (
    2, 3, 4, 5,  # station A: slap, left, ok, right
    6, 7, 8, 9,  # station B
    10, 11, 12, 13,  # station C
)
LED_PINS = (14, 15, 16)  # through a resistor to ground; () for none
LED_ECHO = (0, 4, 8)  # each LED lights while this channel (its station's slap) is held
SENSOR_CHANNELS = ()  # channels that are light sensors, e.g. (12, 13, 14): active high, no debounce; never 0
DEBOUNCE_US = 5000
HEARTBEAT_US = 10000  # the longest a host's race waits on an idle board, plus USB latency
RING_SIZE = 128  # edges the interrupt can queue between two turns of the main loop
SENSOR_QUIET_US = 16000  # a sensor's rise is reported only this long after its last one: longer
# than a panel's frame (at most 12.7 ms), shorter than a reveal keeps the panel dark (sensors.py)
