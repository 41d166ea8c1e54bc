"""The card's data partition grown at first boot (vm/sd/root/usr/local/sbin/companion-grow-data), on a
real loop device holding a small card laid out as vm/sdcard.py lays the real one, the script run by
trixie's own sh, sfdisk and e2fsprogs (the tools' root, vm/tools.py), as the card's initramfs runs it.

Needs root (losetup, mount) and a kernel that reads MBR partition tables; skipped otherwise (the
emulated Pi 4's check, data_grown and journals_on_data, runs it on the card itself)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from vm import sdcard, tools

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("losetup") is None
                                or not Path("/dev/loop-control").exists(),
                                reason="needs root and loop devices")
SCRIPT = Path(__file__).resolve().parents[1] / "vm" / "sd" / "root" / "usr" / "local" / "sbin" / "companion-grow-data"
CARD_MIB = 64
DATA_MIB = 8
MIB_SECTORS = 2048


@pytest.fixture(scope="module")
def tools_root():
    return tools.build(print)


@pytest.fixture
def card(tmp_path, tools_root):
    """A 64 MiB card: firmware, root A and B (empty), and the data partition as flashed (8 MiB of
    ext4 holding a journal), its end far from the card's; attached with its partitions."""
    data = tmp_path / "data"
    (data / "games").mkdir(parents=True)
    (data / "games" / "night.jsonl").write_text('{"event": "start"}\n')
    sdcard.ext4(data, tmp_path / "data.ext4", "companion-data", DATA_MIB)
    image = tmp_path / "card.img"
    sdcard.assemble(image, [(None, 4, "c"), (None, 4, "83"), (None, 4, "83"), (tmp_path / "data.ext4", DATA_MIB, "83")],
                    "8a1b2c3d", tools_root, tmp_path)
    with open(image, "r+b") as f:
        f.truncate(CARD_MIB * 1024 * 1024)  # the card larger than the image flashed on it
    loop = subprocess.run(["losetup", "--show", "-f", "-P", str(image)], check=True, capture_output=True,
                          text=True).stdout.strip()
    try:
        if not (Path("/sys/block") / Path(loop).name / f"{Path(loop).name}p4").exists():
            pytest.skip("this host's kernel reads no MBR partition table (CONFIG_MSDOS_PARTITION)")
        yield tmp_path, loop
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)


def grow(tools_root, work: Path, loop: str) -> subprocess.CompletedProcess:
    shutil.copy(SCRIPT, work / "grow")
    return tools.run(tools_root, work, "sh", str(work / "grow"), f"{loop}p4", capture_output=True, text=True,
                     timeout=300)


def sectors(loop: str, name: str = "") -> int:
    path = Path("/sys/block") / Path(loop).name / (f"{Path(loop).name}{name}" if name else "") / "size"
    return int(path.read_text())


def fs_sectors(part: str) -> int:
    out = subprocess.run(["dumpe2fs", "-h", part], check=True, capture_output=True, text=True).stdout
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    return int(fields["Block count"]) * int(fields["Block size"]) // 512


def journal_after(work: Path, part: str) -> str:
    mnt = work / "mnt"
    mnt.mkdir(exist_ok=True)
    subprocess.run(["mount", "-o", "ro", part, str(mnt)], check=True)
    try:
        return (mnt / "games" / "night.jsonl").read_text()
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_the_data_partition_and_its_file_system_reach_the_cards_end(card, tools_root):
    work, loop = card
    assert sectors(loop, "p4") == DATA_MIB * MIB_SECTORS
    run = grow(tools_root, work, loop)
    assert run.returncode == 0, run.stdout + run.stderr
    start = int((Path("/sys/block") / Path(loop).name / f"{Path(loop).name}p4" / "start").read_text())
    end = start + sectors(loop, "p4")
    assert sectors(loop) - end < MIB_SECTORS, run.stdout
    assert sectors(loop, "p4") - fs_sectors(f"{loop}p4") < MIB_SECTORS, run.stdout
    assert journal_after(work, f"{loop}p4") == '{"event": "start"}\n'
    again = grow(tools_root, work, loop)
    assert again.returncode == 0 and "already fill the card" in again.stdout, again.stdout + again.stderr


def test_a_boot_cut_between_the_partition_and_its_file_system_is_finished_by_the_next(card, tools_root):
    work, loop = card
    tools.must(tools_root, work, "sh", "-c", f'echo ", +" | sfdisk --quiet -N 4 {loop}')
    assert fs_sectors(f"{loop}p4") == DATA_MIB * MIB_SECTORS
    run = grow(tools_root, work, loop)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "grew the file system" in run.stdout
    assert sectors(loop, "p4") - fs_sectors(f"{loop}p4") < MIB_SECTORS
    assert journal_after(work, f"{loop}p4") == '{"event": "start"}\n'


def test_a_device_that_is_not_a_partition_is_refused_by_name(card, tools_root):
    work, loop = card
    shutil.copy(SCRIPT, work / "grow")
    whole = tools.run(tools_root, work, "sh", str(work / "grow"), loop, capture_output=True, text=True, timeout=300)
    assert whole.returncode == 1 and "is not a partition" in whole.stderr, whole.stdout + whole.stderr
