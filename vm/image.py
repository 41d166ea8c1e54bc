"""The virtual Pi's disk image: a minimal Debian of the chosen release, built by mmdebstrap, cached.

The image holds what a Pi's OS gives before the installer runs (systemd, udev, python3, i2c-tools,
sudo) plus the harness's own parts: the job agent's service, the unit that makes the virtual
board's GPIO chip and I2C bus at every boot, the kernel modules of vm/kernel built against the
guest's own kernel, and stress-ng for the delivery figures under load. The product is not in it:
each check installs it from the tree, as a maker would.

The guest has no network. Its apt reads a local archive the host keeps (:func:`apt_dir`): every
package mmdebstrap fetched, kept between builds (a rebuild downloads nothing it already has) and
indexed, which the guest mounts read-only; so the installer's ``apt-get update`` and ``install``
run against it, never against Debian's archive.

The cache lives outside the clone (``$XDG_CACHE_HOME/companion-vm``), one directory per release and
per hash of every input that shapes the image (this file, vm/guest, vm/kernel, the package list),
so changing any of them builds a new image and an unchanged tree reuses the old one.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIRROR = "http://deb.debian.org/debian"
RELEASES = {"trixie": "3.13", "bookworm": "3.11"}  # release -> the guest's CPython
IMAGE_SIZE = "4G"
PACKAGES = [
    "systemd", "systemd-sysv", "udev", "dbus", "kmod", "iproute2", "procps", "ca-certificates",
    "linux-image-amd64", "initramfs-tools", "zstd",
    "python3", "python3-venv", "python3-pip", "i2c-tools", "stress-ng",
    # what the installer asks apt for where lgpio is built from source (plain Debian, Python 3.13):
    # in the image, so each run does not unpack them again under the emulator
    "python3-dev", "swig",
    # to build vm/kernel's modules against the guest's own kernel, in the image build only
    "linux-headers-amd64", "gcc", "make", "libc6-dev", "xz-utils",
    # the maker's own path: a user with sudo runs the installer
    "sudo",
]
KERNEL_SOURCE = "linux-source"
"""Only three .c files of it are needed (vm/guest/customize.sh); Debian's archive offers the kernel's
source only whole (one .deb, 139 MB for 6.12), so it is downloaded into the host's apt archive once
and never installed: the three files are read out of the .deb."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "companion-vm"


def inputs_hash(release: str) -> str:
    """A hash of everything that shapes the image: a change to any of it builds a new one."""
    h = hashlib.sha256(release.encode())
    h.update("\n".join(PACKAGES).encode())
    files = [Path(__file__)] + sorted(p for d in ("guest", "kernel") for p in (HERE / d).rglob("*")
                                      if p.is_file())
    for path in files:
        h.update(str(path.relative_to(HERE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def apt_dir(release: str) -> Path:
    """The release's local apt archive on the host: the .deb files and their index (Packages)."""
    return cache_root() / f"apt-{release}"


def index_apt(archive: Path) -> None:
    """Write the archive's index (a flat repository: ``deb [trusted=yes] file:DIR ./``)."""
    with open(archive / "Packages", "w") as f:
        subprocess.run(["dpkg-scanpackages", "--multiversion", "."], cwd=archive, stdout=f,
                       stderr=subprocess.DEVNULL, check=True)


def image_dir(release: str) -> Path:
    return cache_root() / f"{release}-{inputs_hash(release)}"


def is_built(release: str) -> bool:
    d = image_dir(release)
    return all((d / name).exists() for name in ("rootfs.img", "vmlinuz", "initrd.img"))


def build(release: str, log) -> Path:
    """Build (or reuse) the release's image; returns its directory. Needs root and mmdebstrap."""
    if release not in RELEASES:
        raise ValueError(f"no such release {release!r}: one of {', '.join(RELEASES)}")
    out = image_dir(release)
    if is_built(release):
        return out
    if shutil.which("mmdebstrap") is None:
        raise RuntimeError("mmdebstrap is not installed (apt-get install mmdebstrap qemu-system-x86 qemu-utils)")
    work = out.with_name(out.name + ".building")
    mounted = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
               if line.split()[1].startswith(str(work) + "/")]
    if mounted:  # an interrupted build's chroot mounts (/dev, /proc): never delete through them
        raise RuntimeError(f"an interrupted build left mounts under {work}: umount {' '.join(mounted)}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    root = work / "root"
    archive = apt_dir(release)
    archive.mkdir(parents=True, exist_ok=True)
    debs = "/var/cache/apt/archives"
    # mmdebstrap's own recipe for a kept package cache: the archive in before apt runs, whatever
    # apt fetched (the kernel's source too, customize.sh) back out before the image is cleaned
    cmd = ["mmdebstrap", "--variant=minbase", "--mode=root", "--format=directory",
           "--include=" + ",".join(PACKAGES), "--skip=essential/unlink",
           f'--setup-hook=mkdir -p "$1"{debs}', f"--setup-hook=sync-in {archive} {debs}",
           "--customize-hook=sh " + str(HERE / "guest" / "customize.sh") + f' "$1" {KERNEL_SOURCE}',
           f"--customize-hook=sync-out {debs} {archive}",
           release, str(root), MIRROR]
    log(f"building the {release} image (mmdebstrap, a few minutes)")
    with open(work / "build.log", "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    if rc != 0:
        tail = (work / "build.log").read_text(errors="replace").splitlines()[-30:]
        raise RuntimeError(f"mmdebstrap failed ({rc}); see {work / 'build.log'}:\n" + "\n".join(tail))
    kernels = sorted((root / "boot").glob("vmlinuz-*"))
    initrds = sorted((root / "boot").glob("initrd.img-*"))
    if not kernels or not initrds:
        raise RuntimeError(f"the image has no kernel or initrd in {root / 'boot'}")
    index_apt(archive)
    shutil.copy(kernels[-1], work / "vmlinuz")
    shutil.copy(initrds[-1], work / "initrd.img")
    with open(work / "build.log", "a") as f:  # not on stdout, which carries the check's --json summary
        subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "root", "-d", str(root), str(work / "rootfs.img"),
                        IMAGE_SIZE], stdout=f, stderr=subprocess.STDOUT, check=True)
    shutil.rmtree(root)
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    return out


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else "trixie", log=print))
