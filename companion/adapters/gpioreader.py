"""The GPIO reader: a small process that owns the station buttons' lines, and the light sensors',
and says how far it has read.

``python -m companion.adapters.gpioreader --fd N --pins 4,17,... --sensors 9,10,...`` (the daemon
starts it, :mod:`companion.adapters.gpiolink`). Reading edges in the daemon's own interpreter made every
GPIO race wait for an assumed bound (a press's trip through lgpio's threads and the daemon's GIL
has no ceiling, only a tail). Here one thread, in a process of its own, reads the kernel's
line-event queue and sends, over the socket ``N``, fixed-size records (:data:`RECORD`):

- ``EDGE pin level t_ns``: an edge of a line, ``t_ns`` the kernel's time of it (CLOCK_MONOTONIC,
  taken in the interrupt handler), ``level`` the line after it (a button: 0 pressed, active-low;
  a light sensor's lines report rising edges only, level 1: its panel's marker lit);
- ``WATERMARK t_ns``: every edge before ``t_ns`` has been sent.

A watermark is taken like this: note the clock (``checked``), *then* read everything in the
queue; every edge stamped before ``checked - margin`` is in that read, or was in an earlier one.
The margin is the kernel's own delivery margin: gpio-cdev stamps an edge in the hard interrupt
handler (``edge_irq_handler``) and puts it in the line request's queue from the interrupt's thread
(``edge_irq_thread``, a SCHED_FIFO kernel thread), so an edge is readable a little after its
stamp: :data:`KERNEL_MARGIN_NS`. An edge that comes later than that (read with a time before a
watermark already sent) is sent all the same, counted and logged: the daemon's race finds it a late
press and says so.

Watermarks are sent after every read that found edges, whenever the daemon asks for one past a
time (``WANT t_ns``: a race waits for it; the reader then wakes when ``t_ns + margin`` has come),
and every :data:`HEARTBEAT_NS` while idle, so a reader that stalls is noticed.

The kernel's lines are read through its character device (``/dev/gpiochipN``, the v2 line-event
interface; the profile's ``gpio.chip``, else the 40-pin header's, :func:`header_chip`) in one
line request, with bias pull-up and no debounce (our debouncer keeps the first edge); the light
sensors' lines in the same request with rising edges only (the comparator's output, pulled up:
:mod:`companion.adapters.lightsensor` says why), so their edges share the buttons' watermark.
gpiozero's lgpio pins cannot tell when their queue is empty (lgpio's alert thread holds events 0.5-1.05 ms and
hands them to a Python thread), so they are not used for reading; LEDs and the buzzer stay in the
daemon. For tests (``--mock``) the lines are gpiozero ``MockFactory`` pins in this process, driven
by ``DRIVE pin level`` records the daemon sends; the mock's edges are taken in this thread, so
its margin is 0.
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import os
import select
import socket
import struct
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

RECORD = struct.Struct("<BBBxxxxxq")
"""kind, pin, level, (padding), t_ns: 16 bytes, both ways."""
EDGE, WATERMARK = 0x01, 0x02
WANT, DRIVE = 0x81, 0x82
"""From the daemon: a watermark past ``t_ns`` is awaited; (``--mock`` only) drive a pin."""

KERNEL_MARGIN_NS = 1_000_000
"""How long after its interrupt-time stamp an edge may become readable. The stamp is taken in
gpio-cdev's hard interrupt handler, the event queued by the interrupt's kernel thread, which runs
at real-time priority (SCHED_FIFO 50) and so preempts every ordinary process, the daemon and this
reader included: on a Raspberry Pi its wake-up takes tens of microseconds, and only other
interrupts and real-time threads can hold it back. 1 ms is a generous bound on that; the reader
checks it on every edge that woke it (its read time minus the edge's stamp bounds the queueing
delay from above) and counts any edge that came later than a watermark it had sent."""
HEARTBEAT_NS = 100_000_000
"""A watermark at least this often while idle: the daemon's sign of life (it reports a reader
silent for :data:`companion.adapters.gpiolink.SILENT_NS`). Races do not need it (they ask), so it
is kept rare: each one wakes the idle daemon (20 a second cost it 0.4 % of a core here)."""


@dataclass(frozen=True, slots=True)
class LineEdge:
    pin: int
    level: int
    t_ns: int


# --- The kernel's GPIO character device (include/uapi/linux/gpio.h, v2) ---

_FLAG_INPUT = 1 << 2
_FLAG_EDGE_RISING, _FLAG_EDGE_FALLING = 1 << 4, 1 << 5
_FLAG_BIAS_PULL_UP = 1 << 8
_BUTTON_FLAGS = _FLAG_INPUT | _FLAG_EDGE_RISING | _FLAG_EDGE_FALLING | _FLAG_BIAS_PULL_UP
_SENSOR_FLAGS = _FLAG_INPUT | _FLAG_EDGE_RISING | _FLAG_BIAS_PULL_UP
_ATTR_ID_FLAGS = 1  # GPIO_V2_LINE_ATTR_ID_FLAGS: these flags for the lines in the attribute's mask
_EVENT_RISING = 1
_EVENT = struct.Struct("<QIIII24x")  # timestamp_ns, id, offset, seqno, line_seqno, padding
_MAX_LINES = 64


class _Attribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint32), ("padding", ctypes.c_uint32), ("value", ctypes.c_uint64)]


class _ConfigAttribute(ctypes.Structure):
    _fields_ = [("attr", _Attribute), ("mask", ctypes.c_uint64)]


class _LineConfig(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("num_attrs", ctypes.c_uint32), ("padding", ctypes.c_uint32 * 5),
                ("attrs", _ConfigAttribute * 10)]


class _LineRequest(ctypes.Structure):
    _fields_ = [("offsets", ctypes.c_uint32 * _MAX_LINES), ("consumer", ctypes.c_char * 32),
                ("config", _LineConfig), ("num_lines", ctypes.c_uint32), ("event_buffer_size", ctypes.c_uint32),
                ("padding", ctypes.c_uint32 * 5), ("fd", ctypes.c_int32)]


assert ctypes.sizeof(_LineRequest) == 592, "struct gpio_v2_line_request is 592 bytes"
_GET_LINE_IOCTL = (3 << 30) | (ctypes.sizeof(_LineRequest) << 16) | (0xB4 << 8) | 0x07  # _IOWR(0xB4, 0x07, ...)


NO_CHIP = ("check gpio.chip in the profile (ls /dev/gpiochip* lists this machine's chips; "
           "without gpio.chip the box takes the 40-pin header's)")
"""What to do about a gpiochip that is not there: said by the reader and at the box's start."""

_CHIP_INFO = struct.Struct("<32s32sI")  # struct gpiochip_info: name, label, lines
_GET_CHIPINFO_IOCTL = (2 << 30) | (_CHIP_INFO.size << 16) | (0xB4 << 8) | 0x01  # _IOR(0xB4, 0x01, ...)


def header_chip() -> str:
    """The gpiochip of the Pi's 40-pin header: the one whose label names the SoC's pin controller
    (``pinctrl-bcm2835``/``-bcm2711`` up to a Pi 4, ``pinctrl-rp1`` on a Pi 5, whose number
    changed between kernels), else ``/dev/gpiochip0``."""
    for path in sorted(Path("/dev").glob("gpiochip*")):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            info = bytearray(_CHIP_INFO.size)
            fcntl.ioctl(fd, _GET_CHIPINFO_IOCTL, info)
        except OSError:
            continue
        finally:
            os.close(fd)
        if _CHIP_INFO.unpack(info)[1].rstrip(b"\0").startswith(b"pinctrl-"):
            return str(path)
    return "/dev/gpiochip0"


def line_request(pins: Sequence[int], sensors: Sequence[int] = ()) -> _LineRequest:
    """The kernel's line request for the buttons' ``pins`` (both edges) and the light ``sensors``
    (rising edges, by an attribute over their lines), all inputs pulled up."""
    request = _LineRequest()
    lines = list(pins) + list(sensors)
    for i, pin in enumerate(lines):
        request.offsets[i] = pin
    request.num_lines = len(lines)
    request.consumer = b"companion buttons"  # the virtual Pi's check looks for it
    request.config.flags = _BUTTON_FLAGS if pins else _SENSOR_FLAGS
    if pins and sensors:
        request.config.num_attrs = 1
        sensor_flags = request.config.attrs[0]
        sensor_flags.attr.id, sensor_flags.attr.value = _ATTR_ID_FLAGS, _SENSOR_FLAGS
        sensor_flags.mask = sum(1 << i for i in range(len(pins), len(lines)))
    request.event_buffer_size = 16 * len(lines)
    return request


class KernelLines:
    """The station lines of one gpiochip, as one line request: the buttons' ``pins`` with edge
    events on both edges, the light ``sensors`` on rising edges."""

    margin_ns = KERNEL_MARGIN_NS

    def __init__(self, chip: str, pins: Sequence[int], sensors: Sequence[int] = ()) -> None:
        request = line_request(pins, sensors)
        chip_fd = os.open(chip, os.O_RDWR | os.O_CLOEXEC)
        try:
            fcntl.ioctl(chip_fd, _GET_LINE_IOCTL, request)
        finally:
            os.close(chip_fd)
        self._fd = request.fd
        os.set_blocking(self._fd, False)

    def fileno(self) -> int:
        return self._fd

    def read(self) -> list[LineEdge]:
        """Everything in the queue now."""
        edges = []
        while True:
            try:
                data = os.read(self._fd, _EVENT.size * 64)
            except BlockingIOError:
                return edges
            for offset in range(0, len(data), _EVENT.size):
                t_ns, kind, pin, _, _ = _EVENT.unpack_from(data, offset)
                edges.append(LineEdge(pin, 1 if kind == _EVENT_RISING else 0, t_ns))

    def drive(self, pin: int, level: int) -> None:
        raise PermissionError("real lines are driven by buttons, not by the daemon")

    def close(self) -> None:
        os.close(self._fd)


class MockLines:
    """gpiozero ``MockFactory`` pins with pull-ups, for tests: :meth:`drive` changes a level and
    the pin's handler queues the edge with the pin's own ticks, in this thread (the ``sensors``
    on rising edges only, as the kernel's lines)."""

    margin_ns = 0

    def __init__(self, pins: Sequence[int], sensors: Sequence[int] = ()) -> None:
        from gpiozero.pins.mock import MockFactory

        self._factory = MockFactory()
        self._queued: list[LineEdge] = []
        self._pins = {}
        for number in list(pins) + list(sensors):
            pin = self._factory.pin(number)
            pin.function = "input"
            pin.pull = "up"
            pin.edges = "rising" if number in sensors else "both"
            handler = self._changed_handler(number)
            pin.when_changed = handler  # the pin holds it weakly: kept here
            self._pins[number] = (pin, handler)

    def _changed_handler(self, number: int):
        def changed(ticks: float, state: bool) -> None:
            self._queued.append(LineEdge(number, int(state), round(ticks * 1e9)))

        return _Handler(changed)

    def fileno(self) -> None:
        return None

    def read(self) -> list[LineEdge]:
        queued, self._queued = self._queued, []
        return queued

    def drive(self, pin: int, level: int) -> None:
        mock = self._pins[pin][0]
        mock.drive_high() if level else mock.drive_low()

    def close(self) -> None:
        self._factory.close()


class _Handler:
    """A callable object, so the pin's weak reference has something we keep alive."""

    def __init__(self, function) -> None:
        self.function = function

    def __call__(self, ticks, state) -> None:
        self.function(ticks, state)


class Reader:
    """The reader's loop over ``lines``, talking over the connected socket ``sock``."""

    def __init__(self, lines, sock: socket.socket, clock=time.monotonic_ns) -> None:
        self.lines = lines
        self.sock = sock
        self.clock = clock
        self.sent_ns = -(1 << 63)  # the last watermark sent
        self.wanted_ns: int | None = None
        self.late_edges = 0
        """Edges read with a time before a watermark already sent (later than the margin)."""
        self.queue_delay_max_ns = 0
        """The longest read time minus stamp of an edge that woke the reader: bounds the kernel's
        queueing delay from above."""
        self._heartbeat_at = 0
        self._inbox = bytearray()

    def run(self) -> None:
        """Until the daemon closes its end."""
        poller = select.poll()
        poller.register(self.sock, select.POLLIN)
        if self.lines.fileno() is not None:
            poller.register(self.lines.fileno(), select.POLLIN)
        while True:
            ready = poller.poll(self._poll_ms())
            if any(fd == self.sock.fileno() for fd, _ in ready) and not self.take_commands():
                return
            self.turn(woken=any(fd != self.sock.fileno() for fd, _ in ready))

    def _poll_ms(self) -> int:
        """How long to wait in ``poll``, which counts whole milliseconds and rounds a fraction up:
        a race's watermark would come up to 1 ms late. So wait the whole milliseconds, and sleep
        the last fraction (``time.sleep`` keeps microseconds): an edge in that fraction waits in
        the kernel's queue and is read by the turn that follows, and the daemon's records in the
        socket's buffer."""
        timeout = self._timeout_ms()
        if timeout >= 1.0:
            return int(timeout)
        time.sleep(timeout / 1000)
        return 0

    def _timeout_ms(self) -> float:
        now = self.clock()
        due = self._heartbeat_at
        if self.wanted_ns is not None:
            due = min(due, self.wanted_ns + self.lines.margin_ns)
        return max(0.0, (due - now) / 1e6)

    def take_commands(self) -> bool:
        """Read the daemon's records; False once it has closed the socket."""
        data = self.sock.recv(4096)
        if not data:
            return False
        self._inbox += data
        while len(self._inbox) >= RECORD.size:
            kind, pin, level, t_ns = RECORD.unpack_from(self._inbox)
            del self._inbox[:RECORD.size]
            if kind == WANT:
                self.wanted_ns = t_ns if self.wanted_ns is None else min(self.wanted_ns, t_ns)
                if self.wanted_ns <= self.sent_ns:
                    self.wanted_ns = None
            elif kind == DRIVE:
                self.lines.drive(pin, level)
        return True

    def turn(self, woken: bool = False) -> None:
        """Read the queue and send what it held, then a watermark if one is due."""
        checked = self.clock()
        edges = sorted(self.lines.read(), key=lambda e: e.t_ns)
        out = bytearray()
        for edge in edges:
            if edge.t_ns < self.sent_ns:
                self.late_edges += 1
                print(f"gpio reader: an edge on GPIO {edge.pin} came {(self.sent_ns - edge.t_ns) / 1e6:.3f} ms "
                      f"after a watermark past it ({self.late_edges} so far)", file=sys.stderr, flush=True)
            if woken:
                self.queue_delay_max_ns = max(self.queue_delay_max_ns, checked - edge.t_ns)
            out += RECORD.pack(EDGE, edge.pin, edge.level, edge.t_ns)
        mark = checked - self.lines.margin_ns
        due = edges or checked >= self._heartbeat_at or (self.wanted_ns is not None and mark >= self.wanted_ns)
        if due and mark > self.sent_ns:
            out += RECORD.pack(WATERMARK, 0, 0, mark)
            self.sent_ns = mark
            self._heartbeat_at = checked + HEARTBEAT_NS
            if self.wanted_ns is not None and self.wanted_ns <= mark:
                self.wanted_ns = None
        if out:
            self.sock.sendall(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m companion.adapters.gpioreader",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, required=True, help="the connected socket to the daemon")
    parser.add_argument("--pins", default="", help="the buttons' GPIO numbers, comma-separated")
    parser.add_argument("--sensors", default="", help="the light sensors' GPIO numbers, comma-separated")
    parser.add_argument("--chip", help="the gpiochip device (default: the 40-pin header's)")
    parser.add_argument("--mock", action="store_true", help="gpiozero mock pins, driven by the daemon (tests)")
    parser.add_argument("--margin-ns", type=int, help="the kernel margin the mock pins pretend to have")
    args = parser.parse_args(argv)
    pins = [int(p) for p in args.pins.split(",") if p]
    sensors = [int(p) for p in args.sensors.split(",") if p]
    sock = socket.socket(fileno=args.fd)
    chip = args.chip or header_chip()
    try:
        lines = MockLines(pins, sensors) if args.mock else KernelLines(chip, pins, sensors)
    except FileNotFoundError:
        print(f"gpio reader: {chip} does not exist: {NO_CHIP}", file=sys.stderr, flush=True)
        sys.exit(1)
    except OSError as e:
        claimed = ",".join(map(str, pins + sensors))
        print(f"gpio reader: cannot claim GPIO {claimed} on {chip}: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
    if args.margin_ns is not None:
        lines.margin_ns = args.margin_ns
    reader = Reader(lines, sock)
    try:
        reader.run()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the daemon closed its end while a record was on its way: it is stopping
    finally:
        lines.close()
        print(f"gpio reader: done; longest queueing delay seen {reader.queue_delay_max_ns / 1e6:.3f} ms "
              f"(margin {lines.margin_ns / 1e6:g} ms), {reader.late_edges} edges later than a watermark",
              file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
