"""The host tools the SD image and the emulated Pi 4 need, from Debian trixie: one cached chroot.

This host's QEMU (bookworm's 7.2) has no ``raspi4b`` machine (QEMU 9.0 added it), and the host
lacks the device-tree compiler, FAT tools and bmaptool; trixie has them all (QEMU 10.0). So
mmdebstrap makes a small amd64 trixie root with them (natively, about 15 s beside its downloads),
cached by the hash of its recipe, and every tool runs chrooted in it, in a mount namespace of its
own (:func:`vm.image.in_root_mounts`), with the work directory bound in at the same path.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from vm import image

RELEASE = "trixie"
PACKAGES = ["qemu-system-arm", "device-tree-compiler", "dosfstools", "mtools", "fdisk", "e2fsprogs",
            "bmap-tools"]


def command(out: Path) -> list[str]:
    return image.mmdebstrap(RELEASE, "amd64", image.apt_dir(RELEASE, "amd64"), out, PACKAGES)


def root_dir() -> Path:
    return image.cache_root() / f"tools-{RELEASE}-{image.recipe_hash(command(Path('R')))}"


def build(log) -> Path:
    """Build (or reuse) the tools' root."""
    out = root_dir()
    if (out / "usr" / "bin" / "qemu-system-aarch64").exists():
        return out
    work = out.with_name(out.name + ".building")
    image.fresh(work)
    work.rmdir()  # mmdebstrap makes the directory itself
    image.apt_dir(RELEASE, "amd64").mkdir(parents=True, exist_ok=True)
    log(f"making {RELEASE}'s QEMU, dtc, FAT tools and bmaptool (mmdebstrap, amd64; cached)")
    log_file = out.with_name(out.name + ".log")
    image.logged(command(work), log_file, "mmdebstrap of the tools")
    image.index_apt(image.apt_dir(RELEASE, "amd64"))
    work.rename(out)
    return out


def command_in(tools: Path, work: Path, *argv: str) -> list[str]:
    """``argv`` run in the tools' root, ``work`` (a host directory) bound in at the same path."""
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mkdir -p "$1$2" && mount --bind "$2" "$1$2" && shift 2 && exec "$@"', "bind-work", str(tools),
            str(work), *image.in_root_mounts(tools, "chroot", str(tools), *argv)]


def run(tools: Path, work: Path, *argv: str, timeout: float | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(command_in(tools, work, *argv), timeout=timeout, **kw)


def popen(tools: Path, work: Path, *argv: str) -> subprocess.Popen:
    return subprocess.Popen(command_in(tools, work, *argv), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def must(tools: Path, work: Path, *argv: str, timeout: float | None = 600) -> str:
    proc = run(tools, work, *argv, timeout=timeout, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc.stdout


if __name__ == "__main__":
    print(build(print))
