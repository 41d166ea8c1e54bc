"""The button board's firmware under real MicroPython (the unix port), run by
``tests/test_firmware_micropython.py``: every shared vector, the pure logic, and ``main.py``'s
glue on the stand-in ``machine`` next to this file.

Run as ``micropython firmware_check.py VECTORS`` with ``MICROPYPATH`` naming the firmware folder
and this one. MicroPython's dicts do not keep insertion order, so each frame vector's ``fields``
come as ``[name, value]`` pairs in payload order (the test converts ``firmware/vectors.json``).
Prints one JSON object: how many checks of each kind ran, and every failure.
"""

import json
import sys

import board
import edgering
import ticks64
import wire

counts = {}
failures = []


def check(kind, name, ok):
    counts[kind] = counts.get(kind, 0) + 1
    if not ok:
        failures.append(kind + ": " + str(name))


def guarded(kind, name, test):
    try:
        check(kind, name, test())
    except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the run
        check(kind, name + " raised " + repr(e), False)


def field_values(vector):
    return tuple(bytes.fromhex(v) if k == "board_id" else v for k, v in vector["fields"])


with open(sys.argv[1]) as f:
    vectors = json.load(f)

for v in vectors["crc16"]:
    guarded("crc16", v["data"], lambda: wire.crc16(bytes.fromhex(v["data"])) == v["crc"])
for v in vectors["cobs"]:
    data, encoded = bytes.fromhex(v["data"]), bytes.fromhex(v["encoded"])
    guarded("cobs", v["data"][:16], lambda: bytes(wire.cobs_encode(data)) == encoded
            and bytes(wire.cobs_decode(encoded)) == data)
for v in vectors["frames"]:
    on_wire = bytes.fromhex(v["wire"])
    kind = getattr(wire, v["type"].upper())
    guarded("frames", v["name"], lambda: wire.frame(kind, v["seq"], *field_values(v)) == on_wire
            and wire.unframe(on_wire[:-1]) == (kind, v["seq"], field_values(v)))
reader = wire.Reader()
for v in vectors["bad_frames"]:
    guarded("bad_frames", v["name"], lambda: reader.feed(bytes.fromhex(v["wire"])) == [])
check("bad_frames", "all counted", reader.errors == len(vectors["bad_frames"]))

# The 64-bit clock across ticks_us wrapping at 2**30.
clock = ticks64.Clock64(ticks64.TICKS_PERIOD - 1000)
check("logic", "clock before the wrap", clock.extend(ticks64.TICKS_PERIOD - 10) == 990)
check("logic", "clock across the wrap", clock.extend(500) == 1500)
check("logic", "an older tick", clock.extend(ticks64.TICKS_PERIOD - 10) == 990)

# The interrupt's ring: first in, first out; full, it drops and counts.
ring = edgering.EdgeRing(3)
for t in (1, 2, 3):
    ring.push(t, t, 1)
check("logic", "ring drops when full", ring.overflows == 1)
check("logic", "ring order", (ring.pop(), ring.pop(), ring.pop()) == ((1, 1, 1), (2, 2, 1), None))

# The board's turns: hello then heartbeat, a ping answered, a bouncing press keeps its first edge.
MS = 1000
b = board.ButtonBoard(12, b"\x00" * 8, 0)
frames = wire.Reader().feed(b.poll(1 * MS))
check("logic", "hello then heartbeat", [f[0] for f in frames] == [wire.HELLO, wire.HEARTBEAT])
frames = wire.Reader().feed(b.poll(3 * MS, wire.frame(wire.PING, 0, 77)))
check("logic", "ping answered", frames == [(wire.PONG, 2, (77, 3 * MS))])
started = board.ButtonBoard(12, b"\x00" * 8, 0)  # a restart with the host's ping waiting: HELLO first, seq 0
frames = wire.Reader().feed(started.poll(1 * MS, wire.frame(wire.PING, 40000, 77)))
check("logic", "hello first at restart", [(f[0], f[1]) for f in frames[:2]] == [(wire.HELLO, 0), (wire.PONG, 1)])
for t, pressed in ((10, 1), (10.2, 0), (10.4, 1)):
    b.ring.push(int(t * MS), 4, pressed)
frames = wire.Reader().feed(b.poll(20 * MS))
check("logic", "first edge kept", [f[2] for f in frames if f[0] == wire.EDGE] == [(10 * MS, 4, 1)])

# A light sensor: the first rise of a lit marker goes out with its board time, the flashes after
# it (a frame apart) do not, and the next lighting after a quiet gap does.
b = board.ButtonBoard(13, b"\x00" * 8, 0, sensors=(12,))
b.poll(0)
for n in range(30):
    b.ring.push(10 * MS + n * 6900, 12, 1)
b.ring.push(500 * MS, 12, 1)
frames = wire.Reader().feed(b.poll(501 * MS))
check("logic", "sensor's first rise only", [f[2] for f in frames if f[0] == wire.LIGHT] == [(10 * MS, 12), (500 * MS, 12)])
check("logic", "a sensor is no button", not [f for f in frames if f[0] == wire.EDGE])

# main.py's glue on the stand-in machine: the interrupt stamps edges, a turn sends them.
import machine  # noqa: E402 - the stand-in, found on MICROPYPATH
import main  # noqa: E402


class Port:
    def __init__(self):
        self.incoming = b""
        self.written = b""

    def poll(self, timeout_ms):
        return [(self, 1)] if self.incoming else []

    def read(self, n):
        data, self.incoming = self.incoming[:n], self.incoming[n:]
        return data

    def write(self, data):
        self.written += data


started = main.start()
check("glue", "started", started is not None)
board_, leds = started
port = Port()
main.turn(board_, leds, port, port, port)
machine.made[main.config.CHANNEL_PINS[4]].drive(0)  # station B's slap
port.incoming = wire.frame(wire.PING, 0, 5)
main.turn(board_, leds, port, port, port)
kinds = [f[0] for f in wire.Reader().feed(port.written)]
check("glue", "hello, edge and pong sent", wire.HELLO in kinds and wire.EDGE in kinds and wire.PONG in kinds)
check("glue", "LED echoes the slap", leds[1].value() == 1)

# A light sensor on a pin of its own: pulled down, stamped on its rising edge.
main.config.CHANNEL_PINS = main.config.CHANNEL_PINS + (17,)
main.config.SENSOR_CHANNELS = (12,)
board_, leds = main.start()
port = Port()
machine.made[17].drive(1)
main.turn(board_, leds, port, port, port)
kinds = [f[0] for f in wire.Reader().feed(port.written)]
check("glue", "sensor rise sent as light", wire.LIGHT in kinds and wire.EDGE not in kinds)

print(json.dumps({"implementation": sys.implementation.name, "counts": counts, "failures": failures}))
