"""The checks run in the booted guest, in order; each one a stage of :class:`vm.checks.Run`."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from vm import judge, summary as result, webprofile
from vm.checks import (CONFIG, HARNESS, INSTALL, KEPT, MAKER, OFFLINE, PACE, PREPARE, SNAPSHOT, STATE, WAIT_ACTIVE,
                       Run, as_maker, install_bound, one_line, parse_show)


def prepare(run: Run) -> None:
    out = run.guest.must(PREPARE, "prepare", 120)
    pace = float(re.search(r"^pace: ([\d.]+)$", run.guest.must(PACE, "pace", 600), re.MULTILINE).group(1))
    run.install_bound_s = install_bound(pace)
    run.summary["host_pace_s"], run.summary["install_bound_s"] = pace, run.install_bound_s
    run.summary["findings"]["i2c_before_install"] = re.search(r"^before install: .*$", out, re.MULTILINE).group(0)
    run.summary["findings"]["devices_before_install"] = " | ".join(
        line for line in out.splitlines() if line.startswith("c"))


def install(run: Run) -> None:
    s = run.summary
    run.guest.must(webprofile.MAKE_PROFILE, "phones-profile", 60)
    res = run.guest.run(INSTALL.format(timeout=run.install_bound_s, args=f" --profile {webprofile.PROFILE}"),
                        "install", run.install_bound_s + 60)
    s["install_output_tail"] = res["output"][-2500:]
    s["stage_seconds"]["install_script"] = res["seconds"]
    unit = {}
    if res["rc"] == 0:
        unit = parse_show(run.guest.run(WAIT_ACTIVE + "wait_active 120; " + STATE, "wait-ready", 200)["output"])
    problems = judge.install(res["rc"], unit, run.install_bound_s)
    if problems:
        raise RuntimeError("; ".join(problems) + ":\n" + res["output"][-1500:])
    s["install_ok"] = True


def boot_config(run: Run) -> None:
    """Where the installer's config.txt lines landed: read after the install, each where every
    Pi reads it (the guest's file ends in a [cm5] section, as Raspberry Pi OS's does)."""
    out = run.guest.must("cat /boot/firmware/config.txt; echo '--- installed'; cat /opt/companion/installed",
                         "boot-config", 60)
    text, installed = out.split("--- installed\n", 1)
    run.summary["findings"]["boot_config"] = " | ".join(line for _, line in judge.config_sections(text))
    problems = judge.boot_config(text, installed)
    if problems:
        raise RuntimeError("; ".join(problems) + ":\n" + text)
    run.summary["boot_config_ok"] = True


PRIORITIES = r"""
echo "loop: $(chrt -p "$(systemctl show companion.service -p MainPID --value)" | tr '\n' ' ')"
echo "reader: $(chrt -p "$(pgrep -f companion.adapters.gpioreader | head -n 1)" | tr '\n' ' ')"
"""


def unit_ready(run: Run) -> None:
    s = run.summary
    unit = run.show()
    started = int(unit.get("ExecMainStartTimestampMonotonic", "0"))
    active = int(unit.get("ActiveEnterTimestampMonotonic", "0"))
    s["vm_ready_after_start_s"] = round((active - started) / 1e6, 2) if started and active else None
    s["unit_status_text"] = unit.get("StatusText")
    log = run.guest.must("journalctl -b -u companion.service --no-pager -o cat | tail -n 40", "unit-log", 60)
    priorities = run.guest.run(PRIORITIES, "priorities", 60)["output"]
    s["findings"]["priorities"] = one_line(priorities)
    timeouts = judge.own_timeouts((run.tree / "systemd" / "companion.service").read_text())
    problems = judge.unit_ready(unit, log, priorities, timeouts)
    if problems:
        raise RuntimeError("not READY as a notify service: " + ", ".join(problems) + "\n" + log[-1500:])
    s["unit_ready"] = True


# --- the board's GPIO chip, as the reader and gpiozero choose it ----------------------------------

BOARD_CHIPS = r"""
set -e -o pipefail
python3 /share/tools/pins.py where
cd /tmp
sudo -u companion /opt/companion/venv/bin/python -c '
import os
from gpiozero.pins.lgpio import LGPIOFactory
from companion.adapters.gpioreader import header_chip
factory = LGPIOFactory()
for who, chip in (("gpiozero", f"/dev/gpiochip{factory.chip}"), ("reader", header_chip())):
    print(f"{who}: {chip} -> {os.path.realpath(chip)}")
factory.close()'
"""
"""Which chip the two choosers take on this board: the product's reader (by the chip's label) and
gpiozero's lgpio factory (by the revision: gpiochip4 on a Pi 5 where there is one, a link to
gpiochip0 on current kernels), as the service's user; both must be the board's header chip."""


def board_chips(run: Run) -> None:
    out = run.guest.must(BOARD_CHIPS, "board-chips", 120)
    run.summary["findings"]["board_chips"] = one_line(out)
    problems = judge.board_chips(out)
    if problems:
        raise RuntimeError("; ".join(problems))
    run.summary["board_chips_ok"] = True


# --- reinstall: a second run changes nothing ------------------------------------------------------

def reinstall(run: Run) -> None:
    before = run.guest.must(CONFIG, "config-before", 60)
    res = run.guest.run(INSTALL.format(timeout=run.install_bound_s, args=""), "reinstall", run.install_bound_s + 60)
    after, state = "", None
    if res["rc"] == 0:
        after = run.guest.must(WAIT_ACTIVE + "wait_active 120\n" + CONFIG, "config-after", 200)
        state = run.show().get("ActiveState")
    problems = judge.reinstall(res["rc"], before, after, state, run.install_bound_s)
    if problems:
        raise RuntimeError("; ".join(problems) + "\n" + res["output"][-1500:])
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
    if judge.watchdog(out):
        raise RuntimeError("; ".join(judge.watchdog(out)) + ":\n" + out)
    run.summary["findings"]["watchdog"] = one_line(out)
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
    return one_line(out)


STAMPS_ON = r"""
set -e -o pipefail
T=/sys/kernel/tracing/instances/vm-buttons
mkdir -p $T
echo 0 > $T/tracing_on
echo mono > $T/trace_clock
echo > $T/trace
echo 1 > $T/events/irq/irq_handler_entry/enable
echo 1 > $T/tracing_on
: > /share/button-irqs.txt
for d in /sys/kernel/irq/*; do
  if [ "$(cat "$d/actions" 2>/dev/null)" = "companion buttons" ]; then
    echo "${d##*/} $(cat "$d/hwirq")" >> /share/button-irqs.txt
  fi
done
[ -s /share/button-irqs.txt ] || { echo "no interrupt is the GPIO reader's"; exit 1; }
wc -l < /share/button-irqs.txt
"""
"""The kernel's own stamps of the buttons' edges: a trace instance of its own with the monotonic
clock, recording each interrupt of the reader's line request (vm/game.py's kernel_stamps)."""
STAMPS_OFF = r"""
set -e -o pipefail
T=/sys/kernel/tracing/instances/vm-buttons
echo 0 > $T/tracing_on
cat $T/trace > /share/irq-trace.txt
grep -c irq_handler_entry /share/irq-trace.txt
"""


def gpio_game(run: Run) -> None:
    from vm import game

    s = run.summary
    presses = game.presses(run.tree)
    edges = game.pin_edges(presses, run.tree / game.GUEST_PROFILE)
    expected_lines = game.expected_lines(run.tree, presses)
    s["findings"]["gpio_reader"] = reader_running(run, "reader-game")
    run.guest.must(STAMPS_ON, "stamps-on", 60)
    times = press(run, edges, "press-game")
    run.guest.must(STAMPS_OFF, "stamps-off", 60)
    out = run.guest.must(WAIT_LINES.format(timeout=60, journals=JOURNALS, lines=expected_lines,
                                           copy="guest-game.jsonl"), "game-journal", 200)
    figures, problems = judge.played(run.tree, edges, times, (run.guest.share / "irq-trace.txt").read_text(),
                                    (run.guest.share / "button-irqs.txt").read_text(),
                                    run.guest.share / "guest-game.jsonl")
    s["game"] = {"guest_journal": out.strip(), **figures}
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
    since = re.search(r"since=(.*)", out).group(1)
    ok = game.pin_of(run.tree / game.GUEST_PROFILE, 0, "ok")
    press(run, [[0.0, ok, True], [0.1, ok, False]], "press-resume")
    told = run.guest.run(RESUMED.format(since=since, journals=JOURNALS), "resumed", 120)["output"]
    run.summary["findings"]["resume"] = one_line(out + told)
    problems = judge.resumed(out, told)
    if problems:
        raise RuntimeError("; ".join(problems) + ":\n" + (out + told)[-1500:])
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
    s["findings"]["missing_panel"] = one_line(out)
    problems += judge.missing_panel(re.search(r"status=(.*)", out).group(1), out)
    problems += frames_settle(run, render(run, "--down 3")[:2], [0, 1])
    back = run.guest.run(PLUG_BACK, "plug-panel-3", 200)
    if back["rc"] != 0:
        problems.append(back["output"].strip())
    if problems:
        raise RuntimeError("; ".join(problems))
    s["panels_ok"] = True


# --- GPIO delivery delay through the real kernel path, idle and under stress-ng --------------------

SELFTEST = r"""
{stop}
{stress}
rm -f /tmp/selftest.out
{selftest} > /tmp/selftest.out 2>&1 &
pid=$!
end=$(( $(date +%s) + 180 ))
until grep -qE "{ready}" /tmp/selftest.out; do
  [ "$(date +%s)" -lt "$end" ] && kill -0 $pid || {{ cat /tmp/selftest.out; exit 1; }}
  sleep 0.2
done
pgrep -af companion.adapters.gpioreader || echo "no GPIO reader running"
python3 /share/tools/pins.py press /share/delivery.json > /dev/null
# the self-test itself (its venv's Python), not the runuser or sudo around it: who runs it, in which groups
sel=$(pgrep -f '^/opt/companion/[^ ]+/python[^ ]* [^ ]+/bin/companion selftest' | head -n 1)
who=$(ps -o user= -p "$sel")
echo "selftest by: $who, groups: $(id -nG "$who")"
kill -INT "$sel"
# the next self-test claims the same lines: this one must have let them go
timeout 300 tail --pid=$pid -f /dev/null || {{ echo "the self-test did not stop within 300 s of SIGINT"; kill -KILL $pid; exit 1; }}
wait $pid
echo "selftest rc=$?"
[ -n "{stress}" ] && kill %1 2>/dev/null
cat /tmp/selftest.out
"""
"""The documented self-test, the service stopped; the harness's presses are the maker's fingers;
Ctrl-C (SIGINT) ends it and it reports. Its exit code is its verdict."""
SELFTEST_STOP = as_maker("sudo systemctl stop companion")
SELFTEST_RUNS = {
    "idle": as_maker("/opt/companion/venv/bin/companion selftest --profile /etc/companion/profile.toml"),
    "stress": as_maker("cd ~/companion && sudo -u companion /opt/companion/venv/bin/companion selftest "
                       "--profile /etc/companion/profile.toml"),
}
"""Both of its documented forms: hardware/BUILD.md's, by the maker in the gpio and i2c groups
(idle), and systemd/README.md's, as the service's user from the tree in their home (under load)."""
MAKER_GROUPS = as_maker(f"sudo usermod -aG gpio,i2c {MAKER}")
"""The maker joins the groups, as BUILD.md says (Raspberry Pi OS's first user is in both already);
each as_maker is a new login, so the self-test runs with them."""
MAKER_LEAVES = f"gpasswd -d {MAKER} gpio > /dev/null && gpasswd -d {MAKER} i2c > /dev/null && id -nG {MAKER}"
"""The maker leaves the groups again after the self-test: the uninstall check compares /etc/group
and /etc/gshadow byte for byte with the guest before the install, and the joining was the
maker's, not the installer's (gpasswd -d gives back the lines as they were)."""
READY_OUTPUT = ": ready: first frame on every display$"
"""The self-test's daemon says it is ready (its log line, whole to the end)."""
STRESS = "stress-ng --cpu 2 --io 1 --vm 1 --vm-bytes 64M --timeout 900s --quiet &"


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
    edges = delivery_edges(run)
    (run.guest.share / "delivery.json").write_text(json.dumps(edges))
    run.guest.must(MAKER_GROUPS, "maker-groups", 60)
    try:
        for load, stress in (("idle", ""), ("stress", STRESS)):
            out = run.guest.must(SELFTEST.format(stop=SELFTEST_STOP, stress=stress, selftest=SELFTEST_RUNS[load],
                                                 ready=READY_OUTPUT), f"selftest-{load}", 600)
            by = re.search(r"^selftest by: .*$", out, re.MULTILINE)
            s["findings"][f"selftest_by_{load}"] = by.group(0) if by else "nobody seen"
            reader = re.search(r"gpio reader: done;.*", out)
            s["findings"][f"gpio_reader_{load}"] = reader.group(0) if reader else "the reader said nothing at its end"
            figures, problems = judge.delivery(out, load, len(edges))
            if load == "idle":
                problems += judge.maker_selftest(out, MAKER)
            if problems:
                raise RuntimeError("; ".join(problems) + ":\n" + out[-1500:])
            if load == "idle":
                s["maker_selftest_ok"] = True
            prefix = "vm_gpio_delivery" if load == "idle" else "vm_gpio_delivery_stress"
            for name, value in figures.items():
                s[f"{prefix}_{name}"] = value
    finally:
        s["findings"]["maker_groups_after"] = run.guest.must(MAKER_LEAVES, "maker-leaves", 60).strip()
    s["selftest_ok"] = True
    run.guest.must(WAIT_ACTIVE + "systemctl start companion.service; wait_active 120", "service-back", 200)


# --- a light sensor's line beside a button's, through the reader on the guest's kernel -------------

SENSOR_LINES = (24, 25)
"""A button's line and a sensor's that the guest's profile leaves free (mux-3.toml)."""


def sensor_lines(run: Run) -> None:
    button, sensor = SENSOR_LINES
    out = run.guest.must(f"cd /share/tools && /opt/companion/venv/bin/python sensorlines.py {button} {sensor}",
                         "sensor-lines", 200)
    seen = json.loads(out.strip().splitlines()[-1])
    run.summary["findings"]["sensor_lines"] = seen
    problems = judge.sensor_lines(seen)
    if problems:
        raise RuntimeError("; ".join(problems))
    run.summary["sensor_lines_ok"] = True


# --- issue 33 item 8: a button board plugged in after the service started --------------------------

TTYACM = WAIT_ACTIVE + r"""
cg=/sys/fs/cgroup$(systemctl show companion.service -p ControlGroup --value)
probe() {  # probe [NODE MAJOR]: open a node (ttyACM7 by default) from inside the service's cgroup:
  # EPERM means its device policy denies it
  local node=${1:-/dev/ttyACM7} major=${2:-166}
  [ -e "$node" ] || mknod -m 0666 "$node" c "$major" 7
  sh -c "echo \$\$ > $cg/cgroup.procs && exec python3 -c '
import errno, os
try:
    os.close(os.open(\"$node\", os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK))
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
echo "a serial port the unit does not allow (ttyUSB): $(probe /dev/ttyUSB7 188)"
rm -f /dev/ttyACM7 /dev/ttyUSB7
"""


def ttyacm(run: Run) -> None:
    s = run.summary
    out = run.guest.must(TTYACM, "ttyacm", 400)
    s["findings"]["ttyacm"] = one_line(out)
    late = re.search(r"loaded after start: (\w+)", out)
    s["ttyacm_denied_if_cdc_acm_loads_after_start"] = bool(late) and late.group(1) == "EPERM"  # systemd's, reported
    problems = judge.ttyacm(out)
    if problems:
        raise RuntimeError("; ".join(problems))
    s["ttyacm_modules_load_fix_ok"] = True


# --- an update whose install fails leaves the old program running ---------------------------------

UPDATE_FAILS = r"""
val() { systemctl show companion.service -p "$1" --value; }
pid=$(val MainPID)
# A broken update: a dependency version nobody has, so the new install cannot finish.
{maker_update} > /tmp/update.out 2>&1
echo "rc=$?"
tail -n 5 /tmp/update.out
echo "pid=$pid now=$(val MainPID) state=$(val ActiveState)"
/opt/companion/venv/bin/companion --help > /dev/null && echo "old program: runs"
systemctl restart companion.service && sleep 0 && systemctl is-active companion.service > /dev/null && echo "restarts: yes"
"""


def update_failure(run: Run) -> None:
    update = as_maker("rm -rf ~/broken && cp -a ~/companion ~/broken && "
                      f"echo 'gpiozero==0.0.0.999' >> ~/broken/systemd/constraints.txt && cd ~/broken && "
                      f"timeout {run.install_bound_s} " + OFFLINE)
    out = run.guest.must(WAIT_ACTIVE + UPDATE_FAILS.replace("{maker_update}", update)
                         + "\nwait_active 120 && echo 'active again'", "update-fails", run.install_bound_s + 200)
    run.summary["findings"]["update_failure"] = one_line(out)
    problems = judge.update_failure(out)
    if problems:
        raise RuntimeError("; ".join(problems) + "\n" + out[-1500:])
    run.summary["update_failure_keeps_old"] = True


# --- an update that installs but does not start is rolled back -----------------------------------

ROLLBACK = r"""
val() {{ systemctl show companion.service -p "$1" --value; }}
before=$(readlink /opt/companion/venv)
# A new version that installs and checks the profile, but {broken}
rm -rf /home/{maker}/nostart && cp -a /home/{maker}/companion /home/{maker}/nostart
{break_it}
chown -R {maker}: /home/{maker}/nostart
{maker_update} > /tmp/rollback.out 2>&1
echo "rc=$?"
tail -n 3 /tmp/rollback.out
wait_active 120 && echo "active again"
echo "venv: $before -> $(readlink /opt/companion/venv)"
/opt/companion/venv/bin/companion --help > /dev/null && echo "old program: runs"
"""


BROKEN_VERSIONS = {
    "cannot_start": ("whose `companion run` cannot start", r"""
sed -i 's/^def cmd_run(args: argparse.Namespace) -> int:$/&\n    raise SystemExit("this version cannot start")/' \
  /home/{maker}/nostart/companion/cli/play.py
grep -c 'this version cannot start' /home/{maker}/nostart/companion/cli/play.py"""),
    "crashes_after_ready": ("which sends READY and crashes 2 s later (systemd restarts it: a crash loop)", r"""
sed -i 's/^        self.send("READY=1".*$/&\n        import threading; threading.Timer(2, os._exit, (1,)).start()/' \
  /home/{maker}/nostart/companion/notify.py
grep -c 'threading.Timer(2, os._exit' /home/{maker}/nostart/companion/notify.py"""),
}
"""The updates the installer must roll back: one that dies before READY, and one that crashes
after it (``systemctl restart`` returned at its READY; the installer watches it SETTLE_S more)."""


def rollback(run: Run) -> None:
    update = as_maker(f"cd ~/nostart && timeout {run.install_bound_s} " + OFFLINE)
    problems = []
    for name, (broken, break_it) in BROKEN_VERSIONS.items():
        script = ROLLBACK.format(maker=MAKER, maker_update=update, broken=broken,
                                 break_it=break_it.replace("{maker}", MAKER))
        out = run.guest.must(WAIT_ACTIVE + script, f"rollback-{name}", run.install_bound_s + 200)
        run.summary["findings"][f"rollback_{name}"] = one_line(out)
        problems += [f"{name}: {p}" for p in judge.rollback(out)]
    if problems:
        raise RuntimeError("; ".join(problems) + "\n" + out[-1500:])
    run.summary["rollback_ok"] = True


# --- a reboot: the unit comes up at boot with its modules and buses --------------------------------

AT_BOOT = WAIT_ACTIVE + r"""
wait_active 180 && echo "active at boot"
echo "enabled: $(systemctl is-enabled companion.service)"
echo "started by: $(systemctl show companion.service -p NRestarts --value) restarts, $(journalctl -b -u companion.service --no-pager -o cat | grep -c 'ready: first frame on every display') ready"
journalctl -b -u companion.service --no-pager -o cat | tail -n 5
echo "modules-load: $(systemctl is-active systemd-modules-load.service)"
grep -q ' ttyACM$' /proc/devices && echo "cdc_acm: loaded"
grep -qsx i2c-dev /etc/modules-load.d/*.conf && echo "i2c-dev: in modules-load"
grep -q '^i2c_dev ' /proc/modules && echo "i2c-dev: loaded"
stat -c 'device: %n %G %a' /dev/i2c-1 /dev/gpiochip*
grep -q "companion buttons" /sys/kernel/debug/gpio && echo "lines held: companion buttons"
"""


def reboot(run: Run) -> None:
    """The guest powered off and booted again from its own disk, as a Pi after `sudo reboot`;
    nothing of the harness starts the service."""
    run.guest.stop()
    run.guest.start(fresh=False)
    info = run.guest.wait_ready()
    run.summary["guest_reboot_s"] = info.get("uptime_s")
    out = run.guest.must(AT_BOOT, "at-boot", 300)
    run.summary["findings"]["at_boot"] = one_line(out)
    problems = judge.at_boot(out, run.summary["findings"].get("i2c_before_install", ""))
    if problems:
        raise RuntimeError("; ".join(problems) + "\n" + out[-1500:])
    run.summary["boot_ok"] = True


# --- uninstall: the service and program gone, the journals kept and readable ----------------------

UNINSTALL = r"""
{maker_uninstall} > /tmp/uninstall.out 2>&1; echo "rc=$?"
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
for f in {kept}; do
  cmp -s "{harness}/before/${{f//\//_}}" "$f" || {{ echo "changed: $f"; diff "{harness}/before/${{f//\//_}}" "$f" | sed 's/^/  /'; }}
done
"""


def uninstall(run: Run) -> None:
    out = run.guest.must(UNINSTALL.format(snapshot=SNAPSHOT, harness=HARNESS, kept=KEPT,
                                          maker_uninstall=as_maker("cd ~/companion && sudo systemd/install.sh --uninstall")),
                         "uninstall", 600)
    run.summary["findings"]["uninstall"] = one_line(out)
    problems = judge.uninstall(out)
    if problems:
        raise RuntimeError("; ".join(problems))
    run.summary["uninstall_ok"] = True


def all_stages(run: Run) -> None:
    """In an order where each stage leaves what the next needs: the first install's phones for the
    web check, which turns them off for the reinstall; the lobby (without the phones' room code) for
    the panels, a game in progress for the kill, a journal for the uninstall."""
    if not run.stage("prepare", lambda: prepare(run), *result.CHECKS):
        return
    if not run.stage("install", lambda: install(run), *result.CHECKS):
        return
    run.stage("boot_config", lambda: boot_config(run), "boot_config_ok")
    run.stage("unit_ready", lambda: unit_ready(run), "unit_ready")
    run.stage("web_on", lambda: webprofile.web_on(run), "web_profile_ok")
    run.stage("reinstall", lambda: reinstall(run), "reinstall_ok")
    run.stage("web_off", lambda: webprofile.web_off(run), "web_profile_ok")
    run.stage("board_chips", lambda: board_chips(run), "board_chips_ok")
    run.stage("panels", lambda: panels_check(run), "panels_ok")
    run.guest.run("echo 0 > /sys/kernel/tracing/events/i2c/i2c_write/enable", "trace-off", 60)
    run.stage("watchdog", lambda: watchdog(run), "watchdog_ok")
    run.stage("gpio_game", lambda: gpio_game(run), "gpio_game_matches_mock")
    if (run.guest.share / "guest-game.jsonl").exists():  # a game in progress, whatever its verdicts
        run.stage("kill_resume", lambda: resume_after_kill(run), "resumed_after_kill")
    else:
        result.fail(run.summary, "resumed_after_kill", "no game in progress: the gpio game stage made none")
    run.stage("delivery", lambda: delivery(run), "selftest_ok", "maker_selftest_ok")
    run.stage("sensor_lines", lambda: sensor_lines(run), "sensor_lines_ok")
    run.stage("ttyacm", lambda: ttyacm(run), "ttyacm_modules_load_fix_ok")
    run.stage("update_failure", lambda: update_failure(run), "update_failure_keeps_old")
    run.stage("rollback", lambda: rollback(run), "rollback_ok")
    run.stage("reboot", lambda: reboot(run), "boot_ok")
    run.stage("uninstall", lambda: uninstall(run), "uninstall_ok")
