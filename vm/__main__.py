"""``python -m vm check [--release trixie|bookworm] [--board pi4|pi5] [--json]``: build, boot and check
the virtual Pi.

Exits 0 when every check passed, 1 when any is false (the reasons are in the summary), 2 on bad
arguments. The summary is also saved as ``last-check-<release>-<board>.json`` in the cache, where
``python -m bench`` finds it. See docs/VIRTUAL-PI.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vm import summary as result
from vm.image import RELEASES

BOARDS = ("pi4", "pi5")

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
                       help="the Raspberry Pi the guest's GPIO chip and revision are (default pi4)")
    check.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    check.add_argument("--keep", action="store_true",
                       help="leave the guest's run directory (console log, job outputs) in the cache")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from vm.run import run_check

    def log(message: str) -> None:
        print(f"vm: {message}", file=sys.stderr, flush=True)

    summary = run_check(args.release, ROOT, log, keep=args.keep, board=args.board)
    print(result.to_json(summary) if args.json else result.to_text(summary))
    return result.exit_code(summary)


if __name__ == "__main__":
    sys.exit(main())
