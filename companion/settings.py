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
from dataclasses import asdict, dataclass
from pathlib import Path

from .record.statedir import write_whole
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


def save_settings(path: Path, settings: BoxSettings) -> None:
    """Write ``settings`` to ``path`` (see :func:`~companion.record.statedir.write_whole`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, (json.dumps(asdict(settings)) + "\n").encode())
