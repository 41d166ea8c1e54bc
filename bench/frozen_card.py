"""The daemon's CPU while a journal line waits for a frozen card, against the same daemon idle in
the same game once the card answers again (the baseline, same run).

A real ``companion run`` plays the demo's lobby and one move on a small ext4 image mounted on a
loop device; the file system is frozen (``fsfreeze``) after the game's header is on disk and
before the move, so the move's line waits and the screens say SAVING.... The loop must then
sleep to its next timer: ``frozen_card_cpu_percent`` is the process's CPU (``/proc/PID/stat``)
over ``seconds`` of that, ``frozen_card_idle_cpu_percent`` the same span once thawed and saved.
Needs root, a loop device, ``mkfs.ext4`` and ``fsfreeze``; without them both are None and
``frozen_card_skipped`` says why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from .process import _cpu_seconds, _run, _start, compiled

MOVE_AT_S = 3.0
"""When the script makes its move (Alice confirms her cell): the lobby is done by then."""
SAVING_AFTER_S = 1.5
"""SAVING... is on the screens this long after the move (it is said after 1 s)."""


def frozen_card(tmp: Path, seconds: float) -> dict:
    skipped = _cannot(tmp)
    if skipped:
        return {"frozen_card_cpu_percent": None, "frozen_card_idle_cpu_percent": None, "frozen_card_skipped": skipped}
    tmp.mkdir(parents=True, exist_ok=True)  # python -m bench names a folder in its temporary one
    image, mount = tmp / "card.img", tmp / "card"
    with open(image, "wb") as f:
        f.truncate(8 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True)
    mount.mkdir()
    subprocess.run(["mount", "-o", "loop", str(image), str(mount)], check=True)
    script = tmp / "frozen.txt"
    lobby = "".join(f"{0.2 + 0.2 * i:.1f} 1 ok\n" for i in range(6))
    script.write_text(lobby + f"{MOVE_AT_S} 1 ok\n{MOVE_AT_S + 2 * seconds + 30} 2 left\n")
    games = mount / "games"
    proc, _ = _start(_run(script, games), compiled(tmp / "pycache"))
    started = time.monotonic()
    try:
        while not list(games.glob("*.jsonl")):  # the game's header is on disk
            if time.monotonic() - started > MOVE_AT_S:
                raise RuntimeError("the game did not start before the move")
            time.sleep(0.05)
        subprocess.run(["fsfreeze", "--freeze", str(mount)], check=True)
        try:
            time.sleep(max(0.0, started + MOVE_AT_S + SAVING_AFTER_S - time.monotonic()))
            frozen = _cpu_percent(proc.pid, seconds)
        finally:
            subprocess.run(["fsfreeze", "--unfreeze", str(mount)], check=True)
        time.sleep(SAVING_AFTER_S)  # the line lands, the screens show the move
        idle = _cpu_percent(proc.pid, seconds)
    finally:
        proc.kill()
        proc.communicate()
        subprocess.run(["umount", str(mount)], check=False)
    return {"frozen_card_cpu_percent": frozen, "frozen_card_idle_cpu_percent": idle, "frozen_card_seconds": seconds}


def _cpu_percent(pid: int, seconds: float) -> float:
    cpu0, t0 = _cpu_seconds(pid), time.perf_counter()
    time.sleep(seconds)
    return round(100 * (_cpu_seconds(pid) - cpu0) / (time.perf_counter() - t0), 3)


def _cannot(tmp: Path) -> str | None:
    """Why this machine cannot run it, or None."""
    if os.geteuid() != 0:
        return "needs root (a loop mount and fsfreeze)"
    if shutil.which("mkfs.ext4") is None or shutil.which("fsfreeze") is None:
        return "needs mkfs.ext4 and fsfreeze"
    if not os.path.exists("/dev/loop-control"):
        return "needs loop devices"
    return None


if __name__ == "__main__":
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        print(json.dumps(frozen_card(Path(directory), 15.0)))
