"""``python -m vm check [--release trixie|bookworm] [--board pi4|pi5|pi5-legacy] [--arch amd64|arm64] [--json]``:
build, boot and check the virtual Pi.

Exits 0 when every check passed, 1 when any is false (the reasons are in the summary), 2 on bad
arguments. The summary is also saved as ``last-check-<release>-<board>[-arm64].json`` in the cache, where
``python -m bench`` finds it. See docs/VIRTUAL-PI.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vm import summary as result
from vm.image import ARCHES, RELEASES

BOARDS = ("pi4", "pi5", "pi5-legacy")

ROOT = Path(__file__).resolve().parent.parent


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m vm", description="A virtual Raspberry Pi under QEMU: "
                                "the installer, the unit, GPIO and I2C through a real kernel.")
    sub = p.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="build (cached), boot and check a virtual Pi",
                           description="Builds the release's image (cached outside the clone), boots it, "
                                       "installs the product from this tree and runs every check.")
    check.add_argument("--release", choices=sorted(RELEASES), default="trixie",
                       help="the Debian release of the guest (default trixie, as Raspberry Pi OS now)")
    check.add_argument("--board", choices=BOARDS, default="pi4",
                       help="the Raspberry Pi the guest's GPIO chips and revision are (default pi4); pi5 numbers "
                            "them as kernels since 6.6.45 do, pi5-legacy as before")
    check.add_argument("--arch", choices=ARCHES, default="amd64",
                       help="the guest's architecture: amd64 (default, quick under the emulator) or "
                            "arm64, a Pi's own (its first image takes about 20 minutes to build here; cached)")
    check.add_argument("--machine", choices=("virt", "raspi4b"), default="virt",
                       help="virt (default): the virtual Pi's guest; raspi4b: QEMU's emulated Pi 4 booting "
                            "the SD image given by --image (python -m vm image)")
    check.add_argument("--image", type=Path, help="the SD image for --machine raspi4b")
    check.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    check.add_argument("--keep", action="store_true",
                       help="leave the guest's run directory (console log, job outputs) in the cache")
    card = sub.add_parser("image", help="a flashable arm64 SD card image for a Pi 3, 4 or Zero 2 W",
                          description="Builds (cached) Debian trixie arm64 with the box installed by its "
                                      "installer: firmware, read-only root A and B, data partition "
                                      "(docs/RASPBERRY-PI.md). Writes FILE and FILE.bmap.")
    card.add_argument("--out", required=True, type=Path, help="the image file to write")
    program = sub.add_parser("program", help="the program alone on a Pi's architecture, under qemu-user",
                             description="Builds lgpio from source and the program on the architecture's "
                                         "CPython (qemu-user, no kernel) and plays a game with it, "
                                         "compared with this machine's: what CI runs of arm64.")
    program.add_argument("--release", choices=sorted(RELEASES), default="trixie")
    program.add_argument("--arch", choices=ARCHES, default="arm64")
    program.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    program.add_argument("--pins", action="store_true",
                         help="also boot the program on arm64's own kernel with gpio-sim pins: lgpio called, "
                              "a game's first round on the header's lines (about 30 s more warm; CI runs it)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)

    def log(message: str) -> None:
        print(f"vm: {message}", file=sys.stderr, flush=True)

    if args.command == "image":
        from vm import sdcard
        built = sdcard.build(ROOT, log)
        sdcard.export(built, args.out)
        log(f"wrote {args.out} ({args.out.stat().st_size // 2**20} MiB) and {args.out}.bmap")
        return 0
    if args.command == "program":
        from vm import program
        summary = program.check(args.release, args.arch, ROOT, log, args.pins)
        print(json.dumps(summary, indent=2) if args.json else program.to_text(summary))
        return 0 if summary["program_ok"] else 1
    if args.machine == "raspi4b":
        if args.image is None or not args.image.is_file():
            print("python -m vm check --machine raspi4b needs --image FILE (made by python -m vm image --out FILE)",
                  file=sys.stderr)
            return 2
        from vm import raspi
        summary = raspi.check(args.image.resolve(), ROOT, log)
        print(json.dumps(summary, indent=2) if args.json else raspi.to_text(summary))
        return raspi.exit_code(summary)
    from vm.run import run_check

    summary = run_check(args.release, ROOT, log, keep=args.keep, board=args.board, arch=args.arch)
    print(result.to_json(summary) if args.json else result.to_text(summary))
    return result.exit_code(summary)


if __name__ == "__main__":
    sys.exit(main())
