"""No phone learns another seat's secret: over a whole randomly played game of each kind, every frame
the box sent to a spectator and to each phone station is checked, over real WebSockets.

- A spectator only ever gets the public view (the TV's, whose independence from every secret
  ``test_tablescreen.py`` proves), the welcome and pings: never a panel, never the quiz host's page.
- A phone station's panel is, pixel for pixel, what a panel at that station shows (its dummy
  display): the station's own screen, never another's.
- No frame's text, to anyone, names a secret word of the moment (the Pictionary word, Pictomania's
  letters and numbers, the closest game's open question and answers, the quiz pack's answer and
  notes, and its question before the host has read it). In the quiz a phone hosts too, with the
  host's PIN, pressing its page's keys at random beside the host's station: its page carries each
  answer (it is checked that it did), and no other phone's frame ever does.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import pytest

from companion.arbiter.inputs import KEYS
from companion.daemon.phones import as_json

from phonebox import PhoneBox, profile_with_phones, wired
from tablescreen_tour import WEIGHTS, next_in_lobby
from test_tablescreen import secret_words

GAMES = ("triangle", "closest", "trio", "pictomania", "paytoplay", "quiz")
PACK = Path(__file__).parent / "packs" / "pub-night.csv"
SHORT = {"triangle": {"turns": 3, "countdown_ms": 250}, "quiz": {"questions": 2, "pack": str(PACK), "tv_question": True},
         "closest": {"line_length": 4},
         "pictomania": {"rounds": 1, "learning_round": False}, "trio": {"eligible_at": 2}}
"""Options that make a whole game short enough for random presses to end it."""
STEPS = 700
PHONE_STATIONS = (1, 3)
"""Zoe and Yan play on phones, between Ana and Ben on wired stations: the lobby's seating puts
Zoe in every game, Yan in the games of four."""
SPECTATOR_TYPES = {"welcome", "table", "ping"}
SEAT_TYPES = SPECTATOR_TYPES | {"panel", "got"}


async def start(box: PhoneBox, game: str) -> None:
    """Station 1 picks ``game``; every station that fits takes a seat if asked; then the options
    and Start."""
    table = box.daemon.table
    phones = dict(zip(PHONE_STATIONS, box.phones[1:]))
    for _ in range(300):
        if table.game is not None:
            return
        seats, key = next_in_lobby(table, game)
        for station in seats:
            await press(box, phones, station, "slap")
        await press(box, phones, 0, key)
    raise AssertionError(f"the lobby never started {game}")


async def press(box: PhoneBox, phones, station: int, key: str) -> None:
    if station in phones:
        if key in phones[station].welcome["keys"]:
            await box.phone_tap(phones[station], key)
    else:
        await box.tap(station, key)


def check(box: PhoneBox, watcher, seats, seen: dict[int, int]) -> None:
    """Every frame that arrived since the last check, against the box as it is now."""
    daemon = box.daemon
    secrets = secret_words(daemon.table.game) if daemon.table.game is not None else []
    for who, phone in [(None, watcher), *seats.items()]:
        new = phone.received[seen.get(id(phone), 0):]
        seen[id(phone)] = len(phone.received)
        allowed = SPECTATOR_TYPES if who is None else SEAT_TYPES
        for frame in new:
            assert frame["type"] in allowed, (who, frame["type"])
            if frame["type"] in ("ping", "got"):
                continue  # numbers the protocol counts, nothing of the game
            text = "\n".join(strings({k: v for k, v in frame.items() if k not in ("png", "type")}))
            for secret in secrets:
                assert not re.search(rf"\b{re.escape(secret)}\b", text, re.IGNORECASE), (who, secret, text[:200])
    expected = as_json(daemon._with_room(daemon.public_view(daemon.table)))
    assert watcher.view == json.loads(json.dumps(expected))
    daemon.box.displays.flush()
    for station, phone in seats.items():
        panel = daemon.box.displays.devices[station].image.convert("1").tobytes()
        assert phone.panel_image().convert("1").tobytes() == panel, f"station {station + 1}'s phone"


def strings(value) -> list[str]:
    """Every text and number a frame carries, its keys left out (they are the protocol's words)."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [] if value is None else [str(value)]


async def host_key(host, rng: random.Random) -> None:
    """One of the keys the host's page offers now, if any (a pick names one of the tied)."""
    page = host.host_page or {}
    if page.get("keys"):
        act = rng.choice(page["keys"])
        await host.host(act, rng.choice(page["tied"])["seat"] if act == "pick" and page["tied"] else None)


async def play(box: PhoneBox, game: str, seed: int) -> int:
    """Random presses on every station, phones' too, checked after each; how many checks saw a
    game's end."""
    watcher = await box.join("watch")
    zoe = await box.join("seat", "Zoe")
    yan = await box.join("seat", "Yan")
    host = await box.join("host", pin=box.daemon.web.room.host.pin) if game == "quiz" else None
    seats = {1: zoe, 3: yan}
    phones = dict(seats)
    rng = random.Random(seed)
    keys = [k for k in KEYS for _ in range(WEIGHTS[k])]
    seen: dict[int, int] = {}
    ended = 0
    await start(box, game)
    for _ in range(STEPS):
        if box.daemon.table.game is None:
            await start(box, game)
        await box.run_for(rng.choice((3, 7, 60, 120, 400, 1100)), every_ms=50)
        if host is not None and rng.random() < 0.3:
            await host_key(host, rng)
        else:
            await press(box, phones, rng.randrange(4), rng.choice(keys))
        await box.run_for(60, every_ms=30)
        await box.settle()
        check(box, watcher, seats, seen)
        ended += watcher.view["over"]
    if host is not None:  # the answers were on the wire, to the host's phone alone
        answers = {f["page"]["answer"] for f in host.frames("host") if f["page"].get("answer")}
        assert {"Canberra", "Eight"} <= answers, answers
    return ended


@pytest.mark.parametrize("game", GAMES)
def test_no_phone_and_no_spectator_ever_receives_another_seats_secret(tmp_path, monkeypatch, game):
    profile = profile_with_phones(tmp_path, wired("Ana", "Ben"), [(1, "Zoe", False), (3, "Yan", False)])
    box = PhoneBox(profile, tmp_path / "games", seed=5, monkeypatch=monkeypatch, defaults=SHORT)

    async def scenario():
        async with box:
            return await play(box, game, seed=5)

    ended = asyncio.run(scenario())
    print(game, ended)
    assert ended  # a whole game, to its end
    assert list((tmp_path / "games").glob(f"*{game}*.jsonl"))  # journaled
    if game == "quiz":  # played from the pack: its answers were secrets to check
        assert any('"ask"' in path.read_text() for path in (tmp_path / "games").glob("*quiz*.jsonl"))
