"""The installer, run for real in a sandbox: every path it writes is moved into a temporary
directory, and only the commands that change this machine's system and cannot run here (apt,
systemd, user and group tools, udev, modprobe, raspi-config) are recording shims on PATH. The
wheel build, the venv, pip (offline, from wheels fetched once), the profile check, the files,
the udev rules, the boot config edits and the uninstall all run as they would on a Pi.

An installer that only printed its steps (``--dry-run``) once hid that it restarted itself
forever; these tests run the steps."""

import glob
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
INSTALL = ROOT / "systemd" / "install.sh"
CONSTRAINTS = ROOT / "systemd" / "constraints.txt"

SYSTEM_COMMANDS = ("apt-get", "apt-cache", "systemctl", "useradd", "usermod", "userdel", "groupadd",
                   "groupdel", "getent", "udevadm", "modprobe", "raspi-config")

# One shim for all of them: it logs its name and arguments, and keeps the users and groups it
# was asked to add in files of the sandbox, so that getent sees them as it would the real ones.
SHIM = r"""#!/bin/sh
name=$(basename "$0")
alive() {  # the service's process runs (a zombie, which nobody may reap here, has ended)
  state=$(sed 's/.*) //' "/proc/$(cat "$SHIM_STATE/mainpid")/stat" 2>/dev/null | cut -c1)
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}
echo "$name $*" >> "$SHIM_LOG"
case "$name $1" in
  "getent passwd"|"getent group") grep -x "$2" "$SHIM_STATE/$1"; exit ;;
  "useradd "*) eval "last=\${$#}"; echo "$last" >> "$SHIM_STATE/passwd" ;;
  "groupadd "*) eval "last=\${$#}"; echo "$last" >> "$SHIM_STATE/group" ;;
  "userdel "*) grep -vx "$1" "$SHIM_STATE/passwd" > "$SHIM_STATE/t"; mv "$SHIM_STATE/t" "$SHIM_STATE/passwd" ;;
  "groupdel "*) grep -vx "$1" "$SHIM_STATE/group" > "$SHIM_STATE/t"; mv "$SHIM_STATE/t" "$SHIM_STATE/group" ;;
  "apt-cache policy") printf 'python3-lgpio:\n  Installed: (none)\n  Candidate: %s\n' "$SHIM_APT_LGPIO" ;;
  "systemctl restart") [ -e "$SHIM_STATE/restart-fails" ] && exit 1
    [ -n "$SHIM_SERVICE" ] || exit 0
    # the service as a real process: the old one stopped, the new one started; ready (systemd's
    # Type=notify) once it says so, failed if it ends first
    [ -s "$SHIM_STATE/mainpid" ] && kill "$(cat "$SHIM_STATE/mainpid")" 2>/dev/null
    rm -f "$SHIM_STATE/ready"
    setsid sh -c "$SHIM_SERVICE" > /dev/null 2>&1 &
    echo $! > "$SHIM_STATE/mainpid"
    until [ -e "$SHIM_STATE/ready" ]; do alive || [ -e "$SHIM_STATE/ready" ] || exit 1; sleep 0.05; done ;;
  "systemctl show")
    if [ -z "$SHIM_SERVICE" ]; then echo ActiveState=active; echo SubState=running; echo MainPID=4242
    elif alive; then echo ActiveState=active; echo SubState=running; echo "MainPID=$(cat "$SHIM_STATE/mainpid")"
    else echo ActiveState=failed; echo SubState=failed; echo MainPID=0; fi
    echo NRestarts=0 ;;
esac
exit 0
"""

BOOKWORM = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n'
TRIXIE = 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\nVERSION_ID="13"\nVERSION_CODENAME=trixie\n'
BOOT_CONFIG = "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=100000\n[cm5]\ndtoverlay=dwc2,dr_mode=host\n"
GPIO_3 = ROOT / "hardware/profiles/gpio-3.toml"      # a display on a bus of its own: an overlay
OVERLAY = "dtoverlay=i2c-gpio,bus=3,i2c_gpio_sda=23,i2c_gpio_scl=24"


class Sandbox:
    """A system in a directory: the installer's paths, the shims and what they were asked."""

    patience_s = 300     # a full install took 20-35 s here, with both cores busy with other work

    def __init__(self, root: Path, wheels: Path | None):
        self.root = root
        self.shims = root / "shims"
        self.state = root / "shim-state"
        for d in (self.shims, self.state, root / "boot", root / "etc", root / "usr/lib/udev/rules.d"):
            d.mkdir(parents=True, exist_ok=True)
        for name in SYSTEM_COMMANDS:
            (self.shims / name).write_text(SHIM)
            (self.shims / name).chmod(0o755)
        (self.state / "passwd").write_text("root\n")
        (self.state / "group").write_text("root\ndialout\n")   # as on Debian: gpio and i2c are not there
        (root / "etc/os-release").write_text(BOOKWORM)
        self.boot_config.write_text(BOOT_CONFIG)
        self.log = root / "commands.log"
        self.env = {
            **{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},   # as sudo would run it
            "PATH": f"{self.shims}:{os.environ['PATH']}",
            "SHIM_LOG": str(self.log), "SHIM_STATE": str(self.state), "SHIM_APT_LGPIO": "(none)",
            "PREFIX": str(self.prefix), "CONF": str(root / "etc/companion"),
            "UNIT_DIR": str(root / "etc/systemd/system"), "UDEV_DIR": str(root / "etc/udev/rules.d"),
            "UDEV_RULE_DIRS": f"{root}/etc/udev/rules.d {root}/usr/lib/udev/rules.d",
            "MODULES_DIR": str(root / "etc/modules-load.d"), "STATE_DIR": str(self.state_dir),
            "BOOT_CONFIG": str(self.boot_config), "OS_RELEASE": str(root / "etc/os-release"),
            "PYTHON": sys.executable,
            # pip offline, from the wheels prepared once, whatever this machine's pip settings
            "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels or ""),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "SETTLE_S": "1",  # a version that stays up stays up; one that fails here fails at once
        }

    prefix = property(lambda self: self.root / "opt/companion")
    state_dir = property(lambda self: self.root / "var/lib/companion")
    boot_config = property(lambda self: self.root / "boot/config.txt")
    unit = property(lambda self: self.root / "etc/systemd/system/companion.service")
    profile = property(lambda self: self.root / "etc/companion/profile.toml")
    udev = property(lambda self: self.root / "etc/udev/rules.d")
    modules = property(lambda self: self.root / "etc/modules-load.d/companion.conf")

    def run(self, *args, **env) -> subprocess.CompletedProcess:
        """Runs the installer to its end. The wait is bounded: an installer that runs itself
        again and again (as one did) fails the test, and everything it started is ended."""
        self.log.write_text("")
        with subprocess.Popen(["bash", str(INSTALL), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={**self.env, **env}, start_new_session=True) as proc:
            try:
                out, err = proc.communicate(timeout=self.patience_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, _ = proc.communicate()
                pytest.fail(f"the installer did not finish; it ran apt {steps(out).count('apt package lists')} times")
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def commands(self) -> list[str]:
        return self.log.read_text().splitlines()

    def companion(self, *args) -> subprocess.CompletedProcess:
        """The installed program, run through the path the unit starts it by."""
        return subprocess.run([str(self.prefix / "venv/bin/companion"), *args], capture_output=True,
                              text=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})

    def files(self) -> dict[str, tuple[int, int, bytes]]:
        """Every file the installer may touch outside its venvs: mode, mtime and content."""
        found = {}
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root).as_posix()
            if rel.startswith(("opt/companion/venv", "shim", "commands.log")) or not path.is_file():
                continue
            info = path.lstat()
            found[rel] = (stat.S_IMODE(info.st_mode), info.st_mtime_ns, path.read_bytes())
        return found


def other(venv: str) -> str:
    """The venv an update builds beside the running one."""
    return {"venv-a": "venv-b", "venv-b": "venv-a"}[venv]


def steps(out: str) -> list[str]:
    return [line[4:] for line in out.splitlines() if line.startswith("==> ")]


@pytest.fixture(scope="module")
def wheels(request, tmp_path_factory):
    """The package's dependencies at their pinned versions, lgpio (plain Debian has no
    python3-lgpio) and setuptools (to build the package's wheel), fetched once into pytest's
    cache; the installs then run without an index."""
    cache = request.config.cache.mkdir("installer-wheels") if getattr(request.config, "cache", None) else tmp_path_factory.mktemp("wheels")
    pins = CONSTRAINTS.read_text()
    if (cache / "constraints.txt").exists() and (cache / "constraints.txt").read_text() == pins:
        return cache
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(cache), "--only-binary", ":all:",
         "--constraint", str(CONSTRAINTS), *dependencies, "lgpio", "setuptools>=68"], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot fetch the pinned wheels to install offline: {result.stderr.strip()[-300:]}")
    (cache / "constraints.txt").write_text(pins)
    return cache


@pytest.fixture(scope="module")
def installed(tmp_path_factory, wheels):
    """One sandbox installed once, shared by the tests below in their order: a first install,
    the same again, an update that fails, and the uninstall last."""
    if os.geteuid() != 0:
        pytest.skip("the installer runs as root (sudo)")
    box = Sandbox(tmp_path_factory.mktemp("system"), wheels)
    box.state_dir.mkdir(parents=True)
    result = box.run("--profile", str(GPIO_3))
    return box, result


def test_a_fresh_install_finishes_with_the_program_profile_unit_and_rules_in_place(installed):
    box, result = installed
    assert result.returncode == 0, result.stderr
    out = steps(result.stdout)
    assert out.count("apt package lists") == 1, "the installer ran more than once"
    assert out[0] == "system: Debian GNU/Linux 12 (bookworm), Python %d.%d" % sys.version_info[:2]
    assert box.profile.read_text() == GPIO_3.read_text()
    assert box.unit.read_text() == (ROOT / "systemd/companion.service").read_text()
    assert stat.S_IMODE(box.unit.stat().st_mode) == 0o644
    # the board's serial driver and the displays' /dev/i2c-1 (plain Debian loads no i2c-dev), at every boot
    assert [line for line in box.modules.read_text().splitlines() if line and not line.startswith("#")] == \
        ["cdc_acm", "i2c-dev"]
    assert 'GROUP="gpio", MODE="0660"' in (box.udev / "60-companion-gpiochip.rules").read_text()
    assert 'ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="0005", ENV{ID_MM_DEVICE_IGNORE}="1"' in \
        (box.udev / "70-companion-board.rules").read_text()
    assert os.readlink(box.prefix / "venv") == "venv-a"
    check = box.companion("profile", "check", str(box.profile))
    assert check.returncode == 0, check.stderr
    # Plain Debian has no python3-lgpio: PyPI's real lgpio, never its empty 0.0.0.2
    lgpio = subprocess.run([str(box.prefix / "venv/bin/python"), "-c",
                            "import importlib.metadata as m, lgpio; print(m.version('lgpio'), callable(lgpio.gpiochip_open))"],
                           capture_output=True, text=True)
    assert lgpio.stdout.split() == ["0.2.2.0", "True"], lgpio.stderr
    # the overlay where it applies to every Pi: before the [cm5] section, no [all] of ours
    assert box.boot_config.read_text() == BOOT_CONFIG.replace("=100000", f"=400000\n{OVERLAY}")
    assert "reboot once for the new I2C settings" in result.stdout
    commands = box.commands()
    for expected in ("apt-get update", "groupadd --system gpio", "groupadd --system i2c",
                     "udevadm control --reload-rules", "modprobe cdc_acm", "modprobe i2c-dev", "raspi-config nonint do_i2c 0",
                     "systemctl daemon-reload", "systemctl enable companion.service",
                     "systemctl restart companion.service"):
        assert expected in commands, expected
    assert "groupadd --system dialout" not in commands
    assert [c for c in commands if c.startswith("useradd")] == [
        f"useradd --system --home-dir {box.state_dir} --no-create-home --shell /usr/sbin/nologin "
        "--groups gpio,i2c,dialout companion"]
    assert commands.index("systemctl daemon-reload") < commands.index("systemctl restart companion.service")
    assert not (box.prefix / "wheels").exists()


def test_running_it_again_changes_no_file_and_keeps_the_previous_version(installed):
    box, _ = installed
    before = box.files()
    previous = os.readlink(box.prefix / "venv")
    result = box.run("--profile", str(GPIO_3))
    assert result.returncode == 0, result.stderr
    assert steps(result.stdout).count("apt package lists") == 1
    assert "reboot once" not in result.stdout
    assert box.files() == before, "a second run changed files"
    assert "profile: keeping" in result.stdout
    commands = box.commands()
    assert not [c for c in commands if c.startswith(("useradd", "groupadd"))]
    assert "usermod -a -G gpio,i2c,dialout companion" in commands
    assert os.readlink(box.prefix / "venv") == other(previous), "not the new version"
    assert (box.prefix / previous / "bin/companion").exists(), "the previous version is gone"
    assert box.companion("profile", "check", str(box.profile)).returncode == 0


def test_an_update_that_cannot_install_leaves_the_running_version_installed(installed, tmp_path):
    box, _ = installed
    name = os.readlink(box.prefix / "venv")
    running = box.prefix / name
    files = sorted(p.relative_to(running) for p in running.rglob("*"))
    result = box.run("--profile", str(GPIO_3), PIP_FIND_LINKS=str(tmp_path))     # no network, no wheels: pip cannot install
    assert result.returncode == 1
    assert "the new version did not install (see above); the running one is unchanged" in result.stderr
    assert os.readlink(box.prefix / "venv") == name
    assert sorted(p.relative_to(running) for p in running.rglob("*")) == files
    assert not (box.prefix / other(name)).exists(), "the half-built venv was left behind"
    assert box.companion("profile", "check", str(box.profile)).returncode == 0
    assert not [c for c in box.commands() if c.startswith("systemctl")], "the service was touched"

    good = box.profile.read_text()        # the maker's profile, which the new version would not read
    box.profile.write_text(good.replace("[[stations]]", "[[stations]]\nslap = 99", 1))
    try:
        result = box.run("--profile", str(GPIO_3))
    finally:
        box.profile.write_text(good)
    assert result.returncode == 1 and "the running one is unchanged" in result.stderr
    assert "slap" in result.stderr          # the check says what is wrong
    assert os.readlink(box.prefix / "venv") == name and not (box.prefix / other(name)).exists()
    assert not [c for c in box.commands() if c.startswith("systemctl")]


def test_a_new_version_that_does_not_start_is_rolled_back(installed):
    box, _ = installed
    running = os.readlink(box.prefix / "venv")
    (box.state / "restart-fails").touch()
    try:
        result = box.run("--profile", str(GPIO_3))
    finally:
        (box.state / "restart-fails").unlink()
    assert result.returncode == 1
    assert "the new version did not start" in result.stderr and "back on the previous one" in result.stderr
    assert os.readlink(box.prefix / "venv") == running
    assert box.commands().count("systemctl restart companion.service") == 2
    assert box.companion("profile", "check", str(box.profile)).returncode == 0


CRASHES_AFTER_READY = 'touch "$SHIM_STATE/ready"; exit 3'
STAYS_UP = 'touch "$SHIM_STATE/ready"; exec sleep 600'


def test_a_new_version_that_crashes_after_its_ready_is_rolled_back_and_one_that_stays_up_is_kept(installed):
    """``systemctl restart`` of a Type=notify unit returns at READY: a version that sent it and
    then crashed was kept, and the installer said "installed". Here the service is a real
    process, which ends just after its READY; the wait after it is long (60 s), and ends as soon
    as the installer sees the process gone."""
    box, _ = installed
    running = os.readlink(box.prefix / "venv")
    try:
        result = box.run("--profile", str(GPIO_3), SHIM_SERVICE=CRASHES_AFTER_READY, SETTLE_S="60")
        assert result.returncode == 1, result.stdout
        assert "did not stay up after it started" in result.stderr and "back on the previous one" in result.stderr
        assert "installed;" not in result.stdout
        assert "the service is now: failed failed 0 0" in result.stdout
        assert os.readlink(box.prefix / "venv") == running
        assert box.commands().count("systemctl restart companion.service") == 2

        result = box.run("--profile", str(GPIO_3), SHIM_SERVICE=STAYS_UP)
        assert result.returncode == 0, result.stderr
        assert "the new version still up and ready after 1 s" in steps(result.stdout)
        assert os.readlink(box.prefix / "venv") == other(running)
    finally:
        pid = (box.state / "mainpid").read_text().strip() if (box.state / "mainpid").exists() else ""
        if pid:
            subprocess.run(["kill", pid])


def test_a_profile_that_lets_phones_in_gets_the_network_drop_in_and_loses_it_without(installed, tmp_path,
                                                                                     monkeypatch):
    """Phones need the box's network, which the unit alone does not have: a profile with [web] on
    gets systemd/phones.conf as the unit's drop-in; taken off again, the drop-in goes (and the
    uninstall below removes what is left). The installer asks the installed program, never a
    ``companion`` folder where it is run from (a maker runs it from their tree: importing that as
    root left files there the maker could not delete)."""
    box, _ = installed
    decoy = tmp_path / "companion"
    decoy.mkdir()
    (decoy / "__init__.py").write_text('raise SystemExit("the tree in the current folder was imported")\n')
    monkeypatch.chdir(tmp_path)
    dropin = box.unit.parent / "companion.service.d" / "phones.conf"
    without = box.profile.read_text()
    assert not dropin.exists()
    box.profile.write_text(without + '\n[web]\nenabled = true\n')
    result = box.run("--profile", str(GPIO_3))
    assert result.returncode == 0, result.stderr
    assert dropin.read_text() == (ROOT / "systemd/phones.conf").read_text()
    assert "phones on the box's own network (unit drop-in)" in steps(result.stdout)
    box.profile.write_text(without)
    result = box.run("--profile", str(GPIO_3))
    assert result.returncode == 0, result.stderr
    assert not dropin.exists() and "no [web] in the profile: the unit without a network again" in steps(result.stdout)
    box.profile.write_text(without + '\n[web]\nenabled = true\n')  # the uninstall takes it and its folder away
    assert box.run("--profile", str(GPIO_3)).returncode == 0 and dropin.exists()


def test_uninstall_removes_what_it_added_and_leaves_the_journals_readable(installed):
    box, _ = installed
    journal = box.state_dir / "games" / "20260101-000000-triangle.jsonl"
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text('{"game": "triangle"}\n')
    journal.chmod(0o600)
    box.profile.write_text(box.profile.read_text() + "# the maker's edits\n")
    result = box.run("--uninstall")
    assert result.returncode == 0, result.stderr
    assert not box.prefix.exists() and not box.unit.exists() and not box.modules.exists()
    assert not (box.unit.parent / "companion.service.d").exists()   # the phones drop-in's, made by it
    assert list(box.udev.iterdir()) == []
    assert box.boot_config.read_text() == BOOT_CONFIG    # exactly as it was
    assert journal.read_text() == '{"game": "triangle"}\n'
    assert stat.S_IMODE(journal.stat().st_mode) & 0o044 == 0o044 and journal.stat().st_uid == 0
    assert box.profile.read_text().endswith("# the maker's edits\n")
    commands = box.commands()
    for expected in ("systemctl disable --now companion.service", "userdel companion", "groupdel gpio",
                     "groupdel i2c", "systemctl daemon-reload", "udevadm control --reload-rules"):
        assert expected in commands, expected
    assert "groupdel dialout" not in commands       # it was there before
    assert "kept:" in result.stdout and str(box.state_dir) in result.stdout


def test_where_the_system_gives_gpiochips_to_gpio_no_rule_of_ours_is_added(tmp_path):
    box = Sandbox(tmp_path, None)
    (tmp_path / "usr/lib/udev/rules.d/99-com.rules").write_text(
        'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"\n')
    result = box.run("--dry-run")
    assert result.returncode == 0, result.stderr
    assert "gpiochip: the system's own udev rule gives it to group gpio" in result.stdout
    assert "60-companion-gpiochip.rules" not in result.stdout
    assert "70-companion-board.rules" in result.stdout


def test_the_release_is_named_and_an_unknown_one_refused(tmp_path):
    box = Sandbox(tmp_path, None)
    (tmp_path / "etc/os-release").write_text('PRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\nVERSION_CODENAME=bullseye\n')
    result = box.run("--dry-run")
    assert result.returncode == 1
    assert "supports Raspberry Pi OS or Debian Bookworm (12) and Trixie (13), not 'Debian GNU/Linux 11 (bullseye)'" \
        in result.stderr
    assert "apt-get" not in result.stdout
    result = box.run("--dry-run", "--any-release")
    assert result.returncode == 0 and "going on (--any-release)" in result.stdout


def test_lgpio_comes_from_apt_where_the_release_has_it(tmp_path):
    box = Sandbox(tmp_path, None)
    (tmp_path / "etc/os-release").write_text(TRIXIE)
    result = box.run("--dry-run", SHIM_APT_LGPIO="0.2.2-1~rpt1")     # as Raspberry Pi OS's archive has it
    assert result.returncode == 0, result.stderr
    assert "system: Debian GNU/Linux 13 (trixie)" in result.stdout
    assert "lgpio: python3-lgpio from apt" in result.stdout
    assert "--no-install-recommends python3-venv python3-pip i2c-tools python3-lgpio\n" in result.stdout
    package = result.stdout[result.stdout.index("==> package\n"):].splitlines()[1]
    assert package.endswith("/companion-*.whl")      # nothing of lgpio from PyPI


def python_313() -> str | None:
    """A Python 3.13 that runs here (Trixie's), if there is one."""
    found = [shutil.which("python3.13"), *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.13*/bin/python3.13")))]
    return next((p for p in found if p and subprocess.run([p, "-c", ""], capture_output=True).returncode == 0), None)


@pytest.mark.skipif(python_313() is None, reason="needs a Python 3.13")
def test_without_apt_lgpio_on_python_313_it_is_built_from_source(tmp_path):
    box = Sandbox(tmp_path, None)
    (tmp_path / "etc/os-release").write_text(TRIXIE)
    result = box.run("--dry-run", PYTHON=python_313())
    assert result.returncode == 0, result.stderr
    assert "building it from source" in result.stdout
    assert "i2c-tools swig python3-dev gcc libc6-dev\n" in result.stdout
    assert re.search(r"env PYPI=1 \S+ -m pip --python \S+/bin/python install .* --no-binary lgpio lgpio\n", result.stdout)


def test_every_dependency_is_pinned_and_the_placeholder_lgpio_is_pinned_out():
    pins = [line for line in CONSTRAINTS.read_text().splitlines() if line and not line.startswith("#")]
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    named = {re.split(r"[<>=!~; ]", d, maxsplit=1)[0].lower() for d in dependencies}
    assert {p.split("==")[0].lower() for p in pins} >= named | {"lgpio"}
    assert all("==" in p for p in pins)
    assert "lgpio==0.2.2.0" in pins


def shell_functions(script: str) -> list[str]:
    return re.findall(r"^(\w[\w-]*)\(\) \{", script, re.M)


def test_no_function_of_the_installer_hides_a_command():
    """A function named like a command runs instead of it: `install()` once made `install -m`
    start the whole installer again, forever. No function may share a name with a shell
    builtin or keyword, a command on this machine, or a system command the installer runs."""
    script = INSTALL.read_text()
    functions = shell_functions(script)
    assert {"step", "do_install", "do_uninstall"} <= set(functions)
    builtins = subprocess.run(["bash", "-c", "compgen -b; compgen -k"], capture_output=True, text=True).stdout.split()
    for name in functions:
        assert name not in builtins, f"{name}() hides a shell builtin"
        assert name not in SYSTEM_COMMANDS, f"{name}() hides a command the installer runs on a Pi"
        assert shutil.which(name) is None, f"{name}() hides {shutil.which(name)}"


def test_the_function_check_finds_a_hiding_function():
    assert "install" in shell_functions("install() {\n  :\n}\n")
    assert shutil.which("install") is not None


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="needs shellcheck (apt-get install shellcheck)")
def test_shellcheck_finds_nothing():
    result = subprocess.run(["shellcheck", str(INSTALL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def shell_scripts() -> list[Path]:
    """Every shell script of the tree outside the installer: the card's, the virtual Pi's, CI's."""
    found = [ROOT / ".ci" / "run"]
    for folder in ("systemd", "vm", "hardware", "firmware"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path != INSTALL and path.suffix not in (".py", ".c", ".toml", ".md"):
                with open(path, "rb") as f:
                    if f.readline().rstrip() in (b"#!/bin/sh", b"#!/bin/bash", b"#!/usr/bin/env bash"):
                        found.append(path)
    return found


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="needs shellcheck (apt-get install shellcheck)")
def test_shellcheck_warns_of_nothing_in_the_other_scripts():
    """The card's scripts run as root on a maker's SD card (companion-slot writes its partitions):
    shellcheck's warnings (an unquoted rm, a stray space in an assignment) are bugs there too."""
    scripts = shell_scripts()
    assert {p.name for p in scripts} >= {"run", "companion-slot", "companion-grow-data", "build.sh"}
    result = subprocess.run(["shellcheck", "-S", "warning", *map(str, scripts)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def boot_config_step(box: "Sandbox") -> subprocess.CompletedProcess:
    """The installer's boot_config step alone, on the sandbox's config.txt."""
    return subprocess.run(["bash", "-c", f'. "{INSTALL}"; mkdir -p "$PREFIX"; IN_SERVICE=$PROFILE boot_config'],
                          capture_output=True, text=True, env=box.env)


def test_the_i2c_speed_is_added_once_where_no_line_set_it(tmp_path):
    box = Sandbox(tmp_path, None)
    box.boot_config.write_text("dtparam=i2c_arm=on\n[pi4]\narm_boost=1\n")
    first, again = boot_config_step(box), boot_config_step(box)
    for result in (first, again):
        assert result.returncode == 0, result.stderr
        assert box.boot_config.read_text() == "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n[pi4]\narm_boost=1\n"
    assert (box.prefix / "installed").read_text() == "boot-line dtparam=i2c_arm_baudrate=400000\n"
    assert "reboot once" in first.stdout and "reboot once" not in again.stdout  # the new speed needs one
    box.boot_config.unlink()      # not a Pi: nothing to set
    result = subprocess.run(["bash", "-c", f'. "{INSTALL}"; IN_SERVICE=$PROFILE boot_config'], capture_output=True, text=True, env=box.env)
    assert result.returncode == 0 and "not a Raspberry Pi boot partition" in result.stdout
    assert not box.boot_config.exists()


PI_OS_CONFIG = """# For more options and information see
# http://rptl.io/configtxt

#dtparam=i2c_arm=on
dtparam=audio=on

camera_auto_detect=1
arm_64bit=1

[cm4]
otg_mode=1

[all]
arm_boost=1

[cm5]
dtoverlay=dwc2,dr_mode=host


"""


def edit(box: "Sandbox", function: str, line: str) -> str:
    """Run one of the installer's config.txt functions on the sandbox's file; its new text."""
    result = subprocess.run(["bash", "-c", f'. "{INSTALL}"; {function} "$EDIT_LINE" "$BOOT_CONFIG"'],
                            capture_output=True, text=True, env={**box.env, "EDIT_LINE": line})
    assert result.returncode == 0, result.stderr
    return box.boot_config.read_text()


@pytest.mark.parametrize("before, after", [
    # the last [all] section gets it, after its last setting, not after the [cm5] section
    (PI_OS_CONFIG, PI_OS_CONFIG.replace("arm_boost=1\n", "arm_boost=1\nLINE\n")),
    # no [all]: the lines before the first model section apply to every Pi
    ("dtparam=audio=on\n\n[pi4]\narm_boost=1\n", "dtparam=audio=on\nLINE\n\n[pi4]\narm_boost=1\n"),
    ("[pi4]\narm_boost=1\n", "LINE\n[pi4]\narm_boost=1\n"),
    ("[cm5]\nx=1\n[all]\n", "[cm5]\nx=1\n[all]\nLINE\n"),
    ("", "LINE\n"),
])
def test_a_config_line_goes_where_it_applies_to_every_pi_and_leaves_as_it_came(tmp_path, before, after):
    """append_line once added an [all] after a [cm5] section, which the uninstall left behind,
    and drop_line took the file's trailing blank lines with it."""
    box = Sandbox(tmp_path, None)
    box.boot_config.write_text(before)
    assert edit(box, "append_line", "LINE") == after
    assert edit(box, "drop_line", "LINE") == before


def test_without_raspi_config_the_installer_switches_i2c_on_itself_and_the_uninstall_takes_it_back(tmp_path):
    """Debian on a Pi has no raspi-config: I2C was never switched on there."""
    box = Sandbox(tmp_path, None)
    (box.shims / "raspi-config").unlink()
    box.boot_config.write_text(PI_OS_CONFIG)
    first, again = boot_config_step(box), boot_config_step(box)
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    assert box.boot_config.read_text() == PI_OS_CONFIG.replace(
        "arm_boost=1\n", "arm_boost=1\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n")
    assert "enable I2C (after a reboot)" in first.stdout and "reboot once" in first.stdout
    assert "reboot once" not in again.stdout and not box.log.exists()  # no system command was run
    for entry in (box.prefix / "installed").read_text().splitlines():
        kind, what = entry.split(" ", 1)
        assert kind == "boot-line"
        edit(box, "drop_line", what)
    assert box.boot_config.read_text() == PI_OS_CONFIG


MODEL_ONLY = "dtparam=audio=on\n[cm4]\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=100000\n[pi4]\nOVERLAY\n"
"""I2C on, its speed and the profile's bus set for one model each only: not on every Pi."""


@pytest.mark.parametrize("before, after", [
    (MODEL_ONLY, "dtparam=audio=on\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\nOVERLAY\n"
                 + MODEL_ONLY.split("\n", 1)[1]),
    # the speed every Pi reads is rewritten where it is; the model's own is left alone
    ("dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=100000\nOVERLAY\n[cm5]\ndtparam=i2c_arm_baudrate=50000\n",
     "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\nOVERLAY\n[cm5]\ndtparam=i2c_arm_baudrate=50000\n"),
])
def test_a_line_set_in_a_model_section_only_is_set_again_for_every_pi_and_the_uninstall_restores_it(
        tmp_path, before, after):
    """A setting under [cm4] or [pi4] applies to that model alone: the installer once took
    ``dtparam=i2c_arm=on`` there for I2C switched on (it stayed off on a Pi 4) and rewrote the
    [cm4] speed instead of every Pi's; the uninstall must leave the maker's lines as they were."""
    box = Sandbox(tmp_path, None)
    (box.shims / "raspi-config").unlink()
    box.boot_config.write_text(before.replace("OVERLAY", OVERLAY))
    result = subprocess.run(["bash", "-c", f'. "{INSTALL}"; mkdir -p "$PREFIX"; IN_SERVICE={GPIO_3} boot_config'],
                            capture_output=True, text=True, env=box.env)
    assert result.returncode == 0, result.stderr
    assert box.boot_config.read_text() == after.replace("OVERLAY", OVERLAY)
    assert box.run("--uninstall").returncode == 0
    assert box.boot_config.read_text() == before.replace("OVERLAY", OVERLAY)


def dry_run(tmp_path, *args):
    return Sandbox(tmp_path, None).run("--dry-run", *args)


def test_a_dry_run_prints_every_step_in_order(tmp_path):
    result = dry_run(tmp_path)
    assert result.returncode == 0, result.stderr
    out = steps(result.stdout)
    expected = ["apt packages", "build wheel", "venv", "package", "check profile", "ModemManager leaves the "
                "button board alone (udev)", "enable I2C", "unit", "reload systemd", "start at boot", "switched",
                "restart with this version"]
    positions = [out.index(s) for s in expected]
    assert positions == sorted(positions)
    assert f"python -m venv --system-site-packages --without-pip {tmp_path}/opt/companion/venv-a" in result.stdout.replace(sys.executable, "python")
    assert f"companion.service {tmp_path}/etc/systemd/system/companion.service" in result.stdout
    assert "hardware/profiles/mux-3.toml" in result.stdout and "overlay" not in result.stdout   # the default needs none
    assert not (tmp_path / "opt").exists(), "a dry run changed something"
    assert {c.split()[0] for c in (tmp_path / "commands.log").read_text().splitlines()} == {"apt-cache", "getent"}


def test_a_dry_run_prints_the_bus_overlays_a_profile_needs_once(tmp_path):
    box = Sandbox(tmp_path, None)
    result = box.run("--dry-run", "--profile", str(GPIO_3))
    assert result.returncode == 0
    assert f"==> bus overlay {OVERLAY}\n    append_line {OVERLAY} {box.boot_config}" in result.stdout
    assert "reboot once" in result.stdout
    box.boot_config.write_text(f"dtparam=i2c_arm=on\n{OVERLAY}\n")  # already there: not added again
    result = box.run("--dry-run", "--profile", str(GPIO_3))
    assert result.returncode == 0 and "overlay" not in result.stdout


def test_the_installer_refuses_unknown_arguments_and_missing_profiles(tmp_path):
    result = dry_run(tmp_path, "--bogus")
    assert result.returncode == 2 and "unknown argument '--bogus'" in result.stderr
    result = dry_run(tmp_path, "--profile", str(tmp_path / "none.toml"))
    assert result.returncode == 2 and "no profile at" in result.stderr
    result = dry_run(tmp_path, "--profile")
    assert result.returncode == 2 and "--profile needs a profile file" in result.stderr and "unbound" not in result.stderr


def test_into_an_image_being_built_it_enables_the_unit_and_leaves_the_running_steps_to_its_first_boot(
        tmp_path, wheels):
    """IMAGE=1 (vm/sdcard.py's chroot, where nothing runs): the program, the unit enabled, the
    rules and the boot config as always, and nothing asked of a running udev, kernel or systemd."""
    if os.geteuid() != 0:
        pytest.skip("the installer runs as root (sudo)")
    box = Sandbox(tmp_path, wheels)
    box.state_dir.mkdir(parents=True)
    result = box.run("--profile", str(GPIO_3), IMAGE="1")
    assert result.returncode == 0, result.stderr
    commands = box.commands()
    assert "systemctl enable companion.service" in commands
    assert not [c for c in commands if c.startswith(("systemctl restart", "systemctl daemon-reload", "systemctl show",
                                                      "udevadm", "modprobe"))], commands
    assert "installed into the image: the service starts at its first boot" in steps(result.stdout)
    assert box.unit.exists() and (box.prefix / "venv/bin/companion").exists() and box.modules.exists()
