"""``python -m bench.handoff``: how late a GPIO event reaches Python while the display writer
packs frames, the measurement behind :mod:`bench.delivery`.

On a Pi, lgpio's alert thread (C, no GIL) writes each edge into a notification pipe; lgpio's
Python callback thread reads the pipe and calls gpiozero, which calls our edge callback. To run
at all, that thread needs the GIL, which the display writer holds while luma packs a frame in a
Python loop (``ssd1306.display``): the holder gives the GIL up only when the interpreter's switch
interval (``sys.getswitchinterval()``, 5 ms by default) has passed.

This reproduces that hand-off on any machine: a child process stands in for lgpio's C thread
(it needs no GIL either) and writes its ``time.monotonic_ns()`` into a pipe at random moments; a
reader thread stands in for the callback thread and stamps each arrival; a writer thread calls a
real luma ``ssd1306.display()`` over an I2C bus double as fast as it can (the real bus sleeps in
the kernel, without the GIL, for most of a frame: measuring without it is the worst case). The
figure is arrival minus the sender's stamp, both on CLOCK_MONOTONIC.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time

from PIL import Image

SENDER = r"""
import os, random, sys, time
fd, count = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(7)
for _ in range(count):
    time.sleep(rnd.uniform(0.002, 0.012))
    os.write(fd, time.monotonic_ns().to_bytes(8, "little"))
os.close(fd)
"""


class NullBus:
    """An smbus stand-in under a real luma device: takes every block write, keeps the count."""

    def __init__(self) -> None:
        self.bytes = 0

    def write_i2c_block_data(self, address: int, register: int, data) -> None:
        self.bytes += len(data)


def _pack_frames(stop: threading.Event, frames: list[int]) -> None:
    from luma.core.interface.serial import i2c
    from luma.oled.device import ssd1306

    device = ssd1306(i2c(bus=NullBus(), address=0x3C), width=128, height=64)
    images = [Image.effect_noise((128, 64), 64).convert("1") for _ in range(4)]
    while not stop.is_set():
        device.display(images[frames[0] % len(images)])
        frames[0] += 1


def quantile(sorted_values: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile of an ascending list."""
    return sorted_values[min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))]


def measure(switch_interval_s: float, events: int, writers: int = 1) -> dict:
    """Hand-off delays in ms (p50 ... max) of ``events`` pipe events under ``writers`` threads
    packing frames, at the given switch interval; and the frames each writer packed per second."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(switch_interval_s)
    read_fd, write_fd = os.pipe()
    stop = threading.Event()
    frames = [[0] for _ in range(writers)]
    packers = [threading.Thread(target=_pack_frames, args=(stop, f), daemon=True) for f in frames]
    delays: list[float] = []

    def receive() -> None:
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(8):
                delays.append((time.monotonic_ns() - int.from_bytes(chunk, "little")) / 1e6)

    reader = threading.Thread(target=receive, daemon=True)
    try:
        for packer in packers:
            packer.start()
        reader.start()
        time.sleep(0.3)  # luma imported and packing
        start, first = time.monotonic(), [f[0] for f in frames]
        sender = subprocess.Popen([sys.executable, "-c", SENDER, str(write_fd), str(events)], pass_fds=(write_fd,))
        os.close(write_fd)
        sender.wait()
        reader.join(timeout=30)
        elapsed = time.monotonic() - start
    finally:
        stop.set()
        for packer in packers:
            packer.join(timeout=5)
        sys.setswitchinterval(previous)
    delays.sort()
    return {
        "switch_interval_ms": switch_interval_s * 1e3,
        "writers": writers,
        "events": len(delays),
        **{f"p{name}_ms": quantile(delays, q) for name, q in
           (("50", 0.5), ("90", 0.9), ("99", 0.99), ("99.9", 0.999))},
        "max_ms": delays[-1],
        "frames_per_s": sum(f[0] - s for f, s in zip(frames, first)) / writers / elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.handoff", description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--writers", type=int, default=1, help="threads packing frames")
    parser.add_argument("--intervals", default="5,1,0.5", help="switch intervals to try, in ms")
    args = parser.parse_args()
    for ms in args.intervals.split(","):
        print(json.dumps(measure(float(ms) / 1e3, args.events, args.writers)), flush=True)


if __name__ == "__main__":
    main()
