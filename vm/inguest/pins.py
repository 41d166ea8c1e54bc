"""The virtual Pi's GPIO header, run in the guest by the checks (test harness only).

``setup``: makes a gpio-sim chip (configfs) with a Pi 4's 58 lines, which becomes /dev/gpiochip0
as on a Pi 4, and prints its sysfs directory.

``press EDGES.json``: plays a list of ``[seconds, line, pressed, ...]`` edges, each at its time from
the start (an absolute schedule: a late edge does not push the others), by writing the line's
``pull``: ``pull-down`` is a press (the buttons are active-low), ``pull-up`` a release. gpio-sim
turns the write into an edge with its kernel time, which is what lgpio hands to gpiozero. Prints
JSON: for each edge, CLOCK_MONOTONIC (ns) just before and just after its write.

Standard library only: it runs on the guest's own python3.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

CONFIGFS = Path("/sys/kernel/config/gpio-sim")
NAME = "vpi"
LINES = 58  # a Pi 4's gpiochip0 (BCM 0-57)


def chip_dir() -> Path:
    dev = (CONFIGFS / NAME / "dev_name").read_text().strip()
    chip = (CONFIGFS / NAME / "bank0" / "chip_name").read_text().strip()
    return Path("/sys/devices/platform") / dev / chip


def setup() -> Path:
    device = CONFIGFS / NAME
    if not (device / "live").exists() or (device / "live").read_text().strip() != "1":
        (device / "bank0").mkdir(parents=True, exist_ok=True)
        (device / "bank0" / "num_lines").write_text(str(LINES))
        (device / "bank0" / "label").write_text("pinctrl-bcm2711")
        (device / "live").write_text("1")
    return chip_dir()


def press(edges: list, chip: Path) -> list[list[int]]:
    pulls = {edge[1]: os.open(chip / f"sim_gpio{edge[1]}" / "pull", os.O_WRONLY) for edge in edges}
    done = []
    start = time.monotonic_ns() + 200_000_000
    for at_s, line, pressed, *_ in edges:
        due = start + int(at_s * 1e9)
        while (left := due - time.monotonic_ns()) > 0:
            time.sleep(min(left / 1e9, 0.05) if left > 2_000_000 else 0)
        before = time.monotonic_ns()
        os.pwrite(pulls[line], b"pull-down" if pressed else b"pull-up", 0)
        done.append([before, time.monotonic_ns()])
    for fd in pulls.values():
        os.close(fd)
    return done


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "setup":
        print(setup())
    elif command == "press":
        print(json.dumps(press(json.loads(Path(sys.argv[2]).read_text()), chip_dir())))
    else:
        sys.exit(f"pins.py: unknown command {command!r} (setup, press)")
