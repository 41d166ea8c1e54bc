"""The box's command line with one method of the box replaced by a double that raises: a fault
put where a game handles a press, the time passing or its resume, to see the box set that game
aside and go on, in the same process a Pi runs.

    python tests/faulty_box.py MODULE:CLASS.METHOD [KEY] -- companion ARGUMENTS...

With ``KEY`` the double raises only for an input event of that key (its first argument after
``self``) and otherwise does what the method does; without, it raises at every call.
"""

from __future__ import annotations

import importlib
import sys


class PutInFault(RuntimeError):
    """The fault the double raises: its name in the log says it was put in by a test."""


def put_in(target: str, key: str | None) -> None:
    module, _, qualname = target.partition(":")
    owner_name, _, method = qualname.rpartition(".")
    owner = importlib.import_module(module)
    for part in owner_name.split("."):
        owner = getattr(owner, part)
    real = getattr(owner, method)

    def double(self, *args, **kwargs):
        if key is None or getattr(args[0], "key", None) == key:
            raise PutInFault(f"{target} failed, as the test asked")
        return real(self, *args, **kwargs)

    setattr(owner, method, double)


def main(argv: list[str]) -> int:
    split = argv.index("--")
    target, *key = argv[:split]
    put_in(target, key[0] if key else None)
    from companion.cli import main as companion

    return companion(argv[split + 1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
