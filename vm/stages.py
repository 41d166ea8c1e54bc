"""The checks run in the booted guest, in order; each one a stage of :class:`vm.checks.Run`."""

from __future__ import annotations

import re
import time

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


def all_stages(run: Run) -> None:
    if not run.stage("prepare", lambda: prepare(run), *result.CHECKS):
        return
    if not run.stage("install", lambda: install(run), *result.CHECKS):
        return
    run.stage("unit_ready", lambda: unit_ready(run), "unit_ready")
