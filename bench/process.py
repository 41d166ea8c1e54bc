"""The daemon as a process: start-up to the first frame, idle cost, memory, and ``--help``.

Each runs the real ``companion`` command on the simulated two-station demo profile, so it includes
Python's start-up and imports, as a systemd start would.
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


def median_ms(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def help_ms(runs: int) -> dict[str, float]:
    """``companion --help`` against a bare interpreter start in the same run."""
    return {"help_ms": median_ms(COMPANION + ["--help"], runs),
            "python_start_ms": median_ms([sys.executable, "-c", "pass"], runs)}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def daemon_run(tmp: Path, idle_s: float) -> dict[str, float]:
    """Start the daemon, time it to "ready" (first frame on every display), start a game from
    the lobby, then measure CPU and memory while it idles in the game for ``idle_s``."""
    script = tmp / "idle.txt"
    lobby = "".join(f"{0.2 + 0.1 * i:.1f} 1 ok\n" for i in range(6))
    script.write_text(lobby + f"{idle_s + 2:.1f} 2 left\n")
    command = COMPANION + ["run", "--profile", str(PROFILE), "--script", str(script),
                           "--journal-dir", str(tmp / "games")]
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    ready_ms = None
    for line in proc.stderr:
        if "ready:" in line:
            ready_ms = (time.perf_counter() - start) * 1000
            break
    time.sleep(1.5)  # into the game
    cpu0, t0 = _cpu_seconds(proc.pid), time.perf_counter()
    time.sleep(idle_s)
    cpu1, t1 = _cpu_seconds(proc.pid), time.perf_counter()
    rss = _rss_mb(proc.pid)
    proc.stderr.read()
    proc.wait(timeout=30)
    return {"ready_ms": ready_ms, "idle_cpu_percent": 100 * (cpu1 - cpu0) / (t1 - t0), "rss_mb": rss}
