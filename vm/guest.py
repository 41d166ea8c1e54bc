"""Booting the virtual Pi under QEMU and running jobs in it through the share (vm/agent.py).

QEMU runs with TCG (``-accel tcg,thread=multi``): this machine's /dev/kvm does not boot a stock
Debian kernel. An ``amd64`` guest is a PC (``-cpu max``); an ``arm64`` guest is QEMU's ``virt``
machine with the board's own CPU core (:data:`ARM_CORES`). Each boot gets a fresh copy-on-write overlay of the cached image, so the
image stays clean and a run leaves nothing behind for the next. Every wait is for a file to
appear, bounded by a timeout; a timeout stops the guest and says what it was waiting for.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

from vm import agent

ARM_CORES = {"pi4": "cortex-a72", "pi5": "cortex-a76", "pi5-legacy": "cortex-a76"}
"""The Pi 4's BCM2711 has Cortex-A72 cores, the Pi 5's BCM2712 Cortex-A76 (Raspberry Pi's product
briefs); QEMU emulates both. ``-cpu max`` would add pointer authentication, which TCG emulates
slowly and no Pi has."""
BOOT_TIMEOUT_S = 420  # ~19 s on an idle machine, ~76 s on a loaded one; TCG on 2 shared cores
POLL_S = 0.1
KERNEL_REPORT = re.compile(r"\] (BUG:|Oops|general protection fault|kernel BUG|WARNING:|Unable to handle|"
                           r"Kernel panic|invalid opcode|watchdog: BUG)")
"""The first line of a kernel's report of its own fault (its oops, panic or warning format)."""


def console_excerpt(console: str, lines: int = 30) -> str:
    """A guest console's last lines, and when the guest's kernel went down, the start of its first
    report too: a panic's last 30 lines are only registers, and what failed is at the top."""
    text = console.splitlines()
    first = next((i for i, line in enumerate(text) if KERNEL_REPORT.search(line)), None)
    report = []
    if first is not None and first < len(text) - lines:
        report = ["guest kernel's first report:", *text[first:min(first + lines, len(text) - lines)], "..."]
    return "\n".join(["guest console:", *report, *text[-lines:]])


class GuestError(RuntimeError):
    pass


class Guest:
    def __init__(self, image: Path, run_dir: Path, apt: Path, board: str = "pi4", memory_mb: int = 2048,
                 cpus: int = 2, arch: str = "amd64") -> None:
        self.image = image
        self.run_dir = run_dir
        self.apt = apt
        self.board = board
        self.share = run_dir / "share"
        self.memory_mb = memory_mb
        self.cpus = cpus
        self.arch = arch
        self.proc: subprocess.Popen | None = None
        self.serial = 0

    @property
    def console_log(self) -> Path:
        return self.run_dir / "console.log"

    def command(self) -> list[str]:
        if self.arch == "arm64":
            machine = ["qemu-system-aarch64", "-machine", "virt", "-accel", "tcg,thread=multi",
                       "-cpu", ARM_CORES[self.board]]
            console = "ttyAMA0"
        else:
            machine = ["qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", "max"]
            console = "ttyS0"
        return machine + [
            "-smp", str(self.cpus), "-m", str(self.memory_mb), "-display", "none", "-no-reboot",
            "-kernel", str(self.image / "vmlinuz"), "-initrd", str(self.image / "initrd.img"),
            "-append", f"root=/dev/vda rw console={console} quiet panic=-1 systemd.show_status=0 "
                       f"vm.board={self.board}",
            "-drive", f"file={self.run_dir / 'disk.qcow2'},if=virtio,format=qcow2,cache=unsafe",
            "-virtfs", f"local,path={self.share},mount_tag=share,security_model=none,id=share",
            # apt's archive, read-only; no network device: nothing in the guest reaches Debian's archive
            "-virtfs", f"local,path={self.apt},mount_tag=apt,security_model=none,id=apt,readonly=on",
            "-nic", "none",
            "-device", "virtio-rng-pci",
            "-serial", f"file:{self.console_log}", "-monitor", "none",
        ]

    def start(self, fresh: bool = True) -> None:
        """Boot it: on a fresh overlay of the image, or (``fresh=False``) on the disk the last boot
        left, as a Pi boots again after a reboot."""
        self.share.mkdir(parents=True, exist_ok=True)
        (self.share / "ready").unlink(missing_ok=True)
        shutil.copy(Path(agent.__file__), self.share / "agent.py")
        disk = self.run_dir / "disk.qcow2"
        if fresh or not disk.exists():
            disk.unlink(missing_ok=True)
            subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
                            str(self.image / "rootfs.img"), str(disk)], check=True)
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                     stdout=open(self.run_dir / "qemu.log", "w"), stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = BOOT_TIMEOUT_S) -> dict:
        ready = self.share / "ready"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready.exists():
                try:
                    return json.loads(ready.read_text())
                except ValueError:
                    pass  # written by a rename: only a partial read on a slow share
            self._check_alive("booting")
            time.sleep(POLL_S)
        raise GuestError(f"the guest's job agent did not start within {timeout:.0f} s\n" + self.console_tail())

    def run(self, script: str, label: str, timeout: float = 300) -> dict:
        """Run a bash script in the guest as root; returns {"rc", "seconds", "output"}."""
        self.serial += 1
        name = agent.job_name(self.serial, label)
        agent.submit(self.share, name, "set -u\n" + script)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            res = agent.result(self.share, name)
            if res is not None:
                return res
            self._check_alive(label)
            time.sleep(POLL_S)
        out = self.share / "jobs" / f"{name}.out"
        partial = out.read_text(errors="replace")[-3000:] if out.exists() else ""
        raise GuestError(f"job {label!r} did not finish within {timeout:.0f} s; its output so far:\n{partial}")

    def must(self, script: str, label: str, timeout: float = 300) -> str:
        res = self.run(script, label, timeout)
        if res["rc"] != 0:
            raise GuestError(f"job {label!r} failed with {res['rc']}:\n{res['output'][-3000:]}")
        return res["output"]

    def _check_alive(self, doing: str) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise GuestError(f"QEMU ended ({self.proc.returncode}) while {doing}\n" + self.console_tail())

    def console_tail(self, lines: int = 30) -> str:
        if not self.console_log.exists():
            return ""
        return console_excerpt(self.console_log.read_text(errors="replace"), lines)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            self.run("systemctl poweroff --no-block", "poweroff", timeout=30)
            self.proc.wait(timeout=180)  # a clean power-off: the reboot check boots this disk again
        except (GuestError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
