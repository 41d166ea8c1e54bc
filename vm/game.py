"""A Triangle game played twice: through gpio-sim in the guest, and on mock pins on the host.

The same press script (station 1 walks the lobby to Triangle, then vm/triangle.txt: a false start
2 s before the reveal, a three-way tie written back to back, a race won by 60 ms, a claim) drives
both. In the guest each press is a gpio-sim line pulled low at its time, so it travels kernel ->
the GPIO reader process (companion/adapters/gpioreader.py, the gpiochip's line events) -> daemon
-> journal with the kernel's edge time; on the host it is gpiozero's mock pin, pressed at the
instant the guest's kernel stamped that edge. Those stamps are read from the kernel itself: its
``irq:irq_handler_entry`` trace event on the monotonic trace clock fires right before gpio-cdev's
hard interrupt handler takes the edge's stamp (:func:`kernel_stamps`). So the mock game is the
verdicts the kernel's own stamps give, whatever the emulator's skew between the harness's writes
and the stamps (a tie written back to back and stamped 11 ms apart on a starved host is no tie,
for both); the races' verdicts (action and winners) must be the same, and the guest's reaction
times must be as far apart as the kernel's stamps, which says the daemon used them.

Runs on the host with the product imported from the tree (the caller puts it on sys.path).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

MOCK_PROFILE = "hardware/profiles/mock-3.toml"
GUEST_PROFILE = "hardware/profiles/mux-3.toml"  # what install.sh installs by default
GAME_SCRIPT = "vm/triangle.txt"
"""Its gaps are far wider than gpio-sim's stamping jitter, so the verdicts cannot depend on it."""
SEED = 8
LOBBY_STEP_S = 0.4
"""Lobby presses this far apart: slower than tests/test_triangle_daemon.py's 0.2 s, for a guest
whose daemon runs under an emulator."""
HOLD_S = 0.2
"""Every press is held this long: gpio-sim turns a press and release that fall into one pass of
its deferred interrupt work into one edge (docs/VIRTUAL-PI.md), which a long hold rules out."""
STAMP_TOLERANCE_MS = 1.0
"""How far a reaction-time difference may be from the gap between the kernel's stamps of the two
edges. The trace event and the handler's stamp are microseconds apart with interrupts off; the
host can still deschedule the virtual CPU between them. 1 ms is far below the emulator's delivery
delays (p50 about 17 ms idle, p99 beyond 180 ms), which is what the gaps would show if the daemon
timed presses by their arrival."""
BUTTONS_IRQ_NAME = "companion buttons"
"""The interrupts of the reader's line request carry its consumer label (gpio-cdev's
request_threaded_irq), which the trace event names."""


def lobby_to_triangle(stations: int, step_s: float = LOBBY_STEP_S):
    """Station 1 walks the lobby to Triangle and starts it with the default options."""
    from companion.games import get
    from companion.games.options import lobby_choices
    from companion.script import ScriptPress
    from companion.table import Table

    names = tuple(f"P{i + 1}" for i in range(stations))
    steps = [g.name for g in Table(names, None).lobby.games].index("triangle")
    keys = ["right"] * steps + ["ok"] + ["ok"] * len(lobby_choices(get("triangle").Options)) + ["ok"]
    return [ScriptPress(step_s * (i + 1), 0, key, HOLD_S) for i, key in enumerate(keys)]


def presses(tree: Path, until_s: float | None = None, lobby_step_s: float = LOBBY_STEP_S):
    """The lobby's presses, ``lobby_step_s`` apart, then the game script's (those up to ``until_s``
    into it, if given)."""
    from companion.script import load_script

    lobby = lobby_to_triangle(3, lobby_step_s)
    game = [replace(p, at_s=lobby[-1].at_s + p.at_s) for p in load_script(tree / GAME_SCRIPT, 3)
            if until_s is None or p.at_s <= until_s]
    return lobby + game


def script_text(presses_) -> str:
    return "".join(f"{p.at_s:.3f} {p.station + 1} {p.key} {p.hold_s}\n" for p in presses_)


def pin_of(profile_path: Path, station: int, key: str) -> int:
    from companion.profile import load_profile

    return load_profile(profile_path).stations[station].pins[key]


def pin_edges(presses_, profile_path: Path) -> list[list]:
    """[seconds, BCM line, pressed, station, key] for every press and release, in time order;
    vm/inguest/pins.py plays the first three."""
    from companion.profile import load_profile
    from companion.script import edges

    profile = load_profile(profile_path)
    return [[t, profile.stations[station].pins[key], pressed, station, key]
            for t, station, key, pressed in edges(presses_)]


TRACE_EVENT = re.compile(r"\s(\d+)\.(\d{6}): irq_handler_entry: irq=(\d+) name=" + BUTTONS_IRQ_NAME)


def kernel_stamps(edges_: list[list], times: list[list[int]], trace: str, irqs: str) -> list[int | None]:
    """Each edge's kernel stamp (CLOCK_MONOTONIC ns, to the microsecond the trace prints), from the
    trace of ``irq:irq_handler_entry`` (trace_clock=mono) and ``irqs``, lines of "IRQ LINE" (each
    of the reader's interrupts and its line, /sys/kernel/irq/N/hwirq). An edge's stamp is its
    line's first interrupt at or after its write began; None where there is none before the
    line's next write: gpio-sim merged the two writes into one edge (docs/VIRTUAL-PI.md)."""
    line_of = {int(irq): int(line) for irq, line in (row.split() for row in irqs.splitlines() if row.strip())}
    on_line: dict[int, list[int]] = {}
    for m in TRACE_EVENT.finditer(trace):
        if int(m.group(3)) in line_of:
            on_line.setdefault(line_of[int(m.group(3))], []).append(int(m.group(1)) * 10**9 + int(m.group(2)) * 1000)
    writes: dict[int, list[int]] = {}
    for i, edge in enumerate(edges_):
        writes.setdefault(edge[1], []).append(i)
    stamps: list[int | None] = [None] * len(edges_)
    for line, order in writes.items():
        seen, k = sorted(on_line.get(line, [])), 0
        for n, i in enumerate(order):
            begun = times[i][0] - 1000  # the trace's microseconds, rounded down
            following = times[order[n + 1]][0] if n + 1 < len(order) else None
            while k < len(seen) and seen[k] < begun:
                k += 1
            if k < len(seen) and (following is None or seen[k] < following):
                stamps[i] = seen[k]
                k += 1
    return stamps


def as_played(edges_: list[list], stamps: list[int]) -> str:
    """The script as the guest's kernel timed it: each press at its edge's kernel stamp, held
    until its release's, from the first edge's scheduled time."""
    start = stamps[0] - edges_[0][0] * 1e9
    lines, held = [], {}
    for edge, at in zip(edges_, stamps):
        _, _, pressed, station, key = edge
        if pressed:
            held[(station, key)] = at
        else:
            down = held.pop((station, key))
            lines.append((down, f"{(down - start) / 1e9:.6f} {station + 1} {key} {(at - down) / 1e9:.6f}\n"))
    return "".join(line for _, line in sorted(lines))


def mock_run(tree: Path, script: Path, journals: Path) -> Path:
    """The same presses on mock pins on a simulated clock (vm/mockgame.py); its journal."""
    here = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(tree / "tests"), str(here)]),
               SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    journals.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "vm.mockgame", str(tree), str(script), str(journals)],
                          cwd=tree, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError("the mock game failed:\n" + proc.stderr[-2000:])
    [journal] = sorted(journals.glob("*.jsonl"))
    return journal


def races(tree: Path, journal: Path) -> list[dict]:
    """The journal's races as ``companion replay --json`` tells them."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-m", "companion", "replay", "--json", str(journal)],
                         cwd=tree, env=env, check=True, capture_output=True, text=True, timeout=120).stdout
    return json.loads(out)["races"]


def verdict(race: dict) -> tuple:
    return race["action"], tuple(race.get("winners") or ()), race.get("player")


SAME_RACE_S = 0.2
"""Slaps in the script closer than this to the first of their group are one race."""


def reaction_gaps(edges_: list[list], stamps: list[int], races_: list[dict]) -> list[tuple]:
    """For each race with two or more reactions, and each later slap in it: (race, the gap
    between the two players' presses as the journal has them, in ms; the gap between the two
    kernel edges, in ms, from their kernel stamps). Equal gaps say the daemon timed each press by
    its kernel edge, not by when it got to it."""
    slaps = [(i, e[0], e[3]) for i, e in enumerate(edges_) if e[2] and e[4] == "slap"]
    groups: list[list[tuple]] = []
    for slap in slaps:
        if groups and slap[1] - groups[-1][0][1] < SAME_RACE_S:
            groups[-1].append(slap)
        else:
            groups.append([slap])
    raced = [r for r in races_ if sum(x is not None for x in r["reaction_ms"]) >= 2]
    out = []
    for n, (race, group) in enumerate(zip(raced, [g for g in groups if len(g) >= 2])):
        at = [None if x is None else x + o for x, o in zip(race["reaction_ms"], race["onset_ms"])]
        first_i, _, first = group[0]
        for i, _, station in group[1:]:
            if at[station] is not None and at[first] is not None:
                out.append((n, round(at[station] - at[first], 3), round((stamps[i] - stamps[first_i]) / 1e6, 3)))
    return out


def compare(mock: list[dict], guest: list[dict]) -> list[str]:
    """What differs between the two games' verdicts (empty: the same)."""
    problems = []
    if [verdict(r) for r in mock] != [verdict(r) for r in guest]:
        problems.append(f"verdicts differ: mock {[verdict(r) for r in mock]}, guest {[verdict(r) for r in guest]}")
    return problems


def expected_lines(tree: Path, presses_) -> int:
    """How many journal lines the scheduled presses make on mock pins: the guest's game is over
    when its journal has as many."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "scheduled.txt").write_text(script_text(presses_))
        return len(mock_run(tree, Path(tmp) / "scheduled.txt", Path(tmp) / "scheduled").read_text().splitlines())
