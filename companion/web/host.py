"""The quiz host's phone at the door: the host's PIN, the token of the phone that took the role.

The host's phone is shown what nobody else may see: the question before it is read, its answer
and the pack's notes. So the role is taken only with the host's PIN: six digits made anew each
time the box starts (from :mod:`secrets`), shown on the quiz host's own panel between questions
while no phone hosts, and in the box's log; never on the TV, never to a phone. A wrong PIN is
counted and backed off per peer exactly as a wrong room code is (:class:`~.door.Guesses`: five
free tries, then 1 s, 2 s, ... 60 s between tries, and 2 wrong tries a second for the whole box
once its burst is spent), so half of the 10**6 PINs take a crowd of guests days, and the PIN
is new at the next start.

The phone that took the role is given a token (as a seat's phone is) with which it takes the role
back after a dropped link without typing the PIN again. Only the token's SHA-256 is kept, with the
seats' claims (:mod:`.room`): after a power cut the game that resumes takes the host's phone back
with its token, as it does a seat's, though the box made a new PIN; a game that does not resume
forgets it, and its host joins again with the new PIN. Another phone with
the PIN takes the role over and the first is closed, as a seat taken back on another page is.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from .door import Guesses
from .messages import PIN_DIGITS, Hello, HostAct, Refused


class HostRefused(ValueError):
    """Why a phone may not host, in a sentence for its screen."""


def make_pin() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))


class HostDesk:
    """The host's PIN and the token of the phone that hosts (None: none has yet)."""

    def __init__(self, pin: str | None = None, token_digest: str | None = None) -> None:
        self.pin = pin or make_pin()
        self.token_digest = token_digest
        """The SHA-256 of the token given to the phone that took the role last (kept by :mod:`.room`)."""

    def let_in(self, hello: Hello, peer: str, guesses: Guesses, right_code: bool, digest) -> str:
        """The host's token for ``hello`` (role ``host``), whose room code was ``right_code``;
        :class:`HostRefused` if it may not host. ``digest`` keeps a token as the room keeps a
        seat's. The caller has checked ``peer``'s back-off."""
        if hello.token is not None:
            if self.token_digest is not None and secrets.compare_digest(digest(hello.token), self.token_digest):
                return hello.token
            guesses.wrong(peer)
            raise HostRefused("That host token is not this box's: join again with the PIN on the host's panel.")
        if not right_code:
            guesses.wrong(peer)
            raise HostRefused("That room code is not this box's: check the code on the TV.")
        if hello.pin is None or not secrets.compare_digest(hello.pin.encode("ascii"), self.pin.encode("ascii")):
            guesses.wrong(peer)
            raise HostRefused("That is not the host's PIN: the quiz host's panel shows it between questions.")
        guesses.right(peer)
        token = secrets.token_urlsafe(24)
        self.token_digest = digest(token)
        return token


class HostLine:
    """The web companion's part that serves the host's phone (:class:`~.server.WebCompanion`'s):
    its page goes to that one connection, its keys to the box."""

    host_phone = None
    """The connection that hosts now, if one does."""
    _host_page: str | None = None

    def show_host(self, page: dict[str, Any]) -> None:
        """The host's page changed: the host's phone (only) gets it."""
        text = json.dumps({"type": "host", "page": page}, sort_keys=True)
        if text != self._host_page:
            self._host_page = text
            if self.host_phone is not None:
                self._send(self.host_phone, text)

    def _host_joined(self, phone) -> None:
        """``phone`` hosts now; a phone that hosted before is closed (it no longer hosts)."""
        old, self.host_phone = self.host_phone, phone
        phone.host = True
        if old is not None and old is not phone:
            old.host = False
            self._replaced(old)
        self._host_page = None
        self.box.phone_hosting(True)

    def _take_host(self, phone, message: HostAct) -> None:
        if not phone.host:
            raise Refused("a host key from a phone that is not the host")
        if message.seq in phone.seqs:
            return
        phone.seqs.add(message.seq)
        self.box.phone_host(message.act, message.turn, None if message.seat is None else message.seat - 1)
        self._send(phone, json.dumps({"type": "got", "seq": message.seq}))

    def _host_left(self, phone) -> None:
        if phone is self.host_phone:
            self.host_phone = None
            self.box.phone_hosting(False)
