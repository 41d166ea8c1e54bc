"""The daemon as a process: start-up to the first frame, idle cost, memory, and ``--help``.

Each runs the real ``companion`` command on the simulated two-station demo profile, so it includes
Python's start-up and imports, as a systemd start would, and with every module byte-compiled, as
on the box: pip compiles the wheel when ``systemd/install.sh`` installs it. A checkout run with
``PYTHONDONTWRITEBYTECODE`` set (and no ``__pycache__``) would instead compile all of our source
at every start (450 KB of it before the first frame), which costs this machine about 70 ms and
the box nothing. So the commands run with their own bytecode cache (``PYTHONPYCACHEPREFIX``,
leaving the tree as it is), filled by an untimed first run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROFILE = ROOT / "companion" / "demo" / "profile.toml"
"""Two simulated stations, so the lobby's first game is Pay-to-Play."""
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
COMPANION = [sys.executable, "-m", "companion"]


def compiled(cache: Path) -> dict[str, str]:
    """The environment of a start with every module byte-compiled into ``cache`` (see above)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def median_ms(command: list[str], runs: int, env: dict[str, str]) -> float:
    """The median time of ``command`` after an untimed first run (which fills the cache)."""
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=env)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[1:])


def help_ms(tmp: Path, runs: int) -> dict[str, float]:
    """``companion --help`` against a bare interpreter start in the same run."""
    env = compiled(tmp / "pycache")
    return {"help_ms": median_ms(COMPANION + ["--help"], runs, env),
            "python_start_ms": median_ms([sys.executable, "-c", "pass"], runs, env)}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _children_cpu_seconds(pid: int) -> float:
    """The CPU time of ``pid``'s child processes (the web companion's server, behind its wall),
    while they run: each of its threads' ``children`` in /proc."""
    total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                total += _cpu_seconds(int(child))
            except (FileNotFoundError, ProcessLookupError):
                pass  # ended meanwhile
    return total


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _run(script: Path, journals: Path) -> list[str]:
    return COMPANION + ["run", "--profile", str(PROFILE), "--script", str(script), "--journal-dir", str(journals)]


def _start(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, float]:
    """Start the daemon; return it and the ms it took to say "ready" (first frame on every display)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    for line in proc.stderr:
        if "ready:" in line:
            return proc, (time.perf_counter() - start) * 1000
    raise RuntimeError(f"the daemon ended without ready (exit {proc.wait()})")


def daemon_run(tmp: Path, idle_s: float, starts: int = 5) -> dict[str, float]:
    """Start the daemon ``starts`` times, timing each to "ready" (the median, after an untimed
    first start that fills the bytecode cache); then once more, start a game from the lobby and
    measure CPU and memory while it idles in the game for ``idle_s``."""
    env = compiled(tmp / "pycache")
    wait = tmp / "wait.txt"
    wait.write_text("60 1 left\n")  # nothing pressed before the start is killed
    times = []
    for n in range(starts + 1):
        proc, ms = _start(_run(wait, tmp / f"start{n}"), env)
        proc.kill()
        proc.communicate()
        times.append(ms)
    script = tmp / "idle.txt"
    lobby = "".join(f"{0.2 + 0.1 * i:.1f} 1 ok\n" for i in range(6))
    script.write_text(lobby + f"{idle_s + 2:.1f} 2 left\n")
    proc, _ = _start(_run(script, tmp / "games"), env)
    time.sleep(1.5)  # into the game
    cpu0, t0 = _cpu_seconds(proc.pid), time.perf_counter()
    time.sleep(idle_s)
    cpu1, t1 = _cpu_seconds(proc.pid), time.perf_counter()
    rss = _rss_mb(proc.pid)
    proc.stderr.read()
    proc.wait(timeout=30)
    return {"ready_ms": statistics.median(times[1:]), "idle_cpu_percent": 100 * (cpu1 - cpu0) / (t1 - t0), "rss_mb": rss}
