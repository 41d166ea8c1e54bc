"""What each check of the emulated Pi 4 concludes from what the guest printed (vm/raspi_guest/check.sh).

Kept apart from QEMU, as vm/judge.py is for the virtual Pi, so that each check can be shown to fail
on the host from the lines a broken card would print (tests/test_vm_raspi_judge.py).
"""

from __future__ import annotations

import re

from vm import judge

CHECKS = ("kernel_dt_debian", "unit_ready_rt", "i2c_bcm2835_400k", "journals_on_data", "root_never_written",
          "data_grown", "power_cut_keeps_lines", "resumed_after_cut", "update_keeps_journals",
          "rollback_keeps_journals")
CUT_DIR = "/var/lib/companion/cut/"
FIGURES = ("raspi_boot_to_ready_s", "raspi_update_s")
I2C_HZ = 400000


def said(console: str) -> dict[str, list[str]]:
    """The guest's ``vmcheck KEY: VALUE`` lines, by key, in order."""
    out: dict[str, list[str]] = {}
    for key, value in re.findall(r"^vmcheck (\w+): ?(.*?)\s*$", console, re.MULTILINE):
        out.setdefault(key, []).append(value)
    return out


def one(lines: dict[str, list[str]], key: str) -> str:
    return (lines.get(key) or [""])[0]


def kernel_dt_debian(lines: dict[str, list[str]]) -> list[str]:
    """The kernel running is Debian's, and the kernel and device tree the firmware partition
    holds are byte for byte the files of Debian's package (its md5sums, as dpkg installed them)."""
    problems = []
    if "Debian" not in one(lines, "kernel"):
        problems.append(f"not Debian's kernel: {one(lines, 'kernel')!r}")
    if "Raspberry Pi 4" not in one(lines, "model"):
        problems.append(f"the device tree's model is {one(lines, 'model')!r}")
    debian = {line.split()[1].rsplit("/", 1)[1]: line.split()[0] for line in lines.get("md5_debian", [])}
    card = {line.split()[1].rsplit("/", 1)[1]: line.split()[0] for line in lines.get("md5_card", []) if len(line.split()) == 2}
    if len(card) != 2:
        problems.append(f"the firmware partition's kernel and device tree not both read: {lines.get('md5_card')}")
    for name, md5 in card.items():
        if debian.get(name) != md5:
            problems.append(f"the firmware partition's {name} is not Debian's package's ({md5} vs {debian.get(name)})")
    return problems


UNIT_KEYS = ("Type", "ActiveState", "SubState", "StatusText", "TimeoutStartUSec", "WatchdogUSec")


READY_WITHOUT_DISPLAYS = re.compile(r"^[\w.]+: ready without display [\d, ]+: retrying in the background$", re.MULTILINE)


def unit_ready_rt(lines: dict[str, list[str]], unit_file: str) -> list[str]:
    """The unit's READY at boot, its real-time priority and its own timeouts (``unit_file``, the
    tree's systemd/companion.service): the virtual Pi's own judgement. But the displays' first
    frames only where the emulator can carry them: QEMU's raspi4b (10.0) connects no BCM2835 I2C
    interrupt to the GIC, so every transfer times out there (ETIMEDOUT) and the box is READY
    without its displays; that is excused only when the same boot counted no I2C interrupt at all
    (:func:`displays_unreachable`), so displays failing for any other reason still fail."""
    unit = {key: one(lines, f"unit_{key}") for key in UNIT_KEYS}
    priorities = f"loop: {one(lines, 'loop')}\nreader: {one(lines, 'reader')}\n"
    log = "\n".join(lines.get("log", []))
    problems = judge.unit_ready(unit, log, priorities, judge.own_timeouts(unit_file))
    if displays_unreachable(lines) and READY_WITHOUT_DISPLAYS.search(log):
        problems = [p for p in problems if p != judge.NO_FRAME]
    return problems


def i2c_interrupts(lines: dict[str, list[str]]) -> int | None:
    """How many interrupts the I2C controllers' lines took (``/proc/interrupts``: every line the
    guest found, joined, each ``N:`` and its per-CPU counts), all added up; None if unread."""
    counts: list[int] = []
    line = False
    for word in one(lines, "i2c_irq").split():
        if word.endswith(":") and word[:-1].isdigit():
            line = True
        elif line and word.isdigit():
            counts.append(int(word))
        else:
            line = False  # past a line's counts: its chip, its name
    return sum(counts) if counts else None


def displays_unreachable(lines: dict[str, list[str]]) -> bool:
    """The emulator cannot carry a display's frames: its I2C controllers' interrupt never came."""
    return i2c_interrupts(lines) == 0


def i2c_bcm2835_400k(lines: dict[str, list[str]]) -> list[str]:
    """/dev/i2c-1 is the BCM2835 controller at 0x7e804000 (the header's GPIO 2 and 3) at 400 kHz
    in the device tree the kernel booted with, as the installer set it."""
    bus = next((line for line in lines.get("i2c", []) if line.startswith("i2c-1 ")), None)
    if bus is None:
        return [f"no i2c-1: {lines.get('i2c')}"]
    problems = []
    if "bcm2835" not in bus or "node=i2c@7e804000" not in bus:
        problems.append(f"i2c-1 is not the BCM2835 controller on the header: {bus}")
    hz = re.search(r"hz=(\d+)", bus)
    if not hz or int(hz.group(1)) != I2C_HZ:
        problems.append(f"i2c-1 runs at {hz.group(1) if hz else 'an unknown rate'} Hz, not {I2C_HZ}")
    if " i2c " not in one(lines, "i2c_dev"):
        problems.append(f"/dev/i2c-1 not in group i2c: {one(lines, 'i2c_dev')}")
    return problems


def journals_on_data(lines: dict[str, list[str]], data_partuuid: str) -> list[str]:
    """The box's game went into its state directory, on the data partition (not the root, not memory)."""
    problems = []
    data = one(lines, "data").split()
    if len(data) < 3 or data[1] != "ext4" or not data[2].startswith("rw"):
        problems.append(f"/var/lib/companion is not the data partition's ext4, writable: {one(lines, 'data')!r}")
    if one(lines, "data_partuuid") != data_partuuid:
        problems.append(f"/var/lib/companion is PARTUUID {one(lines, 'data_partuuid')!r}, not {data_partuuid}")
    if one(lines, "game_rc") != "0":
        problems.append(f"the game exited {one(lines, 'game_rc')!r}")
    found = journals(lines)
    if not found:
        problems.append("no journal under /var/lib/companion")
    source = data[0] if data else "?"
    for path, (count, _, on) in found.items():
        if on != source or count == 0:
            problems.append(f"a journal not on the data partition ({source}), or empty: {path} {count} lines on {on}")
    return problems


def journals(lines: dict[str, list[str]]) -> dict[str, tuple[int, str, str]]:
    """The guest's ``journal`` lines: path -> (complete lines, sha256 prefix, the partition it is on)."""
    out = {}
    for line in lines.get("journal", []):
        words = line.split()
        if len(words) == 5 and words[1].isdigit() and words[3] == "on":
            out[words[0]] = (int(words[1]), words[2], words[4])
    return out


def cut_journal(line: str) -> tuple[str, int, int, int, str] | None:
    """A ``cut_journal`` line: (path, complete lines, lines that do not parse, N, sha of the first N)."""
    words = line.split()
    if len(words) != 6 or not words[1].isdigit() or not words[2].startswith("bad="):
        return None
    return words[0], int(words[1]), int(words[2][4:]), int(words[4]), words[5]


def power_cut(before: dict[str, list[str]], after: dict[str, list[str]]) -> list[str]:
    """Every complete line the cut game's journal had when QEMU was killed is there, unchanged,
    at the next boot, and every complete line there parses (a partial last line may be lost); and it
    was a cut: the data partition's ext4 journal was replayed at the next boot."""
    cut, again = cut_journal(one(before, "cut_journal")), cut_journal(one(after, "cut_journal"))
    if cut is None or cut[1] < 3:
        return [f"the game was not cut with three lines in its journal: {one(before, 'cut_journal')!r}"]
    if again is None:
        return [f"the cut game's journal is gone after the power cut: {one(after, 'cut_journal')!r}"]
    problems = []
    if not one(after, "cut_recovered"):
        problems.append("no ext4 journal replayed on the data partition at the next boot: it was unmounted "
                        "cleanly, so QEMU was not killed mid-game")
    if again[0] != cut[0]:
        problems.append(f"another journal after the cut: {again[0]}, not {cut[0]}")
    if again[1] < cut[1] or again[4] != cut[4]:
        problems.append(f"complete lines lost or changed by the cut: {cut[1]} lines ({cut[4]}) before, "
                        f"{again[1]} after, the first {again[3]} now {again[4]}")
    if again[2]:
        problems.append(f"{again[2]} complete lines do not parse after the cut")
    return problems


def resumed(before: dict[str, list[str]], after: dict[str, list[str]]) -> list[str]:
    """The box run again after the cut went on with the same game: the same journal, longer, its
    lines from before the cut unchanged."""
    cut, runs = cut_journal(one(before, "cut_journal")), after.get("cut_journal", [])
    if cut is None or len(runs) < 2 or cut_journal(runs[1]) is None:
        return [f"no journal to compare after the resumed run: {runs}"]
    resumed_journal = cut_journal(runs[1])
    problems = [] if one(after, "resume_rc") == "0" else [f"the resumed run exited {one(after, 'resume_rc')!r}"]
    if resumed_journal[0] != cut[0] or resumed_journal[1] <= cut[1] or resumed_journal[4] != cut[4]:
        problems.append(f"the game did not go on in its journal: {cut[0]} {cut[1]} lines ({cut[4]}) before, "
                        f"{resumed_journal[0]} {resumed_journal[1]} lines (first {resumed_journal[3]}: {resumed_journal[4]})")
    return problems


def journals_kept(before: dict[str, list[str]], after: dict[str, list[str]], slot: str) -> list[str]:
    """The next boot runs ``slot`` and every journal of the boot before is there, byte for byte
    (the cut game's aside, which the resumed run made longer)."""
    problems = [] if one(after, "slot") == slot else [f"the boot ran slot {one(after, 'slot')!r}, not {slot}"]
    old, new = journals(before), journals(after)
    if not old:
        problems.append("no journal before to keep")
    for path, (count, sha, _) in old.items():
        if path.startswith(CUT_DIR):
            continue
        if path not in new:
            problems.append(f"{path} is gone")
        elif new[path][:2] != (count, sha):
            problems.append(f"{path} changed: {count} lines {sha} before, {new[path][0]} lines {new[path][1]} after")
    return problems


def root_never_written(lines: dict[str, list[str]], before: str, after: str) -> list[str]:
    problems = []
    options = one(lines, "root").split()
    if len(options) < 3 or not options[2].startswith("ro"):
        problems.append(f"the root is mounted {one(lines, 'root')!r}, not read-only")
    if before != after:
        problems.append(f"root A's bytes changed during the boot (sha256 {before[:12]} -> {after[:12]})")
    return problems


def data_grown(lines: dict[str, list[str]], card_bytes: int) -> list[str]:
    """The data partition ends within 1 MiB of the card's end (its start kept, alignment only), and
    its ext4 fills it to within 1 MiB (grown by the initramfs's companion-grow-data)."""
    words = one(lines, "sizes").split()  # lsblk's NAME START SIZE, START in sectors
    table = {words[i]: (int(words[i + 1] or 0), int(words[i + 2])) for i in range(0, len(words) - 2, 3)
             if words[i + 2].isdigit() and (words[i + 1].isdigit() or words[i + 1] == "")}
    disk = table.get("mmcblk0", (0, 0))[1]
    if disk != card_bytes:
        return [f"the card reads {disk} bytes, not {card_bytes}: {one(lines, 'sizes')!r}"]
    start, size = table.get("mmcblk0p4", (0, 0))
    end = start * 512 + size
    if disk - end > 1024 * 1024:
        return [f"the data partition ends {disk - end} bytes before the card's end: not grown ({one(lines, 'grow')})"]
    fs = re.fullmatch(r"Block count: (\d+) Block size: (\d+)", one(lines, "data_fs"))
    if fs is None:
        return [f"the data partition's ext4 not read: {one(lines, 'data_fs')!r}"]
    if size - int(fs[1]) * int(fs[2]) > 1024 * 1024:
        return [f"the data partition's ext4 is {int(fs[1]) * int(fs[2])} bytes of its {size}: the file system "
                f"was not grown ({one(lines, 'grow')})"]
    return []


def boot_to_ready_s(lines: dict[str, list[str]]) -> float | None:
    """The guest's own clock from the kernel's start to the unit's READY (systemd's monotonic)."""
    value = one(lines, "ready_monotonic_us")
    return round(int(value) / 1e6, 1) if value.isdigit() and int(value) else None


def update_s(lines: dict[str, list[str]]) -> int | None:
    """The update's wall time in the guest (``companion-slot update``: the root's used blocks
    copied into the other slot through the emulated SD host, and checked)."""
    value = one(lines, "update_s")
    return int(value) if value.isdigit() else None
