"""The room: its code, the phone stations, who holds each, and their seat tokens.

The room code (four letters on the TV and the lobby) keeps a phone that merely sees the box's
address on the network from joining; a seat token (a long random secret given to the phone that
took the seat) keeps anyone else from taking that seat's place, its panel and its secrets. Both
are made anew every time the box starts, from :mod:`secrets`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"
"""The room code's letters: no I or O, which read as 1 and 0 across a room."""
CODE_LENGTH = 4


@dataclass(frozen=True, slots=True)
class PhoneSeat:
    """A phone station: its index among the box's stations and whether it is a bare buzzer."""

    station: int
    buzzer: bool


class RoomError(ValueError):
    """Why a phone may not take a seat, in a sentence for its screen."""


class Room:
    """The phone stations and their holders, by station index."""

    def __init__(self, seats: list[PhoneSeat], code: str | None = None) -> None:
        self.code = code or "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
        self.seats = {seat.station: seat for seat in seats}
        self.tokens: dict[str, int] = {}
        """Seat token -> station, for every seat a phone has taken since the box started."""
        self._token_of: dict[int, str] = {}

    def check_code(self, code: str) -> None:
        if not secrets.compare_digest(code.upper(), self.code):
            raise RoomError("That room code is not this box's: check the code on the TV.")

    def take(self, role: str, token: str | None, wanted: int | None) -> tuple[PhoneSeat, str]:
        """The seat a phone takes (back, with its token) and the seat's token."""
        if token is not None:
            station = next((s for t, s in self.tokens.items() if secrets.compare_digest(t, token)), None)
            if station is None:
                raise RoomError("That seat token is not this box's: join again with the room code.")
            return self.seats[station], token
        buzzer = role == "buzzer"
        free = [s for s in self.seats.values() if s.station not in self._token_of and s.buzzer == buzzer]
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
        self.tokens[token] = seat.station
        self._token_of[seat.station] = token
        return seat, token

    def taken(self, station: int) -> bool:
        return station in self._token_of
