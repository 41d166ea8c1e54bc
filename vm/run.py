"""One check of the virtual Pi: build (cached), boot, every stage of :mod:`vm.stages`, the summary saved.

Kept apart from :mod:`vm.checks` (the run's bookkeeping and the guest's scripts) so that the stages
can use those without the two modules importing each other.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from vm import image, stages, summary as result, wheels
from vm.checks import Run, stage_share
from vm.guest import Guest


def run_check(release: str, tree: Path, log, keep: bool = False, board: str = "pi4",
              arch: str = "amd64") -> dict:
    if str(tree) not in sys.path:
        sys.path.insert(0, str(tree))  # the game and delivery stages use the product's own modules
    run = Run(release, tree, log, board, arch)
    s = run.summary
    start = time.monotonic()
    name = f"{release}-{board}" + ("" if arch == "amd64" else f"-{arch}")
    run_dir = image.cache_root() / f"run-{name}"
    paths: dict[str, Path] = {}

    def host() -> None:
        paths["wheels"] = wheels.fetch(tree, release, log, arch)
        paths["image"] = image.build(release, log, arch)

    def boot() -> None:
        stage_share(tree, run_dir / "share", paths["wheels"])
        run.guest = Guest(paths["image"], run_dir, image.apt_dir(release, arch), board, arch=arch)
        run.guest.start()
        info = run.guest.wait_ready()
        s["guest_kernel"] = info.get("kernel")
        s["guest_boot_s"] = info.get("uptime_s")

    if not run.stage("host", host, *result.CHECKS) or not run.stage("boot", boot, *result.CHECKS):
        s["seconds"] = round(time.monotonic() - start, 1)
        if run.guest:
            run.guest.stop()
        return s
    try:
        stages.all_stages(run)
    finally:
        run.guest.stop()
        s["seconds"] = round(time.monotonic() - start, 1)
        (image.cache_root() / f"last-check-{name}.json").write_text(result.to_json(s))
        if not keep:
            shutil.rmtree(run_dir / "share" / "src", ignore_errors=True)
            (run_dir / "disk.qcow2").unlink(missing_ok=True)
    return s
