"""The claims a room keeps in the state directory (phone-seats.json): each seat's and the quiz
host's token digest, written before the phone is welcomed and read back by the room of the game
that resumes; a file kept before the host was kept still holds its seats; a file that is not
claims frees every seat and says so."""

from __future__ import annotations

import json
import logging

import pytest

from companion.web.door import Guesses
from companion.web.messages import Hello
from companion.web.room import PhoneSeat, Room, RoomError

SEATS = [PhoneSeat(4, False), PhoneSeat(5, True)]


def hello(role: str, token: str | None = None, room: str = "", pin: str | None = None) -> Hello:
    return Hello(room=room, role=role, name=None, token=token, seat=None, pin=pin)


def test_the_seats_and_the_host_come_back_with_their_tokens_in_the_next_room(tmp_path):
    claims, guesses = tmp_path / "phone-seats.json", Guesses(lambda: 0)
    first = Room(SEATS, claims=claims)
    seat, seat_token = first.let_in(hello("buzzer", room=first.code), "10.0.0.2", guesses)
    _, host_token = first.let_in(hello("host", room=first.code, pin=first.host.pin), "10.0.0.3", guesses)
    kept = json.loads(claims.read_text())
    assert set(kept) == {"seats", "host"} and seat_token not in claims.read_text() and host_token not in claims.read_text()

    again = Room(SEATS, claims=claims)  # the box started again: a new code and a new PIN
    assert again.resume_claims() == 1
    assert again.let_in(hello("buzzer", token=seat_token), "10.0.0.2", guesses)[0] == seat
    assert again.let_in(hello("host", token=host_token), "10.0.0.3", guesses) == (None, host_token)
    with pytest.raises(RoomError, match="host token"):
        again.let_in(hello("host", token=seat_token), "10.0.0.4", guesses)


def test_a_file_from_before_the_host_was_kept_holds_its_seats_and_no_host(tmp_path):
    claims = tmp_path / "phone-seats.json"
    claims.write_text(json.dumps({"seats": {"ab" * 32: 5}}))
    room = Room(SEATS, claims=claims)
    assert room.resume_claims() == 1 and room.taken(5) and room.host.token_digest is None


@pytest.mark.parametrize("text", ['{"seats": {"ab": 5}, "host": 7}', '{"host": null}', '[1, 2]', "{"])
def test_claims_that_are_not_claims_free_every_seat_and_say_so(tmp_path, caplog, text):
    claims = tmp_path / "phone-seats.json"
    claims.write_text(text)
    room = Room(SEATS, claims=claims)
    with caplog.at_level(logging.WARNING):
        assert room.resume_claims() == 0
    assert not room.taken(5) and room.host.token_digest is None
    assert "every phone seat is free" in caplog.text
