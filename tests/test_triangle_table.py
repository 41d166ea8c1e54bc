"""Triangle at the table on a fake clock: countdown, who sees which card, the race from edge
times, false starts, draws that reveal nothing, the claimer's menu, later slaps, the end."""

from __future__ import annotations


import pytest
from PIL import ImageChops

from companion.games import get
from companion.games.options import lobby_choices, option_label, parse_options, show_value
from companion.games.triangle import FACTS, TriangleOptions, fact_true, peers
from companion.arbiter.inputs import InputEvent
from companion.record.journal import Header, JournalWriter, replay, summary
from companion.screens.lobby import OptionsView, options_menu
from companion.table import Table
from companion.table.triangle import TriangleTable

from helpers import MS, journal_objects
from glyphs import shows
from companion.games.options import SCREEN_TIE_WINDOW_MS

S = 1000 * MS
START = 1_000 * MS
STEP = 1000 * MS
OPENS = START + 3 * STEP
ANA, BEN, CY = 0, 1, 2
NAMES = ("Ana", "Ben", "Cy")


@pytest.fixture
def make(tmp_path):
    """A Triangle table started at START with the given options, journaling to a file."""
    made = []

    def make(stations=3, seed=3, **options):
        opts = parse_options(TriangleOptions, options)
        path = tmp_path / f"game{len(made)}.jsonl"
        journal = JournalWriter(path, Header("triangle", NAMES, dict(options), seed))
        table = TriangleTable(get("triangle"), opts, NAMES, stations, seed, journal, START)
        table.path = path
        made.append(table)
        return table

    return make


def journal_lines(table):
    return journal_objects(table.path)[1:]


def press(table, station, key, t_ns, pressed=True):
    table.handle(InputEvent(station, key, pressed, t_ns))


def tap(table, station, key, t_ns):
    press(table, station, key, t_ns)
    press(table, station, key, t_ns + 50 * MS, pressed=False)


def settle(table, t_ns):
    """Time reaches ``t_ns`` and every press before it has been delivered."""
    table.tick(t_ns, t_ns)


def to_zero(table):
    for n in (1, 2, 3):
        settle(table, table.round_start_ns + n * table.step_ns)
    assert table.count == 0


def claim(table, station, at_ns=None):
    to_zero(table)
    at_ns = at_ns if at_ns is not None else table.opens_ns + 100 * MS
    press(table, station, "slap", at_ns)
    settle(table, at_ns + table.window_ns + MS)
    assert table.claimer == station
    return at_ns


def state(table, fact_index, value_steps=None, t_ns=None):
    """The claimer moves the cursor to ``FACTS[fact_index]`` and states it."""
    t = t_ns or table.now_ns + 200 * MS
    for _ in range(fact_index):
        tap(table, table.claimer, "right", t)
        t += 100 * MS
    tap(table, table.claimer, "ok", t)
    if value_steps is not None:
        for _ in range(value_steps):
            t += 100 * MS
            tap(table, table.claimer, "right", t)
        tap(table, table.claimer, "ok", t + 100 * MS)


def test_the_countdown_ticks_on_the_buzzer_and_every_display_then_shows_peers(make):
    table = make()
    cards = table.current.cards
    assert table.cues == ["tick"] and table.count == 3
    for count in (3, 2, 1):
        assert table.wakeup_ns() == table.round_start_ns + (4 - count) * STEP
        for s in range(3):
            view = table.view(s)
            assert view.count == count and view.cards == ()
        settle(table, table.wakeup_ns() - 1)
        assert table.count == count
        settle(table, table.wakeup_ns())
    assert table.cues == ["tick", "tick", "tick", "go"]
    for s in range(3):
        view = table.view(s)
        assert view.count is None
        assert view.cards == tuple((NAMES[p], cards[p]) for p in peers(s))
    assert journal_lines(table)[0]["event"] == "deal"


def test_the_first_slap_claims_once_the_watermark_passes_the_tie_window(make):
    table = make()
    to_zero(table)
    table.cues.clear()
    # Ana's later slap reaches the box first; Ben's earlier edge arrives after it.
    press(table, ANA, "slap", OPENS + 730 * MS)
    press(table, BEN, "slap", OPENS + 700 * MS)
    assert table.wakeup_ns() == OPENS + (700 + SCREEN_TIE_WINDOW_MS) * MS
    table.tick(OPENS + 2000 * MS, OPENS + (699 + SCREEN_TIE_WINDOW_MS) * MS)  # a source has not reported that far
    assert table.claimer is None
    table.tick(OPENS + 2000 * MS, OPENS + (700 + SCREEN_TIE_WINDOW_MS) * MS)
    assert table.claimer == BEN and table.cues == ["decided"]
    assert journal_lines(table)[-1]["action"] == "claim"
    assert journal_lines(table)[-1]["player"] == BEN
    # Everyone sees that Ana slapped 30 ms after Ben.
    assert table.view(CY).status == "Ana +30ms"
    assert table.view(ANA).status == "You +30ms"
    assert table.view(BEN).status == "Ana +30ms"


def test_slaps_within_the_window_are_a_draw_that_never_shows_a_player_their_card(make):
    # A deal of four different values, so that a value on a screen can only be that card.
    table = next(t for t in map(lambda seed: make(seed=seed), range(100))
                 if len({*t.current.cards, t.current.rts}) == 4)
    cards, rts = table.current.cards, table.current.rts
    to_zero(table)
    for station, delta in ((CY, 0), (ANA, 3), (BEN, 6)):
        press(table, station, "slap", OPENS + (500 + delta) * MS)
    press(table, BEN, "slap", OPENS + 900 * MS)         # a second slap changes nothing
    settle(table, OPENS + 520 * MS)
    assert journal_lines(table)[-1] == {"type": "action", "action": "draw", "players": [0, 1, 2],
                                        "onset_ms": [0.0, 0.0, 0.0], "reaction_ms": [503.0, 506.0, 500.0],
                                        "t": journal_lines(table)[-1]["t"]}
    assert table.cues[-1] == "tie" and table.match.state.scores == (0, 0, 0)
    for s in range(3):
        image = table.screen(s)
        assert table.view(s).title == "Draw: " + ", ".join("You" if p == s else NAMES[p] for p in range(3))
        assert table.view(s).status == "Too close for screens"   # 6 ms: within a panel's frame
        assert not shows(image, str(cards[s])), f"station {s} shows its own card"
        assert not shows(image, str(rts)), f"station {s} shows the RtS card"
        for p in peers(s):
            assert shows(image, str(cards[p])), "the peers' cards stay in view"


def test_a_draw_wider_than_the_screens_can_blur_is_the_house_window_not_the_screens(make):
    table = make(tie_window_ms=50)
    to_zero(table)
    for station, delta in ((CY, 0), (ANA, 30)):
        press(table, station, "slap", OPENS + (500 + delta) * MS)
    settle(table, OPENS + 600 * MS)
    assert table.cues[-1] == "tie"
    assert table.view(CY).status == ""                      # 30 ms apart: the screens could tell


def test_a_slap_before_zero_is_a_false_start_shown_to_the_presser_only(make):
    table = make()
    press(table, CY, "slap", START + 1500 * MS)
    for s in (ANA, BEN):
        assert table.view(s).status == "" and not table.view(s).alert
    assert table.view(CY).status == "Too early!" and table.view(CY).alert
    assert shows(table.screen(CY), "Too early!") and not shows(table.screen(BEN), "Too early!")
    to_zero(table)
    assert table.view(CY).status == "Slap to speak!", "the race is open: no longer too early"
    assert not table.view(CY).alert and not shows(table.screen(CY), "Too early!")
    assert table.view(ANA).status == "Slap to speak!"
    # Without a lockout Cy may still race: her slap after 0 counts.
    claim(table, CY)
    assert not [x for x in journal_lines(table) if x.get("action") == "claim" and x["player"] != CY]


def test_a_false_start_lockout_voids_the_pressers_slaps_for_its_length(make):
    table = make(false_start_lockout_ms=250)
    press(table, ANA, "slap", OPENS - 100 * MS)         # locked out until OPENS + 150 ms
    assert table.view(ANA).status == "Too early! wait 0.3s"
    to_zero(table)
    press(table, ANA, "slap", OPENS + 50 * MS)          # locked out until OPENS + 300 ms
    assert table.view(ANA).status == "Locked out! wait 0.3s"
    press(table, BEN, "slap", OPENS + 100 * MS)
    settle(table, OPENS + 200 * MS)
    assert table.claimer == BEN


def test_the_lockout_wait_is_shown_until_it_is_over(make):
    table = make(false_start_lockout_ms=250)
    press(table, ANA, "slap", OPENS - 100 * MS)
    to_zero(table)
    press(table, ANA, "slap", OPENS + 50 * MS)          # locked out until OPENS + 300 ms
    assert table.view(ANA).status == "Locked out! wait 0.3s"   # the time left, not the lockout's length
    assert table.wakeup_ns() == OPENS + 100 * MS, "redrawn as the time left goes down a tenth"
    assert table.tick(OPENS + 100 * MS, OPENS + 100 * MS), "the screen changed"
    assert table.view(ANA).status == "Locked out! wait 0.2s"
    settle(table, OPENS + 299 * MS)
    assert table.view(ANA).status == "Locked out! wait 0.1s"
    assert table.tick(OPENS + 300 * MS, OPENS + 300 * MS), "the screen changed"
    assert table.view(ANA).status == "Slap to speak!", "the wait is over: the message goes"
    assert not shows(table.screen(ANA), "wait")


def test_the_claimer_alone_sees_the_rts_and_chooses_a_fact(make):
    table = make()
    cards, rts = table.current.cards, table.current.rts
    claim(table, ANA)
    assert table.view(ANA).title == f"Right to Speak: {rts}"
    assert table.view(ANA).menu and table.view(ANA).footer == "peers even +1"
    for s in (BEN, CY):
        assert table.view(s).title == "Ana speaks" and not table.view(s).menu
        assert f"{rts}" not in table.view(s).title
    tap(table, BEN, "right", OPENS + 300 * MS)           # not Ben's menu
    assert table.cursor == 0
    t = OPENS + 400 * MS
    for _ in range(3):
        tap(table, ANA, "right", t)
        t += 100 * MS
    assert table.view(ANA).footer == "I'm greater +3"
    tap(table, ANA, "ok", t)
    line = journal_lines(table)[-1]
    assert line["action"] == "state" and line["fact"] == "greater" and line["player"] == ANA
    right = fact_true(cards, ANA, "greater")
    assert table.match.state.scores == ((3, 0, 0) if right else (0, 3, 3))
    assert table.cues[-1] == ("correct" if right else "wrong")
    for s in range(3):
        view = table.view(s)
        assert view.cards == tuple(("You" if p == s else NAMES[p], cards[p]) for p in range(3))
        assert view.title.startswith("You: greater" if s == ANA else "Ana: greater")
        assert view.more


def test_exact_asks_for_the_value_and_slap_goes_back(make):
    table = make()
    mine = table.current.cards[BEN]
    claim(table, BEN)
    t = OPENS + 300 * MS
    tap(table, BEN, "left", t)                           # wraps to "exact"
    assert table.view(BEN).footer == "I'm exactly.. +8"
    tap(table, BEN, "ok", t + 100 * MS)
    assert table.view(BEN).footer == "I'm a 1 +8"
    tap(table, BEN, "slap", t + 200 * MS)
    assert table.view(BEN).footer == "I'm exactly.. +8"
    tap(table, BEN, "ok", t + 300 * MS)
    t += 400 * MS
    for _ in range(mine - 1):
        tap(table, BEN, "right", t)
        t += 100 * MS
    assert table.view(BEN).footer == f"I'm a {mine} +8"
    tap(table, BEN, "ok", t)
    assert journal_lines(table)[-1]["value"] == mine
    assert table.match.state.scores == (0, 8, 0)
    assert table.view(ANA).title == f"Ben: exactly {mine} +8"


def test_slaps_after_the_claim_are_listed_with_their_delay(make):
    table = make()
    first = claim(table, CY)
    press(table, ANA, "slap", first + 140 * MS)
    press(table, BEN, "slap", first + 2100 * MS)
    assert table.view(CY).status == "Ana +140ms  Ben +2.1s"
    assert table.view(BEN).status == "Ana +140ms  You +2.1s"
    state(table, FACTS.index("odd"))
    assert table.view(ANA).status == "You +140ms  Ben +2.1s"


def test_ok_deals_the_next_round_and_older_presses_are_stale(make):
    table = make()
    claim(table, ANA)
    state(table, 0, t_ns=OPENS + 1000 * MS)
    done_at = table.since_ns
    press(table, BEN, "ok", done_at - 1)                 # pressed before the verdict: stale
    assert table.current is None
    tap(table, BEN, "ok", done_at + 500 * MS)
    assert table.current is not None and table.count == 3
    assert table.round_start_ns == done_at + 500 * MS
    assert table.view(CY).title == "Turn 1  Round 2/6"
    assert [x["type"] for x in journal_lines(table)] == ["chance", "action", "action", "chance"]


def test_a_round_nobody_claims_is_void_after_the_timeout(make):
    table = make(round_timeout_s=10)
    to_zero(table)
    deadline = OPENS + 10 * S
    assert table.wakeup_ns() == deadline
    settle(table, deadline - 1)
    assert table.current is not None
    settle(table, deadline)
    assert journal_lines(table)[-1]["action"] == "void" and table.cues[-1] == "time_up"
    assert table.view(ANA).title == "Nobody spoke: void"


def test_a_slap_before_the_timeout_keeps_the_round_alive(make):
    table = make(round_timeout_s=10)
    to_zero(table)
    press(table, ANA, "slap", OPENS + 10 * S - 5 * MS)
    settle(table, OPENS + 10 * S + 20 * MS)
    assert table.claimer == ANA


def play_turn(table):
    """Six rounds in which Ana claims and states "peers are even"; returns the time after."""
    for _ in range(6):
        assert table.current is not None
        claim(table, ANA)
        state(table, 0)
        t = table.now_ns + 500 * MS
        if table.match.outcome is None:
            tap(table, CY, "ok", t)
    return t


def test_the_last_round_then_the_end_screen_with_the_settlement(make):
    table = make(turns=1, settlement=True)
    t = play_turn(table)
    outcome = table.match.outcome
    assert outcome is not None and table.holding_last_round
    assert table.view(BEN).title.startswith("Ana: peers even")
    tap(table, BEN, "ok", t + 100 * MS)
    assert not table.holding_last_round and not table.finished
    end = table.end_view()
    scores = table.match.state.scores
    top = max(scores)
    assert end.title == " and ".join(NAMES[p] for p in range(3) if scores[p] == top) + \
        (" wins" if scores.count(top) == 1 else " win")
    assert len(end.rows) == 3 and all("pays" in r or "even" in r for r in end.rows)
    header, match = replay(table.path.read_text().splitlines())
    assert summary(header, match)["over"] and summary(header, match)["scores"] == list(scores)
    tap(table, ANA, "ok", t + 300 * MS)
    assert table.finished


def test_the_counting_aid_shows_the_cards_seen_this_turn_while_left_is_held(make):
    table = make(counting_aid=True)
    cards = table.current.cards
    press(table, ANA, "left", START + 100 * MS)
    assert table.aid_view(ANA).seen == (0,) * 6          # before 0 nothing is seen yet
    to_zero(table)
    seen = [0] * 6
    for p in peers(ANA):
        seen[cards[p] - 1] += 1
    assert table.aid_view(ANA).seen == tuple(seen)
    assert shows(table.screen(ANA), "Seen in turn 1")
    press(table, ANA, "left", START + 3500 * MS, pressed=False)
    assert ANA not in table.aid_open


def test_the_counting_aid_is_off_by_default(make):
    table = make()
    press(table, ANA, "left", START + 100 * MS)
    assert not table.aid_open


def test_a_station_beyond_the_players_sees_no_card_until_the_statement(make):
    table = make(stations=4)
    to_zero(table)
    assert table.view(3).cards == ()
    claim(table, ANA)
    state(table, 0)
    assert len(table.view(3).cards) == 3


def test_the_lobby_starts_triangle_with_its_options_and_shows_unset_ones_as_off(tmp_path):
    table = Table(NAMES, lambda h: JournalWriter(tmp_path / "t.jsonl", h), seed=2)
    clock = iter(range(200, 100_000, 100))

    def key(k):
        tap(table, 0, k, next(clock) * MS)

    while table.lobby.game.name != "triangle":
        key("right")
    key("ok")
    key("ok")                                            # to the turns row
    defaults = TriangleOptions()
    rows = tuple((option_label(TriangleOptions, f)[0], show_value(TriangleOptions, f, getattr(defaults, f)))
                 for f, _, _ in lobby_choices(TriangleOptions)) + (("Start", ""),)
    assert rows[1] == ("turns", "off") and rows[2] == ("tie window", f"{SCREEN_TIE_WINDOW_MS}ms")
    expected = options_menu(OptionsView("Triangle", rows, 1, "play N turns instead"))
    assert ImageChops.difference(table.screen(0).convert("L"), expected.convert("L")).getbbox() is None
    while table.lobby.row is not None:
        key("ok")
    assert table.game is not None and table.game.game == "triangle"
    assert table.cues == ["go", "tick"]


def test_a_resumed_game_counts_down_again_to_the_round_already_dealt(make):
    table = make()
    cards = table.current.cards
    resumed = TriangleTable(get("triangle"), table.match.options, NAMES, 3, 3, None, START + 60 * S,
                            match=table.match)
    assert resumed.current.cards == cards and resumed.count == 3 and resumed.cues == ["tick"]
    to_zero(resumed)
    assert resumed.view(ANA).cards == tuple((NAMES[p], cards[p]) for p in peers(ANA))


def test_a_resumed_game_with_a_claim_returns_to_the_claimers_menu(make):
    table = make()
    claim(table, BEN)
    resumed = TriangleTable(get("triangle"), table.match.options, NAMES, 3, 3, None, START + 60 * S,
                            match=table.match)
    assert resumed.claimer == BEN and resumed.view(BEN).menu and resumed.cues == []
    tap(resumed, BEN, "ok", START + 61 * S)
    assert resumed.match.state.history[-1].fact == "peers_even"


def test_a_claim_is_journaled_with_each_players_onset_and_reaction_time_and_replays(make):
    table = make(stations=3)
    table.screens_take_time = True                      # real panels: the daemon reports onsets
    to_zero(table)
    assert table.reveal_asked and table.race.onsets is None
    press(table, BEN, "slap", OPENS + 325 * MS)         # 25 ms after Ana at the pin...
    press(table, ANA, "slap", OPENS + 300 * MS)
    settle(table, OPENS + 2000 * MS)
    assert table.claimer is None                        # ...nothing is decided before the onsets
    table.revealed({ANA: OPENS, BEN: OPENS + 40 * MS, CY: OPENS + 1 * MS})
    settle(table, OPENS + 2000 * MS)
    assert table.claimer == BEN                         # ...but Ben's screen lit up 40 ms later
    assert journal_lines(table)[-1] == {"type": "action", "action": "claim", "player": BEN,
                                        "onset_ms": [0.0, 40.0, 1.0], "reaction_ms": [300.0, 285.0, None],
                                        "t": journal_lines(table)[-1]["t"]}
    state(table, 0)
    _, match = replay(table.path.read_text().splitlines())
    assert match.state.scores == table.match.state.scores and match.state.history[-1].claimer == BEN


def test_companion_replay_shows_each_race_s_reaction_times_and_json_by_player(make, capsys):
    import json

    from companion.cli import main

    table = make(stations=3)
    table.screens_take_time = True
    to_zero(table)
    press(table, BEN, "slap", OPENS + 325 * MS)
    press(table, ANA, "slap", OPENS + 300 * MS)
    table.revealed({ANA: OPENS, BEN: OPENS + 40 * MS, CY: OPENS + 1 * MS})
    settle(table, OPENS + 2000 * MS)
    assert main(["replay", str(table.path)]) == 0
    out = capsys.readouterr().out.splitlines()
    at = out.index("Reaction times, each from the player's own screen:")
    assert out[at + 1:] == ["  5.000 s claim: Ben 285 ms, Ana 300 ms"]
    assert main(["replay", "--json", str(table.path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["races"] == [{"t": 5.0, "action": "claim", "winners": [BEN], "onset_ms": [0.0, 40.0, 1.0],
                                "reaction_ms": [300.0, 285.0, None]}]
    assert result["late_presses"] == []


def test_companion_replay_json_names_a_draw_s_players_as_the_race_s_winners(make, capsys):
    import json

    from companion.cli import main

    table = make(stations=3)
    to_zero(table)
    for station, delta in ((CY, 0), (ANA, 3), (BEN, 6)):
        press(table, station, "slap", OPENS + (500 + delta) * MS)
    settle(table, OPENS + 520 * MS)
    assert main(["replay", "--json", str(table.path)]) == 0
    [race] = json.loads(capsys.readouterr().out)["races"]
    assert (race["action"], race["winners"]) == ("draw", [ANA, BEN, CY])
    assert race["reaction_ms"] == [503.0, 506.0, 500.0]


def test_the_table_screen_notes_a_late_press_while_its_round_shows_then_no_more(make):
    """Ben's slap, 5 ms before Ana's winning one, is handed to the table after the claim (as the
    daemon does, inside :func:`watching_late_presses`): the TV notes it under the heading, as
    the panels do, through the fact and its verdict, and no more once the next round is dealt."""
    from companion.arbiter.latepress import LateNote
    from companion.arbiter.race import watching_late_presses
    from companion.tablescreen.public import triangle_view

    table = make()
    at = claim(table, ANA)
    with watching_late_presses(lambda late: table.late_press(LateNote.of(late, None), table.now_ns)):
        press(table, BEN, "slap", at - 5 * MS)
    assert triangle_view(table).late == table.view(CY).status == "Late: tie Ana&Ben"
    state(table, 0)
    assert triangle_view(table).late == table.view(CY).status == "Late: tie Ana&Ben"
    tap(table, BEN, "ok", table.since_ns + 500 * MS)
    assert table.current is not None and triangle_view(table).late == ""


def test_the_coach_shows_the_speaker_alone_the_best_statement_by_counting(make):
    from companion.bots.triangle import advise
    from companion.table.triangle import VERDICT_LABELS

    table = make(coach=True)
    claim(table, ANA)
    state(table, FACTS.index("peers_even"))
    done = table.match.state.history[-1]
    advice = advise([], done)
    assert advice.said == ("peers_even", None)
    if advice.said_gain >= advice.best_gain:
        assert table.view(ANA).status == f"Best choice, avg {advice.best_gain:+.1f}"
    else:
        fact, value = advice.best
        said = VERDICT_LABELS[fact] + (f" {value}" if value is not None else "")
        assert table.view(ANA).status == f"Best: {said} {advice.best_gain:+.1f}"
    assert len(table.view(ANA).status) <= 21
    # The advice reads the RtS card, private to the speaker: the others see what a game without
    # the coach shows them (what a false statement gave them, else the slaps).
    expected = "the others +3 each" if not done.correct else "nobody else slapped"
    assert table.view(BEN).status == table.view(CY).status == expected


def test_the_coach_is_off_by_default(make):
    table = make()
    claim(table, ANA)
    state(table, FACTS.index("peers_even"))
    assert table.view(ANA).status == ("nobody else slapped" if table.last.correct else "the others +3 each")


def test_every_coach_line_fits_the_status_line():
    from companion.bots.triangle import STATEMENTS, Advice
    from companion.table.triangle import coach_line

    for best in [s for s in STATEMENTS if s != ("odd", None)]:
        for gain in (-3.0, 8.0):
            line = coach_line(Advice(0, best, 0.5, gain, ("odd", None), 0.1, -9.0))
            assert line.startswith("Best: ") and len(line) <= 21, line
    assert coach_line(Advice(0, ("odd", None), 1.0, 2.0, ("odd", None), 1.0, 2.0)) == "Best choice, avg +2.0"


def test_a_slap_while_the_panel_was_dark_is_told_too_early_once_it_shows(make):
    """Real panels: 0 is shown on every station at once, some tens of ms after the race opened. A
    slap in that dark is a false start; once the panel shows 0 its player reads why, for
    TOO_EARLY_SHOWN_NS (there is no lockout), and may then slap again."""
    from companion.table.game import TOO_EARLY_SHOWN_NS

    table = make()
    table.screens_take_time = True
    to_zero(table)
    press(table, CY, "slap", OPENS + 10 * MS)            # the panels are still being written
    onset = OPENS + 80 * MS
    assert table.revealed({ANA: onset, BEN: onset, CY: onset}), "Cy's screen changes"
    assert table.view(CY).status == "Too early!" and table.view(CY).alert
    assert table.view(ANA).status == "Slap to speak!"
    assert table.wakeup_ns() <= onset + TOO_EARLY_SHOWN_NS, "the screen is redrawn when it goes"
    settle(table, onset + TOO_EARLY_SHOWN_NS - MS)
    assert table.view(CY).status == "Too early!"
    assert table.tick(onset + TOO_EARLY_SHOWN_NS, onset + TOO_EARLY_SHOWN_NS), "the screen changed"
    assert table.view(CY).status == "Slap to speak!"
    claim(table, CY, onset + TOO_EARLY_SHOWN_NS + 100 * MS)


def test_a_slap_while_the_panel_was_dark_shows_the_lockout_wait_as_any_false_start(make):
    table = make(false_start_lockout_ms=250)
    table.screens_take_time = True
    to_zero(table)
    press(table, CY, "slap", OPENS + 10 * MS)            # locked out until OPENS + 260 ms
    table.revealed({ANA: OPENS + 80 * MS, BEN: OPENS + 80 * MS, CY: OPENS + 80 * MS})
    assert table.view(CY).status == "Too early! wait 0.3s"
    assert table.wakeup_ns() <= OPENS + 260 * MS
    assert table.tick(OPENS + 260 * MS, OPENS + 260 * MS)
    assert table.view(CY).status == "Slap to speak!"


def test_the_table_screen_numbers_the_round_on_screen_as_the_panels_do(make):
    """Six rounds a turn: the TV says "Round 4/6" in the fourth round, and keeps the round's own
    number while its result shows (not the next round's)."""
    from companion.tablescreen.public import triangle_view

    table = make(target=99)
    for number in range(1, 6):
        assert triangle_view(table).turn == f"Turn 1  Round {number}/6" == table.view(ANA).title
        claim(table, ANA)
        state(table, 0)
        assert table.current is None
        assert triangle_view(table).turn == f"Turn 1  Round {number}/6"
        tap(table, ANA, "ok", table.now_ns + 300 * MS)


def test_the_verdict_says_what_no_gave_the_others_and_the_end_lights_the_winner(make):
    """A wrong statement reads "? No" on the TV as on the panels, the TV saying the others got
    their points; at the end the winners' rings light, not the last claimer's."""
    from companion.tablescreen.public import triangle_view

    table = make(target=1)
    for _ in range(6):                                   # a whole turn: Ana says something false
        claim(table, ANA)
        cards = table.current.cards
        state(table, next(i for i, f in enumerate(FACTS) if f in ("peers_even", "even", "odd")
                          and not fact_true(cards, ANA, f)))
        done = table.last
        (each,) = {pts for p, pts in enumerate(done.points) if p != ANA}
        assert triangle_view(table).heading.endswith("? No") and table.view(BEN).title.endswith("? No")
        assert f"the others +{each} each" in triangle_view(table).lines
        tap(table, ANA, "ok", table.now_ns + 300 * MS)
    assert table.match.outcome is not None and ANA not in table.match.outcome.winners
    assert table.lights() == {p: "on" for p in table.match.outcome.winners}


def test_every_panel_says_what_a_false_statement_gave_the_others(make):
    """"? No" alone does not say the others scored: each station's panel, the speaker's too,
    says "the others +3 each" under the cards, as the rules page and the table screen do; a
    true statement keeps who else slapped there."""
    table = make()
    claim(table, ANA)
    press(table, BEN, "slap", table.opens_ns + 240 * MS)
    cards = table.current.cards
    wrong = next(i for i, f in enumerate(FACTS) if f in ("even", "odd") and not fact_true(cards, ANA, f))
    state(table, wrong)
    assert table.last.points == (0, 3, 3)
    for station in (ANA, BEN, CY):
        assert table.view(station).status == "the others +3 each"
        assert shows(table.screen(station), "the others +3 each")
    tap(table, ANA, "ok", table.now_ns + 300 * MS)
    claim(table, ANA)
    press(table, BEN, "slap", table.opens_ns + 240 * MS)
    cards = table.current.cards
    state(table, next(i for i, f in enumerate(FACTS) if f in ("even", "odd") and fact_true(cards, ANA, f)))
    assert table.last.correct
    assert table.view(CY).status == "Ben +140ms" and not shows(table.screen(CY), "each")
