"""The Pictionary table on a fake clock: word, timer, ticks, claims in edge-time order, ties."""


import pytest

from companion.cli import option_settings
from companion.arbiter.inputs import InputEvent
from companion.record.journal import JournalWriter, replay, summary
from companion.table import Table

from glyphs import shows
from helpers import MS, journal_objects

S = 1000  # ms
ANA, BEN, CY = 0, 1, 2


class Box:
    """A table of three with a journal, driven in ms on a fake clock; times given to ``tap`` and
    ``tick`` count from the start of the game."""

    def __init__(self, tmp_path, defaults=None, **options):
        self.path = tmp_path / "trio.jsonl"
        self.table = Table(("Ana", "Ben", "Cy"), lambda h: JournalWriter(self.path, h), seed=11,
                           defaults=defaults)
        self.ms = self.origin = 0.0
        self.cues = []
        self.start(options)
        self.origin = self.ms + 100
        self.ms = 0.0

    def press(self, station, key, at=None, pressed=True):
        self.ms = self.ms + 100 if at is None else at
        self.table.handle(InputEvent(station, key, pressed, round((self.origin + self.ms) * MS)))
        self.collect()

    def tap(self, station, key, at=None):
        self.press(station, key, at)
        self.press(station, key, self.ms + 50, pressed=False)

    def tick(self, at, watermark=None):
        self.ms = at
        watermark = at if watermark is None else watermark
        self.table.tick(round((self.origin + at) * MS), round((self.origin + watermark) * MS))
        self.collect()

    def collect(self):
        self.cues += self.table.cues
        self.table.cues.clear()

    def start(self, options):
        lobby = self.table.lobby
        while lobby.game.name != "trio":
            self.tap(ANA, "right")
        self.tap(ANA, "ok")
        for name, choices in lobby._rows():
            wanted = options.get(name, lobby.values[name])
            while lobby.values[name] != wanted:
                self.tap(ANA, "right" if choices.index(wanted) > choices.index(lobby.values[name]) else "left")
            self.tap(ANA, "ok")
        self.tap(ANA, "ok")                       # Start
        assert self.table.game is not None

    @property
    def game(self):
        return self.table.game

    @property
    def state(self):
        return self.game.match.state

    def lines(self):
        return journal_objects(self.path)[1:]

    def actions(self):
        """The journal's actions but the artist's ``timer`` lines (see :meth:`timers`)."""
        return [{k: v for k, v in x.items() if k not in ("type", "t")}
                for x in self.lines() if x["type"] == "action" and x["action"] != "timer"]

    def timers(self):
        """When each ``timer`` line says the artist started the timer (journal seconds)."""
        return [x["t"] for x in self.lines() if x.get("action") == "timer"]


@pytest.fixture
def box(tmp_path):
    return Box(tmp_path)


def start_timer(box, at):
    """The artist starts the timer (after turning from the last round's result to the word)."""
    if not box.game.artist_told:
        box.tap(box.state.artist, "ok", at - 100)
    box.tap(box.state.artist, "ok", at)


def test_only_the_artist_sees_the_word_with_a_ready_prompt(box):
    word = box.state.word
    assert box.lines()[0] == {"type": "chance", "event": "word", "word": word, "t": 0.0}
    artist = box.game.view(ANA)
    assert artist.heading == "You draw" and artist.word == word
    assert artist.lines == ("ok:start  left:new",) and artist.clock == "1:00"
    for station in (BEN, CY):
        view = box.game.view(station)
        assert view.heading == "Ana draws" and view.word == "" and word not in view.lines
        assert view.lines[0] == "Get ready to guess"


def test_slaps_before_the_timer_are_no_claims_and_left_asks_for_a_new_word(box):
    first = box.state.word
    box.tap(BEN, "slap", 1 * S)
    box.tap(ANA, "left", 2 * S)
    assert box.state.word != first
    assert box.actions() == [{"action": "new_word"}]
    assert [x["word"] for x in box.lines() if x["type"] == "chance"] == [first, box.state.word]
    start_timer(box, 3 * S)
    box.tick(20 * S)
    assert box.game.claims == {} and box.game.judging == ()
    box.tap(ANA, "left", 21 * S)                  # the timer runs: no more new words
    assert len(box.actions()) == 1


def test_timer_starts_on_the_artists_ok_ticks_the_last_ten_seconds_and_times_out(box):
    box.tick(5 * S)
    assert box.game.view(BEN).clock == "1:00" and box.game.wakeup_ns() is None
    start_timer(box, 10 * S)
    assert box.cues[-1] == "go" and len(box.timers()) == 1  # journaled, for a resume to carry on
    box.tick(10 * S + 1)
    assert {box.game.view(s).clock for s in (ANA, BEN, CY)} == {"1:00"}
    box.tick(11 * S + 1)
    assert box.game.view(CY).clock == "0:59" and not box.game.view(CY).hurry
    for second in range(12, 60):
        box.tick(second * S)
    assert box.game.view(BEN).clock == "0:11" and "last_seconds" not in box.cues
    for second in range(60, 69):
        box.tick(second * S)
    assert box.cues.count("last_seconds") == 9 and box.game.view(BEN).clock == "0:02"
    assert box.game.view(BEN).hurry
    box.tick(69 * S)
    box.tick(70 * S, watermark=70 * S - 1)        # the alarm; the watermark is not there yet
    assert box.cues.count("last_seconds") == 10 and box.cues[-1] == "time_up"
    assert box.game.view(BEN).hurry and box.game.view(BEN).clock == "0:00"
    assert box.actions() == []
    box.tick(70 * S + 1)
    assert box.actions() == [{"action": "timeout"}]
    assert box.state.scores == (0, 0, 0) and box.state.artist == BEN
    assert box.game.view(CY).lines == ("Time up! It was:", box.lines()[0]["word"])


def test_the_timeout_waits_for_the_watermark_and_for_claims_made_in_time(box):
    start_timer(box, 0)
    box.tick(60 * S, watermark=60 * S - 2)        # a slap before the alarm may still arrive
    assert box.cues[-1] == "time_up" and box.actions() == []
    box.tap(CY, "slap", 60 * S - 3)               # it does: slapped 3 ms before the alarm
    box.tick(61 * S)
    assert box.game.judging == (CY,) and box.game.view(ANA).heading == "Is Cy right?"
    box.tap(ANA, "ok", 62 * S)
    assert box.actions() == [{"action": "guessed", "player": CY}]
    assert box.state.scores == (1, 0, 1)


def test_a_slap_after_the_alarm_is_not_a_claim(box):
    start_timer(box, 0)
    box.tap(BEN, "slap", 60 * S)
    box.tick(61 * S)
    assert box.actions() == [{"action": "timeout"}]


def test_claims_are_judged_in_edge_time_order_not_arrival_order(box):
    start_timer(box, 0)
    box.tap(CY, "slap", 5 * S + 30)               # arrives first, slapped later
    box.tap(BEN, "slap", 5 * S)
    box.tick(5 * S + 40, watermark=5 * S + 9)     # Ben's window is not over yet
    assert box.game.judging == ()
    box.tick(5 * S + 41, watermark=5 * S + 10)
    assert box.game.judging == (BEN,) and box.cues[-1] == "decided"
    assert box.game.view(CY).lines == ("Your guess: wait", "Judging Ben")
    box.tap(ANA, "left", 6 * S)                   # Ben is wrong: Cy's claim is next
    assert box.cues[-1] == "wrong"
    box.tick(6 * S + 1)
    assert box.game.judging == (CY,)
    assert box.game.view(BEN).lines[0] == "Wrong! Guess again"
    box.tap(ANA, "ok", 7 * S)
    assert box.actions() == [{"action": "guessed", "player": CY}]
    assert box.state.scores == (1, 0, 1) and box.cues[-1] == "correct"


def test_two_correct_claims_within_the_tie_window_score_for_the_artist_only(box):
    start_timer(box, 0)
    box.tap(CY, "slap", 5 * S + 4)
    box.tap(BEN, "slap", 5 * S)
    box.tick(5 * S + 20)
    assert box.game.judging == (BEN, CY) and box.cues[-1] == "tie"
    assert box.game.view(ANA).heading == "Tie: Ben right?"
    assert box.game.view(ANA).lines == ("ok: yes   left: no",)
    box.tap(ANA, "ok", 6 * S)
    assert box.actions() == [] and box.game.view(ANA).heading == "Tie: Cy right?"
    assert box.game.view(BEN).lines == ("You were right!", "Judging Cy"), "not asked to slap again"
    box.tap(ANA, "ok", 7 * S)
    assert box.actions() == [{"action": "both_guessed"}]
    assert box.state.scores == (1, 0, 0)


def test_simultaneous_claims_with_one_wrong_score_normally(box):
    start_timer(box, 0)
    box.tap(BEN, "slap", 5 * S)
    box.tap(CY, "slap", 5 * S + 9)
    box.tick(5 * S + 20)
    box.tap(ANA, "left", 6 * S)
    box.tap(ANA, "ok", 7 * S)
    assert box.actions() == [{"action": "guessed", "player": CY}]


def test_slaps_outside_the_tie_window_are_not_simultaneous(tmp_path):
    box = Box(tmp_path, tie_window_ms=5)
    start_timer(box, 0)
    box.tap(BEN, "slap", 5 * S)
    box.tap(CY, "slap", 5 * S + 5)
    box.tick(5 * S + 20)
    assert box.game.judging == (BEN,)


def test_a_judgement_needs_a_claim_put_to_the_artist_first(box):
    start_timer(box, 0)
    box.tap(ANA, "ok", 4 * S)                     # nothing to judge: ignored
    box.tap(BEN, "slap", 5 * S)
    box.tap(ANA, "ok", 5 * S + 5)                 # before the claim was put: ignored
    box.tap(BEN, "slap", 5 * S + 200)             # Ben's claim already waits: no second one
    box.tick(5 * S + 300)
    assert box.game.judging == (BEN,) and box.actions() == []
    box.tap(ANA, "ok", 6 * S)
    assert box.actions() == [{"action": "guessed", "player": BEN}]


def test_the_seed_game_ends_at_the_table_with_the_end_screen(tmp_path):
    box = Box(tmp_path, seconds=30)
    for letter in "BAAABCCBCCBC":
        t = box.ms + S
        start_timer(box, t)
        box.tap("ABC".index(letter), "slap", t + S)
        box.tick(t + S + 100)
        box.tap(box.state.artist, "ok", t + 2 * S)
    assert box.state.scores == (7, 8, 9) and box.state.artist == BEN
    view = box.game.view(ANA)
    assert view.eligible == CY and view.leader == CY and view.highlight == BEN
    t = box.ms + S
    start_timer(box, t)
    box.tap(CY, "slap", t + S)
    box.tick(t + S + 100)
    box.tap(BEN, "ok", t + 2 * S)
    assert box.cues[-1] == "win"
    end = box.game.view(BEN)
    assert end.heading == "Cy wins!" and end.scores == (7, 9, 10) and end.footer == "ok: back to lobby"
    header, match = replay(box.path.read_text().splitlines())
    assert summary(header, match)["winners"] == [CY]
    box.tap(ANA, "ok")
    assert box.table.game is None


def test_option_defaults_from_the_command_line_bring_a_word_file_to_the_lobby(tmp_path):
    words = tmp_path / "ours.txt"
    words.write_text("grandma's garden\nour dog Biscuit\n")
    defaults = option_settings([f"trio.word_file={words}", "trio.only_word_file=on", "trio.tier=easy"])
    assert defaults == {"trio": {"word_file": str(words), "only_word_file": True, "tier": "easy"}}
    assert option_settings(["trio.word_file=none", "trio.seconds=45"]) == {"trio": {"word_file": None, "seconds": 45}}
    box = Box(tmp_path, defaults=defaults)
    header = journal_objects(box.path)[0]
    assert header["options"]["tier"] == "easy"   # the lobby row started from the setting
    options = box.game.match.options
    assert (options.word_file, options.only_word_file) == (str(words), True)
    assert box.game.view(ANA).word in ("grandma's garden", "our dog Biscuit")


@pytest.mark.parametrize("item, message", [
    ("trio.seconds=soon", "'trio.seconds=soon': option 'seconds': must be a whole number"),
    ("trio.tier=spicy", "option 'tier': must be one of 'easy', 'medium', 'hard', 'mixed'"),
    ("trio.colour=red", "option 'colour': unknown option; known options are seconds"),
    ("chess.clock=5", "unknown game 'chess'"),
    ("trio.seconds", "expected GAME.NAME=VALUE"),
])
def test_bad_option_settings_name_the_setting_and_the_rule(item, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        option_settings([item])


def test_a_word_file_that_cannot_be_read_is_shown_on_every_station(tmp_path):
    box = Box(tmp_path, defaults={"trio": {"word_file": str(tmp_path / "gone.txt")}})
    assert box.cues[-1] == "illegal" and box.state.word is None
    view = box.game.view(CY)
    assert view.heading == "No words to draw" and view.lines == ("Check the word file", "gone.txt")
    assert "No such file" in box.game.problem
    box.tap(ANA, "ok")                            # nothing to start
    assert box.game.deadline_ns is None


def test_the_artist_takes_back_a_right_judgement_until_the_next_timer(box):
    start_timer(box, 0)
    box.tap(CY, "slap", 5 * S)
    box.tick(6 * S)
    box.tap(ANA, "ok", 7 * S)                     # judged right: Cy and Ana +1, Ben draws next
    assert box.state.scores == (1, 0, 1) and box.state.artist == BEN
    assert box.game.view(ANA).lines[1] == ">: call it wrong"
    assert box.game.view(CY).lines[1] != ">: call it wrong"  # only the artist who judged
    box.tap(CY, "right", 8 * S)                   # not Cy's to take back
    assert box.state.scores == (1, 0, 1)
    box.tap(ANA, "right", 9 * S)
    assert box.actions()[-1] == {"action": "correct"} and box.state.scores == (0, 0, 0)
    assert box.state.artist == BEN and box.cues[-1] == "wrong"
    assert box.game.view(CY).lines == ("Undone: no points", box.game.last_word)
    header, match = replay(box.path.read_text().splitlines())
    assert match.state == box.state               # the journal replays the correction
    box.tap(ANA, "right", 10 * S)                 # only once
    assert box.actions().count({"action": "correct"}) == 1


def test_no_correction_once_the_next_timer_runs(box):
    start_timer(box, 0)
    box.tap(CY, "slap", 5 * S)
    box.tick(6 * S)
    box.tap(ANA, "ok", 7 * S)
    start_timer(box, 8 * S)                       # Ben starts drawing
    box.tap(ANA, "right", 9 * S)
    assert box.state.scores == (1, 0, 1) and {"action": "correct"} not in box.actions()


def test_the_artist_turns_a_wrong_judgement_into_a_right_one(box):
    start_timer(box, 0)
    box.tap(BEN, "slap", 5 * S)
    box.tick(6 * S)
    box.tap(ANA, "left", 7 * S)                   # judged wrong
    assert box.game.view(ANA).lines == (">: call it right",)
    box.tap(ANA, "right", 8 * S)
    assert box.actions() == [{"action": "guessed", "player": BEN}]
    assert box.state.scores == (1, 1, 0)


def test_the_next_artist_first_sees_how_the_last_round_ended(box):
    """After a time-out the new artist reads "Time up! It was:" and the word, as the guessers
    do; their ok then shows their own word, and the next ok starts the timer."""
    old = box.state.word
    start_timer(box, 0)
    box.tick(61 * S)
    assert box.actions()[-1] == {"action": "timeout"} and box.state.artist == BEN
    ben = box.game.view(BEN)
    assert (ben.heading, ben.lines, ben.word, ben.footer) == ("You draw next", ("Time up! It was:", old), "",
                                                             "ok: your word")
    assert shows(box.game.screen(BEN), old)
    box.tap(BEN, "ok", 62 * S)
    ben = box.game.view(BEN)
    assert ben.heading == "You draw" and ben.word == box.state.word != old
    assert box.game.deadline_ns is None
    box.tap(BEN, "ok", 63 * S)
    assert box.game.deadline_ns is not None and len(box.timers()) == 2
