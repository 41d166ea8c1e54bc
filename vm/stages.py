"""The checks run in the booted guest, in order; each one a stage of :class:`vm.checks.Run`."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from vm import summary as result
from vm.checks import CONFIG, HARNESS, INSTALL, PREPARE, SNAPSHOT, STATE, WAIT_ACTIVE, Run, parse_show

INSTALL_TIMEOUT_S = 900


def prepare(run: Run) -> None:
    out = run.guest.must(PREPARE, "prepare", 120)
    run.summary["findings"]["devices_before_install"] = " | ".join(
        line for line in out.splitlines() if line.startswith("c"))


def install(run: Run) -> None:
    s = run.summary
    res = run.guest.run(INSTALL.format(timeout=INSTALL_TIMEOUT_S), "install", INSTALL_TIMEOUT_S + 60)
    s["install_output_tail"] = res["output"][-2500:]
    s["stage_seconds"]["install_script"] = res["seconds"]
    if res["rc"] != 0:
        raise RuntimeError(f"systemd/install.sh exited {res['rc']}" +
                           (" (timed out: it never finished)" if res["rc"] == 124 else "") +
                           ":\n" + res["output"][-1500:])
    state = run.guest.run(WAIT_ACTIVE + "wait_active 120; " + STATE, "wait-ready", 200)
    unit = parse_show(state["output"])
    s["install_ok"] = unit.get("ActiveState") == "active"
    if not s["install_ok"]:
        raise RuntimeError(f"the service is {unit.get('ActiveState')}/{unit.get('SubState')} after the install")


def unit_ready(run: Run) -> None:
    s = run.summary
    unit = run.show()
    started = int(unit.get("ExecMainStartTimestampMonotonic", "0"))
    active = int(unit.get("ActiveEnterTimestampMonotonic", "0"))
    s["vm_ready_after_start_s"] = round((active - started) / 1e6, 2) if started and active else None
    s["unit_status_text"] = unit.get("StatusText")
    problems = []
    if unit.get("Type") != "notify":
        problems.append(f"Type={unit.get('Type')}")
    if (unit.get("ActiveState"), unit.get("SubState")) != ("active", "running"):
        problems.append(f"{unit.get('ActiveState')}/{unit.get('SubState')}")
    if not unit.get("StatusText"):
        problems.append("no status text from READY")
    log = run.guest.must("journalctl -b -u companion.service --no-pager -o cat | tail -n 40", "unit-log", 60)
    if "ready" not in log:
        problems.append("the daemon never logged that it is ready")
    if problems:
        raise RuntimeError("not READY as a notify service: " + ", ".join(problems) + "\n" + log[-1500:])
    s["unit_ready"] = True


# --- reinstall: a second run changes nothing ------------------------------------------------------

def reinstall(run: Run) -> None:
    before = run.guest.must(CONFIG, "config-before", 60)
    res = run.guest.run(INSTALL.format(timeout=INSTALL_TIMEOUT_S), "reinstall", INSTALL_TIMEOUT_S + 60)
    if res["rc"] != 0:
        raise RuntimeError(f"the second run of install.sh exited {res['rc']}:\n" + res["output"][-1500:])
    after = run.guest.must(WAIT_ACTIVE + "wait_active 120\n" + CONFIG, "config-after", 200)
    if before != after:
        raise RuntimeError(f"the second run changed the configuration:\nbefore:\n{before}\nafter:\n{after}")
    if run.show().get("ActiveState") != "active":
        raise RuntimeError("the service is not active after the second run")
    run.summary["reinstall_ok"] = True


# --- the watchdog: pinged while the loop runs, and a hung daemon is killed and restarted ---------

WATCHDOG = WAIT_ACTIVE + r"""
val() { systemctl show companion.service -p "$1" --value; }
[ "$(val WatchdogUSec)" = 10s ] || { echo "WatchdogUSec is $(val WatchdogUSec), not 10s"; exit 1; }
first=$(val WatchdogTimestampMonotonic)
end=$(( $(date +%s) + 30 ))
while [ "$(val WatchdogTimestampMonotonic)" = "$first" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
[ "$(val WatchdogTimestampMonotonic)" != "$first" ] || { echo "no watchdog ping in 30 s"; exit 1; }
echo "pinged: $first -> $(val WatchdogTimestampMonotonic)"
# A hung loop: the daemon stopped (SIGSTOP) pings no more; systemd must kill and restart it.
restarts=$(val NRestarts); pid=$(val MainPID)
kill -STOP "$pid"
end=$(( $(date +%s) + 150 ))
while [ "$(val NRestarts)" = "$restarts" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.5; done
[ "$(val NRestarts)" != "$restarts" ] || { echo "a stopped daemon was not restarted in 150 s"; exit 1; }
wait_active 120 || { echo "not active again after the watchdog restart"; exit 1; }
journalctl -b -u companion.service --no-pager -o cat | grep -i "watchdog timeout" | tail -n 1
"""


def watchdog(run: Run) -> None:
    out = run.guest.must(WATCHDOG, "watchdog", 400)
    if "atchdog timeout" not in out:
        raise RuntimeError("restarted, but systemd did not log a watchdog timeout:\n" + out)
    run.summary["findings"]["watchdog"] = out.strip().replace("\n", " | ")
    run.summary["watchdog_ok"] = True


# --- a Triangle game through gpio-sim, the same verdicts as on mock pins --------------------------

JOURNALS = "/var/lib/companion/games"
WAIT_LINES = r"""
end=$(( $(date +%s) + {timeout} ))
while [ "$(date +%s)" -lt "$end" ]; do
  f=$(ls -t {journals}/*.jsonl 2>/dev/null | head -n 1)
  [ -n "$f" ] && [ "$(wc -l < "$f")" -ge {lines} ] && break
  sleep 0.2
done
f=$(ls -t {journals}/*.jsonl 2>/dev/null | head -n 1)
[ -n "$f" ] || {{ echo "no journal in {journals}"; ls -la {journals}; exit 1; }}
cp "$f" /share/{copy}
echo "$f $(wc -l < "$f")"
"""


def press(run: Run, edges: list, name: str, timeout: float = 300) -> list:
    (run.guest.share / f"{name}.json").write_text(json.dumps(edges))
    out = run.guest.must(f"python3 /share/tools/pins.py press /share/{name}.json", name, timeout)
    return json.loads(out.strip().splitlines()[-1])


READER = r"""
pgrep -af companion.adapters.gpioreader || echo "no GPIO reader running"
grep -i "companion buttons" /sys/kernel/debug/gpio 2>/dev/null | head -4 || true
"""
"""The service's buttons are read by the GPIO reader process (companion/adapters/gpiolink.py
starts it), which holds the station lines as "companion buttons"."""


def reader_running(run: Run, label: str) -> str:
    """The GPIO reader process and the lines it holds; an error if it is not running."""
    out = run.guest.must(READER, label, 60).strip()
    if "companion.adapters.gpioreader" not in out:
        raise RuntimeError("the buttons were not read by the GPIO reader process:\n" + out)
    return out.replace("\n", " | ")


def gpio_game(run: Run) -> None:
    import tempfile

    from vm import game

    s = run.summary
    presses = game.presses(run.tree)
    edges = game.pin_edges(presses, run.tree / game.GUEST_PROFILE)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "scheduled.txt").write_text(game.script_text(presses))
        expected_lines = len(game.mock_run(run.tree, tmp / "scheduled.txt", tmp / "scheduled").read_text().splitlines())
        s["findings"]["gpio_reader"] = reader_running(run, "reader-game")
        times = press(run, edges, "press-game")
        out = run.guest.must(WAIT_LINES.format(timeout=60, journals=JOURNALS, lines=expected_lines,
                                               copy="guest-game.jsonl"), "game-journal", 200)
        # the mock game gets the presses at the instants the guest's kernel stamped them
        (tmp / "as-played.txt").write_text(game.as_played(edges, times))
        mock_races = game.races(run.tree, game.mock_run(run.tree, tmp / "as-played.txt", tmp / "mock"))
    guest_journal = run.guest.share / "guest-game.jsonl"
    guest_races = game.races(run.tree, guest_journal)
    late = [json.loads(line) for line in guest_journal.read_text().splitlines() if '"type": "late"' in line]
    s["game"] = {"mock_races": [game.verdict(r) for r in mock_races],
                 "guest_races": [game.verdict(r) for r in guest_races], "guest_journal": out.strip(),
                 "late_presses": [{k: p.get(k) for k in ("player", "delay_ms", "verdict", "would_be")} for p in late]}
    problems = game.compare(mock_races, guest_races)
    gaps = game.reaction_gaps(edges, times, guest_races)
    s["game"]["reaction_vs_kernel_gaps_ms"] = gaps
    problems += [f"race {i + 1}: reaction gap {r:.2f} ms, kernel edges {k:.2f} ms apart"
                 for i, r, k in gaps if abs(r - k) > game.EDGE_TOLERANCE_MS]
    if not gaps:
        problems.append("no race with two reactions to compare with the kernel's edge times")
    if late:
        worst = max(p.get("delay_ms") or 0 for p in late)
        problems.append(f"{len(late)} late presses: the emulator delivered edges up to {worst:.0f} ms after "
                        "their kernel time, beyond the profile's timing.gpio_latency_ms, so races were "
                        "decided without them (the journal's late lines say what the verdict would have been)")
    if problems:
        raise RuntimeError("; ".join(problems))
    s["gpio_game_matches_mock"] = True


# --- SIGKILL mid-game: systemd restarts the box and the players resume the game -------------------

KILL = WAIT_ACTIVE + r"""
val() { systemctl show companion.service -p "$1" --value; }
restarts=$(val NRestarts)
since=$(date '+%Y-%m-%d %H:%M:%S')
kill -KILL "$(val MainPID)"
end=$(( $(date +%s) + 120 ))
while [ "$(val NRestarts)" = "$restarts" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
wait_active 120 || { echo "not active again after SIGKILL"; exit 1; }
echo "restarts: $restarts -> $(val NRestarts)"
echo "since=$since"
journalctl -u companion.service --since "$since" --no-pager -o cat | grep -E "not over|resume" || true
"""

RESUMED = r"""
end=$(( $(date +%s) + 60 ))
until journalctl -u companion.service --since "{since}" --no-pager -o cat | grep -q "resumed by the players"; do
  [ "$(date +%s)" -lt "$end" ] || {{ echo "the players' ok did not resume the game"; exit 1; }}
  sleep 0.2
done
journalctl -u companion.service --since "{since}" --no-pager -o cat | grep -E "not over|resumed"
ls {journals}
"""


def resume_after_kill(run: Run) -> None:
    from vm import game

    out = run.guest.must(KILL, "kill-9", 300)
    if "not over" not in out:
        raise RuntimeError("after SIGKILL and the restart the box did not find the game:\n" + out)
    since = re.search(r"since=(.*)", out).group(1)
    ok = game.pin_of(run.tree / game.GUEST_PROFILE, 0, "ok")
    press(run, [[0.0, ok, True], [0.1, ok, False]], "press-resume")
    told = run.guest.must(RESUMED.format(since=since, journals=JOURNALS), "resumed", 120)
    run.summary["findings"]["resume"] = (out + told).strip().replace("\n", " | ")
    run.summary["resumed_after_kill"] = True


# --- panels: the rendered frames reach each panel through the multiplexer; a missing one is told --

TRACE = "cat /sys/kernel/tracing/trace > /share/i2c-trace.txt; wc -c < /share/i2c-trace.txt"
RENDER = "/opt/companion/venv/bin/python /share/tools/render.py /etc/companion/profile.toml {args}"
UNPLUG = r"""
echo > /sys/kernel/tracing/trace
echo {channels} > /sys/module/companion_i2c_sim/parameters/channels
since=$(date '+%Y-%m-%d %H:%M:%S')
systemctl restart companion.service
wait_active 120 || {{ echo "not active with a panel missing"; exit 1; }}
echo "status=$(systemctl show companion.service -p StatusText --value)"
journalctl -u companion.service --since "$since" --no-pager -o cat | grep -i "display" || true
"""
PLUG_BACK = r"""
echo 7 > /sys/module/companion_i2c_sim/parameters/channels
end=$(( $(date +%s) + 90 ))
until journalctl -u companion.service -n 50 --no-pager -o cat | grep -q "display 3 is back"; do
  [ "$(date +%s)" -lt "$end" ] || { echo "display 3 did not come back within 90 s"; exit 1; }
  sleep 0.5
done
echo "display 3 is back"
"""


def frames_settle(run: Run, expected: list[bytes], channels: list[int], timeout: float = 60) -> list[str]:
    """Read the trace until the panels' last frames are the drawn ones, or ``timeout`` passes
    (the daemon may still be writing); the problems left."""
    from vm import panels

    deadline = time.monotonic() + timeout
    while True:
        run.guest.must(TRACE, "i2c-trace", 120)
        sent = panels.frames((run.guest.share / "i2c-trace.txt").read_text(errors="replace"))
        problems = panels.compare(expected, sent, channels)
        if not problems or time.monotonic() > deadline:
            return problems
        time.sleep(1.0)


def render(run: Run, args: str = "") -> list[bytes]:
    return [bytes.fromhex(line) for line in run.guest.must(RENDER.format(args=args), "render", 120).split()]


def panels_check(run: Run) -> None:
    s = run.summary
    problems = frames_settle(run, render(run), [0, 1, 2])
    if problems:
        raise RuntimeError("with every panel: " + "; ".join(problems))
    out = run.guest.must(WAIT_ACTIVE + UNPLUG.format(channels=3), "unplug-panel-3", 300)
    s["findings"]["missing_panel"] = out.strip().replace("\n", " | ")
    status = re.search(r"status=(.*)", out).group(1)
    if "display 3 not working" not in status.lower():
        problems.append(f"READY's status with panel 3 missing is {status!r}, not 'display 3 not working'")
    # luma turns the bus's EREMOTEIO (121, the Pi's NAK) or EIO into DeviceNotFoundError with these words
    if "Errno 121" not in out and "I2C device not found on address: 0x3C" not in out:
        problems.append("the log does not tell the missing panel's error (errno 121, Remote I/O error, "
                        "which luma words 'I2C device not found on address: 0x3C')")
    problems += frames_settle(run, render(run, "--down 3")[:2], [0, 1])
    back = run.guest.run(PLUG_BACK, "plug-panel-3", 200)
    if back["rc"] != 0:
        problems.append(back["output"].strip())
    if problems:
        raise RuntimeError("; ".join(problems))
    s["panels_ok"] = True


# --- GPIO delivery delay through the real kernel path, idle and under stress-ng --------------------

SELFTEST = r"""
systemctl stop companion.service
{stress}
rm -f /tmp/selftest.out
unshare -m sh -c 'mount --bind {harness}/cpuinfo /proc/cpuinfo && cd /tmp && exec env LG_WD=/tmp \
  /opt/companion/venv/bin/companion selftest --profile /etc/companion/profile.toml' > /tmp/selftest.out 2>&1 &
pid=$!
end=$(( $(date +%s) + 180 ))
until grep -q "ready" /tmp/selftest.out; do
  [ "$(date +%s)" -lt "$end" ] && kill -0 $pid || {{ cat /tmp/selftest.out; exit 1; }}
  sleep 0.2
done
pgrep -af companion.adapters.gpioreader || echo "no GPIO reader running"
python3 /share/tools/pins.py press /share/delivery.json > /dev/null
kill -INT $pid
# the next self-test claims the same lines: this one must have let them go
timeout 300 tail --pid=$pid -f /dev/null || {{ echo "the self-test did not stop within 300 s of SIGINT"; kill -KILL $pid; exit 1; }}
[ -n "{stress}" ] && kill %1 2>/dev/null
cat /tmp/selftest.out
"""
STRESS = "stress-ng --cpu 2 --io 1 --vm 1 --vm-bytes 64M --timeout 900s --quiet &"
DELAYS = re.compile(r"GPIO delivery delay of (\d+) edges.*?p50 ([\d.]+), p90 ([\d.]+), p99 ([\d.]+), max ([\d.]+) ms")


def delivery_edges(run: Run, rounds: int = 10) -> list[list]:
    """Every button of every station, ``rounds`` times, a press every 0.1 s held 40 ms."""
    from companion.arbiter.inputs import KEYS
    from companion.profile import load_profile

    profile = load_profile(run.tree / "hardware" / "profiles" / "mux-3.toml")
    buttons = [st.pins[key] for st in profile.stations for key in KEYS]
    edges = []
    for n in range(rounds * len(buttons)):
        at = 0.5 + 0.1 * n
        edges += [[at, buttons[n % len(buttons)], True], [at + 0.04, buttons[n % len(buttons)], False]]
    return sorted(edges, key=lambda e: e[0])


def delivery(run: Run) -> None:
    s = run.summary
    (run.guest.share / "delivery.json").write_text(json.dumps(delivery_edges(run)))
    for load, stress in (("idle", ""), ("stress", STRESS)):
        out = run.guest.must(SELFTEST.format(stress=stress, harness=HARNESS), f"selftest-{load}", 600)
        if "companion.adapters.gpioreader" not in out:
            raise RuntimeError(f"the self-test ({load}) did not read the buttons through the GPIO reader:\n"
                               + out[-1500:])
        reader = re.search(r"gpio reader: done;.*", out)
        s["findings"][f"gpio_reader_{load}"] = reader.group(0) if reader else "the reader said nothing at its end"
        m = DELAYS.search(out)
        if not m:
            raise RuntimeError(f"the self-test ({load}) reported no delivery delays:\n" + out[-1500:])
        edges, p50, p90, p99, worst = m.groups()
        prefix = "vm_gpio_delivery" if load == "idle" else "vm_gpio_delivery_stress"
        s[f"{prefix}_p50_ms"], s[f"{prefix}_p99_ms"] = float(p50), float(p99)
        s[f"{prefix}_max_ms"], s[f"{prefix}_edges"] = float(worst), int(edges)
    run.guest.must(WAIT_ACTIVE + "systemctl start companion.service; wait_active 120", "service-back", 200)


# --- a light sensor's line beside a button's, through the reader on the guest's kernel -------------

SENSOR_LINES = (24, 25)
"""A button's line and a sensor's that the guest's profile leaves free (mux-3.toml)."""
SENSOR_EDGES = [[25, 1], [25, 1], [24, 0], [24, 1]]
"""The sensor dark, lit, dark, lit: its two rises only; the button pressed and released: both."""


def sensor_lines(run: Run) -> None:
    button, sensor = SENSOR_LINES
    out = run.guest.must(f"cd /share/tools && /opt/companion/venv/bin/python sensorlines.py {button} {sensor}",
                         "sensor-lines", 200)
    seen = json.loads(out.strip().splitlines()[-1])
    run.summary["findings"]["sensor_lines"] = seen
    if not seen["moves_read"] or seen["edges"] != SENSOR_EDGES:
        raise RuntimeError(f"the reader's sensor and button lines reported {seen['edges']} (every move read: "
                           f"{seen['moves_read']}), not {SENSOR_EDGES}; the reader said {seen['reader_said']}")
    run.summary["sensor_lines_ok"] = True


# --- issue 33 item 8: a button board plugged in after the service started --------------------------

TTYACM = WAIT_ACTIVE + r"""
cg=/sys/fs/cgroup$(systemctl show companion.service -p ControlGroup --value)
probe() {  # open a ttyACM node from inside the service's cgroup: EPERM means its device policy denies it
  [ -e /dev/ttyACM7 ] || mknod -m 0666 /dev/ttyACM7 c 166 7
  sh -c "echo \$\$ > $cg/cgroup.procs && exec python3 -c '
import errno, os
try:
    os.close(os.open(\"/dev/ttyACM7\", os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK))
    print(\"opened\")
except OSError as e:
    print(errno.errorcode[e.errno])'"
}
restart() { systemctl restart companion.service; wait_active 120; }
modprobe -r cdc_acm 2>/dev/null
grep -q ttyACM /proc/devices && echo "cdc_acm could not be unloaded"
restart
modprobe cdc_acm
echo "loaded after start: $(probe)"
restart
echo "loaded before start: $(probe)"
if grep -qsx cdc_acm /etc/modules-load.d/*.conf; then
  echo "modules-load: $(grep -lsx cdc_acm /etc/modules-load.d/*.conf)"
  modprobe -r cdc_acm 2>/dev/null
  systemctl restart systemd-modules-load.service
  grep -q ttyACM /proc/devices && echo "modules-load loads cdc_acm: yes" || echo "modules-load loads cdc_acm: no"
  systemctl show companion.service -p After --value | tr ' ' '\n' | grep -qx systemd-modules-load.service \
    && echo "ordered after systemd-modules-load: yes" || echo "ordered after systemd-modules-load: no"
  restart
  echo "after modules-load, board plugged later: $(probe)"
else
  echo "modules-load: no cdc_acm entry"
fi
rm -f /dev/ttyACM7
"""


def ttyacm(run: Run) -> None:
    s = run.summary
    out = run.guest.must(TTYACM, "ttyacm", 400)
    s["findings"]["ttyacm"] = out.strip().replace("\n", " | ")
    late = re.search(r"loaded after start: (\w+)", out).group(1)
    s["ttyacm_denied_if_cdc_acm_loads_after_start"] = late == "EPERM"
    fixed = ("modules-load loads cdc_acm: yes" in out and "ordered after systemd-modules-load: yes" in out
             and re.search(r"board plugged later: (\w+)", out) is not None
             and re.search(r"board plugged later: (\w+)", out).group(1) != "EPERM")
    s["ttyacm_modules_load_fix_ok"] = fixed
    if not fixed:
        raise RuntimeError("cdc_acm is not loaded at boot before the service: a board plugged in later is denied")


# --- an update whose install fails leaves the old program running ---------------------------------

UPDATE_FAILS = r"""
val() { systemctl show companion.service -p "$1" --value; }
pid=$(val MainPID)
rm -rf /root/broken && cp -a /root/companion /root/broken
# A broken update: a dependency version nobody has, so the new install cannot finish.
echo 'gpiozero==0.0.0.999' >> /root/broken/systemd/constraints.txt
cd /root/broken
PIP_NO_INDEX=1 PIP_FIND_LINKS=/share/wheels timeout 900 bash systemd/install.sh > /tmp/update.out 2>&1
echo "rc=$?"
tail -n 5 /tmp/update.out
echo "pid=$pid now=$(val MainPID) state=$(val ActiveState)"
/opt/companion/venv/bin/companion --help > /dev/null && echo "old program: runs"
systemctl restart companion.service && sleep 0 && systemctl is-active companion.service > /dev/null && echo "restarts: yes"
"""


def update_failure(run: Run) -> None:
    out = run.guest.must(WAIT_ACTIVE + UPDATE_FAILS + "\nwait_active 120 && echo 'active again'", "update-fails", 1100)
    run.summary["findings"]["update_failure"] = out.strip().replace("\n", " | ")
    m = re.search(r"pid=(\d+) now=(\d+) state=(\w+)", out)
    problems = []
    if re.search(r"rc=0\b", out):
        problems.append("the broken update reported success")
    if not m or m.group(1) != m.group(2) or m.group(3) != "active":
        problems.append("the running program did not stay running through the failed update")
    if "old program: runs" not in out or "active again" not in out:
        problems.append("the old program is not intact after the failed update")
    if problems:
        raise RuntimeError("; ".join(problems) + "\n" + out[-1500:])
    run.summary["update_failure_keeps_old"] = True


# --- uninstall: the service and program gone, the journals kept and readable ----------------------

UNINSTALL = r"""
cd /root/companion && bash systemd/install.sh --uninstall > /tmp/uninstall.out 2>&1; echo "rc=$?"
tail -n 5 /tmp/uninstall.out
echo "state=$(systemctl show companion.service -p LoadState --value)"
[ -e /etc/systemd/system/companion.service ] && echo "left: unit file"
id companion > /dev/null 2>&1 && echo "left: user companion"
[ -e /opt/companion ] && echo "left: /opt/companion"
n=0
for f in /var/lib/companion/games/*.jsonl; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  setpriv --reuid=65534 --regid=65534 --clear-groups head -c 64 "$f" > /dev/null && echo "readable by anyone: $f" || echo "NOT readable: $f"
done
echo "journals=$n"
journalctl -u companion.service --no-pager -n 1 -o cat > /dev/null && echo "log: readable"
{snapshot} > /tmp/after.txt
comm -13 {harness}/before-install.txt /tmp/after.txt | sed 's/^/added and left: /'
"""


def uninstall(run: Run) -> None:
    out = run.guest.must(UNINSTALL.format(snapshot=SNAPSHOT, harness=HARNESS), "uninstall", 600)
    run.summary["findings"]["uninstall"] = out.strip().replace("\n", " | ")
    problems = []
    if not re.search(r"rc=0\b", out):
        problems.append("install.sh --uninstall failed")
    if "state=not-found" not in out:
        problems.append("systemd still knows the service")
    problems += [line for line in out.splitlines() if line.startswith(("left:", "NOT readable"))]
    left = [line for line in out.splitlines() if line.startswith("added and left: ")
            and not line.startswith("added and left: /etc/companion/")]
    problems += left
    if "journals=0" in out:
        problems.append("no game journal to check (the game stage made none)")
    if problems:
        raise RuntimeError("; ".join(problems))
    run.summary["uninstall_ok"] = True


def all_stages(run: Run) -> None:
    """In an order where each stage leaves what the next needs: the lobby for the panels, a game
    in progress for the kill, a journal for the uninstall."""
    if not run.stage("prepare", lambda: prepare(run), *result.CHECKS):
        return
    if not run.stage("install", lambda: install(run), *result.CHECKS):
        return
    run.stage("unit_ready", lambda: unit_ready(run), "unit_ready")
    run.stage("panels", lambda: panels_check(run), "panels_ok")
    run.guest.run("echo 0 > /sys/kernel/tracing/events/i2c/i2c_write/enable", "trace-off", 60)
    run.stage("reinstall", lambda: reinstall(run), "reinstall_ok")
    run.stage("watchdog", lambda: watchdog(run), "watchdog_ok")
    run.stage("gpio_game", lambda: gpio_game(run), "gpio_game_matches_mock")
    if (run.guest.share / "guest-game.jsonl").exists():  # a game in progress, whatever its verdicts
        run.stage("kill_resume", lambda: resume_after_kill(run), "resumed_after_kill")
    else:
        result.fail(run.summary, "resumed_after_kill", "no game in progress: the gpio game stage made none")
    run.stage("delivery", lambda: delivery(run), "vm_gpio_delivery")
    run.stage("sensor_lines", lambda: sensor_lines(run), "sensor_lines_ok")
    run.stage("ttyacm", lambda: ttyacm(run), "ttyacm_modules_load_fix_ok")
    run.stage("update_failure", lambda: update_failure(run), "update_failure_keeps_old")
    run.stage("uninstall", lambda: uninstall(run), "uninstall_ok")
