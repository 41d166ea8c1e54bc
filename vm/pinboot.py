"""``vm program --pins``: the arm64 program booted on Debian's own arm64 kernel, its pins gpio-sim's.

Under qemu-user (the rest of ``python -m vm program``) there is no kernel of the guest's own, so
the lgpio the program builds is imported there, never called. This boots the same root, unchanged,
on QEMU's ``virt`` machine (TCG, a Cortex-A72, the Pi 4's core) with the root's own Debian kernel
and no initramfs: the root is the kernel's root file system through virtiofs, the one root file
system Debian's arm64 kernel has built in (ext4, virtio-blk and 9p are modules, which would need an
initramfs), served by this host's virtiofsd; PID 1 is vm/inguest/pinboot_init.py.

There the box runs as a maker starts it by hand (``companion run`` on the default build's
profile, mux-3.toml) on a Pi 4's GPIO header made by gpio-sim (built for that kernel by
vm/kernel/build.sh when the root is made): gpiozero's lgpio factory claims the buzzer's line
through lgpio, and the GPIO reader process reads the buttons. The panels are unplugged (no I2C
bus is made): the box is ready without them and retries them every 30 s, as it would on a Pi. An
earlier try with the three panels on the simulated bus fell behind the game for ten minutes
under full emulation (the arm64 box drawing them, its loop spinning), and the panels' bus is not
what this proves (the whole check's is). The first round of the virtual Pi's Triangle game
(vm/game.py) is played on the header's lines with the kernel's interrupt trace on, and judged as
the whole check judges it (:func:`vm.judge.played`); and the kernel's own table of requested lines
(debugfs ``gpio``) must show the buzzer's line driven as an output by lgpio, beside the buttons'
lines held by the reader.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

from vm import game, image, tools
from vm.guest import console_excerpt

HERE = Path(__file__).resolve().parent
PACKAGES = ["linux-image-{arch}", "linux-headers-{arch}", "linux-source", "make", "coreutils", "sed", "mawk",
            "grep", "findutils", "diffutils"]
"""Beside the program's root's packages: the architecture's Debian kernel, its headers and source
for the gpio-sim module it lacks, and the tools the module's build runs (the extract variant
installs no essential package)."""
VIRTIOFSD = "/usr/lib/qemu/virtiofsd"
"""QEMU's own virtiofsd (qemu-system-common on bookworm), run on the host as root."""
MODULES = ("kernel/fs/configfs/configfs.ko.xz", "extra/irq_sim.ko", "extra/gpio-sim.ko")
"""Loaded in this order, each after what it needs (the root has no modprobe); one not built (a
kernel with irq_sim of its own) is left out."""
BOARD = {"board": "pi4", "revision": "c03114", "model": "Raspberry Pi 4 Model B Rev 1.4"}
"""The header made and the revision gpiozero reads: the virtual Pi's ``pi4`` (vm/inguest/board.sh)."""
HEADER = "pinctrl-bcm2711"
BUZZER_PIN = 18
LGPIO_CONSUMER = "lg"
"""The consumer lgpio gives the kernel for every line it claims (its default user label)."""
FIRST_ROUND_S = 4.0
"""The game ends with its first round (vm/triangle.txt: a false start, a three-way tie written
back to back, the next deal): a false start and a tie decided from the kernel's stamps, in the
least time under full emulation."""
LOBBY_STEP_S = 1.0
"""The lobby's presses this far apart, not the whole check's 0.4 s: the lobby is all station 1's
ok, and at 0.4 s a 350 ms stall of the emulated CPU writing them (nice 10 beside another TCG
guest) put a release and the next press 0.4 ms apart, within the profile's 5 ms debounce, so
the lobby lost an ok and the game never began."""
WAIT_S = 300
"""A bound for each wait in the guest (the box's start, its lines, the game's journal) under TCG
on a busy host: only a hang reaches it."""
BOOT_BOUND_S = 2400
TOOLS = ("pins.py", "pinboot_init.py")
"""vm/inguest's files the guest runs, copied to its /srv/pins/tools."""


def build_modules(root: Path, log) -> None:
    """gpio-sim for the root's kernel, built in the root under qemu-user (vm/kernel/build.sh)."""
    if not (root / "usr" / "bin" / "awk").exists():  # what update-alternatives would have made
        (root / "usr" / "bin" / "awk").symlink_to("mawk")
    log("building gpio-sim for the root's kernel (vm/kernel/build.sh, under qemu-user)")
    [source] = sorted((root / "usr" / "src").glob("linux-source-*.tar.xz"))[-1:]
    proc = subprocess.run(image.in_root_mounts(root, "sh", str(HERE / "kernel" / "build.sh"), str(root), str(source)),
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"building the kernel's modules failed ({proc.returncode}):\n{proc.stderr[-3000:]}")


def kernel_version(root: Path) -> str:
    return sorted(p.name for p in (root / "lib" / "modules").iterdir())[-1]


def plan(tree: Path, root: Path) -> dict:
    """What the guest does: the modules it loads, the board it makes, the buttons' lines the reader
    holds when it is ready, the presses it plays and how many journal lines end the game."""
    from companion.profile import load_profile

    kver = kernel_version(root)
    presses = game.presses(tree, FIRST_ROUND_S, LOBBY_STEP_S)
    stations = load_profile(tree / game.GUEST_PROFILE).stations
    return {**BOARD, "modules": [f"/lib/modules/{kver}/{m}" for m in MODULES
                                 if (root / "lib" / "modules" / kver / m).exists()],
            "buttons": sorted({pin for station in stations for pin in station.pins.values()}),
            "timeout_s": WAIT_S, "profile": f"/srv/src/{game.GUEST_PROFILE}", "seed": game.SEED,
            "edges": game.pin_edges(presses, tree / game.GUEST_PROFILE), "lines": game.expected_lines(tree, presses)}


def qemu_command(work: Path) -> list[str]:
    """QEMU in the tools' root, which sees only ``work``: the kernel is copied there. virtiofs needs
    the guest's memory shared with virtiofsd (a memfd backend)."""
    return ["qemu-system-aarch64", "-M", "virt", "-accel", "tcg,thread=multi", "-cpu", "cortex-a72", "-smp", "2",
            "-m", "1G", "-object", "memory-backend-memfd,id=mem,size=1G,share=on", "-numa", "node,memdev=mem",
            "-chardev", f"socket,id=root,path={work / 'root.sock'}",
            "-device", "vhost-user-fs-pci,chardev=root,tag=root,romfile=",
            "-kernel", str(work / "vmlinuz"), "-append", "console=ttyAMA0 root=root rootfstype=virtiofs rw "
                                               "init=/srv/pins/tools/pinboot_init.py panic=-1",
            "-nic", "none", "-display", "none", "-monitor", "none", "-no-reboot",
            "-serial", f"file:{work / 'console.log'}"]


def boot(root: Path, work: Path, log) -> None:
    """Boot the root until its PID 1 powers the machine off (or the bound passes)."""
    qemu_root = tools.build(log)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copy(root / "boot" / f"vmlinuz-{kernel_version(root)}", work / "vmlinuz")
    sock = work / "root.sock"
    with open(work / "virtiofsd.log", "w") as err:
        served = subprocess.Popen([VIRTIOFSD, f"--socket-path={sock}", "-o", f"source={root}", "-o", "sandbox=chroot",
                                   "-o", "cache=auto"], stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while not sock.exists():  # virtiofsd listening: an observable condition
            if served.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"virtiofsd did not start: {(work / 'virtiofsd.log').read_text()[-1000:]}")
            time.sleep(0.05)
        log("booting the root on its own arm64 kernel (QEMU virt, TCG)")
        proc = tools.run(qemu_root, work, *qemu_command(work), timeout=BOOT_BOUND_S, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"QEMU failed ({proc.returncode}): {proc.stderr[-2000:]}")
    finally:
        served.kill()
        served.wait()


LINE = re.compile(r"^ gpio-(\d+) \((.*)\) (in|out)put", re.MULTILINE)
CHIP = re.compile(r"^gpiochip\d+: GPIOs (\d+)-\d+, .*?, (\S+)(?:, can sleep)?:$", re.MULTILINE)
"""debugfs ``gpio``: a chip's heading, then gpio-sim's line per line (gpio_sim_dbg_show:
``gpio-N (CONSUMER) input,pull-up``, ``<unused>`` where nobody requested it)."""


def held_lines(debug_gpio: str, label: str = HEADER) -> dict[int, tuple[str, str]]:
    """The lines of the chip labelled ``label`` that someone requested, from debugfs ``gpio``:
    {offset: (consumer, direction)}."""
    out: dict[int, tuple[str, str]] = {}
    chips = list(CHIP.finditer(debug_gpio))
    for n, chip in enumerate(chips):
        if chip.group(2) != label:
            continue
        end = chips[n + 1].start() if n + 1 < len(chips) else len(debug_gpio)
        for line in LINE.finditer(debug_gpio, chip.end(), end):
            if line.group(2) != "<unused>":
                out[int(line.group(1)) - int(chip.group(1))] = (line.group(2), line.group(3))
    return out


def lgpio_problems(debug_gpio: str, buttons: list[int]) -> list[str]:
    """The box's lines as the kernel lists them: the buzzer's driven as an output by lgpio, every
    button's held as an input by the GPIO reader."""
    held = held_lines(debug_gpio)
    problems = []
    if held.get(BUZZER_PIN) != (LGPIO_CONSUMER, "out"):
        problems.append(f"GPIO {BUZZER_PIN} (the buzzer) of {HEADER} is not an output requested by lgpio "
                        f"({LGPIO_CONSUMER!r}): {held.get(BUZZER_PIN)}")
    wrong = [pin for pin in buttons if held.get(pin) != (game.BUTTONS_IRQ_NAME, "in")]
    if wrong:
        problems.append(f"buttons not held as inputs by the GPIO reader ({game.BUTTONS_IRQ_NAME!r}): "
                        + ", ".join(f"GPIO {pin} {held.get(pin)}" for pin in wrong))
    return problems


def run_plan(root: Path, work: Path, log, the_plan: dict) -> dict:
    """Boot ``root`` with ``the_plan`` for its PID 1; what the guest wrote (result.json), whether
    or not it got to the end (``ok``)."""
    pins_dir = root / "srv" / "pins"
    shutil.rmtree(pins_dir, ignore_errors=True)
    (pins_dir / "tools").mkdir(parents=True)
    for name in TOOLS:
        shutil.copy2(HERE / "inguest" / name, pins_dir / "tools" / name)
    (pins_dir / "tools" / "pinboot_init.py").chmod(0o755)  # the kernel runs it as init
    (pins_dir / "plan.json").write_text(json.dumps(the_plan))
    boot(root, work, log)
    result_file = pins_dir / "result.json"
    if not result_file.exists():
        raise RuntimeError("the guest wrote no result:\n"
                           + console_excerpt((work / "console.log").read_text(errors="replace")))
    return json.loads(result_file.read_text())


def check(root: Path, tree: Path, work: Path, log, summary: dict) -> None:
    """Boot the installed program's root with its pins, play the game, judge it: sets
    ``lgpio_called_ok`` and ``pins_game_ok`` in ``summary`` (figures under ``pins``), raises on a problem."""
    from vm import judge

    the_plan = plan(tree, root)
    started = time.monotonic()
    result = run_plan(root, work, log, the_plan)
    pins_dir = root / "srv" / "pins"
    figures = summary.setdefault("pins", {})
    figures["guest_seconds"] = round(time.monotonic() - started, 1)
    debug_file = pins_dir / "debug-gpio.txt"  # written once the reader held its lines, before the game
    debug_gpio = debug_file.read_text() if debug_file.exists() else None
    problems = lgpio_problems(debug_gpio or "", the_plan["buttons"])
    figures["buzzer_line"] = held_lines(debug_gpio).get(BUZZER_PIN) if debug_gpio is not None else None
    summary["lgpio_called_ok"] = not problems
    if not result.get("ok"):
        box_log = pins_dir / "box.log"
        raise RuntimeError("; ".join(problems + [f"in the guest: {result.get('error')}\nthe box said:\n"
                                                 + (box_log.read_text()[-2000:] if box_log.exists() else "nothing")]))
    figures["box_ready_after_init_s"] = round(result["box_ready_s"] - result["started_s"], 1)
    played, game_problems = judge.played(tree, the_plan["edges"], result["times"],
                                         (pins_dir / "irq-trace.txt").read_text(),
                                         (pins_dir / "button-irqs.txt").read_text(),
                                         pins_dir / "journals" / result["journal"])
    figures["game"] = played
    summary["pins_game_ok"] = not game_problems
    if problems or game_problems:
        raise RuntimeError("; ".join(problems + game_problems))
