"""The job agent: how the host runs commands in the virtual Pi, through a shared directory.

The guest mounts the host's run directory (9p) at /share and runs this file as a service
(``vm-agent.service`` in the image). The protocol is files, so it needs no network and no
terminal, and every job's output stays on the host for a failure report:

* the agent writes ``ready`` (JSON: kernel, uptime) once it runs, after removing an old one;
* the host writes a shell script as ``jobs/<name>.sh.new`` and renames it to ``jobs/<name>.sh``
  (a rename is atomic, so the agent never reads half a job);
* the agent runs it with bash, stdout and stderr into ``jobs/<name>.out``, and when it ends writes
  ``jobs/<name>.done`` (JSON: rc, seconds), again by a rename.

Jobs run one at a time in name order. This file uses only the standard library: it runs on the
guest's own python3, and the host imports its helpers (:func:`submit`, :func:`result`).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

POLL_S = 0.05  # how often the agent looks for a new job; the host waits for files, never sleeps blind


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".new")
    tmp.write_text(text)
    os.replace(tmp, path)


def job_name(serial: int, label: str) -> str:
    """A job's file stem: the serial keeps the order, the label says what it was for."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in label)[:40] or "job"
    return f"{serial:04d}-{safe}"


def submit(share: Path, name: str, script: str) -> Path:
    """Hand a job to the agent; returns the path of its script."""
    jobs = share / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    path = jobs / f"{name}.sh"
    _write_atomically(path, script)
    return path


def result(share: Path, name: str) -> dict | None:
    """The finished job's {"rc", "seconds", "output"}, or None while it runs."""
    done = share / "jobs" / f"{name}.done"
    try:
        info = json.loads(done.read_text())
    except FileNotFoundError:
        return None
    out = share / "jobs" / f"{name}.out"
    info["output"] = out.read_text(errors="replace") if out.exists() else ""
    return info


def pending(share: Path) -> list[Path]:
    """Jobs not started yet, in the order they run."""
    jobs = share / "jobs"
    if not jobs.is_dir():
        return []
    return sorted(p for p in jobs.glob("*.sh")
                  if not (jobs / (p.stem + ".done")).exists() and not (jobs / (p.stem + ".out")).exists())


def run_one(script: Path) -> dict:
    jobs = script.parent
    start = time.monotonic()
    with open(jobs / f"{script.stem}.out", "wb") as out:
        rc = subprocess.call(["bash", str(script)], stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, cwd="/")
    info = {"rc": rc, "seconds": round(time.monotonic() - start, 3)}
    _write_atomically(jobs / f"{script.stem}.done", json.dumps(info))
    return info


def announce(share: Path) -> None:
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    _write_atomically(share / "ready", json.dumps({"kernel": platform.release(), "uptime_s": uptime}))


def serve(share: Path, once: bool = False) -> None:
    """Run jobs as they appear; with once=True, run what is there and return (for tests)."""
    announce(share)
    while True:
        jobs = pending(share)
        for script in jobs:
            run_one(script)
        if once:
            return
        if not jobs:
            time.sleep(POLL_S)


if __name__ == "__main__":
    serve(Path(sys.argv[1] if len(sys.argv) > 1 else "/share"))
