"""The header's I2C bus found by its controller, on sysfs trees laid out as the kernel lays them
out (real directories and symlinks in a temporary folder): Debian's Pi 4 tree, where the header's
bus probed as i2c-3 behind i2c0 and its multiplexer's channels (as on the emulated Pi 4, see
docs/VIRTUAL-PI.md); Raspberry Pi's, where it is i2c-1; a Pi 3 without device-tree links; none."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from companion.adapters.i2cbus import BusFinder, HeaderBusMissing, header_bus
from companion.adapters.displays import open_device
from companion.profile import DisplayProfile


def sysfs_tree(root: Path, adapters: dict[int, tuple[str, str | None]], clients: tuple[str, ...] = ()) -> Path:
    """``root`` as /sys: each adapter number -> (its device's folder under devices/, its
    device-tree node under firmware/devicetree/base/ or None), linked from bus/i2c/devices as
    the kernel links them; ``clients`` (``3-003c``) beside them, as the kernel lists them too."""
    listing = root / "bus" / "i2c" / "devices"
    listing.mkdir(parents=True)
    for number, (device, node) in adapters.items():
        adapter = root / "devices" / device / f"i2c-{number}"
        adapter.mkdir(parents=True)
        if node is not None:
            target = root / "firmware" / "devicetree" / "base" / node
            target.mkdir(parents=True, exist_ok=True)
            (adapter / "of_node").symlink_to(os.path.relpath(target, adapter))
        (listing / f"i2c-{number}").symlink_to(os.path.relpath(adapter, listing))
    for client in clients:
        bus = client.split("-")[0]
        folder = next(root.glob(f"devices/**/i2c-{bus}")) / client
        folder.mkdir()
        (listing / client).symlink_to(os.path.relpath(folder, listing))
    return root


DEBIAN_PI4 = {
    0: ("platform/soc/fe205000.i2c", "soc/i2c@7e205000"),
    1: ("platform/i2c0mux", "i2c0mux/i2c@0"),  # GPIO 0 and 1: the HAT EEPROM's pins
    2: ("platform/i2c0mux", "i2c0mux/i2c@1"),
    3: ("platform/soc/fe804000.i2c", "soc/i2c@7e804000"),
}


def test_on_debians_pi_4_tree_the_header_bus_is_the_one_with_its_controller_not_number_1(tmp_path):
    sysfs = sysfs_tree(tmp_path, DEBIAN_PI4, clients=("3-003c", "1-0050"))
    choice = header_bus(sysfs)
    assert choice.port == 3
    assert "/dev/i2c-3" in choice.why and "i2c@7e804000" in choice.why


def test_raspberry_pis_tree_with_its_aliases_gives_bus_1(tmp_path):
    sysfs = sysfs_tree(tmp_path, {0: ("platform/soc/fe205000.i2c", "soc/i2c@7e205000"),
                                  1: ("platform/soc/fe804000.i2c", "soc/i2c@7e804000"),
                                  20: ("platform/soc/fef04500.i2c", "soc/i2c@7ef04500")})  # HDMI's DDC
    assert header_bus(sysfs).port == 1


@pytest.mark.parametrize("device, soc", [("20804000.i2c", "BCM2835"), ("3f804000.i2c", "BCM2836/7"),
                                         ("fe804000.i2c", "BCM2711")])
def test_without_device_tree_links_the_controller_is_known_by_its_device(tmp_path, device, soc):
    sysfs = sysfs_tree(tmp_path, {0: ("platform/soc/3f205000.i2c", None), 4: (f"platform/soc/{device}", None)})
    choice = header_bus(sysfs)
    assert choice.port == 4 and soc in choice.why and device in choice.why


def test_with_no_header_controller_the_profiles_bus_is_used_and_the_log_says_why(tmp_path, caplog):
    """A Pi 5 on Raspberry Pi's kernel: the header's bus is RP1's, whose tree names it i2c-1."""
    sysfs = sysfs_tree(tmp_path, {1: ("platform/axi/1000120000.pcie/1f00074000.i2c", "axi/pcie@120000/rp1/i2c@74000")})
    finder = BusFinder(sysfs)
    with caplog.at_level(logging.INFO):
        assert finder.port(1) == 1
        assert finder.port(1) == 1
    [said] = [r.getMessage() for r in caplog.records]  # once, not at every opening
    assert "no I2C adapter" in said and "i2c@7e804000" in said and "used as named" in said


def test_no_bus_at_all_is_a_clear_error_naming_what_was_looked_for(tmp_path, caplog):
    sysfs = sysfs_tree(tmp_path, {0: ("platform/soc/fe205000.i2c", "soc/i2c@7e205000")})
    with pytest.raises(HeaderBusMissing) as error:
        header_bus(sysfs)
    message = str(error.value)
    for named in ("i2c@7e804000", "fe804000.i2c", "3f804000.i2c", "no bus 1", "i2c-0", "dtparam=i2c_arm=on"):
        assert named in message
    finder = BusFinder(tmp_path / "no-sysfs")  # not even /sys/bus/i2c: I2C is off
    with caplog.at_level(logging.INFO):
        assert finder.port(1) == 1  # its opening fails and is retried, as a display that fails
    [said] = [r for r in caplog.records]
    assert said.levelno == logging.ERROR and "none" in said.getMessage()


def test_other_ports_are_their_own_numbers(tmp_path):
    finder = BusFinder(sysfs_tree(tmp_path, DEBIAN_PI4))
    assert finder.port(3) == 3  # an i2c-gpio software bus: the overlay's bus= number
    assert finder.port(1) == 3


def test_a_bus_that_appears_later_is_found_at_the_next_opening(tmp_path, caplog):
    finder = BusFinder(tmp_path)
    with caplog.at_level(logging.INFO):
        assert finder.port(1) == 1
        sysfs_tree(tmp_path, DEBIAN_PI4)  # the controller's driver loaded after the box started
        assert finder.port(1) == 3
    assert len(caplog.records) == 2 and "/dev/i2c-3" in caplog.records[1].getMessage()


def test_a_pi_display_opens_the_header_bus_the_finder_found(tmp_path):
    """Through luma's own I2C interface: the panel is opened on /dev/i2c-3, which this machine
    does not have, so luma says which file it tried."""
    from luma.core.error import DeviceNotFoundError

    finder = BusFinder(sysfs_tree(tmp_path, DEBIAN_PI4))
    with pytest.raises(DeviceNotFoundError, match="/dev/i2c-3"):
        open_device(DisplayProfile(), "pi", finder=finder)


def test_stations_with_no_panel_look_for_no_bus(tmp_path, caplog):
    """A buzzer-only wired station and a phone have no panel on the header's bus: with the only
    panel on another bus and the header's I2C off, the box logs no error at its start. On main it
    looked for the header's bus for their displays' default port, and logged it missing as an
    error at every start."""
    from companion.adapters.i2cbus import check_bus_speed
    from companion.profile import load_profile

    from phonebox import profile_with_phones

    path = profile_with_phones(tmp_path, [("Host", {"slap": 4, "left": 17, "ok": 27, "right": 22}),
                                          ("Ana", {"slap": 5})], [(2, "Zoe", True)])
    # the host's panel on a bus of its own (an I2C adapter on USB, say): not the header's
    path.write_text(path.read_text().replace('display = { driver = "ssd1306" }', 'display = { driver = "ssd1306", port = 3 }', 1))
    profile = load_profile(path)
    with caplog.at_level(logging.INFO):
        assert check_bus_speed(profile, BusFinder(tmp_path / "no-sysfs")) == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
