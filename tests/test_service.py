"""The service: systemd notifications on a real datagram socket, the unit file, the installer."""

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from companion.notify import Notifier

ROOT = Path(__file__).parent.parent
UNIT = ROOT / "systemd" / "companion.service"
INSTALL = ROOT / "systemd" / "install.sh"


@pytest.fixture
def listener(tmp_path):
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2)
    yield str(path), sock
    sock.close()


def test_ready_and_watchdog_pings_reach_the_socket(listener):
    path, sock = listener
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000"})
    notifier.ready("3 stations")
    assert sock.recv(100) == b"READY=1\nSTATUS=3 stations"
    assert notifier.watchdog_interval_ns == 5_000_000_000
    notifier.alive(1_000)
    notifier.alive(1_000 + 4_999_999_999)       # too soon: no ping
    notifier.alive(1_000 + 5_000_000_000)
    assert sock.recv(100) == b"WATCHDOG=1"
    assert sock.recv(100) == b"WATCHDOG=1"
    sock.setblocking(False)
    with pytest.raises(BlockingIOError):
        sock.recv(100)


def test_abstract_socket_names_start_with_at():
    name = f"companion-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(2)
    Notifier({"NOTIFY_SOCKET": "@" + name}).stopping()
    assert sock.recv(100) == b"STOPPING=1"
    sock.close()


def test_without_systemd_notifications_do_nothing():
    notifier = Notifier({})
    assert not notifier.enabled and notifier.watchdog_interval_ns is None
    notifier.ready()
    notifier.alive(0)


def test_a_dead_socket_is_logged_not_raised(tmp_path, caplog):
    Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone.sock")}).ready()
    assert "could not notify systemd (READY)" in caplog.text


def test_the_unit_is_hardened_and_notifies():
    unit = UNIT.read_text()
    for setting in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "User=companion",
                    "SupplementaryGroups=gpio i2c dialout", "ProtectSystem=strict",
                    "DevicePolicy=closed", "DeviceAllow=char-gpiochip rw", "DeviceAllow=char-i2c rw",
                    "NoNewPrivileges=yes", "StateDirectory=companion", "RuntimeDirectory=companion",
                    "WorkingDirectory=/run/companion"):
        assert setting in unit, setting
    assert "PrivateDevices=yes" not in unit     # it would hide the GPIO chips and I2C buses


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_analyze_verify_passes(tmp_path):
    # The unit names the installed venv's companion; verify checks it is executable.
    unit = tmp_path / "companion.service"
    unit.write_text(UNIT.read_text().replace("/opt/companion/venv/bin/companion", shutil.which("true")))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""


def dry_run(*args):
    result = subprocess.run(["bash", str(INSTALL), "--dry-run", *args], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def test_install_dry_run_prints_every_step_in_order():
    code, out, _ = dry_run()
    assert code == 0
    steps = [line[4:] for line in out.splitlines() if line.startswith("==> ")]
    commands = out
    expected = ["apt packages", "enable I2C", "venv", "package", "check profile", "unit",
                "reload systemd", "start at boot, now"]
    positions = [steps.index(s) for s in expected]
    assert positions == sorted(positions)
    assert "python3-lgpio" in commands and "i2c-tools" in commands
    assert "python3 -m venv --system-site-packages /opt/companion/venv" in commands
    assert "companion.service /etc/systemd/system/companion.service" in commands


def test_uninstall_keeps_journals_and_profile():
    code, out, _ = dry_run("--uninstall")
    assert code == 0
    assert "systemctl disable --now companion.service" in out
    assert "rm -rf /opt/companion\n" in out
    assert "/var/lib/companion" not in [line.split()[-1] for line in out.splitlines() if "rm " in line]
    assert "kept: /etc/companion (profile) and /var/lib/companion (game journals)" in out


def test_installer_refuses_unknown_arguments_and_missing_profiles(tmp_path):
    code, _, err = dry_run("--bogus")
    assert code == 2 and "unknown argument '--bogus'" in err
    code, _, err = dry_run("--profile", str(tmp_path / "none.toml"))
    assert code == 2 and "no profile at" in err
    code, _, err = dry_run("--profile")
    assert code == 2 and "--profile needs a profile file" in err and "unbound" not in err


def test_install_builds_a_fresh_venv_from_a_wheel_with_pinned_versions():
    code, out, _ = dry_run()
    assert code == 0
    order = [out.index(s) for s in ("pip wheel --quiet --no-deps --wheel-dir /opt/companion/wheel",
                                    "rm -rf /opt/companion/venv /opt/companion/src",
                                    "python3 -m venv --system-site-packages /opt/companion/venv",
                                    "--constraint " + str(ROOT / "systemd" / "constraints.txt"))]
    assert order == sorted(order)
    assert "cp -r" not in out
    pins = [line for line in (ROOT / "systemd" / "constraints.txt").read_text().splitlines()
            if line and not line.startswith("#")]
    assert {p.split("==")[0].lower() for p in pins} >= {"gpiozero", "luma.oled", "pyserial", "pillow"}
    assert all("==" in p for p in pins)


def test_uninstall_leaves_the_journals_to_root_and_readable():
    code, out, _ = dry_run("--uninstall")
    assert code == 0
    assert out.index("userdel companion") < out.index("chown -R root:root /var/lib/companion")
    assert "chmod -R u+rwX,go+rX /var/lib/companion" in out


def test_the_daemon_says_ready_after_its_first_frames_and_pings_from_its_loop(listener, tmp_path):
    import asyncio

    from companion.daemon import Daemon
    from companion.profile import load_profile
    from companion.script import parse_script

    path, sock = listener
    profile = load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml")
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
    daemon = Daemon(profile, tmp_path, notifier=notifier)
    try:
        asyncio.run(daemon.play_script(parse_script("0.05 1 right", 3), tail_s=0.3))
    finally:
        daemon.close()
    messages = []
    sock.setblocking(False)
    while True:
        try:
            messages.append(sock.recv(100).decode())
        except BlockingIOError:
            break
    assert "READY=1\nSTATUS=3 stations" in messages
    assert messages.count("WATCHDOG=1") >= 2   # pinged at least every 100 ms for 0.35 s


def test_a_blocked_loop_stops_the_watchdog_pings(listener, tmp_path):
    """The pings come from the event loop itself: while the loop is stuck, none are sent, so
    systemd's watchdog fires and restarts the service."""
    import asyncio
    import threading
    import time

    from companion.daemon import Daemon
    from companion.profile import load_profile

    path, sock = listener
    pings, done = [], threading.Event()

    def receive():  # a thread, so it keeps listening while the loop is blocked
        sock.settimeout(0.05)
        while not done.is_set():
            try:
                if sock.recv(100) == b"WATCHDOG=1":
                    pings.append(time.monotonic())
            except TimeoutError:
                pass

    listener_thread = threading.Thread(target=receive)
    listener_thread.start()
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "40000"})   # ping every 20 ms
    daemon = Daemon(load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml"), notifier=notifier)
    blocked = []

    async def block_then_stop():
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        await asyncio.sleep(0.3)
        blocked.append(time.monotonic())
        time.sleep(0.5)                      # the loop is hung: nothing else runs
        blocked.append(time.monotonic())
        await asyncio.sleep(0.3)
        stop.set()
        await runner

    try:
        asyncio.run(block_then_stop())
    finally:
        daemon.close()
        done.set()
        listener_thread.join()
    start, end = blocked
    assert not [t for t in pings if start + 0.01 < t < end], "a ping while the loop was blocked"
    assert len([t for t in pings if t < start]) >= 5
    assert len([t for t in pings if t > end]) >= 5


def test_before_a_long_replay_the_daemon_asks_systemd_for_more_start_time(listener, tmp_path, monkeypatch):
    import companion.daemon
    from companion.daemon import Daemon
    from companion.profile import load_profile

    seed_game = (ROOT / "tests" / "journals" / "paytoplay-seed.jsonl").read_text().splitlines()
    journal = tmp_path / "20260101-000000-paytoplay.jsonl"
    journal.write_text("\n".join(seed_game[:6]) + "\n")
    monkeypatch.setattr(companion.daemon, "REPLAY_BYTES_PER_S", 10)  # as if the Pi replayed 10 bytes/s
    path, sock = listener
    daemon = Daemon(load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml"), tmp_path,
                    notifier=Notifier({"NOTIFY_SOCKET": path}))
    daemon.close()
    seconds = 30 + journal.stat().st_size / 10
    assert sock.recv(100).decode() == f"EXTEND_TIMEOUT_USEC={round(seconds * 1e6)}"
    assert daemon.table.game is not None
