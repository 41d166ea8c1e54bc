"""The service: systemd notifications on a real datagram socket, the unit file. The installer is
tested in test_installer.py."""

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from companion.notify import Notifier

from helpers import PATIENCE_S, until

ROOT = Path(__file__).parent.parent
UNIT = ROOT / "systemd" / "companion.service"


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


def test_a_board_gpiozero_cannot_tell_stops_the_box_with_a_line_the_unit_does_not_restart(tmp_path):
    """The real box process on a board gpiozero does not know (its own mock factory given an
    unknown revision raises PinUnknownPi as lgpio's does on a device tree without the firmware's
    revision): one plain line and the refused-input status, which the unit does not restart (on
    main: a traceback, status 1, restarted by systemd into its start limit)."""
    script = tmp_path / "script.txt"
    script.write_text("0.5 1 ok\n")
    proc = subprocess.run([sys.executable, "-m", "companion", "run", "--profile", str(ROOT / "companion/demo/triangle.toml"),
                           "--script", str(script), "--journal-dir", str(tmp_path / "games")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "GPIOZERO_MOCK_REVISION": "ff"})
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("companion: gpiozero cannot tell which Raspberry Pi this is"), proc.stderr
    assert "/proc/device-tree/system/linux,revision" in proc.stderr
    prevented = re.search(r"^RestartPreventExitStatus=(.+)$", UNIT.read_text(), re.M)
    assert prevented is not None and proc.returncode in [int(s) for s in prevented.group(1).split()]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_analyze_verify_passes(tmp_path):
    # The unit names the installed venv's companion; verify checks it is executable.
    unit = tmp_path / "companion.service"
    unit.write_text(UNIT.read_text().replace("/opt/companion/venv/bin/companion", shutil.which("true")))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""


def exposure(unit: Path) -> float | None:
    """``systemd-analyze security``'s overall exposure of a unit file; None if this systemd
    cannot rate a file offline (``--offline`` came with systemd 252)."""
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unit)],
                            capture_output=True, text=True)
    found = re.search(r"Overall exposure level for \S+: ([0-9.]+)", result.stdout)
    return float(found.group(1)) if found else None


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_the_unit_is_rated_safe_by_systemd_analyze_security():
    level = exposure(UNIT)
    if level is None:
        pytest.skip("this systemd-analyze cannot rate a unit file offline (needs systemd 252+)")
    assert level <= 2.5, f"exposure {level}: systemd-analyze rates 2.5 or below OK/SAFE"
    unit = UNIT.read_text()
    assert "\nProcSubset=" not in unit    # gpiozero reads /proc/cpuinfo and /proc/device-tree
    assert "PrivateDevices=yes" not in unit














def test_the_daemon_says_ready_after_its_first_frames_and_pings_from_its_loop(listener, tmp_path):
    import asyncio

    from companion.daemon import Daemon
    from companion.profile import load_profile

    path, sock = listener
    profile = load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml")
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
    daemon = Daemon(profile, tmp_path, notifier=notifier)
    messages = []
    sock.setblocking(False)

    def ready_and_pinged() -> bool:
        while True:
            try:
                messages.append(sock.recv(100).decode())
            except BlockingIOError:
                return "READY=1\nSTATUS=3 stations" in messages and messages.count("WATCHDOG=1") >= 2

    async def run_until_ready_and_pinged():
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        await until(ready_and_pinged)
        stop.set()
        await runner

    try:
        asyncio.run(run_until_ready_and_pinged())
    finally:
        daemon.close()
    assert "READY=1\nSTATUS=3 stations" in messages and messages.count("WATCHDOG=1") >= 2


def test_a_blocked_loop_stops_the_watchdog_pings(listener, tmp_path):
    """The pings come from the event loop itself: while the loop is stuck, none are sent, so
    systemd's watchdog fires and restarts the service. The loop stays stuck until the socket
    has been silent for longer than the watchdog's timeout, however long that takes."""
    import asyncio
    import threading
    import time

    from companion.daemon import Daemon
    from companion.profile import load_profile

    path, sock = listener
    timeout_s = 0.04
    received, silent, done = [], threading.Event(), threading.Event()

    def receive():  # a thread, so it keeps listening while the loop is blocked
        sock.settimeout(0.005)
        last = time.monotonic()
        while not done.is_set():
            try:
                received.append(sock.recv(100).decode())
                last = time.monotonic()
            except TimeoutError:
                if received[-1:] == ["BLOCKED"] and time.monotonic() - last > timeout_s:
                    silent.set()   # as long without a ping as systemd waits before it acts

    def mark(text):
        """Sent from the loop's own thread: it queues behind every ping the loop sent before."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.sendto(text.encode(), path)

    pings = lambda: received.count("WATCHDOG=1")
    listener_thread = threading.Thread(target=receive)
    listener_thread.start()
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": str(round(timeout_s * 1e6))})  # ping every 20 ms
    daemon = Daemon(load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml"), notifier=notifier)

    async def block_then_stop():
        stop = asyncio.Event()
        runner = asyncio.ensure_future(daemon.run(stop))
        await until(lambda: pings() >= 5)
        mark("BLOCKED")
        silent.wait(PATIENCE_S)              # the loop is hung: nothing else runs
        mark("UNBLOCKED")
        before = pings()
        await until(lambda: pings() >= before + 5)
        stop.set()
        await runner

    try:
        asyncio.run(block_then_stop())
    finally:
        daemon.close()
        done.set()
        listener_thread.join()
    assert silent.is_set(), "pings kept coming while the loop was blocked"
    blocked = received[received.index("BLOCKED"):received.index("UNBLOCKED")]
    assert "WATCHDOG=1" not in blocked, "a ping while the loop was blocked"


def test_before_a_long_replay_the_daemon_asks_systemd_for_more_start_time(listener, tmp_path, monkeypatch):
    import companion.daemon.resuming
    from companion.daemon import Daemon
    from companion.profile import load_profile

    seed_game = (ROOT / "tests" / "journals" / "paytoplay-seed.jsonl").read_text().splitlines()
    journal = tmp_path / "20260101-000000-paytoplay.jsonl"
    journal.write_text("\n".join(seed_game[:6]) + "\n")
    monkeypatch.setattr(companion.daemon.resuming, "REPLAY_BYTES_PER_S", 10)  # as if the Pi replayed 10 bytes/s
    path, sock = listener
    daemon = Daemon(load_profile(ROOT / "hardware" / "profiles" / "mock-3.toml"), tmp_path,
                    notifier=Notifier({"NOTIFY_SOCKET": path}))
    daemon.close()
    seconds = 30 + journal.stat().st_size / 10
    assert sock.recv(100).decode() == f"EXTEND_TIMEOUT_USEC={round(seconds * 1e6)}"
    assert daemon.table.offer is not None and daemon.table.offer.match.players == ("Alice", "Bob")




def test_a_display_that_fails_at_open_does_not_hold_back_ready_and_the_game_plays_on(listener, tmp_path):
    """Bob's panel is on an I2C bus that does not exist (as on a box whose bus overlay is not
    set up): the real luma device fails to open. The service still says READY (naming the dead
    display), the seed game plays to its end on Alice's panel, which tells her, and the dead
    panel keeps being retried in the background."""
    import asyncio
    import functools
    import json

    from companion.adapters.displays import open_device
    from companion.daemon import Daemon
    from companion.profile import DisplayProfile, load_profile
    from companion.script import load_script
    from companion.wiring import build_box
    from test_board_link import shows_notice
    from test_daemon import DEMO, SEED_GAME

    path, sock = listener
    profile = load_profile(DEMO / "profile.toml")
    missing_bus = DisplayProfile(port=31)
    assert not Path("/dev/i2c-31").exists()

    def adapters(on_edge):
        box = build_box(profile, on_edge)
        box.displays.openers[1] = functools.partial(open_device, missing_bus, "pi")
        return box

    daemon = Daemon(profile, tmp_path / "games", seed=1, notifier=Notifier({"NOTIFY_SOCKET": path}),
                    adapters=adapters)
    try:
        asyncio.run(daemon.play_script(load_script(DEMO / "paytoplay.txt", 2), speed=5))
        daemon.box.displays.flush()
        alice = daemon.box.displays.devices[0].image
    finally:
        daemon.close()
    assert sock.recv(100) == b"READY=1\nSTATUS=2 stations; display 2 not working"
    assert daemon.ready.is_set()
    assert daemon.box.displays.down() == [1] and daemon.box.displays.failures[1] >= 2, "retried"
    assert daemon.notice == "Display 2 not working"
    assert shows_notice(alice)
    [journal] = (tmp_path / "games").glob("*.jsonl")
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [(x["action"], x["player"], x.get("cell")) for x in lines[1:]] == SEED_GAME





PHONES = ROOT / "systemd" / "phones.conf"


def with_phones(tmp_path: Path) -> Path:
    """The unit with the phones' drop-in applied (a drop-in's settings follow the unit's)."""
    unit = tmp_path / "companion.service"
    unit.write_text(UNIT.read_text().replace("/opt/companion/venv/bin/companion", shutil.which("true"))
                    + "\n" + PHONES.read_text())
    return unit


def test_the_phones_drop_in_opens_only_the_box_network():
    settings = [line for line in PHONES.read_text().splitlines() if line and not line.startswith(("#", "["))]
    assert settings == ["PrivateNetwork=no", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "IPAddressDeny=any",
                        "IPAddressAllow=localhost link-local 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_the_unit_with_phones_verifies_and_stays_rated_ok(tmp_path):
    unit = with_phones(tmp_path)
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr.strip() == "", result.stderr
    level = exposure(unit)
    if level is None:
        pytest.skip("this systemd-analyze cannot rate a unit file offline (needs systemd 252+)")
    assert level <= 2.5, f"exposure {level} with the phones' network"
