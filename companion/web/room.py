"""The room: its code, the phone stations, who holds each, and their seat tokens.

The room code (six letters on the TV and the lobby) keeps a phone that merely sees the box's
address on the network from joining; a seat token (a long random secret given to the phone that
took the seat) keeps anyone else from taking that seat's place, its panel and its secrets. The
code is made anew every time the box starts, from :mod:`secrets`; how many codes there are and
how fast a guest may try them is in ``docs/PHONE-PROTOCOL.md`` (Security) and :mod:`.door`.

A seat's claim outlives the box: each seat a phone takes is written to the state directory
(:data:`CLAIMS_FILE`, the token's SHA-256 only, never the token), so after a power cut the game
that resumes holds each phone seat for the phone that had it, which takes it back with its
token, and a stranger with the new code finds it taken. The quiz host's phone is kept the same way
(its token's SHA-256 beside the seats'), so it hosts the resumed night without the new PIN.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..untrusted import Unreadable, json_value, read_text
from .door import Guesses
from .host import HostDesk, HostRefused
from .messages import Hello

log = logging.getLogger(__name__)

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"
"""The room code's letters: no I or O, which read as 1 and 0 across a room."""
CODE_LENGTH = 6
"""24**6 = 191,102,976 codes: at the most a guest can try (:mod:`.door`), longer than a year to
try them all; four letters (331,776) were tried in 1.7 minutes before there was a back-off."""
CLAIMS_FILE = "phone-seats.json"
CLAIMS_BYTES = 64 << 10


@dataclass(frozen=True, slots=True)
class PhoneSeat:
    """A phone station: its index among the box's stations and whether it is a bare buzzer."""

    station: int
    buzzer: bool


class RoomError(ValueError):
    """Why a phone may not take a seat, in a sentence for its screen."""


def token_digest(token: str) -> str:
    """What is kept of a seat token: its SHA-256 (any text: a phone's token is checked ASCII)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Room:
    """The phone stations and their holders, by station index; ``claims`` is the file the seats'
    claims are kept in (None: not kept, a box without a state directory)."""

    def __init__(self, seats: list[PhoneSeat], code: str | None = None, claims: Path | None = None) -> None:
        self.code = code or "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
        self.seats = {seat.station: seat for seat in seats}
        self.claims = claims
        self.host = HostDesk()
        """The quiz host's PIN and phone (:mod:`.host`)."""
        self._station_of: dict[str, int] = {}
        """Token digest -> station, for every seat a phone has taken (since the game began)."""
        self.on_claims: Callable[[dict[str, Any]], None] | None = None
        """Told every claim (:meth:`claims_held`) each time a seat or the host's role is taken: the
        referee keeps them across the wall, so a phones' server that restarts holds every seat and
        the role for its phone (:mod:`.wall`)."""

    def right_code(self, code: str) -> bool:
        """Whether ``code`` (case ignored) is this room's, compared in constant time."""
        return secrets.compare_digest(code.upper().encode("utf-8", "surrogatepass"), self.code.encode("ascii"))

    def holder(self, token: str) -> PhoneSeat | None:
        """The seat ``token`` was given for, if it is one of this room's."""
        station = self._station_of.get(token_digest(token))
        return None if station is None else self.seats.get(station)

    def let_in(self, hello: Hello, peer: str, guesses: Guesses) -> tuple[PhoneSeat | None, str | None]:
        """The seat a hello takes (None: a watcher or the host) and its token; :class:`RoomError` if refused.
        A seat token of this room takes its seat back whatever the code says (it is the stronger
        secret: the phone of a seat whose game resumed after a restart knows only the old code);
        otherwise the room code, compared only when ``peer``'s back-off allows."""
        wait_s = guesses.wait_s(peer)
        if wait_s > 0:
            raise RoomError(f"Too many wrong codes from this network address: try again in {wait_s:.0f} s.")
        if hello.role == "host":  # no seat, and its own token: the PIN checked in :mod:`.host`
            try:
                token = self.host.let_in(hello, peer, guesses, hello.token is None and self.right_code(hello.room),
                                         token_digest)
            except HostRefused as e:
                raise RoomError(str(e)) from None
            if token != hello.token:  # a new host's phone: kept before it is welcomed, as a seat's
                self._keep()
            return None, token
        if hello.token is not None:
            seat = self.holder(hello.token)
            if seat is None:
                guesses.wrong(peer)
                raise RoomError("That seat token is not this box's: join again with the room code.")
            return seat, hello.token
        if not self.right_code(hello.room):
            guesses.wrong(peer)
            raise RoomError("That room code is not this box's: check the code on the TV.")
        guesses.right(peer)
        return (None, None) if hello.role == "watch" else self.take(hello.role, hello.seat)

    def take(self, role: str, wanted: int | None) -> tuple[PhoneSeat, str]:
        """A free seat of ``role``'s kind (``wanted``: that station, 1-based) and its new token."""
        buzzer = role == "buzzer"
        taken = set(self._station_of.values())
        free = [s for s in self.seats.values() if s.station not in taken and s.buzzer == buzzer]
        if wanted is not None:
            free = [s for s in free if s.station == wanted - 1]
            if not free:
                raise RoomError(f"Station {wanted} is not a free phone {'buzzer' if buzzer else 'seat'}.")
        if not free:
            raise RoomError(f"Every phone {'buzzer' if buzzer else 'seat'} is taken"
                            + ("; watch instead, or ask for a seat." if self.seats else
                               ": this box has no phone seats (watch instead)."))
        seat = free[0]
        token = secrets.token_urlsafe(24)
        self._station_of[token_digest(token)] = seat.station
        self._keep()
        return seat, token

    def taken(self, station: int) -> bool:
        return station in self._station_of.values()

    # Kept in the state directory

    def resume_claims(self) -> int:
        """Hold every seat the file says a phone had (the game it was taken in resumes); how
        many. A file that cannot be read is logged and left: its seats are free."""
        if self.claims is None or not self.claims.exists():
            return 0
        try:
            return self.hold(json_value(read_text(self.claims, CLAIMS_BYTES, follow_symlinks=False)))
        except (Unreadable, ValueError) as e:
            log.warning("phones: the seats' claims were not read (%s): every phone seat is free", e)
            return 0

    def hold(self, claims: Any) -> int:
        """Hold each seat of ``claims`` (:meth:`claims_held`'s form: ``seats``, token digest ->
        station, and ``host``, the host's token digest or None) for its phone, and the host's role
        for the host's; how many seats. :class:`ValueError` (nothing held) if it is not that form."""
        try:
            seats = {str(d): int(s) for d, s in claims["seats"].items()}
            host = claims.get("host")  # absent in a file kept before the host's phone was kept
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise ValueError(f"not the seats' claims ({type(e).__name__}: {e})") from None
        if host is not None and not isinstance(host, str):
            raise ValueError(f"the host's claim is not a token digest: {host!r}")
        self._station_of = {d: s for d, s in seats.items() if s in self.seats}
        self.host.token_digest = host
        return len(self._station_of)

    def claims_held(self) -> dict[str, Any]:
        """Every claim: each seat's (token digest -> station) and the host's (its digest, or None)."""
        return {"seats": dict(self._station_of), "host": self.host.token_digest}

    def forget_claims(self) -> None:
        """No game goes on: the claims of the last one are gone (its phones join anew)."""
        if self.claims is not None:
            try:
                self.claims.unlink(missing_ok=True)
            except OSError as e:
                log.warning("phones: the last game's seat claims were not removed (%s)", e.strerror or e)

    def _keep(self) -> None:
        """Write the claims (replaced whole, readable by the box's user only): written before the
        phone is welcomed, so a seat it was given is a seat it keeps."""
        if self.on_claims is not None:
            self.on_claims(self.claims_held())
        if self.claims is None:
            return
        part = self.claims.with_name(self.claims.name + ".part")
        try:
            fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self.claims_held(), out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(part, self.claims)
        except OSError as e:  # the seat is still this phone's until the box stops
            log.warning("phones: the seats' claims were not kept (%s): a restart frees them", e.strerror or e)
