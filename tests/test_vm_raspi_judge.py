"""Every check of the emulated Pi 4 can fail: given the console lines a broken card would print,
each judgement finds a problem, and given a working card's, none (vm/raspi_judge.py)."""

import os
from pathlib import Path

import pytest

from vm import raspi, raspi_judge as judge, tools

KERNEL = "6.12.117+deb13-arm64"
CONSOLE = f"""[    9.1] systemd[1]: Started kernel-command-line.service
vmcheck ready_monotonic_us: 61500000
vmcheck unit_Type: notify
vmcheck unit_ActiveState: active
vmcheck unit_SubState: running
vmcheck unit_StatusText: 3 stations
vmcheck unit_TimeoutStartUSec: 30s
vmcheck unit_WatchdogUSec: 10s
vmcheck loop: pid 310's current scheduling policy: SCHED_FIFO pid 310's current scheduling priority: 20
vmcheck reader: pid 330's current scheduling policy: SCHED_FIFO pid 330's current scheduling priority: 20
vmcheck log: companion.daemon.presenting: ready: first frame on every display
vmcheck kernel: {KERNEL} | Linux version {KERNEL} (debian-kernel@lists.debian.org) #1 SMP Debian 6.12.117-1
vmcheck model: Raspberry Pi 4 Model B
vmcheck md5_card: 0123456789abcdef0123456789abcdef  /boot/firmware/a/vmlinuz-{KERNEL}
vmcheck md5_card: fedcba9876543210fedcba9876543210  /boot/firmware/a/bcm2711-rpi-4-b.dtb
vmcheck md5_debian: 0123456789abcdef0123456789abcdef  boot/vmlinuz-{KERNEL}
vmcheck md5_debian: fedcba9876543210fedcba9876543210  usr/lib/linux-image-{KERNEL}/broadcom/bcm2711-rpi-4-b.dtb
vmcheck i2c: i2c-0 bcm2835 (i2c@7e205000) node=i2c@7e205000 hz=100000
vmcheck i2c: i2c-1 bcm2835 (i2c@7e804000) node=i2c@7e804000 hz=400000
vmcheck i2c_dev: crw-rw---- 1 root i2c 89, 1 Dec  7 06:50 /dev/i2c-1
vmcheck i2c_irq: 44: 120 3 0 0 GICv2 149 Level fe205000.i2c, fe804000.i2c
vmcheck root: /dev/mmcblk0p2 ext4 ro,relatime
vmcheck data: /dev/mmcblk0p4 ext4 rw,noatime,commit=1
vmcheck data_partuuid: 8a1b2c3d-04
vmcheck sizes: mmcblk0 0 4294967296 mmcblk0p1 8192 268435456 mmcblk0p2 532480 1610612736 mmcblk0p3 3678208 1610612736 mmcblk0p4 6823936 800849920 
vmcheck data_fs: Block count: 195520 Block size: 4096
vmcheck slot: a
vmcheck game_rc: 0
vmcheck journal: /var/lib/companion/games/2026-12-07-trio.jsonl 14 0a1b2c3d4e5f6071 on /dev/mmcblk0p4
vmcheck update: companion-slot: the next boot takes slot b
vmcheck update_s: 412
vmcheck cut_journal: /var/lib/companion/cut/2026-12-07-trio.jsonl 4 bad=0 whole 4 aaaabbbbccccdddd
vmcheck cut now
"""
SECOND = """vmcheck slot: b
vmcheck cut_recovered: companion-data: recovering journal
vmcheck cut_journal: /var/lib/companion/cut/2026-12-07-trio.jsonl 4 bad=0 partial 4 aaaabbbbccccdddd
vmcheck resume_rc: 0
vmcheck cut_journal: /var/lib/companion/cut/2026-12-07-trio.jsonl 6 bad=0 whole 4 aaaabbbbccccdddd
vmcheck journal: /var/lib/companion/cut/2026-12-07-trio.jsonl 6 1111222233334444 on /dev/mmcblk0p4
vmcheck journal: /var/lib/companion/games/2026-12-07-trio.jsonl 14 0a1b2c3d4e5f6071 on /dev/mmcblk0p4
vmcheck end
"""
THIRD = SECOND.replace("slot: b", "slot: a")
CARD = 4294967296
UNIT_FILE = (Path(__file__).resolve().parent.parent / "systemd" / "companion.service").read_text()
PARTUUID = "8a1b2c3d-04"


def run(check: str, console: str, before: str = "a", after: str = "a", second: str = SECOND,
        third: str = THIRD) -> list[str]:
    lines, then, last = judge.said(console), judge.said(second), judge.said(third)
    return {
        "kernel_dt_debian": lambda: judge.kernel_dt_debian(lines),
        "unit_ready_rt": lambda: judge.unit_ready_rt(lines, UNIT_FILE),
        "i2c_bcm2835_400k": lambda: judge.i2c_bcm2835_400k(lines),
        "journals_on_data": lambda: judge.journals_on_data(lines, PARTUUID),
        "root_never_written": lambda: judge.root_never_written(lines, before, after),
        "data_grown": lambda: judge.data_grown(lines, CARD),
        "power_cut_keeps_lines": lambda: judge.power_cut(lines, then),
        "resumed_after_cut": lambda: judge.resumed(lines, then),
        "update_keeps_journals": lambda: judge.journals_kept(lines, then, "b"),
        "rollback_keeps_journals": lambda: judge.journals_kept(then, last, "a"),
    }[check]()


BROKEN = {  # check -> what a broken card prints instead
    "kernel_dt_debian": CONSOLE.replace("fedcba9876543210fedcba9876543210  /boot", "00000000000000000000000000000000  /boot"),
    "unit_ready_rt": CONSOLE.replace("priority: 20\nvmcheck reader", "priority: 0\nvmcheck reader")
                            .replace("SCHED_FIFO pid 310", "SCHED_OTHER pid 310"),
    "i2c_bcm2835_400k": CONSOLE.replace("node=i2c@7e804000 hz=400000", "node=i2c@7e804000 hz=100000"),
    "journals_on_data": CONSOLE.replace("0a1b2c3d4e5f6071 on /dev/mmcblk0p4", "0a1b2c3d4e5f6071 on /dev/mmcblk0p2"),
    "root_never_written": CONSOLE.replace("ext4 ro,relatime", "ext4 rw,relatime"),
    "data_grown": CONSOLE.replace("6823936 800849920", "6823936 67108864"),
    # cut before the game had three lines: nothing to lose (the loss itself: BROKEN_LATER)
    "power_cut_keeps_lines": CONSOLE.replace("trio.jsonl 4 bad=0 whole 4", "trio.jsonl 2 bad=0 whole 2"),
    "resumed_after_cut": CONSOLE,
    "update_keeps_journals": CONSOLE.replace("14 0a1b2c3d4e5f6071", "15 0a1b2c3d4e5f6071"),
    "rollback_keeps_journals": CONSOLE,
}
BROKEN_LATER = {  # check -> (second boot, third boot) a broken card prints
    "power_cut_keeps_lines": (SECOND.replace("4 bad=0 partial 4 aaaabbbbccccdddd", "3 bad=0 partial 4 9999bbbbccccdddd"),
                              THIRD),
    "resumed_after_cut": (SECOND.replace("6 bad=0 whole 4 aaaa", "4 bad=0 whole 4 aaaa"), THIRD),
    "update_keeps_journals": (SECOND, THIRD),
    "rollback_keeps_journals": (SECOND, THIRD.replace("slot: a", "slot: b")),
}


def test_a_working_card_passes_every_check():
    assert {check: run(check, CONSOLE) for check in judge.CHECKS} == {check: [] for check in judge.CHECKS}
    assert judge.boot_to_ready_s(judge.said(CONSOLE)) == 61.5
    assert judge.update_s(judge.said(CONSOLE)) == 412
    assert judge.update_s(judge.said(CONSOLE.replace("update_s: 412", "update_s: "))) is None


@pytest.mark.parametrize("check", judge.CHECKS)
def test_each_check_fails_on_a_broken_card(check):
    second, third = BROKEN_LATER.get(check, (SECOND, THIRD))
    assert (BROKEN[check], second, third) != (CONSOLE, SECOND, THIRD)
    assert run(check, BROKEN[check], second=second, third=third)


def test_a_journal_gone_after_the_roll_back_fails():
    assert run("rollback_keeps_journals", CONSOLE, third=THIRD.replace(
        "vmcheck journal: /var/lib/companion/games/2026-12-07-trio.jsonl 14 0a1b2c3d4e5f6071 on /dev/mmcblk0p4\n", ""))


def test_a_line_that_does_not_parse_after_the_cut_fails():
    assert run("power_cut_keeps_lines", CONSOLE, second=SECOND.replace("4 bad=0 partial", "4 bad=1 partial"))


def test_a_cut_after_a_clean_unmount_is_no_power_cut():
    problems = run("power_cut_keeps_lines", CONSOLE, second=SECOND.replace("companion-data: recovering journal", ""))
    assert problems and "unmounted cleanly" in problems[0]


def test_a_partition_grown_without_its_file_system_fails():
    problems = run("data_grown", CONSOLE.replace("Block count: 195520", "Block count: 16384"))
    assert problems and "file system was not grown" in problems[0]


def test_a_root_whose_bytes_changed_fails_though_mounted_read_only():
    assert run("root_never_written", CONSOLE, before="a", after="b")


def test_a_kernel_not_debians_fails():
    assert run("kernel_dt_debian", CONSOLE.replace("Debian 6.12.117-1", "custom"))


def test_the_i2c_bus_must_be_the_headers_bcm2835():
    assert run("i2c_bcm2835_400k", CONSOLE.replace("i2c-1 bcm2835 (i2c@7e804000) node=i2c@7e804000",
                                                   "i2c-1 i2c-gpio node=i2c-gpio"))


def test_the_firmware_takes_the_cards_slot_and_overlays_and_ignores_dtparams_without_overrides(tmp_path):
    (tmp_path / "config.txt").write_text("arm_64bit=1\nkernel=vmlinuz-6.12\ninitramfs initrd.img-6.12\n"
                                         "[pi5]\ndtparam=foo=on\n[all]\ninclude slot.txt\ndtoverlay=x\n")
    (tmp_path / "slot.txt").write_text("os_prefix=b/\n")
    assert raspi.config_lines(tmp_path) == ["arm_64bit=1", "kernel=vmlinuz-6.12", "initramfs initrd.img-6.12",
                                            "os_prefix=b/", "dtoverlay=x"]


@pytest.mark.skipif(os.geteuid() != 0, reason="the tools' root runs in a mount namespace: needs root")
def test_the_firmware_hands_over_the_boards_revision_as_a_pis_does(tmp_path):
    """gpiozero finds the board from /system/linux,revision, which a Pi's firmware writes: without
    it the box's unit failed to start on the emulated Pi 4 (PinUnknownPi)."""
    tools_root = tools.build(print)
    (tmp_path / "a").mkdir()
    (tmp_path / "config.txt").write_text("kernel=vmlinuz-6.12\ninitramfs initrd.img-6.12\ninclude slot.txt\n")
    (tmp_path / "slot.txt").write_text("os_prefix=a/\n")
    (tmp_path / "a" / "cmdline.txt").write_text("root=PARTUUID=8a1b2c3d-02 ro\n")
    (tmp_path / "pi4.dts").write_text('/dts-v1/;\n/ { model = "Raspberry Pi 4 Model B"; };\n')
    tools.must(tools_root, tmp_path, "dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(tmp_path / "a" / raspi.DTB),
               str(tmp_path / "pi4.dts"))
    boot = raspi.firmware_boot(tmp_path, tools_root, tmp_path)
    assert tools.must(tools_root, tmp_path, "fdtget", "-t", "x", str(boot["dtb"]), "/system", "linux,revision").strip() == "b03115"


NO_DISPLAYS = CONSOLE.replace("companion.daemon.presenting: ready: first frame on every display",
                              "companion.daemon.presenting: ready without display 1, 2, 3: retrying in the background")


def test_ready_without_displays_passes_only_where_the_emulator_took_no_i2c_interrupt():
    """QEMU's raspi4b raises no I2C interrupt, so its displays never answer: the unit READY without
    them passes only when the boot counted none; displays failing with interrupts coming fail."""
    assert run("unit_ready_rt", NO_DISPLAYS) != []  # 123 interrupts: the displays failed for another reason
    silent = NO_DISPLAYS.replace("44: 120 3 0 0 GICv2", "44: 0 0 0 0 GICv2")
    assert run("unit_ready_rt", silent) == []
    assert judge.displays_unreachable(judge.said(silent)) and not judge.displays_unreachable(judge.said(CONSOLE))
    unread = "\n".join(line for line in NO_DISPLAYS.splitlines() if "i2c_irq" not in line)
    assert run("unit_ready_rt", unread) != []  # nothing counted: nothing excused
    assert run("unit_ready_rt", silent.replace("ready without display 1, 2, 3", "not ready")) != []


def test_every_i2c_line_of_proc_interrupts_is_counted():
    """The guest joins every /proc/interrupts line naming an I2C controller: an interrupt on the
    second line means the controllers do interrupt, and the displays' failure is not excused. On
    main only the first line's counts were read."""
    from vm.raspi_judge import i2c_interrupts

    two = "44: 0 0 0 0 GICv2 149 Level fe205000.i2c 45: 7 0 0 1 GICv2 150 Level fe804000.i2c"
    assert i2c_interrupts({"i2c_irq": [two]}) == 8
    assert i2c_interrupts({"i2c_irq": ["44: 0 0 0 0 GICv2 149 Level fe205000.i2c"]}) == 0
    assert i2c_interrupts({"i2c_irq": [""]}) is None
