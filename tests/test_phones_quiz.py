"""A quiz night with eight phone buzzers beside the box's own buzzers, in a real headless Chromium
at the real box process: the host and Ana at stations with panels, Ben and Cy at bare buzzers (mock
pins), eight players on their phones, each phone its own browser context. Every phone sees who
answers, its own light, and the scores; the journal, read back by ``companion replay``, holds
each race with the phones' errors."""

from __future__ import annotations

import json
from collections import Counter

from companion.cli import main
from companion.games import get
from companion.games.options import lobby_choices

from phonebox import profile_with_phones, wired
from phones import Phone, Pictures, WebBox, scores

PLAYERS = ("Ida", "Jo", "Kim", "Lou", "Max", "Nia", "Oz", "Pam")
HOST, BEN, CY = 1, 3, 4
"""Station numbers, as the box and its taps count them (from 1)."""
FIRST_PHONE = 5


def start_quiz(box: WebBox, watcher: Phone) -> None:
    """The host turns the menu to the quiz (as the watching phone sees it), picks it, keeps its
    options, starts it, and with nobody joined on "Who plays?" seats every station."""
    menu = watcher.page.locator("#t-lines li").first
    while not menu.inner_text().startswith("Quiz"):
        before = menu.inner_text()
        box.tap(HOST, "right")
        watcher.wait(lambda: menu.inner_text() != before)
    for _ in range(1 + len(lobby_choices(get("quiz").Options)) + 2):
        box.tap(HOST, "ok")


def arm(box: WebBox, phones: list[Phone]) -> None:
    """The host arms the buzzers; every phone has shown it (a press before would be too early)."""
    box.tap(HOST, "slap")
    for phone in phones:
        phone.see("#t-heading", "Buzzers armed!")
        phone.wait(phone.painted_latest)


def lights(phones: list[Phone]) -> list[str]:
    return [phone.page.get_attribute("#light", "class").split()[-1] for phone in phones]


def test_a_quiz_with_eight_phone_buzzers_beside_the_box_s_own(chromium, tmp_path, capsys):
    pictures = Pictures("quiz", tmp_path)
    profile = profile_with_phones(tmp_path, wired("Host", "Ana") + [("Ben", {"slap": 23}), ("Cy", {"slap": 24})],
                                  [(FIRST_PHONE - 1 + n, f"P{FIRST_PHONE + n}", True) for n in range(len(PLAYERS))])
    box = WebBox(tmp_path / "games", profile, seed=3)
    phones: list[Phone] = []
    try:
        watcher = Phone(chromium, box.join_url)
        watcher.join("watch")
        for name in PLAYERS:
            phone = Phone(chromium, box.join_url)
            phone.join("buzzer", name)
            phones.append(phone)
        for n, (phone, name) in enumerate(zip(phones, PLAYERS)):
            phone.see("#status", f"Seat {FIRST_PHONE + n}: {name}")
            assert phone.page.locator("#keys button").all_inner_texts() == ["BUZZ"]
        start_quiz(box, watcher)
        ida, jo, kim = phones[:3]
        kim.see("#t-heading", "Host reads Q1")

        # Q1: Kim buzzes alone: she answers, her light alone is on; the host says right.
        arm(box, phones)
        kim.press("slap")
        for phone in phones:
            phone.see("#t-heading", "Kim answers")
        assert lights(phones) == ["off", "off", "on", "off", "off", "off", "off", "off"]
        pictures.take(kim, "buzzer-answers")
        box.tap(HOST, "ok")
        watcher.see("#t-heading", "Kim was right!")

        # Kim's phone loses the network without a word: her page gives the link up and says so,
        # the table says her phone is silent; back on the network, the page takes her seat back
        # by itself with its token, her point kept.
        kim.context.set_offline(True)
        kim.see("#status", "Connection lost: rejoining your seat\u2026")
        pictures.take(kim, "buzzer-lost")
        watcher.see_in("#t-footer", "Kim's phone")
        kim.context.set_offline(False)
        kim.see("#status", "Seat 7: Kim")
        watcher.see_not_in("#t-footer", "Kim's phone")
        assert scores(kim)["Kim"] == "1"

        # Q2: Ben's bare buzzer on the box's pins, alone: every phone sees him answer.
        arm(box, phones)
        box.tap(BEN, "slap")
        for phone in phones:
            phone.see("#t-heading", "Ben answers")
        assert lights(phones) == ["off"] * 8
        box.tap(HOST, "ok")
        watcher.see("#t-heading", "Ben was right!")

        # Q3: every phone buzzes, one after the other, then Cy on the box's pins. Ida pressed
        # first: she answers, or ties with those the box cannot tell her from; never anyone alone.
        arm(box, phones)
        for phone in phones:
            phone.press("slap")
        box.tap(CY, "slap")
        watcher.see_matching("#t-heading", r"^(Ida answers|Tie: .*Ida.*)$")
        pictures.take(watcher, "watch-race")
        if watcher.text("#t-heading").startswith("Tie"):
            box.tap(HOST, "ok")  # the host picks the first of the tied
            watcher.see_matching("#t-heading", r" answers$")
        answering = watcher.text("#t-heading").removesuffix(" answers")
        box.tap(HOST, "ok")
        watcher.see("#t-heading", f"{answering} was right!")
        # The watcher's history: one entry a question, newest first, each with its verdict.
        history = watcher.page.locator("#history li").all_inner_texts()
        assert [entry.split(" \u2014 ")[0] for entry in history] == [f"{answering} was right!", "Ben was right!",
                                                                       "Kim was right!"]
        assert history[1:] == ["Ben was right! \u2014 Ben", "Kim was right! \u2014 Kim"]
        right = Counter(["Kim", "Ben", answering])
        assert scores(watcher) == {name: str(right[name]) for name in ("Ana", "Ben", "Cy", *PLAYERS)}
        for phone in phones:  # no phone was ever sent a panel: a buzzer has none, and no one else's
            assert all(m["type"] != "panel" or m["keys"] == ["slap"] for m in phone.received)
    finally:
        for phone in phones:
            phone.close()
        assert box.close() == 0

    [journal] = (tmp_path / "games").glob("*.jsonl")
    capsys.readouterr()
    assert main(["replay", str(journal), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    phone_seats = range(FIRST_PHONE - 1, FIRST_PHONE - 1 + len(PLAYERS))
    kim_seat = FIRST_PHONE - 1 + PLAYERS.index("Kim")
    races = replayed["races"]
    assert [race["winners"] for race in races[:2]] == [[kim_seat], [BEN - 1]]
    assert FIRST_PHONE - 1 in races[2]["winners"]  # Ida, or a tie with her
    # A race a phone played in journals each phone's error; one of wired buzzers alone has none.
    assert races[0]["error_ms"][kim_seat] > 0 and "error_ms" not in races[1]
    timed = [seat for seat in phone_seats if races[2]["reaction_ms"][seat] is not None]
    assert timed and all(races[2]["error_ms"][seat] > 0 for seat in timed)
