"""The table monkey: random game nights played through the real box process, checked as a table
and a restarted service would find them.

    python -m tests.monkey [--minutes M | --nights N] [--lives L] [--games G ...] [--seed S] [--json]
    python -m tests.monkey --replay monkey-failures/CASE.json

A *night* is one box (a mock profile of 2 to 6 stations, or the 17-station quiz with its virtual
button board) and one game the lobby starts on (``--game``), played over several *lives*. Each
life is the real ``companion run --profile P --script S --journal-dir D`` a Pi runs, on mock
pins, its presses a random script of every gesture a player can make (:mod:`tests.monkey_gestures`).
A life is either SIGKILLed at a random moment (a power cut) or left to stop by itself when its
script ends (a clean restart); the next life starts on the same journal directory and resumes,
as a restarted service does. The box runs under a stand-in for systemd's notify socket with the
unit's watchdog (``WatchdogSec=10``), so a loop that stops turning is seen.

After each life the monkey checks, and counts what fails:

- **unreadable**: every journal on the shelf replays with ``companion replay --json`` and
  ``companion replay --explain`` (exit 0);
- **resume**: a game killed while not over is offered by the next life (its log says it found
  it), and the journal that life leaves begins with every complete line the killed life left,
  byte for byte (only a torn last line may be cut). This is what "the resumed game equals the
  game without the kill" means here: the replayed state at the kill is then the state the
  uninterrupted game had at that line, and every line the resumed box added replays on top of
  it. The monkey does not compare with a kill-free run of the same script: ``companion run
  --script`` plays on the real clock, so a race's verdict (a slap before or after a countdown
  ends) can differ between two runs of one script, kill or not;
- **traceback**: no ``Traceback`` in a life's log (a game's fault sets the game aside and logs
  its traceback: that is a failure here), nor from ``companion profile check`` or ``profile
  diagram`` of the night's profile, run before its first life;
- **exit**: a life left to end exits 0 (a killed life that ended before its kill, too);
- **hang**: the box pings the watchdog at least every :data:`WATCHDOG_S` while it runs (the
  first within :data:`START_S`), and exits within :data:`HANG_S` of saying it has driven its
  script's last press (:data:`~companion.daemon.scripted.SCRIPT_PLAYED` in its log); a box that
  does not is killed, as systemd would. The script's end is what the box says, never the
  script's length counted from the process's start: on a busy machine the box starts late and
  its script moves later with it (an 18-minute run at load 10-20 called such a life a hang);
- **host**: on a quiz night hosted from a phone too (half of them: :mod:`tests.monkey_host`, a
  phone pressing its page's keys at random beside the script's host at the station), the box lets
  that phone host with the PIN it logged and never closes it as a broken phone;
- **lost**: every game a life started (its log names the journal) is listed by
  ``companion games``, not as unreadable;
- **rules**: the oracle (:mod:`tests.monkey_oracle`), which the box does not share: every
  journal replayed line by line, the game's invariants (``check_invariants``, which the box never
  calls) checked after each line. A rule the box plays wrong replays as it was played, so the
  replay alone cannot see it; the first line whose state breaks an invariant is reported, and the
  journal as it was is saved beside the case.

A failure is saved under ``monkey-failures/`` (``--failures DIR``) as a JSON case: the seed, the
profile, the game and its lives (each life's script and kill moment), shrunk to the fewest lives
and gestures that still fail; a journal the oracle faulted is saved beside it (``CASE-life2.jsonl``). ``--replay CASE`` plays a case again; ``tests/test_monkey.py``
replays every case committed under ``tests/monkey_cases/``. The figures (nights, lives, presses,
gestures by kind, kills, journals checked, failures by kind) are printed, or as JSON with
``--json``; the exit status is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from companion.daemon.scripted import SCRIPT_PLAYED  # noqa: E402
from companion.script import parse_script  # noqa: E402
from tests.monkey_gestures import KINDS, Players, life_script  # noqa: E402
from tests.monkey_oracle import check_file  # noqa: E402
from tests.monkey_host import HostPhone, hosted  # noqa: E402

PROFILES = ROOT / "hardware" / "profiles"
BOXES = {2: ROOT / "companion" / "demo" / "profile.toml", 3: PROFILES / "mock-3.toml", 4: PROFILES / "mock-4.toml",
         5: PROFILES / "mock-5.toml", 17: PROFILES / "mock-quiz-16.toml"}
"""The mock profiles a night is played on, by station count; six are the six-station box with
its button board on mock pins (:func:`six_stations`); four are sometimes the box with a board."""
GAMES = ("triangle", "paytoplay", "closest", "trio", "pictomania", "quiz")
WATCHDOG_S = 10
"""The service's ``WatchdogSec`` (systemd/companion.service)."""
HANG_S = 30.0
"""A life still running this long after the box said it drove its script's last press has hung
(it stops 0.3 s after the box has taken that edge). Until it says so, the watchdog alone tells
a hung box: its loop, which plays the script, pings it."""
START_S = 30.0
"""A box that has not pinged the watchdog this long after its start has hung starting (a
stand-in for the unit's start timeout)."""
PACK = ROOT / "docs" / "packs" / "first-night.csv"
"""A quiz night's question pack: in the journal directory's packs folder (the lobby offers it,
and leaves out a bad pack beside it), sometimes also named with ``--option quiz.pack``; between
lives the folder's copy is sometimes spoiled, so a resumed night finds its pack unreadable."""
FAILURES = ROOT / "monkey-failures"
CASES = ROOT / "tests" / "monkey_cases"


def six_stations() -> str:
    """six-with-board.toml on mock pins: three stations on GPIO, three on the virtual button board."""
    return (PROFILES / "six-with-board.toml").read_text().replace('backend = "pi"', 'backend = "mock"')


@dataclass
class Life:
    script: str
    kill_at_s: float | None
    """Seconds after the start to SIGKILL the box; None: it stops by itself at the script's end."""
    seed: int
    gestures: list[tuple[str, float]] = field(default_factory=list)
    """Each gesture's kind and when it begins, to count those made before a kill."""


@dataclass
class Night:
    seed: str
    game: str
    profile: str
    """The profile's TOML text."""
    lives: list[Life]
    options: list[str] = field(default_factory=list)
    """``--option GAME.NAME=VALUE`` the box is started with in every life."""
    host_phone: bool = False
    """A quiz night hosted from a phone too (:mod:`tests.monkey_host`), beside the station's host."""


@dataclass
class Failure:
    kind: str
    life: int
    detail: str
    journal: str = ""
    """The journal as the oracle found it (kind ``rules``), saved beside the case."""


def plan_night(seed: str, games: list[str], life_s: float, lives: int | None = None,
               options: list[str] = ()) -> Night:
    """A random night: a box, a game it offers, and its lives' scripts and kills."""
    from companion.profile import load_profile

    rnd = random.Random(seed)
    while True:
        game = rnd.choice(games)
        stations = rnd.choice([2, 3, 4, 5, 6] + ([17, 17] if game == "quiz" else []))
        text = six_stations() if stations == 6 else (
            (PROFILES / "mock-board.toml") if stations == 4 and rnd.random() < 0.4 else BOXES[stations]).read_text()
        if game in offered(text):
            break
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        f.write(text)
        f.flush()
        keys = load_profile(f.name).station_keys()
    from companion.games import get

    rules = get(game)
    players = Players(keys, rnd, game == "quiz", (rules.min_players, rules.max_players))
    plan = []
    for n in range(lives or rnd.randint(2, 5)):
        gestures, script = life_script(players, rnd.uniform(0.5, 1.0) * life_s, n == 0)
        earliest = gestures[0].end_s + 1.0 if n == 0 else 0.8  # a night's first life gets its game going
        kill = rnd.uniform(earliest, max(earliest, life_s * 1.1)) if rnd.random() < 0.6 else None
        plan.append(Life(script, kill, rnd.randrange(1 << 30), [(g.kind, round(g.at_s, 3)) for g in gestures]))
    options = [o for o in options if o.startswith(game + ".")]
    if game == "quiz" and not any(o.startswith("quiz.pack=") for o in options) and rnd.random() < 0.3:
        options.append(f"quiz.pack={PACK}")  # a pack named on the command line, beside the folder's
    phone = game == "quiz" and random.Random(f"{seed}/host").random() < 0.5  # the other draws as before
    return Night(seed, game, hosted(text) if phone else text, plan, options, phone)


_OFFERED: dict[str, set[str]] = {}


def offered(profile_text: str) -> set[str]:
    """The games the lobby of a box with this profile offers."""
    if profile_text not in _OFFERED:
        from companion.table import Table

        names = tuple(re.findall(r'^name = "(.*)"', profile_text, re.M)[1:])
        _OFFERED[profile_text] = {g.name for g in Table(names, None).lobby.games}
    return _OFFERED[profile_text]


class Watchdog:
    """systemd's notify socket, as the service has it: records when each ``WATCHDOG=1`` came."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.pings: list[float] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                data = self.sock.recv(4096)
            except OSError:
                return
            if b"WATCHDOG=1" in data or b"READY=1" in data:
                self.pings.append(time.monotonic())

    def close(self) -> None:
        self.sock.close()
        self.path.unlink(missing_ok=True)


def companion(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def complete_lines(path: Path) -> bytes:
    data = path.read_bytes()
    return data[:data.rfind(b"\n") + 1]


class Table:
    """One night's journal directory, its lives played in turn, each checked."""

    def __init__(self, night: Night, scratch: Path) -> None:
        self.night = night
        self.scratch = scratch
        self.journals = scratch / "games"
        self.profile = scratch / "profile.toml"
        self.profile.write_text(night.profile)
        if night.game == "quiz":
            packs = self.journals / "packs"
            packs.mkdir(parents=True)
            (packs / PACK.name).write_bytes(PACK.read_bytes())
            (packs / "broken.csv").write_text("question,answer,points\nWho?,,ten\n")
        self.started: set[str] = set()
        """Journal names (without ``.jsonl``) that lives said they started."""
        self.replayed: dict[str, str] = {}
        """A journal's hash -> its name, for journals already replayed as they are now."""
        self.figures = Counter()
        self.on_start: Callable[[subprocess.Popen], None] | None = None
        """Told each life's box process as it starts: a test stops it there, as a busy machine would."""

    def play(self, stop_at_first: bool = True) -> list[Failure]:
        failures = self.check_profile()
        for n, life in enumerate(self.night.lives):
            failures += self.live(n, life)
            if failures and stop_at_first:
                break
        return failures

    def check_profile(self) -> list[Failure]:
        """The box's maker checks its profile and draws its wiring (``profile check``, ``profile
        diagram``) before the first game: both end without a traceback."""
        failures = []
        wiring = self.scratch / "wiring"
        for args in (["check", str(self.profile)], ["diagram", str(self.profile), "--out", str(wiring)]):
            done = companion("profile", *args)
            if done.returncode != 0 or "Traceback" in done.stderr:
                failures.append(Failure("traceback", 0, f"companion profile {args[0]}: exit {done.returncode}: "
                                                        f"{done.stderr.strip()[-1500:]}"))
        return failures

    def live(self, n: int, life: Life) -> list[Failure]:
        """Play one life and check it."""
        cut = self._unfinished()
        if self.night.game == "quiz" and n > 0 and life.seed % 4 == 0:  # the folder's pack spoiled mid-night
            (self.journals / "packs" / PACK.name).write_text("question,answer\n,\n")
        script = self.scratch / f"life{n}.txt"
        script.write_text(life.script)
        log_path = self.scratch / f"life{n}.log"
        watchdog = Watchdog(self.scratch / f"notify{n}")
        env = {**os.environ, "NOTIFY_SOCKET": str(watchdog.path), "WATCHDOG_USEC": str(WATCHDOG_S * 1_000_000),
               "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        args = [sys.executable, "-m", "companion", "run", "--profile", str(self.profile), "--script", str(script),
                "--journal-dir", str(self.journals), "--game", self.night.game, "--seed", str(life.seed),
                *(f"--option={option}" for option in self.night.options)]
        with log_path.open("w") as log:
            proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
            host = HostPhone(log_path, life.seed) if self.night.host_phone else None
            if host is not None:
                host.start()
            if self.on_start is not None:
                self.on_start(proc)
            killed, hung = self._watch(proc, watchdog, life.kill_at_s, log_path)
        watchdog.close()
        failures = [Failure("hang", n, hung)] if hung else []
        if host is not None:
            host.stop()
            self.figures.update(host.figures)
            failures += [Failure("host", n, problem) for problem in host.problems]
        self.figures["lives"] += 1
        self.figures["kills"] += killed
        pressed = [p for p in parse_script(life.script, 17) if not killed or p.at_s < life.kill_at_s]
        self.figures["presses"] += len(pressed)
        log_text = log_path.read_text(errors="replace")
        if "Traceback" in log_text:
            failures.append(Failure("traceback", n, log_text[log_text.index("Traceback"):][:1500]))
        if not killed and proc.returncode != 0 and not any(f.kind == "hang" for f in failures):
            failures.append(Failure("exit", n, f"exit {proc.returncode}: {log_text[-800:]}"))
        self.started |= set(re.findall(r"game started: \S+ \(number \d+ on this box\), journal \S*/([^/\s]+)\.jsonl",
                                       log_text))
        failures += self._check_resume(n, cut, log_text)
        failures += self._check_shelf(n)
        return failures

    @staticmethod
    def _watch(proc: subprocess.Popen, watchdog: Watchdog, kill_at_s: float | None,
               log_path: Path) -> tuple[bool, str | None]:
        """Wait for the box to end, killing it at ``kill_at_s``, as systemd watches the service:
        no watchdog ping for :data:`WATCHDOG_S` (or none within :data:`START_S` of the start) is a
        hang, and so is a box still running :data:`HANG_S` after its log (``log_path``) said it
        drove its script's last press. Whether it was killed, and what hung."""
        start = time.monotonic()
        played_at = None  # when the box said its script's last press was driven
        read = 0
        while proc.poll() is None:
            now = time.monotonic()
            if played_at is None:
                with log_path.open("rb") as log:  # what the box wrote since the last look (and a line's end)
                    at = max(0, read - len(SCRIPT_PLAYED))
                    log.seek(at)
                    new = log.read()
                read = at + len(new)
                if SCRIPT_PLAYED.encode() in new:
                    played_at = now
            last_ping = watchdog.pings[-1] if watchdog.pings else None
            hung = (f"no watchdog ping for {now - last_ping:.1f} s (the watchdog's timeout is {WATCHDOG_S} s)"
                    if last_ping is not None and now - last_ping > WATCHDOG_S else
                    f"no watchdog ping {START_S:g} s after the start" if last_ping is None and now - start > START_S
                    else f"still running {HANG_S:g} s after it drove its script's last press"
                    if played_at is not None and now - played_at > HANG_S else None)
            if hung or kill_at_s is not None and now - start >= kill_at_s:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return not hung, hung
            time.sleep(0.05)
        return False, None

    def _unfinished(self) -> tuple[Path, bytes] | None:
        """The newest journal and its complete lines, if its game is not over (what a restart offers)."""
        from companion.record.recovery import ABANDONED, journals
        from companion.record.journal import JournalError, journal_lines, replay

        found = [p for p in journals(self.journals) if not p.name.endswith(ABANDONED)] if self.journals.is_dir() else []
        if not found:
            return None
        lines = complete_lines(found[-1])
        try:
            _, match = replay(journal_lines(lines))
        except (JournalError, ValueError):
            return None  # counted by the shelf's check
        return None if match.outcome is not None else (found[-1], lines)

    def _check_resume(self, n: int, cut: tuple[Path, bytes] | None, log_text: str) -> list[Failure]:
        """The game ``cut`` (a journal not over, its complete lines, before the life) offered by
        the life, if it got as far as its first frame (a kill can come before), and its lines
        kept byte for byte."""
        if cut is None or not cut[1]:
            return []
        path, lines = cut
        self.figures["resumes_checked"] += 1
        offered = re.search(rf"found \S+ not over in {re.escape(path.name)}", log_text)
        if not offered and "ready: first frame" in log_text:
            return [Failure("resume", n, f"{path.name} was not over, and the next life did not offer it")]
        stem = path.name[:-len(".jsonl")]
        now = [p for p in self.journals.glob(stem + "*.jsonl")]
        if not now:
            return [Failure("resume", n, f"{path.name}: gone after the next life")]
        if not any(p.read_bytes().startswith(lines) for p in now):
            return [Failure("resume", n, f"{path.name}: the next life did not keep the {len(lines.splitlines())} lines "
                                         "the kill left, byte for byte")]
        return []

    def _check_shelf(self, n: int) -> list[Failure]:
        """Every journal replays (``--json`` and ``--explain``); every game started is listed."""
        failures = []
        if not self.journals.is_dir():  # killed before the box made it
            return [Failure("lost", n, f"{stem}.jsonl was started and its folder is gone") for stem in self.started]
        for path in sorted(self.journals.glob("*.jsonl")):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            if digest in self.replayed:
                continue
            self.figures["journals_checked"] += 1
            for how in ("--json", "--explain"):
                done = companion("replay", how, str(path))
                if done.returncode != 0 or "Traceback" in done.stderr:
                    failures.append(Failure("unreadable", n, f"replay {how} {path.name}: exit {done.returncode}: "
                                                             f"{done.stderr.strip()[-800:]}"))
            broken, checked = check_file(path)
            self.figures["lines_checked"] += checked
            if broken is not None:
                failures.append(Failure("rules", n, f"{path.name}: {broken}",
                                        path.read_bytes().decode("utf-8", "replace")))
            self.replayed[digest] = path.name
        done = companion("games", "--journal-dir", str(self.journals))
        listed = done.stdout
        if done.returncode != 0 or "Traceback" in done.stderr:
            failures.append(Failure("lost", n, f"companion games: exit {done.returncode}: {done.stderr[-800:]}"))
        for line in listed.splitlines():
            if "unreadable" in line:
                failures.append(Failure("unreadable", n, f"companion games: {line}"))
        for stem in sorted(self.started):
            if stem not in listed:
                failures.append(Failure("lost", n, f"{stem}.jsonl was started and is not listed by companion games"))
        return failures


def play_night(night: Night, figures: Counter | None = None, keep: Path | None = None) -> list[Failure]:
    """Play ``night`` in a fresh directory (under ``keep``, kept, if given; else removed)."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"night-{night.seed}-", dir=keep,
                                     ignore_cleanup_errors=True) as scratch:
        table = Table(night, Path(scratch))
        failures = table.play()
        if keep is not None:
            os.rename(scratch, f"{scratch}.kept")
            os.mkdir(scratch)
    if figures is not None:
        figures.update(table.figures)
        figures["nights"] += 1
        for life in night.lives[:table.figures["lives"]]:
            figures.update(f"gesture_{kind}" for kind, at_s in life.gestures
                           if life.kill_at_s is None or at_s < life.kill_at_s)
    return failures


def shrink(night: Night, failure: Failure, budget_s: float) -> Night:
    """The night cut to the fewest lives and gestures that still fail the same way (within
    ``budget_s`` of trying): the lives after the failing one dropped, then every life before it
    at once, else each in turn, then halves, quarters ... of each life's script lines."""
    deadline = time.monotonic() + budget_s
    best = replace(night, lives=night.lives[:failure.life + 1])

    def fails(candidate: Night) -> bool:
        return time.monotonic() < deadline and any(f.kind == failure.kind for f in play_night(candidate))

    alone = replace(best, lives=best.lives[-1:])  # the quickest to try: the failing life on a fresh box
    if len(best.lives) > 1 and fails(alone):
        best = alone
    i = 0
    while i < len(best.lives) - 1:
        candidate = replace(best, lives=best.lives[:i] + best.lives[i + 1:])
        if fails(candidate):
            best = candidate
        else:
            i += 1
    for li in range(len(best.lives)):
        lines = best.lives[li].script.splitlines()
        chunk = max(1, len(lines) // 2)
        while chunk >= 1 and time.monotonic() < deadline:
            start = 0
            while start < len(lines):
                kept = lines[:start] + lines[start + chunk:]
                life = best.lives[li]
                trial = replace(life, script="\n".join(kept) + "\n")
                candidate = replace(best, lives=best.lives[:li] + [trial] + best.lives[li + 1:])
                if kept and fails(candidate):
                    lines, best = kept, candidate
                else:
                    start += chunk
            chunk //= 2
    return best


def save(night: Night, failures: list[Failure], directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{night.game}-{re.sub(r'[^0-9A-Za-z-]', '-', night.seed)}.json"
    told = []
    for f in failures:
        told.append({k: v for k, v in asdict(f).items() if k != "journal"})
        if f.journal:  # the oracle's: the journal as it was, beside the case
            saved = path.with_name(f"{path.stem}-life{f.life + 1}.jsonl")
            saved.write_text(f.journal)
            told[-1]["journal"] = saved.name
    path.write_text(json.dumps({"night": asdict(night), "failures": told}, indent=1) + "\n")
    return path


def load_case(path: Path) -> Night:
    data = json.loads(path.read_text())["night"]
    return Night(**{**data, "lives": [Life(**life) for life in data["lives"]]})


def monkey(seed: int, games: list[str], minutes: float | None, nights: int | None, life_s: float,
           failures_dir: Path, shrink_s: float, say=print, keep: Path | None = None,
           lives: int | None = None, options: list[str] = ()) -> dict:
    """Random nights until ``minutes`` have passed or ``nights`` are played (each of ``lives``
    lives, or 2 to 5)."""
    figures = Counter()
    kinds = Counter()
    saved = []
    start = time.monotonic()
    n = 0
    while (nights is None or n < nights) and (minutes is None or time.monotonic() - start < minutes * 60):
        night = plan_night(f"{seed}-{n}", games, life_s, lives, options)
        failures = play_night(night, figures, keep)
        kinds.update(f.kind for f in failures)
        figures["failing_nights"] += bool(failures)
        say(f"night {night.seed}: {night.game}{' hosted from a phone' * night.host_phone} on "
            f"{len(offered_names(night.profile))} stations, "
            f"{len(night.lives)} lives: " + ("ok" if not failures else "; ".join(f"{f.kind} (life {f.life + 1})"
                                                                              for f in failures)))
        if failures:
            for f in failures:
                say(f"  {f.kind}: {f.detail}")
            small = shrink(night, failures[0], shrink_s)
            saved.append(str(save(small, failures, failures_dir)))
            say(f"  saved {saved[-1]} ({len(small.lives)} lives, "
                f"{sum(len(life.script.splitlines()) for life in small.lives)} presses)")
        n += 1
    return {"seed": seed, "games": games, "minutes": round((time.monotonic() - start) / 60, 1),
            **{k: figures[k] for k in ("nights", "lives", "presses", "kills", "resumes_checked", "journals_checked",
                                  "lines_checked")},
            "gestures": {k: figures[f"gesture_{k}"] for k in KINDS},
            "failures": sum(kinds.values()), "failures_by_kind": dict(kinds),
            "failing_nights": figures["failing_nights"],
            "host_phone": {k: v for k, v in sorted(figures.items()) if k.startswith("host_")},
            "saved": saved}


def offered_names(profile_text: str) -> list[str]:
    return re.findall(r'^name = "(.*)"', profile_text, re.M)[1:]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.monkey", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, help="play nights for this long (default 3, unless --nights)")
    parser.add_argument("--nights", type=int, help="play this many nights")
    parser.add_argument("--lives", type=int, help="lives in each night (default: 2 to 5)")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--seed", type=int, default=None, help="seeds every night (default: random, printed)")
    parser.add_argument("--life-seconds", type=float, default=20.0, help="longest script of one life (default 20)")
    parser.add_argument("--failures", type=Path, default=FAILURES, help="where failing cases are saved")
    parser.add_argument("--shrink-minutes", type=float, default=5.0, help="time to shrink each failure (default 5)")
    parser.add_argument("--replay", type=Path, help="play a saved case again and check it")
    parser.add_argument("--option", action="append", default=[], metavar="GAME.NAME=VALUE",
                        help="start every box with this game option (companion run --option), e.g. quiz.early=prelock")
    parser.add_argument("--keep", type=Path, help="keep each night's journals, scripts and logs in this folder")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.replay:
        failures = play_night(load_case(args.replay), keep=args.keep)
        for f in failures:
            print(f"{f.kind} (life {f.life + 1}): {f.detail}")
        print(f"{args.replay}: {len(failures)} failures")
        return 1 if failures else 0
    seed = args.seed if args.seed is not None else random.randrange(1 << 16)
    minutes = args.minutes if args.minutes is not None or args.nights else 3.0
    say = (lambda text: print(text, file=sys.stderr, flush=True)) if args.json else print
    say(f"table monkey: seed {seed}")
    figures = monkey(seed, args.games, minutes, args.nights, args.life_seconds, args.failures,
                     args.shrink_minutes * 60, say, args.keep, args.lives, args.option)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 1 if figures["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
