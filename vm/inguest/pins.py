"""The virtual Pi's GPIO header, run in the guest by the checks (test harness only).

``setup BOARD``: makes the board's GPIO chips with gpio-sim (configfs), labelled and numbered as
the board's kernel has them, and prints the header chip's /dev node and sysfs directory: a Pi 4's
``pinctrl-bcm2711`` (58 lines) as /dev/gpiochip0; a Pi 5's ``pinctrl-rp1`` (54 lines) as
/dev/gpiochip4 behind the SoC's four ``gpio-brcmstb`` chips, as Raspberry Pi OS's kernels before
6.6.45 number them (newer ones make it gpiochip0; the product finds it by its label either way,
gpiozero takes gpiochip4 on a Pi 5 when there is one).

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
BOARDS = {
    "pi4": [("pinctrl-bcm2711", 58)],  # BCM 0-57
    "pi5": [("gpio-brcmstb@107d508500", 32), ("gpio-brcmstb@107d508520", 4),
            ("gpio-brcmstb@107d517c00", 17), ("gpio-brcmstb@107d517c20", 6), ("pinctrl-rp1", 54)],
}
"""Each board's GPIO chips in their kernel's order: (label, lines); the 40-pin header's is the
``pinctrl-`` one. Labels are unique, as gpio-sim requires (and a Pi 5's are)."""


def header_bank(board: str) -> str:
    return f"bank{len(BOARDS[board]) - 1}"  # the last of its chips, on both boards


def made_board() -> str:
    """The board whose chips are live (bank names are the same; the header's label tells)."""
    for board, banks in BOARDS.items():
        bank = CONFIGFS / NAME / header_bank(board)
        if (bank / "label").exists() and (bank / "label").read_text().strip() == banks[-1][0]:
            return board
    raise RuntimeError("no virtual board: run pins.py setup BOARD first")


def chip_dir() -> Path:
    """The sysfs directory of the header chip's lines (``sim_gpioN/pull``)."""
    bank = CONFIGFS / NAME / header_bank(made_board())
    dev = (CONFIGFS / NAME / "dev_name").read_text().strip()
    return Path("/sys/devices/platform") / dev / (bank / "chip_name").read_text().strip()


def setup(board: str) -> Path:
    device = CONFIGFS / NAME
    if not (device / "live").exists() or (device / "live").read_text().strip() != "1":
        for n, (label, lines) in enumerate(BOARDS[board]):
            (device / f"bank{n}").mkdir(parents=True, exist_ok=True)
            (device / f"bank{n}" / "num_lines").write_text(str(lines))
            (device / f"bank{n}" / "label").write_text(label)
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
        where = setup(sys.argv[2] if len(sys.argv) > 2 else "pi4")
        print(f"/dev/{where.name} {where}")
    elif command == "where":
        print(f"{made_board()}: header /dev/{chip_dir().name} {chip_dir()}")
    elif command == "press":
        print(json.dumps(press(json.loads(Path(sys.argv[2]).read_text()), chip_dir())))
    else:
        sys.exit(f"pins.py: unknown command {command!r} (setup, where, press)")
