"""The card's update (vm/sd/root/usr/local/sbin/companion-slot update), on real loop devices: the
running root A mounted read-only as the card mounts it, slot B's partition holding an old
release's bytes, the script run by trixie's own sh and e2fsprogs (the tools' root, vm/tools.py),
as the card runs it. Each partition is a loop device of its own (this host's kernel reads no MBR
partition table); the firmware partition is a tmpfs mounted read-only, as the card's FAT is.

Needs root (losetup, mount); skipped otherwise (the emulated Pi 4's check runs it on the card,
update_keeps_journals)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from vm import sdcard, tools

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("losetup") is None
                                or not Path("/dev/loop-control").exists(),
                                reason="needs root and loop devices")
SCRIPT = Path(__file__).resolve().parents[1] / "vm" / "sd" / "root" / "usr" / "local" / "sbin" / "companion-slot"
DISK = "8a1b2c3d"
ROOT_MIB = 24
BLOCK = 4096


@pytest.fixture(scope="module")
def tools_root():
    return tools.build(print)


def attach(path: Path) -> str:
    return subprocess.run(["losetup", "--show", "-f", str(path)], check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def card(tmp_path):
    """Root A (an ext4 of a few files: random bytes, a file of zeros, a folder) and slot B's
    partition, as large, full of an old release's random bytes; each on a loop device, named by
    PARTUUID in a folder of links as udev names a card's."""
    files = tmp_path / "files"
    (files / "opt" / "companion").mkdir(parents=True)
    (files / "opt" / "companion" / "release").write_bytes(os.urandom(3 * 1024 * 1024 + 5))
    (files / "opt" / "companion" / "zeros").write_bytes(bytes(2 * 1024 * 1024))  # zeros the copy must write
    (files / "etc").mkdir()
    (files / "etc" / "hostname").write_text("companion\n")
    sdcard.ext4(files, tmp_path / "a.ext4", "root", ROOT_MIB)
    (tmp_path / "b.part").write_bytes(os.urandom(ROOT_MIB * 1024 * 1024))
    loops = [attach(tmp_path / "a.ext4"), attach(tmp_path / "b.part")]
    try:
        parts = tmp_path / "parts"
        parts.mkdir()
        for n, loop in zip((2, 3), loops):
            (parts / f"{DISK}-0{n}").symlink_to(loop)
        (tmp_path / "cmdline").write_text(f"console=ttyS1,115200 root=PARTUUID={DISK}-02 ro rootwait\n")
        yield tmp_path, loops
    finally:
        for loop in loops:
            subprocess.run(["losetup", "-d", loop], check=False)


def update(tools_root, work: Path, root_a: str, previous: str = "") -> subprocess.CompletedProcess:
    """``companion-slot update`` from the running root's partition, root A mounted read-only and
    the firmware partition read-only (slot A's kernel files in a/; ``previous``: the slot the last
    switch left, if any), in the tools' root; then ``companion-slot rollback``'s answer, and
    slot.txt."""
    shutil.copy(SCRIPT, work / "companion-slot")
    w = str(work)
    keep = f'printf "os_prefix={previous}/\\n" > {w}/fw/slot.previous && ' if previous else ""
    run = (f'mkdir -p {w}/fw {w}/running && mount -o ro {root_a} {w}/running && '
           f'mount -t tmpfs fw {w}/fw && mkdir {w}/fw/a && printf "os_prefix=a/\\n" > {w}/fw/slot.txt && {keep}'
           f'cp {w}/cmdline {w}/fw/a/cmdline.txt && echo kernel > {w}/fw/a/vmlinuz && mount -o remount,ro {w}/fw && '
           f'COMPANION_SLOT_FIRMWARE={w}/fw COMPANION_SLOT_CMDLINE={w}/cmdline COMPANION_SLOT_PARTITIONS={w}/parts '
           f'sh {w}/companion-slot update {w}/parts/{DISK}-02 {w}/fw/a; rc=$?; '
           f'cat {w}/fw/slot.txt {w}/fw/b/cmdline.txt; '
           f'COMPANION_SLOT_FIRMWARE={w}/fw COMPANION_SLOT_CMDLINE={w}/cmdline sh {w}/companion-slot rollback; '
           f'umount {w}/running; exit $rc')
    return tools.run(tools_root, work, "sh", "-c", run, capture_output=True, text=True, timeout=300)


def tree(loop: str, mnt: Path) -> dict[str, bytes]:
    mnt.mkdir(exist_ok=True)
    subprocess.run(["mount", "-o", "ro", loop, str(mnt)], check=True)
    try:
        return {str(p.relative_to(mnt)): p.read_bytes() for p in sorted(mnt.rglob("*"))
                if p.is_file() and "lost+found" not in p.parts}
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_the_update_copies_the_roots_used_blocks_into_slot_b_and_switches_the_next_boot(card, tools_root):
    work, (root_a, slot_b) = card
    old = (work / "b.part").read_bytes()
    run = update(tools_root, work, root_a)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "os_prefix=b/" in run.stdout and f"root=PARTUUID={DISK}-03" in run.stdout, run.stdout
    assert tools.run(tools_root, work, "e2fsck", "-fn", slot_b, capture_output=True).returncode == 0
    assert tree(slot_b, work / "mnt") == tree(root_a, work / "mnt")  # every file's bytes, zeros too
    # Only the used blocks were written: the free ones still hold the old release's bytes (dd of
    # the whole partition wrote every block: 1.4 GB through the emulated Pi 4's SD host).
    new = (work / "b.part").read_bytes()
    kept = sum(new[i:i + BLOCK] == old[i:i + BLOCK] for i in range(0, len(new), BLOCK))
    free = int(dict(line.split(":", 1) for line in subprocess.run(
        ["dumpe2fs", "-h", slot_b], check=True, capture_output=True, text=True).stdout.splitlines()
        if ":" in line)["Free blocks"])
    assert kept >= free * 9 // 10, (kept, free)


def test_a_root_that_is_no_file_system_is_refused_and_the_next_boot_kept(card, tools_root):
    work, (root_a, _) = card
    (work / "parts" / f"{DISK}-02").unlink()
    (work / "parts" / f"{DISK}-02").symlink_to(work / "cmdline")
    run = update(tools_root, work, root_a)
    assert run.returncode == 1 and "holds no ext4 file system" in run.stderr, run.stdout + run.stderr
    assert "os_prefix=a/" in run.stdout


def test_a_copy_that_does_not_check_leaves_no_slot_to_roll_back_to(card, tools_root):
    """Running A, the last switch having come from B (slot.previous names B): the update writes B.
    Its copy does not check (a block of root A's files marked free in its bitmap, as a copy cut
    short or a bad card leaves a file system that e2fsck finds wrong): the next boot stays on A, and a rollback
    would boot the half-written B, so there is none. On main slot.previous still named B."""
    work, (root_a, _) = card
    block = tools.run(tools_root, work, "debugfs", "-R", "bmap /opt/companion/release 0", root_a, check=True,
                      capture_output=True, text=True).stdout.split()[-1]
    tools.run(tools_root, work, "debugfs", "-w", "-R", f"freeb {block}", root_a, check=True, capture_output=True)
    run = update(tools_root, work, root_a, previous="b")
    assert run.returncode == 1 and "does not check" in run.stderr, run.stdout + run.stderr
    assert "os_prefix=a/" in run.stdout
    assert "no previous slot to roll back to" in run.stderr, run.stdout + run.stderr
