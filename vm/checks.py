"""The virtual Pi's checks, stage by stage, in one boot of the guest.

Each stage records its time and turns its keys true only when what it observed says so; a stage
that fails records why (with the tail of the guest's journal) and the run goes on to the next
stage where that still makes sense, so one defect does not hide the others.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from pathlib import Path

from vm import summary as result
from vm.guest import Guest, GuestError

HERE = Path(__file__).resolve().parent
HARNESS = "/var/lib/vm-harness"
MAKER = "maker"
"""The maker's own user in the guest: a home only they can enter (0700) and sudo, as on Raspberry Pi
OS; every install, update and uninstall is theirs, run as the docs say (systemd/README.md)."""
PI_CONFIG = r"""# For more options and information see
# http://rptl.io/configtxt

#dtparam=i2c_arm=on
dtparam=audio=on

camera_auto_detect=1
arm_64bit=1

[cm4]
otg_mode=1

[cm5]
dtoverlay=dwc2,dr_mode=host
"""
"""A Raspberry Pi OS config.txt, its last section for one model only: the installer's lines must
go where they apply to every Pi, and its uninstall must leave the file as it was."""
KEPT = "/boot/firmware/config.txt /etc/group /etc/gshadow /etc/passwd /etc/shadow"
"""Files the uninstall must leave exactly as they were before the install."""

PREPARE_TEMPLATE = rf"""
set -e -o pipefail
# The virtual Pi's hardware, made at boot by vm-board.service (vm/inguest/board.sh): the GPIO
# header (gpio-sim) and I2C-1 with the multiplexer and panels, and the board revision.
end=$(( $(date +%s) + 120 ))
until [ "$(systemctl is-active vm-board.service || true)" = active ]; do
  [ "$(date +%s)" -lt "$end" ] && [ "$(systemctl is-active vm-board.service || true)" != failed ] \
    || {{ systemctl status vm-board.service --no-pager; exit 1; }}
  sleep 0.2
done
echo "board: $(cat {HARNESS}/board)"
python3 /share/tools/pins.py where
ls -l /dev/gpiochip*
# Plain Debian before the installer: the bus, but no i2c-dev, so no /dev/i2c-1 (vm/judge.py's at_boot)
if [ -e /dev/i2c-1 ] || grep -q '^i2c_dev ' /proc/modules; then echo "before install: i2c-dev loaded"
else echo "before install: no i2c-dev"; fi
# What a Pi's firmware gives and plain Debian lacks: the board revision gpiozero reads. Test
# harness only: a drop-in binds it over /proc/cpuinfo for the service, the product is unchanged.
mkdir -p /etc/systemd/system/companion.service.d
printf '[Service]\nBindReadOnlyPaths={HARNESS}/cpuinfo:/proc/cpuinfo\n' > /etc/systemd/system/companion.service.d/vm-board-revision.conf
# No drop-in of the harness changes the unit's own timeouts (TimeoutStartSec=30, WatchdogSec=10):
# a box that starts slower than its unit allows fails here as it would on a Pi
# The maker, with sudo and a home of their own; a Pi's boot config
id {MAKER} > /dev/null 2>&1 || useradd --create-home --shell /bin/bash --groups sudo {MAKER}
chmod 0700 /home/{MAKER}
echo '{MAKER} ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/010_{MAKER}-nopasswd
mkdir -p /boot/firmware
cat > /boot/firmware/config.txt <<'CONFIG_TXT'
{PI_CONFIG}CONFIG_TXT
mkdir -p {HARNESS}/before
for f in {KEPT}; do cp -a "$f" "{HARNESS}/before/${{f//\//_}}"; done
# No network: apt reads the host's archive only
if ip -o link show | grep -v ' lo:'; then echo "the guest has a network device"; exit 1; fi
apt-get update -q
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

PACE = r"""python3 -c '
import time
start = time.monotonic()
sum(i * i for i in range(2_000_000))
print(f"pace: {time.monotonic() - start:.2f}")'"""
"""A fixed piece of Python work timed in the guest: how fast this host runs the emulator now
(the install is mostly Python and pip, and a loaded host runs it several times slower)."""
INSTALL_BOUND_S = 900
PACE_REFERENCE_S = 1.5
"""The install's bound, and :data:`PACE`'s time in the amd64 guest, on the host it was measured on
(2 shared cores, load about 3; docs/VIRTUAL-PI.md): the install took 129-168 s there on a quiet
host and 523-574 s at load 10-15, when one fixed bound of 900 s failed every check of a run at
load 10-25. The bound scales with the pace measured in the run, never below 900 s."""


def install_bound(pace_s: float) -> int:
    """Seconds the maker's install may take on a host whose guest ran :data:`PACE` in ``pace_s``."""
    return round(INSTALL_BOUND_S * max(1.0, pace_s / PACE_REFERENCE_S))


def as_maker(command: str) -> str:
    """``command`` run by the maker in a login shell (their home, their environment)."""
    return f"runuser -l {MAKER} -c {shlex.quote(command)}"


OFFLINE = "sudo PIP_NO_INDEX=1 PIP_FIND_LINKS=/share/wheels systemd/install.sh"
"""The README's install without network at the table: pip from a folder of wheels."""
INSTALL = "set -o pipefail\n" + as_maker(
    "rm -rf ~/companion && cp -a /share/src ~/companion && cd ~/companion && timeout {timeout} " + OFFLINE + "{args}")
"""The maker copies the tree into their home and installs (again: an update) as the docs say;
``args``: the first install's ``--profile`` (vm/webprofile.py), none for the reinstall."""

STATE = r"""
systemctl show companion.service -p Type -p ActiveState -p SubState -p NRestarts -p StatusText \
  -p MainPID -p WatchdogUSec -p WatchdogTimestampMonotonic -p ExecMainStartTimestampMonotonic \
  -p ActiveEnterTimestampMonotonic -p NotifyAccess -p TimeoutStartUSec
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


def one_line(text: str) -> str:
    """A guest's lines as the summary's one-line finding."""
    return " | ".join(text.strip().splitlines())


class Run:
    """One check run: the guest, the summary and the per-stage bookkeeping."""

    def __init__(self, release: str, tree: Path, log, board: str = "pi4", arch: str = "amd64") -> None:
        self.release = release
        self.board = board
        self.tree = tree
        self.log = log
        self.summary = result.new(release, board, arch)
        self.guest: Guest | None = None
        self.install_bound_s = INSTALL_BOUND_S
        """How long an install may take in this run (:func:`install_bound`, once the pace is measured)."""
        self.seen: dict[str, str] = {}
        """What a stage saw that a later stage judges, whole (the summary's findings are one line each)."""

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
