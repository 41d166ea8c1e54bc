"""``python -m vm program --arch arm64``: the program alone on a Pi's architecture, under qemu-user.

The whole arm64 check (``python -m vm check --arch arm64``) boots a Pi's architecture with its
kernel, systemd and the installer, but cold it needs about 20 minutes for its image (every
maintainer script of Debian's packages runs through qemu-user) and longer again for the check
under the emulator, so it does not fit CI's 40 minutes beside the rest. This is the cheapest
part that proves arm64, what CI runs:

- Debian's arm64 CPython (3.13 on Trixie), gcc and swig, unpacked by ``mmdebstrap
  --variant=extract`` (no maintainer script runs: a minute; cached);
- lgpio built from PyPI's source for that CPython as the installer builds it where no wheel
  exists (``PYPI=1``, ``--no-binary lgpio``: PyPI has no lgpio 0.2.2.0 wheel for cp313 aarch64),
  and the product with the dependencies pinned by systemd/constraints.txt, from arm64 wheels;
- a game played through that program's ``companion run --script`` on mock pins, its journal
  read back by its ``companion replay --json``, and the same script played by this machine's
  own program: both must tell the same game.

Every program in the root runs through the host's qemu-user (binfmt_misc), in a mount namespace of
its own with the root's /dev and /proc, so an interrupted run leaves no mount behind. qemu-user has
no kernel of the guest's, so ``--pins`` (what CI runs) then boots the same root on arm64's own
kernel with gpio-sim pins, where lgpio is called (:mod:`vm.pinboot`). What it cannot prove: the
I2C bus, systemd and the installer on arm64 (the whole check does).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from vm import image, pinboot, wheels
from vm.checks import source_files

PACKAGES = ["python3", "python3-venv", "python3-pip", "python3-dev", "swig", "gcc", "libc6-dev", "dash"]
"""What the installer asks apt for where lgpio is built from source, the Python it builds for,
and a shell to run the steps."""
GAME = ("hardware/profiles/mock-3.toml", "tests/scripts/as-played/trio.txt",
        ("--game", "trio", "--option", "trio.allow_new_word=on"))
"""A Pictionary game with a new word, a guess and a judgement taken back (tests/test_as_played.py)."""
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
ELF_MACHINES = {"amd64": 62, "arm64": 183}  # e_machine: EM_X86_64, EM_AARCH64
CHECKS = ("lgpio_built_ok", "game_matches_host")
"""lgpio built for the architecture, and the game on mock pins told as this machine tells it."""
PIN_CHECKS = ("lgpio_called_ok", "pins_game_ok")
"""With ``--pins``, on the architecture's own kernel (:mod:`vm.pinboot`): lgpio driving the
buzzer's line, and the buttons' edges decided as on mock pins."""
TIMEOUT_S = 3600
"""A bound for one step under qemu-user on a busy machine (building lgpio takes minutes): only a
hang reaches it."""


def root_command(release: str, arch: str, out: Path, pins: bool = False) -> list[str]:
    names = PACKAGES + ([name.format(arch=arch) for name in pinboot.PACKAGES] if pins else [])
    return image.mmdebstrap(release, arch, image.apt_dir(release, arch), out, names, variant="extract")


def root_dir(release: str, arch: str, pins: bool = False) -> Path:
    recipe = image.recipe_hash(root_command(release, arch, Path("R"), pins))
    return image.cache_root() / f"program-{release}-{arch}-{recipe}"


def build_root(release: str, arch: str, log, pins: bool = False) -> Path:
    """The packages unpacked (cached): a root the program's Python runs in through qemu-user; with
    ``pins``, also the architecture's kernel and the gpio-sim modules built for it (:mod:`vm.pinboot`)."""
    out = root_dir(release, arch, pins)
    if (out / "usr" / "bin" / "python3").exists():
        return out
    image.check_runs_here(arch)
    work = out.with_name(out.name + ".building")
    shutil.rmtree(work, ignore_errors=True)
    work.parent.mkdir(parents=True, exist_ok=True)
    image.apt_dir(release, arch).mkdir(parents=True, exist_ok=True)
    log(f"unpacking {release}'s {arch} Python, gcc and swig (mmdebstrap --variant=extract)")
    proc = subprocess.run(root_command(release, arch, work, pins), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"mmdebstrap failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    image.index_apt(image.apt_dir(release, arch))
    # What the extract variant leaves to maintainer scripts and a chroot needs: merged /usr's links
    # (the loader is /lib/ld-linux-aarch64.so.1), /bin/sh, /tmp and root's home.
    for name in ("bin", "sbin", "lib"):
        if not (work / name).exists():
            (work / name).symlink_to(f"usr/{name}")
    if not (work / "usr" / "bin" / "sh").exists():
        (work / "usr" / "bin" / "sh").symlink_to("dash")
    for name in ("tmp", "root"):
        (work / name).mkdir(exist_ok=True)
    (work / "tmp").chmod(0o1777)
    # Debian's pip loads the CA bundle as it starts, even with no index to reach, and the bundle is
    # made by ca-certificates' maintainer script: this machine's own stands in (nothing is fetched)
    (work / "etc" / "ssl" / "certs").mkdir(parents=True, exist_ok=True)
    shutil.copy(CA_BUNDLE, work / "etc" / "ssl" / "certs")
    if pins:
        pinboot.build_modules(work, log)
    work.rename(out)
    return out


def in_root(root: Path, script: str, timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """``script`` run by the root's own shell (its arch's, through qemu-user) as root in it."""
    return subprocess.run(image.in_root_mounts(root, "chroot", str(root), "/bin/sh", "-ec", script),
                          capture_output=True, text=True, timeout=timeout,
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8"})


def must(root: Path, script: str, what: str) -> str:
    proc = in_root(root, script)
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def elf_machine(path: Path) -> int:
    """The ELF header's e_machine of a compiled module: which CPU it was built for."""
    return int.from_bytes(path.read_bytes()[18:20], "little")


def told(journal: Path, replayed: dict) -> dict:
    """What a game's journal tells, apart from when: each line's kind, action and player, and
    replay's verdict (scores, winners, whether it is over)."""
    lines = [json.loads(line) for line in journal.read_text().splitlines()[1:] if line.strip()]
    return {"story": [[line.get("type"), line.get("action", line.get("event")), line.get("player")]
                      for line in lines],
            "scores": replayed["scores"], "winners": replayed["winners"], "over": replayed["over"]}


def play_here(tree: Path, journals: Path) -> dict:
    """The same game by this machine's own program: the reference."""
    profile, script, args = GAME
    subprocess.run([sys.executable, "-m", "companion", "run", "--profile", str(tree / profile), "--script",
                    str(tree / script), "--journal-dir", str(journals), *args], cwd=tree, check=True,
                   capture_output=True, timeout=600)
    [journal] = journals.glob("*.jsonl")
    replayed = subprocess.run([sys.executable, "-m", "companion", "replay", "--json", str(journal)], cwd=tree,
                              check=True, capture_output=True, text=True).stdout
    return told(journal, json.loads(replayed))


def check(release: str, arch: str, tree: Path, log, pins: bool = False) -> dict:
    """Build lgpio and the program on ``arch``'s CPython and play the game; with ``pins``, boot it on
    the architecture's own kernel too (:mod:`vm.pinboot`); returns the summary."""
    checks = CHECKS + (PIN_CHECKS if pins else ())
    s: dict = {"release": release, "arch": arch, "python": image.RELEASES[release], "program_ok": False,
               **dict.fromkeys(checks, False), "stage_seconds": {}, "reasons": {}}
    start = time.monotonic()

    def stage(name: str, func) -> None:
        log(f"stage {name}")
        t = time.monotonic()
        try:
            func()
        finally:
            s["stage_seconds"][name] = round(time.monotonic() - t, 1)

    work = image.cache_root() / f"program-run-{release}-{arch}"
    paths: dict[str, Path] = {}
    try:
        if pins and arch != "arm64":
            raise RuntimeError(f"--pins boots arm64's kernel only; {arch}'s pins are the whole check's "
                               "(python -m vm check)")
        stage("host", lambda: paths.update(wheels=wheels.fetch(tree, release, log, arch),
                                           root=build_root(release, arch, log, pins)))
        root = paths["root"]
        srv = root / "srv"
        shutil.rmtree(srv, ignore_errors=True)
        shutil.rmtree(root / "opt" / "companion", ignore_errors=True)
        for rel in source_files(tree):
            (srv / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(tree / rel, srv / "src" / rel)
        shutil.copytree(paths["wheels"], srv / "wheels")

        def install() -> None:
            # as systemd/install.sh does: a venv without pip of its own, the system's pip installing into it;
            # no bytecode written ahead (the same on every architecture; cold, 354 s with it and 295 s
            # without) and no pip cache (the root is kept: a cached lgpio wheel would skip its build)
            out = must(root, "python3 -m venv --system-site-packages --without-pip /opt/companion\n"
                             "PYPI=1 python3 -m pip --python /opt/companion/bin/python install --quiet --no-compile --no-cache-dir --no-index "
                             "--find-links /srv/wheels --constraint /srv/src/systemd/constraints.txt "
                             "--no-binary lgpio lgpio /srv/src\n"
                             "/opt/companion/bin/python -c 'import sys, lgpio, _lgpio; "
                             "print(sys.version.split()[0], _lgpio.__file__)'", "installing the program")
            version, module = out.split()[-2:]
            s["guest_python"] = version
            machine = elf_machine(root / module.lstrip("/"))
            s["lgpio_module"] = f"{module} (ELF machine {machine})"
            if machine != ELF_MACHINES[arch]:
                raise RuntimeError(f"lgpio's module is built for ELF machine {machine}, not {arch}'s")
            s["lgpio_built_ok"] = True

        stage("install", install)

        def game() -> None:
            profile, script, args = GAME
            must(root, f"cd /srv/src && /opt/companion/bin/companion run --profile {profile} --script {script} "
                       f"--journal-dir /srv/journals {' '.join(args)}", "the game")
            [journal] = (srv / "journals").glob("*.jsonl")
            replayed = must(root, f"/opt/companion/bin/companion replay --json /srv/journals/{journal.name}",
                            "replay")
            there = told(journal, json.loads(replayed))
            shutil.rmtree(work, ignore_errors=True)
            here = play_here(tree, work / "journals")
            s["game"] = there
            if there != here:
                raise RuntimeError(f"{arch} told {json.dumps(there)}; this machine told {json.dumps(here)}")
            s["game_matches_host"] = True

        stage("game", game)
        if pins:
            stage("pins", lambda: pinboot.check(root, tree, image.cache_root() / f"program-pins-{release}", log, s))
    except Exception as e:  # the result is the summary: every false key says why
        s["reasons"]["program_ok"] = f"{type(e).__name__}: {e}"[-4000:]
    s["program_ok"] = all(s[key] for key in checks)
    s["seconds"] = round(time.monotonic() - start, 1)
    return s


def to_text(summary: dict) -> str:
    lines = [f"the program on {summary['release']} {summary['arch']}, CPython {summary.get('guest_python', '?')} "
             f"under qemu-user ({summary['seconds']:.0f} s)"]
    for key in (*CHECKS, *(key for key in PIN_CHECKS if key in summary), "program_ok"):
        lines.append(f"  {'ok  ' if summary[key] else 'FAIL'} {key}")
    lines += [f"  {key}: {value}" for key, value in summary["reasons"].items()]
    lines += [f"  stage {name}: {seconds:.1f} s" for name, seconds in summary["stage_seconds"].items()]
    return "\n".join(lines)
