"""The table monkey's oracle: the rules' invariants checked at every line of a journal.

``companion replay`` reads a journal back with the very rules the box played it with, so a rule
the box gets wrong (a quiz player who pressed too early allowed into the race) replays as well
as it was played: the replay sees nothing. Each game also states, apart from its rules, what must
hold in every state it can reach (``Rules.check_invariants``: a prelocked player is in no race,
a balance is income minus the marks' costs, a round's points are its scoring's); the box never
calls them. The oracle replays a journal line by line and checks those statements after each
line, so a rules fault shows as the first line whose state breaks one, with the rule it breaks.

    python -m tests.monkey_oracle JOURNAL...

prints each journal's first broken rule (``line 5 (buzz): a player who pressed too early is in
no race``) and exits 1 if any broke one. A journal the replay refuses is not the oracle's to
tell: the monkey's replay check (``unreadable``) reports it with the replay's reason.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.record.journal import JournalError, read_journal, replay
from companion.record.match import Match
from companion.untrusted import Unreadable


@dataclass(frozen=True)
class Broken:
    """A journal line after which the game's state breaks a rule that must always hold."""

    line: int
    action: str
    rule: str

    def __str__(self) -> str:
        return f"line {self.line} ({self.action}): {self.rule}"


class _Stop(Exception):
    def __init__(self, broken: Broken) -> None:
        self.broken = broken


def check(lines: list[bytes]) -> tuple[Broken | None, int]:
    """The first line of ``lines`` (a journal's) after which the state breaks an invariant, or
    None; and how many lines were checked. Replay stops at that line."""
    checked = 0

    def after(number: int, match: Match, events: list[dict[str, Any]], line: Any) -> None:
        nonlocal checked
        checked += 1
        try:
            match.rules.check_invariants(match.state)
        except AssertionError as e:
            what = line.get("action") or line.get("event") or line.get("type") if isinstance(line, dict) else None
            raise _Stop(Broken(number, str(what or "header"), str(e) or "an invariant (unnamed) fails")) from None

    try:
        replay(lines, after)
    except _Stop as stop:
        return stop.broken, checked
    except JournalError:
        pass  # refused by the replay itself: the replay check reports it
    return None, checked


def check_file(path: Path) -> tuple[Broken | None, int]:
    """:func:`check` of the journal at ``path``; a file that cannot be read is the replay's to report."""
    try:
        return check(read_journal(path))
    except Unreadable:
        return None, 0


def main(argv: list[str]) -> int:
    broke = 0
    for name in argv:
        broken, checked = check_file(Path(name))
        print(json.dumps({"journal": name, "lines_checked": checked, "broken": str(broken) if broken else None}))
        broke += broken is not None
    return 1 if broke else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
