"""The button board without its hardware: edges in, frames out.

``main.py`` wires pins, the USB serial port and the clock to a :class:`ButtonBoard`; everything
here is plain Python that the tests run under CPython. Each turn of the main loop the board:

1. answers the host's frames (a ping with its clock, a hello request, the LEDs to light);
2. extends the raw tick of every edge the interrupt queued and debounces it (first edge kept),
   or, on a light sensor's channel, keeps the first rise after a quiet gap (``sensors.py``);
3. sends, in time order, every debounced edge up to its *watermark* ``upto``: the time before
   which it has nothing more to say (now, or the oldest edge the debouncer still holds);
4. sends a heartbeat carrying ``upto`` when it has sent no report for ``heartbeat_us``, so the
   host's races never wait long for a board on which nobody pressed.
"""

import wire
from contacts import Contacts
from edgering import EdgeRing
from sensors import LightSensors
from ticks64 import Clock64


class ButtonBoard:
    def __init__(self, channels, board_id, start_raw, debounce_us=5000, heartbeat_us=10000,
                 ring_size=128, led_echo=(), sensors=(), sensor_quiet_us=16000):
        self.channels = channels
        self.board_id = board_id
        self.debounce_us = debounce_us
        self.heartbeat_us = heartbeat_us
        self.led_echo = led_echo
        self.ring = EdgeRing(ring_size)
        self.clock = Clock64(start_raw)
        self.contacts = Contacts(channels, debounce_us)
        self.sensors = LightSensors(channels, sensors, sensor_quiet_us)
        self.reader = wire.Reader()
        self.host_leds = 0
        self._seq = 0
        self._waiting = []  # debounced edges and sensor rises not yet sent: (t_us, channel, level)
        self._sent_mask = 0  # the levels the sent edges add up to
        self._reported_at = None  # board time of the last edge or heartbeat sent
        self._hello_due = True

    def poll(self, now_raw, received=b""):
        """One turn at raw ticks ``now_raw`` with the bytes the host sent; the bytes to send."""
        now = self.clock.extend(now_raw)
        out = self._hello()  # at start, before any answer: the host knows a restart by HELLO at seq 0
        for kind, _seq, fields in self.reader.feed(received):
            if kind == wire.PING:
                out += self._frame(wire.PONG, fields[0], now)
            elif kind == wire.HELLO_PLEASE:
                self._hello_due = True
            elif kind == wire.LEDS:
                self.host_leds = fields[0]
        out += self._hello()
        while True:
            edge = self.ring.pop()
            if edge is None:
                break
            raw, channel, level = edge
            if channel >= self.channels:
                continue
            if self.sensors.is_sensor[channel]:
                if level:
                    self.sensors.rise(channel, self.clock.extend(raw), self._waiting)
            else:
                self.contacts.edge(channel, level, self.clock.extend(raw), self._waiting)
        self.contacts.settle(now, self._waiting)
        upto = self.upto(now)
        self._waiting.sort()
        while self._waiting and self._waiting[0][0] <= upto:
            t_us, channel, level = self._waiting.pop(0)
            if self.sensors.is_sensor[channel]:
                out += self._frame(wire.LIGHT, t_us, channel)
            else:
                out += self._frame(wire.EDGE, t_us, channel, level)
                self._sent_mask = (self._sent_mask & ~(1 << channel)) | (level << channel)
            self._reported_at = now
        if self._reported_at is None or now - self._reported_at >= self.heartbeat_us:
            out += self._frame(wire.HEARTBEAT, upto, self._sent_mask, self.ring.overflows, self.reader.errors)
            self._reported_at = now
        return bytes(out)

    def upto(self, now_us):
        """Every edge before this time has been queued to send (or sent)."""
        held = self.contacts.held_since()
        return now_us if held is None or held > now_us else held

    def leds(self):
        """The LEDs to light, bit ``i`` for LED ``i``: the host's choice, and LED ``i`` while
        channel ``led_echo[i]`` is held (a player sees the board felt the press)."""
        lit = self.host_leds
        for led, channel in enumerate(self.led_echo):
            if self.contacts.pressed[channel]:
                lit |= 1 << led
        return lit

    def _hello(self):
        """HELLO, if one is due (at start, or the host asked): the frame's bytes, else none."""
        if not self._hello_due:
            return bytearray()
        self._hello_due = False
        return bytearray(self._frame(wire.HELLO, wire.VERSION, self.channels, self.debounce_us,
                                     self.heartbeat_us, self.board_id))

    def _frame(self, kind, *fields):
        data = wire.frame(kind, self._seq, *fields)
        self._seq = (self._seq + 1) & 0xFFFF
        return data
