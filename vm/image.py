"""The virtual Pi's disk image: a minimal Debian of the chosen release and architecture, cached.

The image holds what a Pi's OS gives before the installer runs (systemd, udev, python3, i2c-tools,
sudo) plus the harness's own parts: the job agent's service, the unit that makes the virtual
board's GPIO chip and I2C bus at every boot, the kernel modules of vm/kernel built against the
guest's own kernel, and stress-ng for the delivery figures under load. The product is not in it:
each check installs it from the tree, as a maker would.

It is built in two layers, each cached on its own:

- **the base**: Debian's packages installed by mmdebstrap, kept as one tar file. For ``arm64``
  (a Pi's own architecture) on an x86 host every maintainer script runs through qemu-user, which
  took 19 minutes here (1,159 s, beside other work); the base depends only on the release, the
  architecture and the package list, so a change to the harness never pays that again.
- **the image**: the base unpacked, the harness's files added and its modules built (in the
  base's own chroot, in a mount namespace of its own, so an interrupted build leaves no mount),
  written as an ext4 file system. A few minutes.

The guest has no network. Its apt reads a local archive the host keeps (:func:`apt_dir`): every
package mmdebstrap fetched, kept between builds (a rebuild downloads nothing it already has) and
indexed, which the guest mounts read-only; so the installer's ``apt-get update`` and ``install``
run against it, never against Debian's archive.

The cache lives outside the clone (``$XDG_CACHE_HOME/companion-vm``), one directory per layer,
release, architecture and hash of every input that shapes that layer.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIRROR = "http://deb.debian.org/debian"
RELEASES = {"trixie": "3.13", "bookworm": "3.11"}  # release -> the guest's CPython
MACHINES = {"amd64": "x86_64", "arm64": "aarch64"}
"""The guest's architecture, as Debian names it -> the machine, as the kernel (``uname -m``),
qemu-user and the wheels' tags name it: ``amd64`` (fast under the emulator, what CI checks) or
``arm64``, a Pi's own (Raspberry Pi OS is arm64), where no lgpio wheel exists for CPython 3.13."""
ARCHES = tuple(MACHINES)
IMAGE_SIZE = "4G"
PACKAGES = [
    "systemd", "systemd-sysv", "udev", "dbus", "kmod", "iproute2", "procps", "ca-certificates",
    "linux-image-{arch}", "initramfs-tools", "zstd",
    "python3", "python3-venv", "python3-pip", "i2c-tools", "stress-ng",
    # what the installer asks apt for where lgpio is built from source (plain Debian, Python 3.13):
    # in the image, so each run does not unpack them again under the emulator
    "python3-dev", "swig",
    # to build vm/kernel's modules against the guest's own kernel, in the image build only
    "linux-headers-{arch}", "gcc", "make", "libc6-dev", "xz-utils",
    # the maker's own path: a user with sudo runs the installer
    "sudo",
]
KERNEL_SOURCE = "linux-source"
"""Only three .c files of it are needed (vm/guest/customize.sh); Debian's archive offers the kernel's
source only whole (one .deb, 139 MB for 6.12), so it is downloaded into the host's apt archive once
and never installed: the three files are read out of the .deb."""
DEBS = "/var/cache/apt/archives"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "companion-vm"


def packages(arch: str) -> list[str]:
    return [name.format(arch=arch) for name in PACKAGES]


def apt_dir(release: str, arch: str = "amd64") -> Path:
    """The release's local apt archive on the host: the .deb files and their index (Packages)."""
    return cache_root() / (f"apt-{release}" if arch == "amd64" else f"apt-{release}-{arch}")


def index_apt(archive: Path) -> None:
    """Write the archive's index (a flat repository: ``deb [trusted=yes] file:DIR ./``)."""
    with open(archive / "Packages", "w") as f:
        subprocess.run(["dpkg-scanpackages", "--multiversion", "."], cwd=archive, stdout=f,
                       stderr=subprocess.DEVNULL, check=True)


def mmdebstrap(release: str, arch: str, archive: Path, out: Path, include: list[str], variant: str = "minbase",
               hooks: tuple[str, ...] = (), components: tuple[str, ...] = ("main",)) -> list[str]:
    """mmdebstrap's command for ``include`` on ``arch``, its packages kept in ``archive``:
    mmdebstrap's own recipe for a kept package cache, the archive synced in before apt runs and
    back out (with whatever ``hooks`` fetched) before the root is cleaned. ``components`` beyond
    main (the SD image's Wi-Fi firmware is in non-free-firmware) are named to mmdebstrap."""
    extra = [] if components == ("main",) else ["--components=" + ",".join(components)]
    return ["mmdebstrap", f"--variant={variant}", "--mode=root", f"--architectures={arch}", *extra,
            "--include=" + ",".join(include), "--skip=essential/unlink",
            f'--setup-hook=mkdir -p "$1"{DEBS}', f"--setup-hook=sync-in {archive} {DEBS}",
            *(f"--customize-hook={hook}" for hook in hooks), f"--customize-hook=sync-out {DEBS} {archive}",
            release, str(out), MIRROR]


def base_command(release: str, arch: str, archive: Path, tar: Path) -> list[str]:
    """The base: :data:`PACKAGES` installed, and the kernel's source fetched but never installed."""
    fetch_source = (f'chroot "$1" apt-get install -y -q --download-only --no-install-recommends '
                    f'{KERNEL_SOURCE} >/dev/null')
    return mmdebstrap(release, arch, archive, tar, packages(arch), hooks=(fetch_source,))


def recipe_hash(command: list[str]) -> str:
    """A hash of an mmdebstrap command as it would run anywhere (paths left out by the caller)."""
    return hashlib.sha256("\0".join(command).encode()).hexdigest()[:12]


def base_dir(release: str, arch: str) -> Path:
    return cache_root() / f"base-{release}-{arch}-{recipe_hash(base_command(release, arch, Path('A'), Path('B.tar')))}"


def image_dir(release: str, arch: str = "amd64") -> Path:
    """The image's directory, named by a hash of its base and of everything this layer adds (this
    file, vm/guest, vm/kernel): a change to any of it builds a new image."""
    h = hashlib.sha256(base_dir(release, arch).name.encode())
    files = [Path(__file__)] + sorted(p for d in ("guest", "kernel") for p in (HERE / d).rglob("*")
                                      if p.is_file())
    for path in files:
        h.update(str(path.relative_to(HERE)).encode())
        h.update(path.read_bytes())
    return cache_root() / f"{release}-{arch}-{h.hexdigest()[:12]}"


def is_built(release: str, arch: str = "amd64") -> bool:
    d = image_dir(release, arch)
    return all((d / name).exists() for name in ("rootfs.img", "vmlinuz", "initrd.img"))


def check_runs_here(arch: str) -> None:
    """``arch``'s programs must run on this machine: natively, or through qemu-user registered with
    the kernel's binfmt_misc (with its F flag, so a chroot finds it)."""
    machine = MACHINES[arch]
    if machine != platform.machine() and not Path(f"/proc/sys/fs/binfmt_misc/qemu-{machine}").exists():
        raise RuntimeError(f"{arch} programs cannot run here: install qemu-user-static and binfmt-support "
                           f"(update-binfmts --enable qemu-{machine})")


def in_root_mounts(root: Path, *command: str) -> list[str]:
    """``command`` in a mount namespace of its own with ``root``'s /dev, /proc and /sys mounted, as a
    chroot needs them: they end with the namespace, so an interrupted run leaves no mount behind."""
    mounts = ('mkdir -p "$1/dev" "$1/proc" "$1/sys" && mount --rbind /dev "$1/dev" && '
              'mount -t proc proc "$1/proc" && mount -t sysfs sys "$1/sys" && shift && exec "$@"')
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", mounts, "in-root", str(root), *command]


def fresh(work: Path) -> None:
    mounted = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
               if line.split()[1].startswith(str(work) + "/")]
    if mounted:  # an interrupted build's chroot mounts (/dev, /proc): never delete through them
        raise RuntimeError(f"an interrupted build left mounts under {work}: umount {' '.join(mounted)}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)


def logged(cmd: list[str], log_file: Path, what: str) -> None:
    with open(log_file, "a") as f:  # not on stdout, which carries the check's --json summary
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    if rc != 0:
        tail = log_file.read_text(errors="replace").splitlines()[-30:]
        raise RuntimeError(f"{what} failed ({rc}); see {log_file}:\n" + "\n".join(tail))


def build_base(release: str, arch: str, log) -> Path:
    """Build (or reuse) the base: the release's packages for ``arch``, as ``base.tar``."""
    out = base_dir(release, arch)
    if (out / "base.tar").exists():
        return out
    if shutil.which("mmdebstrap") is None:
        raise RuntimeError("mmdebstrap is not installed (apt-get install mmdebstrap qemu-system-x86 qemu-utils)")
    check_runs_here(arch)
    work = out.with_name(out.name + ".building")
    fresh(work)
    archive = apt_dir(release, arch)
    archive.mkdir(parents=True, exist_ok=True)
    log(f"building the {release} {arch} base (mmdebstrap: 2 minutes for amd64, about 20 for arm64 "
        "through qemu-user; cached)")
    logged(base_command(release, arch, archive, work / "base.tar"), work / "build.log", "mmdebstrap")
    index_apt(archive)
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    return out


def build(release: str, log, arch: str = "amd64") -> Path:
    """Build (or reuse) the release's image; returns its directory. Needs root and mmdebstrap."""
    if release not in RELEASES:
        raise ValueError(f"no such release {release!r}: one of {', '.join(RELEASES)}")
    if arch not in ARCHES:
        raise ValueError(f"no such architecture {arch!r}: one of {', '.join(ARCHES)}")
    out = image_dir(release, arch)
    if is_built(release, arch):
        return out
    base = build_base(release, arch, log)
    work = out.with_name(out.name + ".building")
    fresh(work)
    root = work / "root"
    root.mkdir()
    log(f"building the {release} {arch} image from its base (the harness's files and modules)")
    logged(["tar", "-xpf", str(base / "base.tar"), "--numeric-owner", "-C", str(root)],
            work / "build.log", "unpacking the base")
    customize = HERE / "guest" / "customize.sh"
    logged(in_root_mounts(root, "sh", str(customize), str(root), str(apt_dir(release, arch))),
            work / "build.log", "the harness's customize.sh")
    kernels = sorted((root / "boot").glob("vmlinuz-*"))
    initrds = sorted((root / "boot").glob("initrd.img-*"))
    if not kernels or not initrds:
        raise RuntimeError(f"the image has no kernel or initrd in {root / 'boot'}")
    shutil.copy(kernels[-1], work / "vmlinuz")
    shutil.copy(initrds[-1], work / "initrd.img")
    logged(["mkfs.ext4", "-q", "-F", "-L", "root", "-d", str(root), str(work / "rootfs.img"), IMAGE_SIZE],
            work / "build.log", "mkfs.ext4")
    shutil.rmtree(root)
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    return out


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else "trixie", log=print,
                arch=sys.argv[2] if len(sys.argv) > 2 else "amd64"))
