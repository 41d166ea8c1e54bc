"""Question packs for quiz night: a host's questions in a file, read off a panel or a phone
instead of paper.

A pack is a plain CSV file a host writes in a spreadsheet (saved as "CSV UTF-8"), its first row
naming the columns, in any order: ``question`` and ``answer``, and optionally ``category``,
``points`` (for a right answer, 1 to 100; the lobby's ``right`` option otherwise), ``time``
(seconds to judge the answer, 1 to 120; the lobby's ``answer timer`` otherwise) and ``notes``
(for the host alone: a pronunciation, what else counts as right). Commas, semicolons or tabs
separate the columns (a spreadsheet in a language with decimal commas writes semicolons). The
same as JSON: a list of objects with those keys. Blank rows are skipped.

Packs live in the state directory's ``packs`` folder (the lobby offers each one that reads, with
how many questions it has) or are named with ``--option quiz.pack=FILE``. Every bad row is one
sentence naming its line (``companion pack check FILE``): a bad pack is never offered, and a
night whose pack cannot be read when it starts plays on without it, as a night without a pack
does: the host reads from paper.

Files are read with the limits of :mod:`companion.untrusted`: a pack is something a host typed.
"""

from __future__ import annotations

import csv
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..untrusted import PACK_BYTES, Unreadable, json_value, read_text

log = logging.getLogger(__name__)

PACKS = "packs"
"""The state directory's folder of packs, beside ``games`` and ``settings.json``."""
SUFFIXES = (".csv", ".json")
COLUMNS = ("question", "answer", "category", "points", "time", "notes")
REQUIRED = ("question", "answer")
LONGEST = {"question": 300, "answer": 120, "category": 30, "notes": 300}
"""Characters per text column: a question a host reads aloud, an answer the host's panel can
show, a category that fits the TV's heading."""
POINTS = (1, 100)
TIME_S = (1, 120)
"""The same bounds as the lobby's ``right`` and ``answer timer`` options."""
MOST_QUESTIONS = 500
NOT_A_QUESTION, EXTRA_CELL = "\0not", "\0extra"
"""Keys no file can name: a JSON list's item that is not an object, a CSV cell beyond the header's."""


class PackError(ValueError):
    """A pack that cannot be played: every problem, one sentence each (a bad row's names its line)."""

    def __init__(self, path: str | Path, problems: list[str]) -> None:
        self.path = str(path)
        self.problems = [f"{path} {p}" if p.startswith("line ") else f"{path}: {p}" for p in problems]
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class PackQuestion:
    """One question of a pack, as the host reads it and as the journal's ``arm`` line keeps it."""

    question: str
    answer: str
    category: str = ""
    points: int | None = None
    time_s: int | None = None
    notes: str = ""

    def as_dict(self) -> dict[str, Any]:
        """What an ``arm`` line carries: the text columns that are set, and points and time if given."""
        out: dict[str, Any] = {"question": self.question, "answer": self.answer}
        for key in ("category", "notes"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        for key in ("points", "time_s"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True)
class Pack:
    name: str
    """The file's name without its suffix: what the lobby shows."""
    questions: tuple[PackQuestion, ...]

    def categories(self) -> list[str]:
        return list(dict.fromkeys(q.category for q in self.questions if q.category))


def read_pack(path: str | Path) -> Pack:
    """The pack in ``path`` (CSV or JSON by its suffix); :class:`PackError` naming every problem."""
    path = Path(path).expanduser()
    if path.suffix.lower() not in SUFFIXES:
        raise PackError(path, [f"a pack is a .csv or .json file, not {path.suffix or 'a file without a suffix'}"])
    try:
        text = read_text(path, PACK_BYTES).removeprefix("\ufeff")  # a spreadsheet's byte order mark
    except Unreadable as e:
        raise PackError(path, [e.detail]) from None
    rows = _json_rows(path, text) if path.suffix.lower() == ".json" else _csv_rows(path, text)
    questions, problems = [], []
    for line, row in rows:
        try:
            questions.append(question_from(row))
        except ValueError as e:
            problems.append(f"line {line}: {e}.")
    if not questions and not problems:
        problems.append("has no questions")
    if len(questions) > MOST_QUESTIONS:
        problems.append(f"has {len(questions)} questions; a pack holds at most {MOST_QUESTIONS}")
    if problems:
        raise PackError(path, problems)
    return Pack(path.stem, tuple(questions))


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    """(line, row by column name) of each row that is not blank; the header row must name the
    question and answer columns."""
    first = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=first.count)
    reader = csv.reader(text.splitlines(keepends=True), delimiter=delimiter, strict=True)
    try:
        header = [h.strip().lower() for h in next(reader, [])]
        missing = [c for c in REQUIRED if c not in header]
        unknown = [h for h in header if h and h not in COLUMNS]
        if missing or unknown:
            said = (f"has no {' or '.join(missing)} column" if missing else
                    f"has a column {unknown[0]!r} no pack has")
            raise PackError(path, [f"line 1: the first row names the columns (question, answer, and "
                                   f"optionally category, points, time, notes) but {said}."])
        rows, start = [], reader.line_num + 1
        for cells in reader:
            if any(c.strip() for c in cells):
                extra = [c for c in cells[len(header):] if c.strip()]
                row = {h: c for h, c in zip(header, cells) if h}
                if extra:
                    row[EXTRA_CELL] = extra[0]
                rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as e:
        raise PackError(path, [f"line {reader.line_num}: {e}."]) from None
    return rows


def _json_rows(path: Path, text: str) -> list[tuple[int, Mapping[str, Any]]]:
    """(line, object) of each question in a JSON list of objects, each at the line it starts on."""
    try:
        data = json_value(text)
    except ValueError as e:
        raise PackError(path, [f"is {e}"]) from None
    if not isinstance(data, list):
        raise PackError(path, ["line 1: a JSON pack is a list of questions, [{\"question\": ..., \"answer\": ...}, ...]."])
    decoder, at, rows = json.JSONDecoder(), text.index("[") + 1, []
    for item in data:
        while text[at] in " \t\r\n,":
            at += 1
        line = text.count("\n", 0, at) + 1
        at = decoder.raw_decode(text, at)[1]
        rows.append((line, item if isinstance(item, dict) else {NOT_A_QUESTION: item}))
    return rows


def question_from(row: Mapping[str, Any]) -> PackQuestion:
    """A question from a row (a CSV row's cells or a JSON object, or an ``arm`` line's ``ask``);
    ValueError naming everything wrong with it, in one sentence."""
    if NOT_A_QUESTION in row:
        raise ValueError(f"a question is an object with a question and an answer, not {row[NOT_A_QUESTION]!r}")
    problems = []
    if EXTRA_CELL in row:
        problems.append(f"it has a cell beyond the named columns ({row[EXTRA_CELL][:20]!r})")
    unknown = [k for k in row if k not in COLUMNS + ("time_s", EXTRA_CELL)]
    if unknown:
        problems.append(f"{unknown[0]!r} is not a column of a pack")
    texts = {}
    for key in ("question", "answer", "category", "notes"):
        value = row.get(key, "")
        if not isinstance(value, str):
            problems.append(f"the {key} must be text, not {value!r}")
            continue
        value = " ".join(value.split())
        if key in REQUIRED and not value:
            problems.append(f"the {key} is empty")
        elif len(value) > LONGEST[key]:
            problems.append(f"the {key} has {len(value)} characters, at most {LONGEST[key]} fit")
        elif not value.isprintable():
            problems.append(f"the {key} has a character that cannot be shown")
        texts[key] = value
    numbers = {}
    for key, (low, high), what in (("points", POINTS, "points"), ("time", TIME_S, "the time (seconds)")):
        value = row.get(key, row.get("time_s") if key == "time" else None)
        if isinstance(value, str):
            value = value.strip() or None
            if value is not None and value.lstrip("+").isdigit():
                value = int(value)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
            problems.append(f"{what} must be a whole number from {low} to {high}, not {value!r}")
        numbers[key] = value
    if problems:
        raise ValueError(_sentence(problems))
    return PackQuestion(texts["question"], texts["answer"], texts.get("category", ""), numbers["points"],
                        numbers["time"], texts.get("notes", ""))


def _sentence(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def pack_problem(path: str) -> str | None:
    """What is wrong with a pack named on the command line (``--option quiz.pack=FILE``), in the
    words of ``companion pack check``; None if it plays."""
    try:
        read_pack(path)
    except PackError as e:
        return "; ".join(e.problems)
    return None


def packs_in(folder: Path) -> dict[str, Pack]:
    """The packs that read in ``folder`` by file path, in name order; a bad one is logged and left
    out, so one file never keeps the others from the lobby."""
    out: dict[str, Pack] = {}
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
    except OSError:
        return out
    for path in files:
        try:
            out[str(path.resolve())] = read_pack(path)
        except PackError as e:
            log.warning("question pack left out of the lobby: %s", "; ".join(e.problems))
    return out


class Shelf:
    """The packs the lobby offers: those of the state directory's ``packs`` folder that read, and
    a pack named with ``--option quiz.pack=FILE``. Read again only when the folder's files change,
    so a pack copied in while the box runs is offered at the next look at the lobby."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.named: tuple[str, ...] = ()
        self._seen: tuple[Any, ...] | None = None
        self._packs: dict[str, Pack] = {}

    def use(self, folder: Path | None, named: tuple[str, ...] = ()) -> None:
        self.folder, self.named, self._seen = folder, tuple(str(Path(n).expanduser().resolve()) for n in named), None

    def _listing(self) -> tuple[Any, ...]:
        files = []
        here = [*self.folder.iterdir()] if self.folder is not None and self.folder.is_dir() else []
        for path in here + [Path(n) for n in self.named]:
            try:
                info = path.stat()
            except OSError:
                continue
            files.append((str(path), info.st_mtime_ns, info.st_size))
        return tuple(sorted(files))

    def offered(self) -> dict[str, Pack]:
        """File path -> pack, the folder's in name order, then the one named."""
        try:
            seen = self._listing()
        except OSError:
            seen = ()
        if seen != self._seen:
            self._seen = seen
            self._packs = packs_in(self.folder) if self.folder is not None else {}
            for name in self.named:
                try:
                    self._packs[name] = read_pack(name)
                except PackError as e:
                    log.warning("question pack not offered: %s", "; ".join(e.problems))
        return self._packs

    def brief(self, path: str | None) -> str:
        """The lobby's line under the pack row: how many questions the pack has."""
        if path is None:
            return "host reads from paper"
        pack = self.offered().get(str(Path(path).expanduser().resolve()))
        return f"{len(pack.questions)} questions" if pack is not None else "cannot be read"


SHELF = Shelf()
"""The box's packs: the daemon gives it the state directory's folder (one box per process)."""
