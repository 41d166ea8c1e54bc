"""The card layer of ``python -m vm image``: the box installed on the base, the partitions written.

The card (MBR, so a Pi 3's and Zero 2 W's boot ROM reads it too; systemd-repart and
systemd-sysupdate want GPT):

====  ========  ======================================================================
 p1   firmware  FAT: Debian's raspi-firmware files, its config.txt with the installer's lines,
                ``slot.txt`` (``os_prefix=a/``) and a/ (b/ after an update): the kernel, the
                initramfs, Debian's device trees, cmdline.txt and overlays of that slot
 p2   root A    ext4, read-only (``ro`` on cmdline.txt, no / in fstab): Debian with the box
                installed by systemd/install.sh and its unit enabled
 p3   root B    the same size, empty: where an update writes the next release
 p4   data      ext4, /var/lib/companion: the journals and settings; grown to the card at first
                boot by the initramfs, before systemd (vm/sd/root/usr/local/sbin/companion-grow-data)
====  ========  ======================================================================

The installer's 400 kHz (``dtparam=i2c_arm_baudrate``) needs the device tree's ``__overrides__``,
which Raspberry Pi's own device trees have and Debian's (the kernel's upstream ones) do not, so the
firmware ignores it there: the card adds an overlay that sets the bus's clock-frequency itself
(:data:`I2C_OVERLAY`). The same overlay names the header's bus i2c1 in ``/aliases``, as Raspberry
Pi's trees do and Debian's do not: without it the emulated Pi 4's kernel numbered the header's bus
/dev/i2c-3 (after i2c0 and its mux's two channels), and the box, which opens bus 1, found no display.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from vm import image, sdimage, tools, wheels

HERE = Path(__file__).resolve().parent / "sd"
MIB = 1024 * 1024
FIRMWARE_MIB = 256
DATA_MIB = 64
"""The data partition as flashed: the initramfs grows it to the card's end at first boot."""
I2C_OVERLAY = "companion-i2c-400k"
I2C_OVERLAY_SOURCE = """/dts-v1/;
/plugin/;
/* The header's I2C bus (i2c1, GPIO 2 and 3) at 400 kHz on Debian's own device trees, which have no
   __overrides__ for config.txt's dtparam=i2c_arm_baudrate (written by vm/sdcard.py); and numbered 1
   (/dev/i2c-1), which those trees do not say: without an alias the kernel numbers the buses as they
   come, i2c0's two mux channels first, and the header's bus was /dev/i2c-3. */
/ {
\tcompatible = "brcm,bcm2711", "brcm,bcm2837", "brcm,bcm2835";
\tfragment@0 {
\t\ttarget-path = "/soc/i2c@7e804000";
\t\t__overlay__ { clock-frequency = <400000>; };
\t};
\tfragment@1 {
\t\ttarget-path = "/aliases";
\t\t__overlay__ { i2c0 = "/soc/i2c@7e205000"; i2c1 = "/soc/i2c@7e804000"; };
\t};
};
"""
SLOT_FILES = ("vmlinuz-*", "initrd.img-*", "bcm*.dtb", "cmdline.txt")


def card_dir(tree: Path) -> Path:
    """The card's cache directory: the base's and the wheels' names and every file that shapes it
    (vm/sd, this module, the installer and the product's source)."""
    h = hashlib.sha256((sdimage.base_dir().name + wheels.wheel_dir(tree, sdimage.RELEASE, sdimage.ARCH).name).encode())
    files = [Path(__file__)] + sorted(p for p in HERE.rglob("*") if p.is_file())
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    for rel in card_sources(tree):
        h.update(str(rel).encode())
        h.update((tree / rel).read_bytes())
    return image.cache_root() / f"card-{sdimage.RELEASE}-{sdimage.ARCH}-{h.hexdigest()[:12]}"


def disk_id(card: Path) -> str:
    """The MBR's disk identifier, from the card's hash: PARTUUID=<id>-02 is root A on every card."""
    return card.name.rsplit("-", 1)[1][:8]


INSTALLED = ("companion", "systemd", "hardware", "pyproject.toml", "README.md")
"""What of the tree the installer reads: a change elsewhere (vm/, tests/, docs/) keeps the card."""


def card_sources(tree: Path) -> list[Path]:
    from vm.checks import source_files
    return [rel for rel in source_files(tree) if rel.parts[0] in INSTALLED]


def source_tree(tree: Path, dest: Path) -> None:
    for rel in card_sources(tree):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(tree / rel, dest / rel)


def slot_firmware(root: Path, fat: Path, tools_root: Path, work: Path) -> None:
    """The firmware partition's files: Debian's boot files at its top, the slot's in a/."""
    firmware = root / "boot" / "firmware"
    shutil.copytree(firmware, fat)
    slot = fat / "a"
    (slot / "overlays").mkdir(parents=True)
    for pattern in SLOT_FILES:
        for path in fat.glob(pattern):
            path.rename(slot / path.name)
    for path in (fat / "overlays").glob("*.dtbo"):
        shutil.copy2(path, slot / "overlays")
    source = work / f"{I2C_OVERLAY}.dts"
    source.write_text(I2C_OVERLAY_SOURCE)
    tools.must(tools_root, work, "dtc", "-q", "-@", "-I", "dts", "-O", "dtb", "-o",
               str(slot / "overlays" / f"{I2C_OVERLAY}.dtbo"), str(source))
    config = fat / "config.txt"
    config.write_text(config.read_text() + "\n# The card (vm/sdcard.py): the slot booted (os_prefix=a/ or b/), and the header's\n"
                      "# I2C at 400 kHz where the device tree has no __overrides__ for dtparam (Debian's)\n"
                      f"include slot.txt\ndtoverlay={I2C_OVERLAY}\n")
    (fat / "slot.txt").write_text("os_prefix=a/\n")
    for path in firmware.iterdir():
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def missing_mount_points(root: Path) -> list[str]:
    """The mount points the root's fstab names that are not directories in it: a read-only root
    cannot have them made at boot (the mount of the data partition failed so on the emulated Pi 4)."""
    points = [line.split()[1] for line in (root / "etc" / "fstab").read_text().splitlines()
              if line.strip() and not line.lstrip().startswith("#") and len(line.split()) > 1]
    return [point for point in points if point.startswith("/") and not (root / point.lstrip("/")).is_dir()]


def ext4(root: Path, out: Path, label: str, mib: int) -> None:
    """An ext4 of ``root``'s files in 4 KiB blocks (``-T default``): for the 64 MiB flashed, mkfs's
    size rule would take 1 KiB blocks (its "small" type), which the data partition keeps when
    grown to the card at first boot."""
    subprocess.run(["mkfs.ext4", "-q", "-F", "-T", "default", "-L", label, "-d", str(root), str(out), f"{mib}M"],
                   check=True, capture_output=True)


def used_mib(root: Path) -> int:
    out = subprocess.run(["du", "-sxm", str(root)], check=True, capture_output=True, text=True).stdout
    return int(out.split()[0])


def assemble(out: Path, parts: list[tuple[Path | None, int, str]], disk: str, tools_root: Path, work: Path) -> None:
    """Write the MBR (sfdisk) and each partition's file system at its offset; ``parts`` are
    (file or None for an empty partition, size in MiB, MBR type)."""
    start = 4  # MiB: the first partition where Raspberry Pi OS's starts
    total = start + sum(size for _, size, _ in parts)
    with open(out, "wb") as f:
        f.truncate(total * MIB)
    script = [f"label: dos", f"label-id: 0x{disk}", "unit: sectors"]
    offset = start
    for _, size, kind in parts:
        script.append(f"start={offset * 2048}, size={size * 2048}, type={kind}")
        offset += size
    tools.run(tools_root, work, "sfdisk", "--quiet", str(out), input="\n".join(script) + "\n", text=True,
              check=True, capture_output=True)
    offset = start
    for part, size, _ in parts:
        if part is not None:
            subprocess.run(["dd", f"if={part}", f"of={out}", "bs=1M", f"seek={offset}", "conv=notrunc,sparse",
                            "status=none"], check=True)
        offset += size


def build(tree: Path, log) -> Path:
    """Build (or reuse) the card; returns its directory (``card.img``, ``card.img.bmap``)."""
    out = card_dir(tree)
    if (out / "card.img").exists():
        return out
    wheel_path = wheels.fetch(tree, sdimage.RELEASE, log, sdimage.ARCH)
    base = sdimage.build_base(log)
    tools_root = tools.build(log)
    work = out.with_name(out.name + ".building")
    image.fresh(work)
    root, src, fat = work / "root", work / "src", work / "firmware"
    root.mkdir()
    disk = disk_id(out)
    log_file = work / "build.log"
    log("the card's root: the base unpacked, the box installed by systemd/install.sh (lgpio built "
        "from source under qemu-user: minutes)")
    image.logged(["tar", "-xpf", str(base / "base.tar"), "--numeric-owner", "-C", str(root)], log_file,
                 "unpacking the base")
    source_tree(tree, src)
    image.logged(image.in_root_mounts(root, "sh", str(HERE / "customize.sh"), str(root),
                                      str(image.apt_dir(sdimage.RELEASE, sdimage.ARCH)), str(src), str(wheel_path), disk),
                 log_file, "the card's customize.sh (the installer)")
    missing = missing_mount_points(root)
    if missing:
        raise RuntimeError(f"the card's root has no {', '.join(missing)} for its fstab: on a read-only root "
                           "nothing can make them at boot, and those partitions would not mount")
    log("the card's partitions")
    slot_firmware(root, fat, tools_root, work)
    fat_img = work / "firmware.vfat"
    with open(fat_img, "wb") as f:
        f.truncate(FIRMWARE_MIB * MIB)
    tools.must(tools_root, work, "mkfs.vfat", "-F", "32", "-n", "FIRMWARE", str(fat_img))
    tools.must(tools_root, work, "mcopy", "-s", "-i", str(fat_img), *[str(p) for p in sorted(fat.iterdir())], "::")
    root_mib = (used_mib(root) * 5 // 4 // 64 + 4) * 64  # a quarter free, rounded up to 64 MiB
    ext4(root, work / "root.ext4", "root", root_mib)
    data = work / "data"
    data.mkdir()
    ext4(data, work / "data.ext4", "companion-data", DATA_MIB)
    assemble(work / "card.img", [(fat_img, FIRMWARE_MIB, "c"), (work / "root.ext4", root_mib, "83"),
                                 (None, root_mib, "83"), (work / "data.ext4", DATA_MIB, "83")], disk, tools_root, work)
    tools.must(tools_root, work, "bmaptool", "create", "-o", str(work / "card.img.bmap"), str(work / "card.img"))
    shutil.rmtree(root)
    shutil.rmtree(src)
    for name in ("firmware.vfat", "root.ext4", "data.ext4"):
        (work / name).unlink()
    work.rename(out)
    return out


def export(card: Path, out: Path) -> None:
    """The card's image and its block map at ``out`` (sparse: only written blocks take room)."""
    subprocess.run(["cp", "--sparse=always", str(card / "card.img"), str(out)], check=True)
    shutil.copy(card / "card.img.bmap", f"{out}.bmap")
