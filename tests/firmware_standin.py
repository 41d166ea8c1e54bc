"""The button board's firmware under CPython: its modules loaded from ``firmware/buttonboard/``,
the shared test vectors, and a small stand-in for the MicroPython modules that only the hardware
glue (``main.py``) imports: ``machine``, ``micropython`` and ``time``'s wrapping ticks."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware" / "buttonboard"
VECTORS = json.loads((ROOT / "firmware" / "vectors.json").read_text(encoding="utf-8"))
TICKS_PERIOD = 1 << 30
"""MicroPython's ``ticks_us`` on the RP2040 wraps at 2**30."""


def module(name: str) -> types.ModuleType:
    """A pure firmware module (``wire``, ``board``, ...), imported as the board imports it."""
    if str(FIRMWARE) not in sys.path:
        sys.path.insert(0, str(FIRMWARE))
    return importlib.import_module(name)


class Ticks:
    """The board's 1 us timer: ``ticks_us`` wraps as on the RP2040; tests move ``us``."""

    def __init__(self, us: int = 0) -> None:
        self.us = us

    def ticks_us(self) -> int:
        return self.us % TICKS_PERIOD


class Pin:
    """``machine.Pin``: a level, and an interrupt handler that :meth:`drive` calls, as the
    RP2040 does when the level changes."""

    IN, OUT, PULL_UP, PULL_DOWN = 0, 1, 1, 2
    IRQ_FALLING, IRQ_RISING = 4, 8
    made: dict[int, "Pin"] = {}
    held: set[int] = set()
    """Pins whose button is held down when the board powers up."""

    def __init__(self, number: int, mode: int, pull: int | None = None, value: int | None = None) -> None:
        self.number, self.mode = number, mode
        self.level = value if value is not None else int(pull == Pin.PULL_UP and number not in Pin.held)
        self.handler = None
        self.irq_options: dict = {}
        Pin.made[number] = self

    def value(self, level: int | None = None):
        if level is None:
            return self.level
        self.level = level
        return None

    def irq(self, handler, trigger: int, hard: bool = False) -> None:
        self.handler = handler
        self.irq_options = {"trigger": trigger, "hard": hard}

    def drive(self, level: int) -> None:
        if level != self.level:
            self.level = level
            self.handler(self)


class SerialPort:
    """USB serial as ``main.turn`` sees it: a poller, bytes in and bytes out."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.written = bytearray()

    def poll(self, timeout_ms: int):
        return [(self, 1)] if self.incoming else []

    def read(self, n: int) -> bytes:
        data, self.incoming = bytes(self.incoming[:n]), self.incoming[n:]
        return data

    def write(self, data: bytes) -> None:
        self.written += data


BOARD_ID = bytes.fromhex("e66038b7133a5c2f")


def load_main(ticks: Ticks) -> types.ModuleType:
    """``main.py`` with the stand-ins in place of MicroPython's modules."""
    Pin.made.clear()
    Pin.held.clear()
    machine = types.ModuleType("machine")
    machine.Pin = Pin
    machine.unique_id = lambda: BOARD_ID
    micropython = types.ModuleType("micropython")
    micropython.alloc_emergency_exception_buf = lambda size: None
    micropython.kbd_intr = lambda char: None
    clock = types.ModuleType("time")
    clock.ticks_us = ticks.ticks_us
    module("board")
    standins = {"machine": machine, "micropython": micropython, "time": clock}
    saved = {name: sys.modules.get(name) for name in standins}
    sys.modules.update(standins)
    try:
        spec = importlib.util.spec_from_file_location("buttonboard_main", FIRMWARE / "main.py")
        main = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(main)
    finally:
        for name, original in saved.items():
            if original is None:
                del sys.modules[name]
            else:
                sys.modules[name] = original
    return main
