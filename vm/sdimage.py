"""``python -m vm image --out FILE``: a flashable arm64 SD card image for a Pi 3, 4 or Zero 2 W.

Built only from Debian trixie's archive (mmdebstrap, arm64, every maintainer script through
qemu-user) and the project's pinned wheels, in two cached layers as the virtual Pi's image
(vm/image.py): the **base**, Debian's packages as one tar file named by the hash of its recipe
(about 20 minutes cold here), and the **card**, the box installed on it by the project's own
installer in a chroot and the partitions written (see :mod:`vm.sdcard`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from vm import image

RELEASE = "trixie"
ARCH = "arm64"
COMPONENTS = ("main", "non-free-firmware")
"""non-free-firmware for the Pi's Wi-Fi chip's firmware (firmware-brcm80211), as Debian's own
Raspberry Pi images have it; everything else is main."""
PACKAGES = [
    "systemd", "systemd-sysv", "udev", "dbus", "kmod", "iproute2", "procps", "ca-certificates",
    "systemd-timesyncd",  # a Pi has no clock of its own: journals' times come from the network
    # Debian's kernel, its initramfs and the Pi's boot firmware (which copies the kernel, the
    # initramfs and the device trees to /boot/firmware and writes config.txt and cmdline.txt)
    "linux-image-arm64", "initramfs-tools", "zstd", "raspi-firmware",
    # what systemd/install.sh asks apt for, and what it builds lgpio from source with (no lgpio
    # in Debian, no cp313 aarch64 wheel on PyPI)
    "python3", "python3-venv", "python3-pip", "python3-dev", "swig", "gcc", "libc6-dev", "i2c-tools",
    # the kernel's own GPIO library, Debian's: the other way to read the buttons (docs/RASPBERRY-PI.md)
    "python3-libgpiod",
    # the card: the data partition grown to the card at first boot (sfdisk, e2fsprogs: in the
    # initramfs), the file systems checked at boot. cloud-guest-utils (growpart) is no longer used:
    # it goes at the base's next rebuild, as dropping it now would rebuild the base (20 minutes).
    "cloud-guest-utils", "fdisk", "e2fsprogs", "dosfstools",
    # Wi-Fi, configured from the firmware partition (vm/sd/root/usr/local/sbin/companion-wifi)
    "wpasupplicant", "firmware-brcm80211",
    "sudo",
]


def base_command(archive: Path, tar: Path) -> list[str]:
    return image.mmdebstrap(RELEASE, ARCH, archive, tar, PACKAGES, components=COMPONENTS)


def base_dir() -> Path:
    return image.cache_root() / f"sdbase-{RELEASE}-{ARCH}-{image.recipe_hash(base_command(Path('A'), Path('B.tar')))}"


def build_base(log) -> Path:
    """Build (or reuse) the card's base: :data:`PACKAGES` for arm64, as ``base.tar``."""
    out = base_dir()
    if (out / "base.tar").exists():
        return out
    if shutil.which("mmdebstrap") is None:
        raise RuntimeError("mmdebstrap is not installed (apt-get install mmdebstrap qemu-user-static binfmt-support)")
    image.check_runs_here(ARCH)
    work = out.with_name(out.name + ".building")
    image.fresh(work)
    archive = image.apt_dir(RELEASE, ARCH)
    archive.mkdir(parents=True, exist_ok=True)
    log(f"building the card's {RELEASE} {ARCH} base (mmdebstrap through qemu-user: about 20 minutes; cached)")
    image.logged(base_command(archive, work / "base.tar"), work / "build.log", "mmdebstrap")
    image.index_apt(archive)
    work.rename(out)
    return out


if __name__ == "__main__":
    print(build_base(print))
