"""A stand-in for MicroPython's ``machine`` on the unix port: the pins ``main.py`` asks for, as
levels with an interrupt handler that :meth:`Pin.drive` calls, and the board's id."""

BOARD_ID = b"\xe6\x60\x38\xb7\x13\x3a\x5c\x2f"
made = {}


class Pin:
    IN, OUT, PULL_UP, PULL_DOWN = 0, 1, 1, 2
    IRQ_FALLING, IRQ_RISING = 4, 8

    def __init__(self, number, mode, pull=None, value=None):
        self.number = number
        self.level = value if value is not None else (1 if pull == Pin.PULL_UP else 0)
        self.handler = None
        made[number] = self

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = level

    def irq(self, handler, trigger, hard=False):
        self.handler = handler

    def drive(self, level):
        if level != self.level:
            self.level = level
            self.handler(self)


def unique_id():
    return BOARD_ID
