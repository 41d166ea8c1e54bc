"""The virtual Pi's GPIO header, run in the guest by the checks (test harness only).

``setup BOARD``: makes the board's GPIO chips with gpio-sim (configfs), labelled and numbered as
the board's kernel has them, and prints the header chip's /dev node and sysfs directory: a Pi 4's
``pinctrl-bcm2711`` (58 lines) as /dev/gpiochip0; a Pi 5's ``pinctrl-rp1`` (54 lines) as
Raspberry Pi OS's kernels number it since 6.6.45 (``pi5``: /dev/gpiochip0, the SoC's four
``gpio-brcmstb`` chips as gpiochip10-13, and /dev/gpiochip4 a link to gpiochip0, which Raspberry
Pi OS's udev rules make for programs that open gpiochip4 on a Pi 5) or before (``pi5-legacy``:
/dev/gpiochip4 behind the four SoC chips). The product finds the header by its label either way;
gpiozero takes gpiochip4 on a Pi 5 when there is one (the link, or the chip itself).

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
SOC = [("gpio-brcmstb@107d508500", 32), ("gpio-brcmstb@107d508520", 4), ("gpio-brcmstb@107d517c00", 17),
       ("gpio-brcmstb@107d517c20", 6)]
GAP = "vpi-gap"
BOARDS = {
    "pi4": {"vpi": [("pinctrl-bcm2711", 58)]},  # BCM 0-57
    "pi5": {"vpi": [("pinctrl-rp1", 54)], GAP: [(f"vpi-gap-{n}", 1) for n in range(1, 10)], "vpi-soc": SOC},
    "pi5-legacy": {"vpi": SOC + [("pinctrl-rp1", 54)]},
}
"""Each board's gpio-sim devices in the order they are made, each with its chips (label, lines)
in its kernel's order; the 40-pin header's is the ``pinctrl-`` one. Labels are unique, as gpio-sim
requires (and a Pi 5's are). The gap's chips only hold gpiochip1-9 while the SoC's are made, so
those are numbered 10-13 as on the Pi; the gap is then removed, as if it had never been."""
LINKS = {"pi5": {"gpiochip4": "gpiochip0"}}
"""The /dev links a board's system makes: Raspberry Pi OS's udev rules on a Pi 5."""


def banks(device: str) -> list[Path]:
    found = [p for p in (CONFIGFS / device).glob("bank*") if (p / "label").exists()]
    return sorted(found, key=lambda p: int(p.name[4:]))


def made_board() -> str:
    """The board whose chips are live (each of its devices with the board's labels, in order)."""
    for board, devices in BOARDS.items():
        if all([(b / "label").read_text().strip() for b in banks(device)] == [label for label, _ in chips]
               for device, chips in devices.items() if device != GAP):
            return board
    raise RuntimeError("no virtual board: run pins.py setup BOARD first")


def chip_dir() -> Path:
    """The sysfs directory of the header chip's lines (``sim_gpioN/pull``)."""
    for device in BOARDS[made_board()]:
        for bank in banks(device):
            if (bank / "label").read_text().startswith("pinctrl-"):
                dev = (CONFIGFS / device / "dev_name").read_text().strip()
                return Path("/sys/devices/platform") / dev / (bank / "chip_name").read_text().strip()
    raise RuntimeError("the board has no header chip")


def setup(board: str) -> Path:
    for device, chips in BOARDS[board].items():
        top = CONFIGFS / device
        if (top / "live").exists() and (top / "live").read_text().strip() == "1":
            continue
        for n, (label, lines) in enumerate(chips):
            (top / f"bank{n}").mkdir(parents=True, exist_ok=True)
            (top / f"bank{n}" / "num_lines").write_text(str(lines))
            (top / f"bank{n}" / "label").write_text(label)
        (top / "live").write_text("1")
    if (CONFIGFS / GAP).exists():
        (CONFIGFS / GAP / "live").write_text("0")
        for bank in (CONFIGFS / GAP).glob("bank*"):
            bank.rmdir()
        (CONFIGFS / GAP).rmdir()
    for link, target in LINKS.get(board, {}).items():
        if not Path("/dev", link).is_symlink():
            os.symlink(target, Path("/dev", link))
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
