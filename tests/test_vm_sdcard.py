"""The card's build refuses a root without the mount points its fstab names (vm/sdcard.py): on the
read-only root nothing can make one at boot, and the emulated Pi 4 showed what follows, the data
partition mounted and dropped at once (no /var/lib/companion), the unit never started."""

import os
import shutil
from pathlib import Path

import pytest

from vm import sdcard, tools

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


@pytest.mark.skipif(os.geteuid() != 0, reason="the tools' root runs in a mount namespace: needs root")
def test_the_cards_overlay_numbers_the_headers_bus_1_at_400_khz(tmp_path):
    """The card's overlay applied as the firmware (and the emulated Pi 4's check) applies it, with
    fdtoverlay, to a tree with Debian's layout (i2c0, its mux, the header's i2c1; no i2c aliases):
    the header's bus is alias i2c1 (/dev/i2c-1) at 400 kHz."""
    tools_root = tools.build(print)
    (tmp_path / "pi4.dts").write_text("""/dts-v1/;
/ { aliases { serial0 = "/soc/serial@7e201000"; };
    soc { i2c@7e205000 { clock-frequency = <100000>; }; i2c@7e804000 { clock-frequency = <100000>; }; };
    i2c0mux { i2c@0 { }; i2c@1 { }; }; };
""")
    (tmp_path / "o.dts").write_text(sdcard.I2C_OVERLAY_SOURCE)
    must = lambda *argv: tools.must(tools_root, tmp_path, *argv).strip()  # noqa: E731
    must("dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(tmp_path / "pi4.dtb"), str(tmp_path / "pi4.dts"))
    must("dtc", "-q", "-@", "-I", "dts", "-O", "dtb", "-o", str(tmp_path / "o.dtbo"), str(tmp_path / "o.dts"))
    must("fdtoverlay", "-i", str(tmp_path / "pi4.dtb"), "-o", str(tmp_path / "out.dtb"), str(tmp_path / "o.dtbo"))
    out = str(tmp_path / "out.dtb")
    assert must("fdtget", out, "/aliases", "i2c1") == "/soc/i2c@7e804000"
    assert must("fdtget", out, "/aliases", "i2c0") == "/soc/i2c@7e205000"
    assert must("fdtget", out, "/aliases", "serial0") == "/soc/serial@7e201000"
    assert must("fdtget", out, "/soc/i2c@7e804000", "clock-frequency") == "400000"
