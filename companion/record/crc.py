"""The CRC every journal line ends with: written by :func:`sealed`, checked by :func:`check_crc`.

Separate from the journal's reader because it guards the bytes, not the game: a bit flipped on a
card that leaves valid JSON (a ``3`` turned ``2``) would replay as another game, and this is the
one place that tells that apart from a line edited by hand (``docs/JOURNAL.md``).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from ..untrusted import json_value

CRC = "crc"
"""The last field of every line the box writes: the CRC-32 (``zlib.crc32``, the one of gzip and
PNG) of the line's UTF-8 bytes before it, with the closing brace, as 8 lowercase hex digits."""
_CRC_OPEN = ', "crc": "'
_CRC_TAIL = len(_CRC_OPEN) + 8 + len('"}')
_HEX = frozenset("0123456789abcdef")


def sealed(line: dict[str, Any]) -> str:
    """``line`` as the box writes it: its JSON, then its :data:`CRC` as the last field."""
    text = json.dumps({k: v for k, v in line.items() if k != CRC}, separators=(", ", ": "))
    return f'{text[:-1]}, "{CRC}": "{zlib.crc32(text.encode("utf-8")):08x}"}}'


def check_crc(text: str, obj: Any, required: bool) -> None:
    """ValueError unless the line ``text`` (parsed as ``obj``) is the line its :data:`CRC` was
    taken of. ``required`` (its journal's header has a crc) refuses a line without one: the
    field's own name may be what a flipped bit changed."""
    if not isinstance(obj, dict) or CRC not in obj:
        if required:
            raise ValueError('the line has no "crc" although its journal\'s header has one: it was '
                             'corrupted or edited by hand (to edit a journal by hand, remove "crc" '
                             "from the header and from the lines you change)")
        return
    text = text.rstrip()
    body, tail = text[:-_CRC_TAIL], text[-_CRC_TAIL:]
    found = f"{zlib.crc32((body + '}').encode('utf-8')):08x}"
    if tail == f'{_CRC_OPEN}{found}"}}':
        return
    written = tail[len(_CRC_OPEN):-2]
    if not (tail.startswith(_CRC_OPEN) and tail.endswith('"}') and _HEX.issuperset(written)):
        raise ValueError('"crc" must be the last field, 8 lowercase hex digits: {..., "crc": "89abcdef"}')
    raise ValueError(f'the line does not match its "crc" ({written}; its bytes give {found}): '
                     'it was corrupted or edited by hand (remove "crc" from a line you change, '
                     "and from the header)")


def parse_line(text: str, required: bool) -> Any:
    """One journal line's JSON, read with the limits of :mod:`companion.untrusted` and checked
    against its :data:`CRC` (``required``: its journal's header has one); ValueError says why not."""
    obj = json_value(text)
    check_crc(text, obj, required)
    return obj
