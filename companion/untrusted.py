"""Reading files the box cannot trust: journals after a power cut, profiles, decks, word files
and scripts typed by players and makers.

Every such file is read here, with limits, so one bad file never takes the box down: a size
cap (``/dev/zero`` or a runaway file is refused, not read until memory runs out), regular files
only (a directory, a FIFO or a device named like a journal is not one), optionally no symlinks
(a journal in the state directory is never a link out of it), JSON and TOML nested at most
:data:`MAX_DEPTH` deep, whole numbers of at most :data:`MAX_DIGITS` digits and finite numbers
only. Every failure is an :class:`Unreadable` naming the file, the line when there is one, and
the reason, which the command line prints before exiting 2 and the daemon logs before going on.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

MAX_DEPTH = 32
"""How deep lists and tables may nest: the deepest real file (a deck file's cards) needs 3."""
MAX_DIGITS = 40
"""Digits in a whole number: seeds are 31 bits; Python refuses to parse beyond 4,300 digits."""
MAX_JOURNAL_LINE = 1 << 20
"""Bytes in one journal line: real lines are under a kilobyte."""

JOURNAL_BYTES = 64 << 20
"""The longest game journal read: a Triangle game of a hundred thousand rounds is about 20 MB."""
PROFILE_BYTES = 256 << 10
DECK_BYTES = 4 << 20
WORD_FILE_BYTES = 1 << 20
PACK_BYTES = 1 << 20
"""A question pack: 500 questions of the longest text are about 400 kB."""
SCRIPT_BYTES = 8 << 20


class Unreadable(ValueError):
    """A file the box will not use: ``PATH: reason`` or ``PATH: line N: reason``."""

    def __init__(self, source: str | Path, reason: str, line: int | None = None) -> None:
        self.detail = f"line {line}: {reason}" if line is not None else reason
        """The reason without the file's name."""
        super().__init__(f"{source}: {self.detail}")
        self.source = str(source)
        self.reason = reason
        self.line = line


def read_bytes(path: str | Path, limit: int, follow_symlinks: bool = True) -> bytes:
    """The whole of a regular file of at most ``limit`` bytes.

    Opened without blocking (a FIFO named like a profile does not hang the box) and, with
    ``follow_symlinks`` false, refused if it is a symlink at all.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not follow_symlinks and os.path.islink(path):
            raise Unreadable(path, "is a symlink; only a regular file is read here") from None
        raise Unreadable(path, e.strerror or str(e)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise Unreadable(path, f"is {kind}; a regular file is needed")
        if info.st_size > limit:
            raise Unreadable(path, f"is {info.st_size:,} bytes; the most read is {limit:,}")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise Unreadable(path, f"is more than {limit:,} bytes; the most read is {limit:,}")
        return b"".join(chunks)
    except OSError as e:
        raise Unreadable(path, e.strerror or str(e)) from None
    finally:
        os.close(fd)


def decode(data: bytes, source: str | Path) -> str:
    """UTF-8 text; :class:`Unreadable` naming the line and byte that are not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise Unreadable(source, f"not UTF-8 text (byte {e.start + 1})", line) from None


def read_text(path: str | Path, limit: int, follow_symlinks: bool = True) -> str:
    """A UTF-8 text file of at most ``limit`` bytes (see :func:`read_bytes`)."""
    return decode(read_bytes(path, limit, follow_symlinks), path)


def _whole(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise ValueError(f"a number of {digits} digits; at most {MAX_DIGITS} are allowed")
    return int(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large a number")
    return value


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a file may hold")


def _check_depth(value: Any) -> None:
    """ValueError if lists and objects nest deeper than :data:`MAX_DEPTH` (checked without
    recursion, so the check itself cannot overflow)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        if depth > MAX_DEPTH:
            raise ValueError(f"lists or objects nested more than {MAX_DEPTH} deep")
        stack.extend((child, depth + 1) for child in item if isinstance(child, (dict, list)))


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose every key is named once: ``{"seat": 1, "seat": 6}`` means whatever the
    reader's parser makes of it, so it is refused."""
    value = dict(pairs)
    if len(value) < len(pairs):
        twice = next(k for i, (k, _) in enumerate(pairs) if any(k == other for other, _ in pairs[:i]))
        raise ValueError(f"the key {twice[:20]!r} twice in one object")
    return value


_JSON = json.JSONDecoder(parse_int=_whole, parse_float=_finite, parse_constant=_constant)
"""The decoder of :func:`json_value`, made once: ``json.loads`` with hooks builds a new one for
every line (its own default decoder is shared the same way). Every number goes through the
hooks: on a journal line that is cheaper than searching the line for a suspect number first."""
_JSON_UNIQUE = json.JSONDecoder(parse_int=_whole, parse_float=_finite, parse_constant=_constant,
                                object_pairs_hook=_unique)


def json_value(text: str, unique_keys: bool = False) -> Any:
    """One JSON document with the limits above; ValueError with the reason. With
    ``unique_keys``, an object naming a key twice is refused too (a frame from the network)."""
    if len(text) > MAX_JOURNAL_LINE:
        raise ValueError(f"a line of {len(text):,} characters; at most {MAX_JOURNAL_LINE:,} are allowed")
    try:
        if text.startswith("\ufeff"):  # refused as json.loads refuses it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        value = (_JSON_UNIQUE if unique_keys else _JSON).decode(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not a JSON object ({e.msg})") from None
    except RecursionError:
        raise ValueError(f"lists or objects nested more than {MAX_DEPTH} deep") from None
    if text.count("[") + text.count("{") > MAX_DEPTH:  # only then can it be too deep
        _check_depth(value)
    return value


def toml_text(text: str, source: str | Path) -> dict[str, Any]:
    """A TOML document with the limits above; :class:`Unreadable` naming the file and reason."""
    try:
        data = tomllib.loads(text, parse_float=_finite)
        _check_depth(data)
        _check_numbers(data)
    except tomllib.TOMLDecodeError as e:
        raise Unreadable(source, f"not valid TOML: {e}") from None
    except RecursionError:
        raise Unreadable(source, f"lists or tables nested more than {MAX_DEPTH} deep") from None
    except ValueError as e:
        raise Unreadable(source, str(e)) from None
    return data


def _check_numbers(value: Any) -> None:
    """TOML has no hook for integers: refuse absurdly long ones after parsing (TOML's own
    integers are 64-bit, so this only guards against a parser that allows more)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool) and item.bit_length() > 64:
            raise ValueError("a whole number larger than 64 bits")


def read_toml(path: str | Path, limit: int) -> dict[str, Any]:
    """A TOML file of at most ``limit`` bytes, checked as :func:`toml_text` does."""
    return toml_text(read_text(path, limit), path)


def finite_number(text: str, what: str) -> float:
    """A finite number typed in a text file (``nan``, ``inf`` and ``1e999`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{what} must be a number, not {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, not {text!r}")
    return value


def is_regular_file(path: Path) -> bool:
    """A regular file itself, not through a symlink."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False
