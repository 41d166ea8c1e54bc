"""Word decks: the built-in decks, the deck file format and its errors, printable sheets."""

from __future__ import annotations

import re
import tomllib

import pytest
from PIL import Image

from companion import words
from companion.cli import main
from companion.words import BUILTIN, WORD_MAX, DeckError, load_decks, parse_decks
from companion.words.sheet import PAGE, pages, save

CARD = ["spoon", "fork", "knife", "ladle", "whisk", "spatula", "tongs"]


def deck_file(tmp_path, text: str):
    path = tmp_path / "decks.toml"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """
[[deck]]
name = "kitchen"
title = "Kitchen words"
cards = [
  ["spoon", "fork", "knife", "ladle", "whisk", "spatula", "tongs"],
  ["pan", "pot", "kettle", "wok", "oven", "toaster", "grill"],
  ["cup", "mug", "glass", "bowl", "plate", "jug", "teapot"],
]
"""


@pytest.fixture(autouse=True)
def no_user_decks():
    yield
    words.use_user_decks([])


def test_four_built_in_decks_of_at_least_18_cards_of_seven_distinct_words():
    decks = words.builtin()
    assert tuple(decks) == BUILTIN == ("green", "yellow", "orange", "red")
    everything = []
    for deck in decks.values():
        assert len(deck.cards) >= 18, deck.name
        for i, card in enumerate(deck.cards, start=1):
            assert card.id == f"{deck.name}-{i:02d}"
            assert len(card.words) == 7 and len(set(card.words)) == 7
            assert all(w.isascii() and w.isprintable() and 0 < len(w) <= WORD_MAX for w in card.words)
        in_deck = [w for card in deck.cards for w in card.words]
        assert len(in_deck) == len(set(in_deck)), f"a word twice in {deck.name}"
        everything += in_deck
    assert len(everything) >= 4 * 18 * 7


def test_built_in_deck_files_are_package_data():
    with open("pyproject.toml", "rb") as f:
        package_data = tomllib.load(f)["tool"]["setuptools"]["package-data"]["companion"]
    assert "words/*.toml" in package_data


def test_a_user_deck_file_loads_with_ids_by_place(tmp_path):
    [deck] = load_decks(deck_file(tmp_path, GOOD))
    assert (deck.name, deck.title, deck.ids) == ("kitchen", "Kitchen words", ("kitchen-01", "kitchen-02", "kitchen-03"))
    assert deck.cards[1].word(3) == "kettle"
    words.use_user_decks([deck])
    assert list(words.catalogue()) == ["green", "yellow", "orange", "red", "kitchen"]
    assert words.card("kitchen-03").word(7) == "teapot"
    words.use_user_decks([])
    with pytest.raises(KeyError, match="unknown deck 'kitchen'; known decks are green, yellow, orange, red"):
        words.find("kitchen")


def test_every_problem_of_a_deck_file_is_named_at_once():
    data = {"deck": [
        {"name": "Green!", "cards": [CARD, CARD[:6], CARD + ["extra"]], "colour": "blue"},
        {"name": "green", "cards": [CARD, [1, "", "a" * 19, "b", "SPOON", "c", "d"], ["bell\x07", "e", "f", "g", "h", "i", "j"]]},
        {"name": "two", "title": 5, "cards": []},
    ], "version": 1}
    with pytest.raises(DeckError) as e:
        parse_decks(data, "my.toml", reserved=BUILTIN)
    assert e.value.problems == [
        "version: unknown field; a deck file has only [[deck]] tables",
        "deck 1 colour: unknown field; known fields are name, title, cards",
        "deck 1 name: must be 1-16 lowercase letters, digits or dashes, not 'Green!'",
        "deck 1 card 2: a card needs exactly 7 words; this one has 6 (starting 'spoon')",
        "deck 1 card 3: a card needs exactly 7 words; this one has 8 (starting 'spoon')",
        "deck 2 name: 'green' is a built-in deck; choose another name",
        "deck 2 card 2 word 1: a word must be non-empty text, not 1",
        "deck 2 card 2 word 2: a word must be non-empty text, not ''",
        f"deck 2 card 2 word 3: {'a' * 19!r} is longer than 18 characters",
        "deck 2 card 2 word 5: 'SPOON' is already in this deck at deck 2 card 1 word 1",
        "deck 2 card 3 word 1: 'bell\\x07' has characters a station cannot show",
        "deck 3 title: must be text, not 5",
        "deck 3 cards: a deck needs a list of at least 3 cards",
    ]
    assert str(e.value).startswith("my.toml:\n  version: unknown field")


def test_a_file_that_is_not_toml_or_not_there(tmp_path):
    with pytest.raises(DeckError, match="not valid TOML"):
        load_decks(deck_file(tmp_path, "[[deck]\nname ="))
    with pytest.raises(DeckError, match="No such file"):
        load_decks(tmp_path / "nope.toml")
    with pytest.raises(DeckError, match=r"at least one \[\[deck\]\] table"):
        load_decks(deck_file(tmp_path, "# empty\n"))


def test_sheets_put_eight_cards_on_an_a4_page():
    green = words.find("green")
    sheets = pages([green])
    assert len(sheets) == 3 and all(s.size == PAGE and s.mode == "1" for s in sheets)
    dark = [s.size[0] * s.size[1] - sum(s.histogram()[1:]) for s in sheets]
    assert dark[0] > dark[2] > 0                       # the last page has 4 of 20 cards


def test_words_print_writes_a_pdf_and_pngs(tmp_path, capsys):
    assert main(["words", "print", "--deck", "red", "--out", str(tmp_path / "red.pdf")]) == 0
    assert (tmp_path / "red.pdf").read_bytes().startswith(b"%PDF")
    paths = save([words.find("yellow")], tmp_path / "yellow.png")
    assert [p.name for p in paths] == ["yellow-1.png", "yellow-2.png", "yellow-3.png"]
    assert Image.open(paths[0]).size == PAGE
    assert main(["words", "print", "--deck", "purple", "--out", str(tmp_path / "x.pdf")]) == 2
    assert "unknown deck 'purple'" in capsys.readouterr().err


def test_words_print_adds_a_user_deck_file(tmp_path, capsys):
    path = deck_file(tmp_path, GOOD)
    assert main(["words", "print", "--decks", str(path), "--deck", "kitchen", "--out", str(tmp_path / "k.png")]) == 0
    assert (tmp_path / "k-1.png").exists() and not (tmp_path / "k-2.png").exists()


def test_words_check_names_every_problem_and_exits_2(tmp_path, capsys):
    good = deck_file(tmp_path, GOOD)
    assert main(["words", "check", str(good)]) == 0
    assert capsys.readouterr().out == f"{good}: ok (kitchen: 3 cards)\n"
    bad = tmp_path / "bad.toml"
    bad.write_text('[[deck]]\nname = "red"\ncards = []\n')
    assert main(["words", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "deck 1 name: 'red' is a built-in deck" in err
    assert "deck 1 cards: a deck needs a list of at least 3 cards" in err


def test_printed_cards_are_vector_text_not_a_bitmap(tmp_path):
    from fpdf import FPDF  # noqa: F401  (the cards extra, installed with the test extra)

    path = tmp_path / "green.pdf"
    assert main(["words", "print", "--deck", "green", "--out", str(path)]) == 0
    data = path.read_bytes()
    assert data.startswith(b"%PDF") and b"/Helvetica" in data
    assert b"/Subtype /Image" not in data                 # no page is a picture
    assert len(re.findall(rb"/Type\s*/Page\b", data)) == 3   # 20 cards, eight to a page


def test_vector_cards_say_what_to_install_and_name_a_word_they_cannot_print(tmp_path, capsys, monkeypatch):
    import sys

    from companion.words import Card, Deck
    from companion.words.vector import CardsError, save_pdf

    greek = Deck("greek", "Greek", (Card("g1", ("α", "b", "c", "d", "e", "f", "g")),) * 3)
    with pytest.raises(CardsError, match=r"deck 'greek', card g1: 'α' has letters"):
        save_pdf([greek], tmp_path / "g.pdf")
    monkeypatch.setitem(sys.modules, "fpdf", None)       # as if the cards extra were not installed
    assert main(["words", "print", "--deck", "red", "--out", str(tmp_path / "r.pdf")]) == 2
    assert 'vector PDF cards need fpdf2: pip install ".[cards]"' in capsys.readouterr().err
