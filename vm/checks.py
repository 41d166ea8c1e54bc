"""The virtual Pi's checks, stage by stage, in one boot of the guest.

Each stage records its time and turns its keys true only when what it observed says so; a stage
that fails records why (with the tail of the guest's journal) and the run goes on to the next
stage where that still makes sense, so one defect does not hide the others.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

from vm import summary as result
from vm.guest import Guest, GuestError

HERE = Path(__file__).resolve().parent
HARNESS = "/var/lib/vm-harness"
REVISION = "c03114"  # a Raspberry Pi 4 Model B 4 GB rev 1.4, what gpiozero reads from a Pi's cpuinfo

PREPARE_TEMPLATE = rf"""
# The virtual Pi's hardware: the GPIO header (gpio-sim) and I2C-1 with the multiplexer and panels.
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
modprobe gpio-sim
python3 /share/tools/pins.py setup
modprobe i2c-dev
modprobe companion_i2c_sim
ls -l /dev/gpiochip0 /dev/i2c-1
# What a Pi's firmware gives and plain Debian lacks: the board revision gpiozero reads. Test
# harness only: a drop-in binds it over /proc/cpuinfo for the service, the product is unchanged.
mkdir -p {HARNESS} /etc/systemd/system/companion.service.d
{{ cat /proc/cpuinfo; printf 'Hardware\t: BCM2835\nRevision\t: {REVISION}\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n'; }} > {HARNESS}/cpuinfo
printf '[Service]\nBindReadOnlyPaths={HARNESS}/cpuinfo:/proc/cpuinfo\n' > /etc/systemd/system/companion.service.d/vm-board-revision.conf
# Everything the panels are sent, from here on, in the kernel's trace
echo 8192 > /sys/kernel/tracing/buffer_size_kb
echo 1 > /sys/kernel/tracing/events/i2c/i2c_write/enable
# The files the installer may touch, before it runs (the uninstall check compares against them)
SNAPSHOT_HERE > {HARNESS}/before-install.txt
"""

SNAPSHOT = r"""find /etc /opt /usr/local /boot -xdev \( -type f -o -type l \) \
  -not -path '/etc/systemd/system/companion.service.d/*' -not -path '/etc/ld.so.cache' \
  -not -name 'passwd*' -not -name 'group*' -not -name 'shadow*' -not -name 'gshadow*' \
  -not -name 'subuid*' -not -name 'subgid*' -not -path '/etc/apt/*' 2>/dev/null | sort"""

PREPARE = PREPARE_TEMPLATE.replace("SNAPSHOT_HERE", SNAPSHOT)

WAIT_ACTIVE = r"""
wait_active() {  # wait_active SECONDS: until the service is active (READY) or failed
  local end=$(( $(date +%s) + $1 )) s
  while [ "$(date +%s)" -lt "$end" ]; do
    s=$(systemctl is-active companion.service || true)
    [ "$s" = active ] && return 0
    [ "$s" = failed ] && return 1
    sleep 0.2
  done
  return 1
}
"""

INSTALL = r"""
rm -rf /root/companion && cp -a /share/src /root/companion
cd /root/companion
export PIP_NO_INDEX=1 PIP_FIND_LINKS=/share/wheels
timeout {timeout} bash systemd/install.sh
"""

STATE = r"""
systemctl show companion.service -p Type -p ActiveState -p SubState -p NRestarts -p StatusText \
  -p MainPID -p WatchdogUSec -p WatchdogTimestampMonotonic -p ExecMainStartTimestampMonotonic \
  -p ActiveEnterTimestampMonotonic -p NotifyAccess
"""

CONFIG = r"""
for f in /etc/systemd/system/companion.service /etc/companion/profile.toml /boot/firmware/config.txt \
  /boot/config.txt /etc/udev/rules.d/* /etc/modules-load.d/* /etc/modules /etc/sudoers.d/*; do
  [ -f "$f" ] && sha256sum "$f"
done
id companion; getent group gpio i2c dialout; systemctl is-enabled companion.service
"""


def parse_show(text: str) -> dict[str, str]:
    """``systemctl show`` output as a dict."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def source_files(tree: Path) -> list[Path]:
    """The tree's files as a clone has them (tracked and new, not ignored); every file if not git."""
    try:
        out = subprocess.run(["git", "-C", str(tree), "ls-files", "-co", "--exclude-standard", "-z"],
                             capture_output=True, check=True).stdout
        return [Path(p) for p in out.decode().split("\0") if p and (tree / p).is_file()]
    except (subprocess.CalledProcessError, FileNotFoundError):
        skip = {".git", ".venv", "__pycache__", "build"}
        return [p.relative_to(tree) for p in tree.rglob("*")
                if p.is_file() and not skip & set(p.relative_to(tree).parts)]


def stage_share(tree: Path, share: Path, wheel_dir: Path) -> None:
    shutil.rmtree(share, ignore_errors=True)
    for rel in source_files(tree):
        dest = share / "src" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(tree / rel, dest)
    shutil.copytree(wheel_dir, share / "wheels")
    shutil.copytree(HERE / "inguest", share / "tools")


class Run:
    """One check run: the guest, the summary and the per-stage bookkeeping."""

    def __init__(self, release: str, tree: Path, log) -> None:
        self.release = release
        self.tree = tree
        self.log = log
        self.summary = result.new(release)
        self.guest: Guest | None = None

    def stage(self, name: str, func, *keys: str) -> bool:
        """Run one stage; on an error mark ``keys`` false with the reason and the guest's log."""
        self.log(f"stage {name}")
        start = time.monotonic()
        try:
            func()
            ok = True
        except Exception as e:  # a stage's failure is a result, reported; the next stage runs
            reason = f"{type(e).__name__}: {e}" if not isinstance(e, GuestError) else str(e)
            self.log(f"stage {name} FAILED: {reason}")
            for key in keys or ("stages",):
                result.fail(self.summary, key, f"stage {name}: {reason[-1500:]}")
            self.summary.setdefault("failed_stages", []).append(name)
            self.journal_tail(name)
            ok = False
        self.summary["stage_seconds"][name] = round(time.monotonic() - start, 1)
        return ok

    def journal_tail(self, name: str) -> None:
        if self.guest is None or self.guest.proc is None or self.guest.proc.poll() is not None:
            return
        try:
            tail = self.guest.run("journalctl -b --no-pager -o short-monotonic | tail -n 40", "journal-tail", 60)
            self.summary.setdefault("journal_tail", {})[name] = tail["output"][-6000:]
            self.log(f"guest journal after the failed stage {name}:\n{tail['output'][-3000:]}")
        except GuestError:
            pass

    def show(self) -> dict[str, str]:
        return parse_show(self.guest.must(STATE, "unit-state", 60))
