"""The wheels the guest's pip installs from: downloaded on the host for the guest's Python.

Inside the virtual Pi pip cannot reach PyPI, so the installer runs with ``PIP_NO_INDEX=1`` and
``PIP_FIND_LINKS`` pointing at this directory on the share: the product's runtime dependencies
pinned by systemd/constraints.txt, and setuptools for building the product's own wheel. The
directory is cached beside the image, keyed by release and by the dependency lists' contents.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tomllib
from pathlib import Path

from vm.image import MACHINES, RELEASES, cache_root

def platforms(arch: str) -> list[str]:
    machine = MACHINES[arch]
    return [f"manylinux_2_17_{machine}", f"manylinux2014_{machine}", f"manylinux_2_28_{machine}",
            f"manylinux_2_34_{machine}", f"linux_{machine}"]


BUILD_REQUIREMENTS = ["setuptools>=68", "wheel"]
LGPIO = "lgpio==0.2.2.0"
"""gpiozero's pin driver. A Pi's OS has it from apt (python3-lgpio, Raspberry Pi's archive), which
plain Debian lacks: the installer then takes PyPI's wheel (CPython up to 3.12) or builds PyPI's
source, so both are in the wheel directory (the source only where no wheel fits: CPython 3.13, and
every arm64 guest)."""


def requirements(tree: Path) -> list[str]:
    """The product's runtime dependencies (pyproject.toml) and what building its wheel needs."""
    project = tomllib.loads((tree / "pyproject.toml").read_text())
    build = project.get("build-system", {}).get("requires", [])
    return list(project["project"]["dependencies"]) + list(build) + BUILD_REQUIREMENTS


def download_command(tree: Path, release: str, dest: Path, wanted: list[str] | None = None,
                     arch: str = "amd64") -> list[str]:
    """pip download of ``wanted`` (default: :func:`requirements`) as wheels for the guest's Python."""
    version = RELEASES[release]
    abi = "cp" + version.replace(".", "")
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(dest),
           "--only-binary=:all:", "--python-version", version, "--implementation", "cp",
           "--abi", abi]
    for platform in platforms(arch):
        cmd += ["--platform", platform]
    constraints = tree / "systemd" / "constraints.txt"
    if constraints.exists():
        cmd += ["--constraint", str(constraints)]
    return cmd + (requirements(tree) if wanted is None else wanted)


def wheel_dir(tree: Path, release: str, arch: str = "amd64") -> Path:
    h = hashlib.sha256(f"{release} {arch}".encode())
    for name in ("pyproject.toml", "systemd/constraints.txt"):
        path = tree / name
        h.update(path.read_bytes() if path.exists() else b"")
    return cache_root() / f"wheels-{release}-{arch}-{h.hexdigest()[:12]}"


def fetch(tree: Path, release: str, log, arch: str = "amd64") -> Path:
    dest = wheel_dir(tree, release, arch)
    if (dest / ".complete").exists():
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    log(f"downloading wheels for CPython {RELEASES[release]} on {arch}")
    proc = subprocess.run(download_command(tree, release, dest, arch=arch), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("pip download failed:\n" + proc.stdout[-2000:] + proc.stderr[-2000:])
    if subprocess.run(download_command(tree, release, dest, [LGPIO], arch), capture_output=True).returncode != 0:
        source = [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(dest), "--no-deps",
                  "--no-binary", ":all:", LGPIO]
        proc = subprocess.run(source, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("pip download of lgpio's source failed:\n" + proc.stderr[-2000:])
    (dest / ".complete").write_text("")
    return dest
