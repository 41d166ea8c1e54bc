"""The card's build refuses a root without the mount points its fstab names (vm/sdcard.py): on the
read-only root nothing can make one at boot, and the emulated Pi 4 showed what follows, the data
partition mounted and dropped at once (no /var/lib/companion), the unit never started."""

import shutil
from pathlib import Path

from vm import sdcard

FSTAB = Path(__file__).resolve().parents[1] / "vm" / "sd" / "root" / "etc" / "fstab"


def card_root(tmp_path: Path, *dirs: str) -> Path:
    (tmp_path / "etc").mkdir()
    shutil.copy(FSTAB, tmp_path / "etc" / "fstab")
    for d in dirs:
        (tmp_path / d).mkdir(parents=True)
    return tmp_path


def test_a_root_without_the_data_partitions_mount_point_is_named(tmp_path):
    root = card_root(tmp_path, "boot/firmware", "tmp", "var/tmp", "var/lib/systemd")
    assert sdcard.missing_mount_points(root) == ["/var/lib/companion"]


def test_a_root_with_every_mount_point_passes(tmp_path):
    root = card_root(tmp_path, "boot/firmware", "tmp", "var/tmp", "var/lib/systemd", "var/lib/companion")
    assert sdcard.missing_mount_points(root) == []
