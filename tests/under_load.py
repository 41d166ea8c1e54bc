"""The whole test suite on a machine made busy on purpose, to show no test depends on its speed.

    python -m tests.under_load [--busy N] [--runs K] [PYTEST ARGS...]

Starts N processes that keep a CPU core busy (default: one per core), runs ``pytest`` K times in a
row (default 3) with them running, prints each run's time and whether it passed, then stops them.
Exits 0 only if every run passed. CI does not need it; run it after touching anything timed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.under_load", description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 2,
                        help="busy-loop processes to start (default: one per core, %(default)s here)")
    parser.add_argument("--runs", type=int, default=3, help="times to run the suite (default 3)")
    args, pytest_args = parser.parse_known_args(argv)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    results = []
    try:
        for run in range(1, args.runs + 1):
            print(f"run {run}/{args.runs} with {args.busy} busy processes", flush=True)
            start = time.monotonic()
            status = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
                                    cwd=ROOT, env=env).returncode
            results.append((status, time.monotonic() - start))
            print(f"run {run}/{args.runs}: {'passed' if status == 0 else f'FAILED (pytest exit {status})'} "
                  f"in {results[-1][1]:.0f} s", flush=True)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    print("under load: " + ", ".join(f"{'pass' if s == 0 else 'FAIL'} {t:.0f} s" for s, t in results))
    return 0 if all(s == 0 for s, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
