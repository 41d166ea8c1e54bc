"""What each check of the virtual Pi concludes from what it saw in the guest.

The stages (vm/stages.py) run jobs in the guest and hand their output here; each function returns
the problems it finds (empty: the check passed). Kept apart from the guest so that every check can
be shown to fail on the host, from outputs a broken box would give (tests/test_vm.py): a check
that cannot fail checks nothing.
"""

from __future__ import annotations

import re

READY_LINE = re.compile(r"^[\w.]+: ready: first frame on every display$", re.MULTILINE)
NO_FRAME = "the daemon never logged that it is ready (\"ready: first frame on every display\")"
"""Why a unit is not ready when its displays never took a first frame (the emulated Pi 4 excuses
it by this text when no I2C interrupt came: vm/raspi_judge.py)."""
"""The daemon's own line once it is ready with every panel (companion/daemon/presenting.py),
whole: a line that merely contains "ready" (``not ready``, ``already``) is not it."""


def timed_out(what: str, rc: int, bound_s: int) -> str:
    """Why ``what`` failed: the exit code, or (``timeout``'s 124) the bound it ran past, by name."""
    if rc == 124:
        return f"{what} timed out: still running at the install bound of {bound_s} s (scaled by the host's pace)"
    return f"{what} exited {rc}"


def install(rc: int, unit: dict[str, str], bound_s: int) -> list[str]:
    if rc != 0:
        return [timed_out("systemd/install.sh", rc, bound_s)]
    if unit.get("ActiveState") != "active":
        return [f"the service is {unit.get('ActiveState')}/{unit.get('SubState')} after the install"]
    return []


REAL_TIME = re.compile(r"^(loop|reader): .*policy: SCHED_FIFO\S* .*priority: 20\b", re.MULTILINE)
"""``chrt -p`` of the daemon's loop (its main thread) and of the GPIO reader: real-time, as the
unit sets it (``CPUSchedulingPolicy=fifo``, ``CPUSchedulingPriority=20``)."""


def own_timeouts(unit_file: str) -> dict[str, str]:
    """The unit file's own start timeout and watchdog, as ``systemctl show`` words them (30 -> 30s)."""
    found = dict(re.findall(r"^(TimeoutStartSec|WatchdogSec)=(\d+)$", unit_file, re.MULTILINE))
    return {"TimeoutStartUSec": f"{found.get('TimeoutStartSec')}s", "WatchdogUSec": f"{found.get('WatchdogSec')}s"}


def unit_ready(unit: dict[str, str], log: str, priorities: str, timeouts: dict[str, str]) -> list[str]:
    """READY as a notify service at real-time priority, under the unit file's own ``timeouts``
    (:func:`own_timeouts`): no drop-in gave it more time to start than a Pi's unit has."""
    problems = [f"{key}={unit.get(key)}, not the unit file's {value}" for key, value in timeouts.items()
                if unit.get(key) != value]
    real_time = {m.group(1) for m in REAL_TIME.finditer(priorities)}
    if real_time != {"loop", "reader"}:
        problems.append(f"not both the loop and the reader at SCHED_FIFO 20: {priorities.strip()!r}")
    if unit.get("Type") != "notify":
        problems.append(f"Type={unit.get('Type')}")
    if (unit.get("ActiveState"), unit.get("SubState")) != ("active", "running"):
        problems.append(f"{unit.get('ActiveState')}/{unit.get('SubState')}")
    if not unit.get("StatusText"):
        problems.append("no status text from READY")
    if not READY_LINE.search(log):
        problems.append(NO_FRAME)
    return problems


I2C_LINES = ("dtparam=i2c_arm=on", "dtparam=i2c_arm_baudrate=400000")
"""What the installer sets in config.txt on a Pi without raspi-config: I2C on, at 400 kHz."""


def config_sections(text: str) -> list[tuple[str, str]]:
    """Each setting of a config.txt with the section it is in: ``""`` before the first section
    header (read by every Pi), else the header, spaces taken out (``[all]``, ``[pi4]``, ``[cm5]``)."""
    section, lines = "", []
    for line in text.splitlines():
        if line.strip().startswith("["):
            section = re.sub(r"\s", "", line)
        elif line.strip() and not line.lstrip().startswith("#"):
            lines.append((section, line.strip()))
    return lines


def boot_config(text: str, installed: str) -> list[str]:
    """config.txt after the install: I2C's lines and every line the installer says it added
    (``boot-line`` in its record) where every Pi reads them (before any section, or in [all]),
    not only in a model's section, where the Pi the box runs on may never see them."""
    wanted = set(I2C_LINES) | {m.group(1).strip() for m in re.finditer(r"^boot-line (.+)$", installed, re.MULTILINE)}
    where: dict[str, set[str]] = {}
    for section, line in config_sections(text):
        where.setdefault(line, set()).add(section)
    problems = []
    for line in sorted(wanted):
        sections = where.get(line, set())
        if not sections:
            problems.append(f"{line} is not in config.txt")
        elif not sections & {"", "[all]"}:
            problems.append(f"{line} is only in {', '.join(sorted(sections))}, which some Pis alone read")
    return problems


def board_chips(out: str) -> list[str]:
    """The board's header chip (pins.py where), and the chips the reader and gpiozero chose, each
    as opened and as the node it is (``-> REAL``: /dev/gpiochip4 is a link to gpiochip0 on a Pi 5
    with a current kernel)."""
    header = re.search(r"header (/dev/gpiochip\d+)", out)
    if header is None:
        return ["the board's header chip is unknown"]
    return [f"{who} took {chip}{f' ({real})' if real != chip else ''}, not the header's {header.group(1)}"
            for who, chip, real in re.findall(r"^(gpiozero|reader): (\S+) -> (\S+)$", out, re.MULTILINE)
            if real != header.group(1)] + \
        [f"{who} said no chip" for who in ("gpiozero", "reader") if not re.search(rf"^{who}: \S+ -> ", out, re.MULTILINE)]


def reinstall(rc: int, before: str, after: str, state: str | None, bound_s: int) -> list[str]:
    if rc != 0:
        return [timed_out("the second run of install.sh", rc, bound_s)]
    problems = []
    if before != after:
        problems.append(f"the second run changed the configuration:\nbefore:\n{before}\nafter:\n{after}")
    if state != "active":
        problems.append(f"the service is {state} after the second run")
    return problems


def watchdog(out: str) -> list[str]:
    return [] if "atchdog timeout" in out else ["restarted, but systemd did not log a watchdog timeout"]


def resumed(after_kill: str, told: str) -> list[str]:
    problems = []
    if "not over" not in after_kill:
        problems.append("after SIGKILL and the restart the box did not find the game")
    if "resumed by the players" not in told:
        problems.append("the players' ok did not resume the game")
    return problems


def game(mock_races: list[dict], guest_races: list[dict], gaps: list[tuple], late: list[dict]) -> list[str]:
    """The guest's races against the mock game's on the kernel's stamps: the same verdicts,
    reaction gaps equal to the stamps' gaps, no late press."""
    from vm.game import STAMP_TOLERANCE_MS, compare

    problems = compare(mock_races, guest_races)
    problems += [f"race {i + 1}: reaction gap {r:.3f} ms, kernel stamps {k:.3f} ms apart"
                 for i, r, k in gaps if abs(r - k) > STAMP_TOLERANCE_MS]
    if not gaps:
        problems.append("no race with two reactions to compare with the kernel's stamps")
    if late:
        worst = max(p.get("delay_ms") or 0 for p in late)
        problems.append(f"{len(late)} late presses: the emulator delivered edges up to {worst:.0f} ms after "
                        "their kernel time, beyond the profile's timing.gpio_latency_ms, so races were "
                        "decided without them (the journal's late lines say what the verdict would have been)")
    return problems


def missing_panel(status: str, log: str) -> list[str]:
    problems = []
    if "display 3 not working" not in status.lower():
        problems.append(f"READY's status with panel 3 missing is {status!r}, not 'display 3 not working'")
    # luma turns the bus's EREMOTEIO (121, the Pi's NAK) or EIO into DeviceNotFoundError with these words
    if "Errno 121" not in log and "I2C device not found on address: 0x3C" not in log:
        problems.append("the log does not tell the missing panel's error (errno 121, Remote I/O error, "
                        "which luma words 'I2C device not found on address: 0x3C')")
    return problems


SENSOR_EDGES = [[25, 1], [25, 1], [24, 0], [24, 1]]
"""The sensor dark, lit, dark, lit: its two rises only; the button pressed and released: both."""


def sensor_lines(seen: dict) -> list[str]:
    if seen.get("moves_read") and seen.get("edges") == SENSOR_EDGES:
        return []
    return [f"the reader's sensor and button lines reported {seen.get('edges')} (every move read: "
            f"{seen.get('moves_read')}), not {SENSOR_EDGES}; the reader said {seen.get('reader_said')}"]


DELIVERY_BOUNDS = {"idle": (0.9, 10_000.0), "stress": (0.9, 30_000.0)}
"""Per load: the share of the pressed edges that must arrive (gpio-sim merges a few when the
emulator is starved, docs/VIRTUAL-PI.md), and the longest delivery delay in ms believed: the
presses last 24 s, so a figure past it is a stalled reader or a broken clock, not an emulator's
delay (seen: p99 158 ms idle and 2 s under stress-ng on a quiet host; p99 3 s idle with the host
at load 12 running two guests)."""
DELAYS = re.compile(r"GPIO delivery delay of (\d+) edges.*?p50 ([\d.]+), p90 ([\d.]+), p99 ([\d.]+), max ([\d.]+) ms")


def selftest_exit(out: str) -> str | None:
    """The self-test's exit code as the guest's script echoed it (``selftest rc=N``)."""
    rc = re.search(r"^selftest rc=(\d+)$", out, re.MULTILINE)
    return rc.group(1) if rc else None


def delivery(out: str, load: str, pressed: int) -> tuple[dict, list[str]]:
    """The self-test's delivery figures and verdict: (figures, problems). The figures count only
    when the self-test itself passed (exit 0, every button pressed) and they are in bounds."""
    problems = []
    if "companion.adapters.gpioreader" not in out:
        problems.append(f"the self-test ({load}) did not read the buttons through the GPIO reader")
    rc = selftest_exit(out)
    if rc != "0":
        problems.append(f"the self-test ({load}) exited {rc or 'without a code'}, not 0")
    if not re.search(r"^all \d+ buttons pressed; every display shown", out, re.MULTILINE):
        problems.append(f"the self-test ({load}) did not report every button pressed and every display shown")
    m = DELAYS.search(out)
    if not m:
        return {}, problems + [f"the self-test ({load}) reported no delivery delays"]
    edges, p50, _, p99, worst = int(m.group(1)), *map(float, m.groups()[1:])
    share, ceiling = DELIVERY_BOUNDS[load]
    if not share * pressed <= edges <= pressed:
        problems.append(f"{edges} edges delivered of {pressed} pressed ({load}): fewer than {share:.0%}, or more")
    if not 0 < p50 <= p99 <= worst <= ceiling:
        problems.append(f"delivery delays out of bounds ({load}): p50 {p50}, p99 {p99}, max {worst} ms "
                        f"(must be 0 < p50 <= p99 <= max <= {ceiling:.0f})")
    return {"p50_ms": p50, "p99_ms": p99, "max_ms": worst, "edges": edges}, problems


def maker_selftest(out: str, maker: str) -> list[str]:
    """hardware/BUILD.md's self-test: run by the maker themselves (not root, not the service's
    user) in the gpio and i2c groups, which is all it needs to read the buttons and the panels,
    and passed that way (its exit code 0)."""
    m = re.search(r"^selftest by: (\S*), groups: (.*)$", out, re.MULTILINE)
    if m is None:
        return ["nobody was seen running the self-test"]
    problems = [] if m.group(1) == maker else [f"the self-test ran as {m.group(1) or 'nobody'}, not the maker {maker}"]
    rc = selftest_exit(out)
    if rc != "0":
        problems.append(f"the maker's self-test exited {rc or 'without a code'}, not 0")
    missing = {"gpio", "i2c"} - set(m.group(2).split())
    if missing:
        problems.append(f"the self-test's user is not in the {' and '.join(sorted(missing))} group: {m.group(2)!r}")
    return problems


WEB_PORT = 8080
"""The port of the maker's phones profile (vm/webprofile.py)."""
PHONES_DROP_IN = "/etc/systemd/system/companion.service.d/phones.conf"


def web_profile(on: str, off: str) -> list[str]:
    """The unit as a [web] profile installs it, and again once the profile turns web off
    (vm/webprofile.py's PHONE output of each): with web on, the phones drop-in installed, the unit
    on the network, a phone's page and its socket served; with web off, none of that."""
    problems = []
    if f"drop-in: {PHONES_DROP_IN}" not in on:
        problems.append("web on: the phones drop-in is not installed")
    if "PrivateNetwork=no" not in on:
        problems.append("web on: the unit still has no network (PrivateNetwork is not no)")
    if not re.search(r"^page: 200\b", on, re.MULTILINE):
        problems.append(f"web on: a phone did not get the page on port {WEB_PORT}")
    if not re.search(r"^socket: HTTP/1\.1 101\b", on, re.MULTILINE):
        problems.append("web on: the phone's websocket was not accepted (no 101)")
    if "drop-in: none" not in off:
        problems.append("web off: the phones drop-in is still installed")
    if "PrivateNetwork=yes" not in off:
        problems.append("web off: the unit is still on the network")
    if re.search(r"^(page: 200|socket: HTTP)", off, re.MULTILINE):
        problems.append("web off: a phone still reaches the box")
    return problems


def ttyacm(out: str) -> list[str]:
    """The installer's modules-load entry lets a button board plugged in after the start be opened;
    the probe must see the unit's device policy at all (a serial port it does not allow is refused)."""
    problems = []
    if not re.search(r"does not allow \(ttyUSB\): EPERM$", out, re.MULTILINE):
        problems.append("the probe opened a serial port the unit does not allow: it cannot see the device policy")
    if "modules-load loads cdc_acm: yes" not in out:
        problems.append("cdc_acm is not loaded by systemd-modules-load")
    if "ordered after systemd-modules-load: yes" not in out:
        problems.append("the service is not ordered after systemd-modules-load")
    later = re.search(r"board plugged later: (\w+)", out)
    if later is None or later.group(1) == "EPERM":  # no device behind the node: ENXIO, not EPERM
        problems.append(f"a board plugged in later is refused ({later.group(1) if later else 'not probed'})")
    return problems


TIMED_OUT = "the update timed out (timeout's 124) at the install bound, scaled by the host's pace"


def update_failure(out: str) -> list[str]:
    problems = [TIMED_OUT] if re.search(r"^rc=124$", out, re.MULTILINE) else []
    if not re.search(r"^rc=[1-9]\d*$", out, re.MULTILINE):
        problems.append("the broken update did not report a failure")
    m = re.search(r"pid=(\d+) now=(\d+) state=(\w+)", out)
    if not m or m.group(1) != m.group(2) or m.group(3) != "active":
        problems.append("the running program did not stay running through the failed update")
    if "old program: runs" not in out or "active again" not in out:
        problems.append("the old program is not intact after the failed update")
    return problems


def uninstall(out: str) -> list[str]:
    problems = []
    if not re.search(r"^rc=0$", out, re.MULTILINE):
        problems.append("install.sh --uninstall failed")
    if "state=not-found" not in out:
        problems.append("systemd still knows the service")
    if not re.search(r"^log: readable$", out, re.MULTILINE):
        problems.append("the service's log is not readable after the uninstall")
    problems += [line for line in out.splitlines() if line.startswith(("left:", "NOT readable", "changed:"))]
    problems += [line for line in out.splitlines() if line.startswith("added and left: ")
                 and not line.startswith("added and left: /etc/companion/")]
    journals = re.search(r"^journals=(\d+)$", out, re.MULTILINE)
    if journals is None or journals.group(1) == "0":
        problems.append("no game journal to check (the game stage made none)")
    return problems


def rollback(out: str) -> list[str]:
    problems = [TIMED_OUT] if re.search(r"^rc=124$", out, re.MULTILINE) else []
    if not re.search(r"^rc=[1-9]\d*$", out, re.MULTILINE):
        problems.append("an update that cannot start reported success")
    if "back on the previous one" not in out:
        problems.append("the installer did not say it went back to the previous version")
    venv = re.search(r"^venv: (\S+) -> (\S+)$", out, re.MULTILINE)
    if venv is None or venv.group(1) != venv.group(2):
        problems.append(f"the service's venv is not the previous one ({venv.group(0) if venv else 'unknown'})")
    if "active again" not in out or "old program: runs" not in out:
        problems.append("the previous version is not running again")
    return problems


def at_boot(out: str, before_install: str) -> list[str]:
    """After a reboot: the unit up by itself, READY once, its modules loaded and its devices there,
    /dev/i2c-1 by the installer's doing (``before_install``: the guest had no i2c-dev before it
    ran, as plain Debian on a Pi has none at boot)."""
    problems = []
    if before_install != "before install: no i2c-dev":
        problems.append(f"i2c-dev was loaded before the installer ran ({before_install or 'not looked at'}): "
                        "/dev/i2c-1 at boot says nothing of the installer")
    if "i2c-dev: in modules-load" not in out or "i2c-dev: loaded" not in out:
        problems.append("i2c-dev is not loaded at boot by the installer's modules-load entry (no /dev/i2c-1 on plain Debian)")
    if "active at boot" not in out or "enabled: enabled" not in out:
        problems.append("the service did not come up at boot")
    started = re.search(r"started by: (\d+) restarts, (\d+) ready", out)
    if started is None or started.groups() != ("0", "1"):
        problems.append(f"not one clean start at boot ({started.group(0) if started else 'unknown'})")
    if "modules-load: active" not in out or "cdc_acm: loaded" not in out:
        problems.append("cdc_acm was not loaded at boot by systemd-modules-load")
    if not re.search(r"^device: /dev/gpiochip\d+ gpio 660$", out, re.MULTILINE):
        problems.append("no GPIO chip given to group gpio at boot (the installer's udev rule)")
    if not re.search(r"^device: /dev/i2c-1 i2c 660$", out, re.MULTILINE):
        problems.append("I2C-1 is not the i2c group's at boot")
    if "lines held: companion buttons" not in out:
        problems.append("the GPIO reader does not hold the buttons' lines after the boot")
    return problems


def played(tree: Path, edges_: list[list], times: list[list[int]], trace: str, irqs: str,
           guest_journal: Path) -> tuple[dict, list[str]]:
    """The guest's game against the mock game played at its kernel stamps (:func:`vm.game.kernel_stamps`
    from the trace of the reader's interrupts): its figures, and the problems (none: the same
    verdicts, reaction gaps equal to the stamps', no late press)."""
    import json
    import tempfile
    from pathlib import Path

    from vm.game import as_played, kernel_stamps, mock_run, races, reaction_gaps, verdict

    stamps = kernel_stamps(edges_, times, trace, irqs)
    guest_races = races(tree, guest_journal)
    late = [json.loads(line) for line in guest_journal.read_text().splitlines() if '"type": "late"' in line]
    skew = [(stamp - (t[0] + t[1]) / 2) / 1e6 for stamp, t in zip(stamps, times) if stamp is not None]
    figures = {"guest_races": [verdict(r) for r in guest_races],
               "late_presses": [{k: p.get(k) for k in ("player", "delay_ms", "verdict", "would_be")} for p in late],
               "stamp_after_write_ms": {"min": round(min(skew), 3), "max": round(max(skew), 3)} if skew else None}
    lost = [i for i, stamp in enumerate(stamps) if stamp is None]
    if lost:
        return figures, [f"{len(lost)} of {len(edges_)} edges have no kernel stamp (gpio-sim merged a line's "
                         f"writes, or the trace lost them): edges {lost[:10]}; the game cannot be replayed"]
    with tempfile.TemporaryDirectory() as tmp:  # the mock game gets the presses at the kernel's instants
        (Path(tmp) / "as-played.txt").write_text(as_played(edges_, stamps))
        mock_races = races(tree, mock_run(tree, Path(tmp) / "as-played.txt", Path(tmp) / "mock"))
    figures["mock_races"] = [verdict(r) for r in mock_races]
    gaps = reaction_gaps(edges_, stamps, guest_races)
    figures["reaction_vs_kernel_gaps_ms"] = gaps
    return figures, game(mock_races, guest_races, gaps, late)
