"""A light sensor's line and a button's, read by the product's GPIO reader on the guest's kernel
(test harness only; run with the installed venv's python, after ``pins.py setup``).

``sensorlines.py BUTTON SENSOR``: starts ``python -m companion.adapters.gpioreader`` on
the header chip (/dev/gpiochipN) with ``--pins BUTTON --sensors SENSOR`` over a socket pair, as the daemon does,
then moves both lines through gpio-sim's ``pull``: the sensor dark, lit, dark, lit (a comparator's
output falls and rises); the button pressed and released. Prints JSON: the reader's EDGE records
(pin, level) in the order they came, the lines' levels the reader's request left them at before
anything moved (its bias), and whether every move was followed by a watermark past it (each is
read before the next is made: a watermark, not a sleep, says the reader has seen it).

What it shows: the one line request with per-line attributes (rising edges only for a sensor,
both for a button, every line pulled up) is accepted by a real kernel, and each line reports
the edges it was asked for, no more.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

from pins import chip_dir

from companion.adapters.gpioreader import EDGE, RECORD, WANT, WATERMARK

PATIENCE_S = 30.0


def level(chip, line: int) -> int:
    return int((chip / f"sim_gpio{line}" / "value").read_text())


class Records:
    """The reader's records, as they come over the socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buffer, self.got = sock, bytearray(), []
        sock.settimeout(0.2)

    def until(self, condition) -> bool:
        """Read until ``condition(records so far)`` holds; False if the patience ran out first."""
        end = time.monotonic() + PATIENCE_S
        while not condition(self.got):
            if time.monotonic() > end:
                return False
            try:
                self.buffer += self.sock.recv(4096)
            except TimeoutError:
                continue
            while len(self.buffer) >= RECORD.size:
                self.got.append(RECORD.unpack_from(self.buffer))
                del self.buffer[:RECORD.size]
        return True


def main(button: int, sensor: int) -> dict:
    chip = chip_dir()
    (chip / f"sim_gpio{button}" / "pull").write_text("pull-up")  # released, before the reader holds it
    ours, theirs = socket.socketpair()
    reader = subprocess.Popen([sys.executable, "-m", "companion.adapters.gpioreader", "--fd", str(theirs.fileno()),
                               "--pins", str(button), "--sensors", str(sensor), "--chip", f"/dev/{chip.name}"],
                              pass_fds=[theirs.fileno()], stderr=subprocess.PIPE, text=True)
    theirs.close()
    got = Records(ours)
    moves = [(sensor, "pull-down"), (sensor, "pull-up"), (sensor, "pull-down"), (sensor, "pull-up"),
             (button, "pull-down"), (button, "pull-up")]
    read = []
    try:
        held = got.until(lambda records: any(r[0] == WATERMARK for r in records))  # the lines are held
        biased = {"button": level(chip, button), "sensor": level(chip, sensor)}
        for line, pull in moves if held else ():  # each move read before the next: two in one pass
            (chip / f"sim_gpio{line}" / "pull").write_text(pull)  # of gpio-sim's interrupt work would be one
            written = time.monotonic_ns()
            ours.sendall(RECORD.pack(WANT, 0, 0, written))  # "every edge before now": a watermark says so
            read.append(got.until(lambda records: any(r[0] == WATERMARK and r[3] >= written for r in records)))
    finally:
        ours.close()
        reader.wait(timeout=PATIENCE_S)
    return {"edges": [[pin, lvl] for kind, pin, lvl, _ in got.got if kind == EDGE],
            "biased": biased if held else None, "moves_read": len(read) == len(moves) and all(read),
            "reader_said": reader.stderr.read().strip().splitlines()[-3:]}

if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]), int(sys.argv[2]))))
