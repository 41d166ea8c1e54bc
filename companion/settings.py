"""Box settings: what the players set on the box itself rather than per game (the buzzer's
volume), kept in a small JSON file in the state directory so the box starts as it was left.

The file is written whole to a temporary name, fsync'd and renamed over the old one, so a power
cut leaves the old settings or the new ones, never half a file. A file that cannot be read or
holds something unexpected gives the defaults and one log line naming the file and the problem:
it is read as every untrusted file is (:mod:`companion.untrusted`), so a settings file nested
thousands deep, a FIFO or ``/dev/zero`` in its place cannot stop the box at every start.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from .untrusted import Unreadable, json_value, read_text

log = logging.getLogger(__name__)

VOLUMES = (1, 2, 3, 4, 5)
LOUDEST = VOLUMES[-1]
SETTINGS_BYTES = 4 << 10
"""The most read of the settings file: it holds one small JSON object."""


@dataclass(frozen=True)
class BoxSettings:
    volume: int = LOUDEST
    """1 (quiet) to 5 (loudest); each step down halves the buzzer's amplitude (-6 dB)."""


def amplitude(volume: int) -> float:
    """The sound's amplitude at ``volume``, from 1.0 at the loudest: halved per step (-6 dB),
    so the five steps span 24 dB, from a quiet room to a noisy table."""
    return 2.0 ** (volume - LOUDEST)


def load_settings(path: Path | None) -> BoxSettings:
    if path is None or not path.exists():
        return BoxSettings()
    try:
        data = json_value(read_text(path, SETTINGS_BYTES))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        volume = data.get("volume", LOUDEST)
        if isinstance(volume, bool) or volume not in VOLUMES:
            raise ValueError(f"volume must be one of {', '.join(map(str, VOLUMES))}, not {volume!r}")
        return BoxSettings(volume)
    except Unreadable as e:  # names the file itself
        log.warning("%s; using the default settings", e)
    except ValueError as e:
        log.warning("%s: %s; using the default settings", path, e)
    return BoxSettings()


def write_whole(path: Path, data: bytes) -> None:
    """Write a small file of the state directory (the settings, the last game's number) whole or
    not at all: to a temporary name beside it, fsync'd, then renamed over it, so a power cut
    leaves the old file or the new one. OSError if it cannot be (a full disk), leaving the old
    file as it was and no temporary file behind."""
    temporary = path.with_name(path.name + ".new")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass  # a read-only directory: there is none to remove
        raise


def save_settings(path: Path, settings: BoxSettings) -> None:
    """Write ``settings`` to ``path`` (see :func:`~companion.record.statedir.write_whole`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, (json.dumps(asdict(settings)) + "\n").encode())
