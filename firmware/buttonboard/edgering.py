"""The interrupt's outbox: raw edges waiting for the main loop, in preallocated memory.

One producer (the pin interrupt) and one consumer (the main loop): the interrupt only writes
``head``, the loop only writes ``tail``, so neither waits for the other. When the ring is full
the interrupt drops the edge and counts it in ``overflows`` (reported in every heartbeat):
blocking inside an interrupt would stall the board.
"""

from array import array


class EdgeRing:
    def __init__(self, size):
        self.size = size
        self.ticks = array("i", [0] * size)
        self.codes = bytearray(size)  # channel | pressed << 7
        self.head = 0
        self.tail = 0
        self.overflows = 0

    def push(self, ticks, channel, pressed):
        """Called in the interrupt: no allocation, no waiting."""
        head = self.head
        after = head + 1
        if after == self.size:
            after = 0
        if after == self.tail:
            self.overflows += 1
            return
        self.ticks[head] = ticks
        self.codes[head] = channel | (pressed << 7)
        self.head = after

    def pop(self):
        """The oldest edge as ``(ticks, channel, pressed)``, or None when empty."""
        tail = self.tail
        if tail == self.head:
            return None
        code = self.codes[tail]
        edge = (self.ticks[tail], code & 0x7F, code >> 7)
        self.tail = 0 if tail + 1 == self.size else tail + 1
        return edge
