#!/usr/bin/python3
"""PID 1 of the program's own kernel (vm/pinboot.py): the box on gpio-sim pins, then power off.

The root is the program's root (``python -m vm program --pins``), shared by virtiofs; it has
CPython and the installed program but no init system or kmod, so this does their part with the
standard library: mounts the kernel's file systems, loads the modules the plan names (gpio-sim
and what it needs), makes the Pi's GPIO header and revision (pins.py), starts the box
(``companion run`` on the plan's profile: gpiozero's lgpio factory drives its buzzer, the GPIO
reader process reads its buttons), plays the plan's edges on the header's lines with the kernel's
interrupt trace on, waits for the game's journal lines, and writes what it saw into ``/srv/pins``
for the host to judge. Whatever happens, it powers the machine off.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

OUT = Path("/srv/pins")
sys.path.insert(0, str(OUT / "tools"))
import pins  # noqa: E402  (vm/inguest/pins.py, copied beside this file)

libc = ctypes.CDLL(None, use_errno=True)
FINIT_MODULE = {"aarch64": 273, "x86_64": 313}[os.uname().machine]
COMPRESSED = 4  # MODULE_INIT_COMPRESSED_FILE: Debian's modules are .ko.xz
MS_BIND = 4096
POWER_OFF = 0x4321FEDC  # LINUX_REBOOT_CMD_POWER_OFF
TRACE = Path("/sys/kernel/tracing/instances/vm-buttons")
IRQ_NAME = "companion buttons"
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
READY = re.compile(r": ready without display 1, 2, 3: retrying in the background$", re.MULTILINE)
"""The box's own line once it is ready: its panels are unplugged here (no I2C bus is made)."""


def fail_errno(what: str) -> None:
    err = ctypes.get_errno()
    raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(source: str, target: str, fstype: str | None, flags: int = 0) -> None:
    if not os.path.exists(target):
        os.makedirs(target)
    if libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, flags, None) != 0:
        fail_errno(f"mount {source} on {target}")


def insmod(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        flags = COMPRESSED if path.endswith(".xz") else 0
        if libc.syscall(ctypes.c_long(FINIT_MODULE), ctypes.c_int(fd), ctypes.c_char_p(b""), ctypes.c_int(flags)) != 0:
            fail_errno(f"loading {path}")
    finally:
        os.close(fd)


def wait_for(what: str, test, timeout_s: float):
    """Poll ``test`` (an observable condition) until it returns something true, or fail by name."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = test()
        if got:
            return got
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not seen within {timeout_s:.0f} s")
        time.sleep(0.1)


def board(plan: dict) -> None:
    for fs, target in (("proc", "/proc"), ("sysfs", "/sys"), ("devtmpfs", "/dev"), ("tmpfs", "/tmp")):
        mount(fs, target, fs)
    for module in plan["modules"]:
        insmod(module)
    # QEMU's virt machine has a GPIO controller of its own (a PL061, for its power button), which
    # would be gpiochip0 and push the header's chip off the number a Pi 4's kernel gives it (as
    # vm/inguest/board.sh does in the whole check): unbound, its button's driver first
    for driver in ("/sys/bus/platform/drivers/gpio-keys", "/sys/bus/amba/drivers/pl061_gpio"):
        for dev in Path(driver).glob("*") if Path(driver).is_dir() else ():
            if dev.is_symlink() and dev.name != "module":
                (Path(driver) / "unbind").write_text(dev.name)
    for fs, target in (("configfs", "/sys/kernel/config"), ("tracefs", "/sys/kernel/tracing"),
                       ("debugfs", "/sys/kernel/debug")):
        mount(fs, target, fs)
    pins.setup(plan["board"])
    # What a Pi's firmware gives and Debian's device tree here lacks: the revision gpiozero reads
    cpuinfo = Path("/tmp/cpuinfo")
    cpuinfo.write_text(Path("/proc/cpuinfo").read_text()
                       + f"Hardware\t: BCM2835\nRevision\t: {plan['revision']}\nModel\t\t: {plan['model']}\n")
    mount(str(cpuinfo), "/proc/cpuinfo", None, MS_BIND)


def reader_irqs(buttons: int) -> list[str]:
    """The interrupts of the GPIO reader's line request (its consumer label names them), as
    "IRQ LINE" rows: none until the reader holds all ``buttons`` lines."""
    rows = []
    for irq in Path("/sys/kernel/irq").iterdir():
        actions = irq / "actions"
        if actions.exists() and actions.read_text().strip() == IRQ_NAME:
            rows.append(f"{irq.name} {(irq / 'hwirq').read_text().strip()}")
    return rows if len(rows) >= buttons else []


def stamps_on(buttons: int, timeout_s: float) -> list[str]:
    """The kernel's stamps of the buttons' edges (vm/game.py's kernel_stamps): the interrupts of
    the reader's line request, traced on the monotonic clock, once the reader holds every button's
    line (the box says it is ready before its reader, started beside it, may have claimed them all:
    a run that waited for the first saw 9 of 12, and the other lines' edges had no stamp)."""
    rows = wait_for("the GPIO reader's lines", lambda: reader_irqs(buttons), timeout_s)
    TRACE.mkdir(exist_ok=True)
    (TRACE / "trace_clock").write_text("mono")
    (TRACE / "trace").write_text("")
    (TRACE / "events/irq/irq_handler_entry/enable").write_text("1")
    (TRACE / "tracing_on").write_text("1")
    return rows


def newest_journal(journals: Path, lines: int) -> Path | None:
    found = sorted(journals.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found and len(found[-1].read_text().splitlines()) >= lines else None


def play(plan: dict, result: dict) -> None:
    board(plan)
    result["board_made_s"] = time.monotonic()
    journals = OUT / "journals"
    journals.mkdir()
    log = open(OUT / "box.log", "w")
    box = subprocess.Popen(["/opt/companion/bin/companion", "run", "--profile", plan["profile"], "--journal-dir",
                            str(journals), "--seed", str(plan["seed"])], stdout=log, stderr=subprocess.STDOUT,
                           env=ENV, cwd="/tmp")
    try:
        wait_for("the box's ready line", lambda: box.poll() is not None or READY.search((OUT / "box.log").read_text()),
                 plan["timeout_s"])
        if box.poll() is not None:
            raise RuntimeError(f"the box exited ({box.returncode}) before it was ready")
        result["box_ready_s"] = time.monotonic()
        (OUT / "button-irqs.txt").write_text("\n".join(stamps_on(len(plan["buttons"]), plan["timeout_s"])) + "\n")
        (OUT / "debug-gpio.txt").write_text(Path("/sys/kernel/debug/gpio").read_text())
        result["times"] = pins.press(plan["edges"], pins.chip_dir())
        (TRACE / "tracing_on").write_text("0")
        (OUT / "irq-trace.txt").write_text((TRACE / "trace").read_text())
        journal = wait_for("the game's journal lines", lambda: newest_journal(journals, plan["lines"]),
                           plan["timeout_s"])
        result["journal"] = journal.name
    finally:
        box.send_signal(signal.SIGTERM)
        try:
            result["box_rc"] = box.wait(timeout=plan["timeout_s"])
        except subprocess.TimeoutExpired:
            box.kill()
            result["box_rc"] = "killed: no exit within the timeout after SIGTERM"
        log.close()


def main() -> None:
    result: dict = {"started_s": time.monotonic()}
    try:
        play(json.loads((OUT / "plan.json").read_text()), result)
        result["ok"] = True
    except Exception:  # noqa: BLE001  PID 1 must never die with the machine on: the host reads why
        result["error"] = traceback.format_exc()[-3000:]
    finally:
        result["ended_s"] = time.monotonic()
        (OUT / "result.json").write_text(json.dumps(result))
        os.sync()
        libc.reboot(ctypes.c_int(POWER_OFF))


if __name__ == "__main__":
    main()
