"""``python -m vm check --machine raspi4b --image FILE``: the SD image booted on QEMU's emulated Pi 4.

QEMU does not run the Pi's GPU firmware: it loads the kernel, the initramfs and the device tree
itself. So the check plays the firmware's part from the card's own files (:func:`firmware_boot`):
config.txt's ``include`` and ``os_prefix`` name the slot, its ``kernel=`` and ``initramfs`` the
files, its ``dtoverlay=`` lines are applied to the slot's device tree with fdtoverlay, as the
firmware merges them; a ``dtparam=`` the device tree has no ``__overrides__`` for is ignored, as
the firmware ignores it (and reported). Then a copy of that device tree is adapted to what QEMU's
``raspi4b`` models (:data:`QEMU_DT_CHANGES`, each with why; the card's own stays Debian's), and the
card's cmdline.txt gets the emulator's console.

The guest has no network (no USB, Ethernet or PCIe on that model): the kernel's command line starts
vm/raspi_guest/check.sh (``systemd.run=``, copied with a game's script onto the check's own copy
of the card's firmware partition, so the root stays as flashed), which prints what it saw on the
serial console; the host reads the console log, and once it says "vmcheck end" stops QEMU (it
cannot power off: the model has no power controller).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import struct
import subprocess
import time
from pathlib import Path

from vm import image, raspi_judge as judge, tools
from vm.guest import console_excerpt

MACHINE = "raspi4b"
DTB = "bcm2711-rpi-4-b.dtb"
HDMI_BLOCK = ("clock@7ef00000", "interrupt-controller@7ef00100", "hdmi@7ef00700", "i2c@7ef04500",
              "hdmi@7ef05700", "i2c@7ef09500")
QEMU_DT_CHANGES = (
    [("-t", "s", f"/soc/{node}", "status", "disabled") for node in HDMI_BLOCK]
    + [("-t", "s", "/emmc2bus/mmc@7e340000", "status", "disabled"),
       ("-d", "/soc/mmc@7e300000", "mmc-pwrseq"),
       ("-t", "s", "/chosen", "stdout-path", "serial0:115200n8")])
"""fdtput's changes to the copy QEMU boots, and why each:

- the HDMI block (its clock, its interrupt controller, both HDMI and DDC nodes) disabled: QEMU
  does not model it, and the brcmstb L2 interrupt controller's probe takes an external abort;
- emmc2 (0x7e340000, a Pi 4's SD slot) disabled and the card read through the legacy SDHCI
  (0x7e300000) instead: QEMU's raspi4b models emmc2 but connects the card only to the SDHCI or
  the SDHOST (its GPIO block routes it by GPIO 48-53's function; SDHCI at reset);
- the SDHCI's ``mmc-pwrseq`` removed: that power sequence (the Wi-Fi chip's reset) sits on the
  firmware's GPIO expander, which QEMU's mailbox does not answer, and fails the controller's probe;
- the console on the PL011 (serial0, ttyAMA0), QEMU's first serial port."""
FIRMWARE_DT = (("-p", "-t", "x", "/system", "linux,revision", "b03115"),)
"""What the Pi's firmware writes into every device tree it hands over, and QEMU does not: the
board's revision code (``/system/linux,revision``; on a Pi from its OTP, here QEMU's raspi4b's own,
0xb03115, a Pi 4B 2 GB rev 1.5, which its mailbox reports). gpiozero reads it to know the board
(Debian's kernel has no Revision line in /proc/cpuinfo): without it the box's unit fails to start
(PinUnknownPi), on the emulator only."""
CONSOLE = ("console=ttyS1,115200", "console=ttyAMA0,115200")
DISPLAYS = ("-device", "pca9548,bus=i2c-bus.1,address=0x70",
            *[arg for channel in range(3) for arg in ("-device", f"ssd0303,bus=i2c.{channel},address=0x3c")])
"""The default build's displays as QEMU models them, on the header's bus (BSC1, QEMU's i2c-bus.1):
an NXP PCA9548 (the TCA9548A's twin, the same one-byte channel register) at 0x70 and, on its
channels 0-2, an SSD0303 each at 0x3C (QEMU's I2C OLED: it takes the SSD1306's command and data
bytes the box sends and acknowledges them; its picture is not checked here, vm/panels.py does that
on the virtual Pi). So the box finds every display of mux-3.toml, as on a Pi."""
GAME_FILES = ("hardware/profiles/mock-3.toml", "tests/scripts/as-played/trio.txt")
BOOT_BOUND_S = 3600
"""Only a hang reaches it: the guest's agent waits for READY up to 900 s of its own clock."""
SECTOR = 512
STUCK = ("Dependency failed for local-fs.target", "You are in emergency mode")
"""What the console says when the boot will never reach the check: stop at once, not at the bound."""


def partitions(card: Path) -> list[tuple[int, int]]:
    """The MBR's partitions as (first byte, length in bytes)."""
    mbr = card.read_bytes()[:512] if card.stat().st_size < 512 else open(card, "rb").read(512)
    if mbr[510:512] != b"\x55\xaa":
        raise RuntimeError(f"{card} has no MBR partition table")
    out = []
    for i in range(4):
        entry = mbr[446 + 16 * i: 462 + 16 * i]
        start, count = struct.unpack("<II", entry[8:16])
        if entry[4]:
            out.append((start * SECTOR, count * SECTOR))
    return out


def digest(card: Path, part: tuple[int, int]) -> str:
    h = hashlib.sha256()
    with open(card, "rb") as f:
        f.seek(part[0])
        left = part[1]
        while left:
            block = f.read(min(left, 4 * 1024 * 1024))
            h.update(block)
            left -= len(block)
    return h.hexdigest()


def config_lines(fat: Path, name: str = "config.txt") -> list[str]:
    """config.txt's lines every Pi 4 reads ([all] and [pi4] sections, and before any), ``include``
    followed, comments dropped."""
    lines, section_ok = [], True
    for raw in (fat / name).read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            section_ok = line in ("[all]", "[pi4]")
        elif section_ok and line.startswith("include "):
            lines += config_lines(fat, line.split(None, 1)[1])
        elif section_ok:
            lines.append(line)
    return lines


def firmware_boot(fat: Path, tools_root: Path, work: Path) -> dict:
    """What the firmware would load from the card's firmware partition (``fat``, its files)."""
    lines = config_lines(fat)
    settings = dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith(("dtoverlay", "dtparam")))
    prefix = settings.get("os_prefix", "")
    initramfs = next((line.split()[1] for line in lines if line.startswith("initramfs ")), None)
    boot = {"kernel": fat / (prefix + settings["kernel"]), "initrd": fat / (prefix + initramfs) if initramfs else None,
            "cmdline": (fat / (prefix + settings.get("cmdline", "cmdline.txt"))).read_text().strip(),
            "dtb_card": fat / (prefix + DTB), "overlays": [], "dtparams_ignored": []}
    dtb = work / DTB
    shutil.copy(boot["dtb_card"], dtb)
    symbols = tools.must(tools_root, work, "fdtget", "-l", str(dtb), "/")
    for line in lines:
        if line.startswith("dtoverlay="):
            name = line.split("=", 1)[1].split(",")[0]
            overlay = fat / prefix / "overlays" / f"{name}.dtbo"
            tools.must(tools_root, work, "fdtoverlay", "-i", str(dtb), "-o", str(dtb), str(overlay))
            boot["overlays"].append(name)
        elif line.startswith("dtparam=") and "__overrides__" not in symbols.split():
            boot["dtparams_ignored"].append(line)
    for change in FIRMWARE_DT:
        tools.must(tools_root, work, "fdtput", *change[:3], str(dtb), *change[3:])
    boot["dtb"] = dtb
    return boot


def adapt_for_qemu(boot: dict, tools_root: Path, work: Path) -> Path:
    """A copy of the device tree the firmware would hand over, changed as :data:`QEMU_DT_CHANGES`."""
    dtb = work / f"qemu-{DTB}"
    shutil.copy(boot["dtb"], dtb)
    for change in QEMU_DT_CHANGES:
        flag, rest = change[0], change[1:]
        if flag == "-d":
            tools.must(tools_root, work, "fdtput", "-d", str(dtb), *rest)
        else:
            tools.must(tools_root, work, "fdtput", flag, rest[0], str(dtb), *rest[1:])
    return dtb


def card_copy(card: Path, work: Path) -> Path:
    """The check's own copy, grown to a power of two (QEMU's SD card must be: a real card's
    size is the maker's, and the data partition grows to it at first boot)."""
    copy = work / "card.img"
    subprocess.run(["cp", "--sparse=always", str(card), str(copy)], check=True)
    size = copy.stat().st_size
    with open(copy, "r+b") as f:
        f.truncate(1 << (size - 1).bit_length())
    return copy


def boot(tools_root: Path, work: Path, boot_files: dict, dtb: Path, card: Path, console: Path,
         extra_cmdline: str, end: str = "vmcheck end") -> str:
    """Boot QEMU's raspi4b until the console says ``end``, then stop it (at the check's end, or as
    a power cut); returns the console log."""
    cmdline = boot_files["cmdline"].replace(*CONSOLE) + " " + extra_cmdline
    console.unlink(missing_ok=True)
    argv = ["qemu-system-aarch64", "-M", MACHINE, "-accel", "tcg,thread=multi",  # a host thread per core
            "-kernel", str(boot_files["kernel"]), "-initrd",
            str(boot_files["initrd"]), "-dtb", str(dtb), "-append", cmdline,
            "-drive", f"if=sd,format=raw,file={card}", *DISPLAYS, "-display", "none", "-monitor", "none",
            "-serial", f"file:{console}"]
    proc = tools.popen(tools_root, work, *argv)
    deadline = time.monotonic() + BOOT_BOUND_S
    try:
        while True:
            text = console.read_text(errors="replace") if console.exists() else ""
            if re.search(rf"^{end}\s*$", text, re.MULTILINE):
                return text
            if any(stuck in text for stuck in STUCK):
                raise RuntimeError(f"the boot went to emergency mode:\n{text[-3000:]}")
            if proc.poll() is not None:
                raise RuntimeError(f"QEMU exited ({proc.returncode}) before the check's end:\n"
                                   + console_excerpt(text))
            if time.monotonic() > deadline:
                raise RuntimeError(f"no {end!r} on the console in {BOOT_BOUND_S} s:\n{text[-3000:]}")
            time.sleep(1)  # polling an observable condition, the console's log
    finally:
        proc.kill()
        proc.wait()


def new_summary(card: Path) -> dict:
    s: dict = {"machine": MACHINE, "image": str(card), "seconds": 0.0, "stage_seconds": {}, "reasons": {},
               "findings": {}}
    s.update({key: False for key in judge.CHECKS})
    s.update({key: None for key in judge.FIGURES})
    return s


PHASES = (("first", "vmcheck cut now"), ("second", "vmcheck end"), ("third", "vmcheck end"))
"""The check's three boots: the first checks the box and its game, updates into slot B and is cut
(QEMU killed) mid-game; the second (slot B, as the firmware partition now says) reads the cut
journal, resumes the game and rolls back; the third (slot A again) reads every journal."""
EXTRA_CMDLINE = ("systemd.run=/boot/firmware/vm-check/check.sh systemd.unit=multi-user.target "
                 "systemd.wants=kernel-command-line.service systemd.default_device_timeout_sec=900")
"""The check as the kernel's command line starts it. ``systemd.run=`` alone makes its own
kernel-command-line.target the default target (systemd-run-generator links default.target to it),
so the card's multi-user.target, and with it the box's unit, would never start: the boot is the
card's own target (``systemd.unit=``) with the check's service added to it (``systemd.wants=``,
systemd-debug-generator). Under the emulator udev's coldplug finds the card's partitions more than
90 s (systemd's default device timeout) after systemd starts, which failed the data partition's
fsck and mount and sent the boot to emergency mode: the check waits up to 900 s for a device, as
long as it waits for the unit (a Pi finds them in seconds; the card keeps systemd's default)."""


class Card:
    """The check's copy of the card, and what the firmware would boot from it now."""

    def __init__(self, image_file: Path, tree: Path, tools_root: Path, work: Path):
        self.tools, self.work = tools_root, work
        self.path = card_copy(image_file, work)
        self.parts = partitions(self.path)
        if len(self.parts) != 4:
            raise RuntimeError(f"the card has {len(self.parts)} partitions, not 4 (firmware, root A, root B, data)")
        mbr = open(self.path, "rb").read(512)
        self.data_partuuid = f"{struct.unpack('<I', mbr[440:444])[0]:08x}-04"
        agent = work / "vm-check"
        agent.mkdir()
        shutil.copy(Path(__file__).parent / "raspi_guest" / "check.sh", agent)
        for rel in GAME_FILES:
            shutil.copy(tree / rel, agent)
        self.mtools("mcopy", "-s", str(agent), "::/")

    def mtools(self, *argv: str) -> str:
        return tools.must(self.tools, self.work, argv[0], "-i", f"{self.path}@@{self.parts[0][0]}", *argv[1:])

    def put(self, name: str, text: str) -> None:
        (self.work / name).write_text(text)
        self.mtools("mcopy", "-o", str(self.work / name), f"::/vm-check/{name}")

    def firmware(self, n: int) -> tuple[dict, Path]:
        fat = self.work / f"firmware-{n}"
        fat.mkdir()
        self.mtools("mcopy", "-s", "-n", "::/*", str(fat))
        boot_files = firmware_boot(fat, self.tools, fat)
        return boot_files, adapt_for_qemu(boot_files, self.tools, fat)

    def root_digest(self) -> str:
        return digest(self.path, self.parts[1])


def check(image_file: Path, tree: Path, log) -> dict:
    """Boot ``image_file`` on the emulated Pi 4 three times and judge it; returns the summary."""
    s = new_summary(image_file)
    start = time.monotonic()
    work = image.cache_root() / f"run-{MACHINE}"
    state: dict = {"said": []}

    def stage(name: str, func) -> bool:
        log(f"stage {name}")
        t = time.monotonic()
        try:
            func()
            return True
        except Exception as e:  # the result is the summary: every false key says why
            for key in judge.CHECKS:
                s["reasons"].setdefault(key, f"stage {name}: {type(e).__name__}: {e}"[-3000:])
            return False
        finally:
            s["stage_seconds"][name] = round(time.monotonic() - t, 1)

    def host() -> None:
        tools_root = tools.build(log)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        state["card"] = Card(image_file, tree, tools_root, work)
        state["root_before"] = state["card"].root_digest()
        s["findings"]["qemu_dt_changes"] = "; ".join(" ".join(c) for c in QEMU_DT_CHANGES)

    def boot_phase(n: int, phase: str, end: str) -> None:
        card = state["card"]
        card.put("phase", phase + "\n")
        if state["said"]:
            cut = judge.cut_journal(judge.one(state["said"][0], "cut_journal"))
            card.put("cut_lines", f"{cut[1] if cut else 0}\n")
        boot_files, dtb = card.firmware(n)
        s["findings"][f"firmware_{phase}"] = (
            f"kernel {boot_files['kernel'].name} and initramfs from {boot_files['kernel'].parent.name}/, "
            f"overlays {boot_files['overlays']}, dtparams the device tree cannot take (no __overrides__): "
            f"{boot_files['dtparams_ignored']}")
        console = boot(card.tools, work, boot_files, dtb, card.path, work / f"console-{phase}.log", EXTRA_CMDLINE, end)
        state["said"].append(judge.said(console))

    ok = stage("host", host)
    for n, (phase, end) in enumerate(PHASES):
        ok = ok and stage(f"boot_{phase}", lambda: boot_phase(n, phase, end))
    if state["said"]:
        first = state["said"][0]
        s["guest_kernel"] = judge.one(first, "kernel").split(" | ")[0]
        s["raspi_boot_to_ready_s"] = judge.boot_to_ready_s(first)
        s["raspi_update_s"] = judge.update_s(first)
        if judge.displays_unreachable(first):
            s["findings"]["displays"] = ("no I2C interrupt in the whole boot (QEMU's raspi4b connects none of the "
                                         "BCM2835 I2C controllers' to the GIC): every transfer timed out, so the "
                                         "displays' frames are checked on the virtual Pi only")
        verdicts = {
            "kernel_dt_debian": judge.kernel_dt_debian(first),
            "unit_ready_rt": judge.unit_ready_rt(first, (tree / "systemd" / "companion.service").read_text()),
            "i2c_bcm2835_400k": judge.i2c_bcm2835_400k(first),
            "journals_on_data": judge.journals_on_data(first, state["card"].data_partuuid),
            "data_grown": judge.data_grown(first, state["card"].path.stat().st_size),
        }
        if len(state["said"]) == 3:
            second, third = state["said"][1:]
            verdicts.update({
                "root_never_written": judge.root_never_written(first, state["root_before"], state["card"].root_digest()),
                "power_cut_keeps_lines": judge.power_cut(first, second),
                "resumed_after_cut": judge.resumed(first, second),
                "update_keeps_journals": judge.journals_kept(first, second, "b"),
                "rollback_keeps_journals": judge.journals_kept(second, third, "a"),
            })
        for key, problems in verdicts.items():
            s[key] = not problems
            if problems:
                s["reasons"][key] = "; ".join(problems)
    s["seconds"] = round(time.monotonic() - start, 1)
    (image.cache_root() / f"last-check-{MACHINE}.json").write_text(json.dumps(s, indent=2))
    return s


def exit_code(summary: dict) -> int:
    return 0 if all(summary[key] is True for key in judge.CHECKS) and summary["raspi_boot_to_ready_s"] else 1


def to_text(summary: dict) -> str:
    lines = [f"the card on QEMU's {MACHINE} ({summary['seconds']:.0f} s, emulator figures)"]
    for key in judge.CHECKS:
        lines.append(f"  {'ok  ' if summary[key] else 'FAIL'} {key}"
                     + (f": {summary['reasons'][key]}" if key in summary["reasons"] and not summary[key] else ""))
    lines += [f"  {key} = {summary[key]}" for key in judge.FIGURES]
    lines += [f"  stage {name}: {sec:.1f} s" for name, sec in summary["stage_seconds"].items()]
    lines += [f"  finding {name}: {text}" for name, text in summary["findings"].items()]
    return "\n".join(lines)
