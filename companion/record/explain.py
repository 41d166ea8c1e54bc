"""``companion replay --explain``: a journal told line by line in the players' words.

A table that disagrees with the box needs to see where they part: for each line, who did what,
who gained what and why, with names and seats (1-based, as the stations are numbered), Pay-to-Play's
cells 1 to 9 as ``solve`` names them and Pictomania's word cards by their letter and words. The
journal is replayed as usual (:func:`companion.record.journal.replay`); each line's events (the line
itself, chance events drawn from the seed before it, the box's automatic moves after it) are
applied again here one by one, so every sentence compares the state just before an event with
the state just after it. A journal's ``auto`` lines say nothing new: the box's moves are told
where they happen, on the line that led to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..games.base import Rules, standing
from .journal import SEAT, JournalError, parse_seat, replay
from ..arbiter.latepress import LATE, parse_late
from ..arbiter.unread import UNREAD, parse_unread
from . import seats
from .match import UNDO, Match


@dataclass(frozen=True)
class Step:
    """One event and the states around it, with the players' names."""

    rules: Rules
    names: tuple[str, ...]
    before: Any
    event: dict[str, Any]
    after: Any

    def who(self, player: int) -> str:
        return f"{self.names[player]} (seat {player + 1})"

    @property
    def player(self) -> int:
        return self.event["player"]

    @property
    def kind(self) -> str:
        return self.event.get("action") or self.event.get("event")


def explain(lines: Iterable[str | bytes]) -> tuple[list[str], bool]:
    """The journal's story, one or more sentences per line, ending with the result or, for a
    bad journal, the error that stopped the replay; and whether the whole journal replayed."""
    out: list[str] = []
    state: dict[str, Any] = {}
    spans: seats.Spans = {}
    derived: list[int] = []  # for each automatic move told so far and not yet met, its line

    def on_line(number: int, match: Match, events: list[dict[str, Any]], line: Any) -> None:
        rules = match.rules
        if number == 1:
            state["now"] = rules.new(len(match.players), match.options)
            out.append(f"line 1: {rules.title} for {', '.join(_seated(match.players))}.")
        told = []
        for i, event in enumerate(events):
            if event["type"] == LATE:  # changes nothing: the verdict stood
                note = parse_late(event, len(match.players))
                told.append(f"A late press: {note.told(lambda p: f'{match.players[p]} (seat {p + 1})')}.")
                continue
            if event["type"] == UNREAD:  # changes nothing: says what the game could not see
                told.append(f"Before this, {parse_unread(event).told()}.")
                continue
            if event["type"] == SEAT:  # who plays the seat changes, the game does not
                player, level, station = parse_seat(event, len(match.players))
                who = f"{match.players[player]} (seat {player + 1})"
                when = f" ({event['when']})" if event.get("when") else ""
                told.append(f"{who} leaves: an {level} bot plays the seat from here{when}." if level else
                            f"The person at station {station + 1} plays {who} from here{when}.")
                seats.seat_changed(spans, player, level, event.get("when", ""))
                continue
            body = {k: v for k, v in event.items() if k not in ("type", "t", "auto")}
            if body.get("action") == UNDO:  # the match has put back the game as it was before that line
                who = f"{match.players[body['player']]} (seat {body['player'] + 1})"
                scores = ", ".join(f"{n} {s}" for n, s in zip(match.players, rules.scores(match.state)))
                told.append(f"{who} takes back line {body['line']}: the game is again as it was before it "
                            f"({scores}).")
                state["now"] = match.state
                continue
            auto = event.get("auto") is True
            before = state["now"]
            chance = event["type"] == "chance"
            after = rules.apply_chance(before, body) if chance else rules.apply(before, body)
            told.append(_tell(Step(rules, match.players, before, {**body, "auto": auto}, after)))
            if chance and any(e.get("auto") is not True for e in events[i + 1:]):
                told[-1] += " (Drawn from the seed: the journal has no line for it.)"
            if auto:
                derived.append(number)
            state["now"] = after
        if number == 1:
            out[-1] += "".join(" " + t for t in told)
        elif told:
            out.append(f"line {number}: " + " ".join(told))
        else:
            origin = f", told at line {derived.pop(0)}" if derived else ""
            out.append(f"line {number}: the box's own move, derived again by replay{origin}.")

    try:
        _, match = replay(lines, on_line)
    except JournalError as e:
        out.append(f"{e} (the replay stops here)")
        return out, False
    out.append(_result(match) + "".join(f" {match.players[p]} (seat {p + 1}): {seats.flag(*spans[p])}."
                                        for p in sorted(spans)))
    return out, True


def _seated(names: Iterable[str]) -> list[str]:
    return [f"{name} (seat {i + 1})" for i, name in enumerate(names)]


def _result(match: Match) -> str:
    outcome = match.outcome
    names = match.players
    scores = standing(match.rules, names, match.rules.scores(match.state))
    if outcome is None:
        return f"Not over yet: {scores}."
    winners = " and ".join(names[w] for w in outcome.winners)
    return f"Result: {scores}; {'shared by' if len(outcome.winners) > 1 else 'won by'} {winners}."


def _gains(step: Step) -> str:
    """``Ana gains 2 and Ben gains 1`` from the scores before and after the event."""
    before, after = step.rules.scores(step.before), step.rules.scores(step.after)
    moved = [f"{step.names[p]} {'gains' if a > b else 'loses'} {abs(a - b)}"
             for p, (b, a) in enumerate(zip(before, after)) if a != b]
    return " and ".join(moved) or "nobody scores"


def _tell(step: Step) -> str:
    tell = TELLERS.get(step.rules.name)
    sentence = tell(step) if tell else f"{step.kind}."
    if step.rules.outcome(step.after) is not None and step.rules.outcome(step.before) is None:
        sentence += " The game is over."
    return sentence


# --- Pay-to-Play Tic-Tac-Toe ---------------------------------------------------------------------

def _paytoplay(step: Step) -> str:
    from ..games.paytoplay import CELL_COST, LINES, after_income, cell_name, income

    before, after = step.before, step.after
    if step.kind == "draw":
        text = (f"Both players agree to a draw: the balances stay {before.balances[0]} and "
                f"{before.balances[1]}, with no income for the turn not played.")
        return text + _paytoplay_next_game(before, after)
    p = step.player
    paid = income(before, p)
    why = "X's first turn" if paid == 1 else "the turn"
    have = after_income(before, p)
    if step.kind == "pass":
        if step.event["auto"]:
            text = (f"{step.who(p)} is paid {paid} for {why}, which makes {have}: not positive, "
                    "so the box passes for them.")
        else:
            text = f"{step.who(p)} is paid {paid} for {why} and passes, keeping {have}."
        return text + _paytoplay_next_game(before, after)
    cell = step.event["cell"]
    text = (f"{step.who(p)} is paid {paid} for {why}, which makes {have}, and takes {cell_name(cell)} "
            f"for {CELL_COST[cell]}: balance {have - CELL_COST[cell]}.")
    board = before.board[:cell] + before.mark(p) + before.board[cell + 1:]
    line = next((line for line in LINES if all(board[c] == board[cell] for c in line) and cell in line), None)
    if line:
        text += f" Three in a row (cells {', '.join(str(c + 1) for c in line)}) wins the game for {step.names[p]}."
    elif "." not in board:
        text += " The board is full: the higher balance wins."
    return text + _paytoplay_next_game(before, after)


def _paytoplay_next_game(before: Any, after: Any) -> str:
    if after.game == before.game:
        return ""
    return (f" Game {before.game} ends: tournament totals {after.totals[0]} and {after.totals[1]}"
            f" (a three in a row adds {before.options.line_bonus}); game {after.game} starts at 0"
            " and 0 with the other player as X.")


# --- Triangle -------------------------------------------------------------------------------------

def _triangle(step: Step) -> str:
    """Told from the rules' ``detail`` (turn, round, the finished rounds' cards), the shape
    ``companion replay --json`` publishes."""
    from ..games.triangle import POINTS, ROUNDS_PER_TURN
    from ..games.triangle_scoring import said

    now = step.rules.detail(step.before)
    kind = step.kind
    if kind == "deal":
        cards = step.event["cards"]
        held = ", ".join(f"{step.who(p)} {c}" for p, c in enumerate(cards))
        return (f"Turn {now['turn']}, round {now['round']} is dealt: {held}; the Right to Speak "
                f"card is {step.event['rts']}. Each player sees only the other two cards.")
    if kind == "claim":
        return f"{step.who(step.player)} slapped first and takes the Right to Speak."
    if kind == "draw":
        who = " and ".join(step.who(p) for p in step.event["players"])
        text = (f"{who} slapped within the tie window: a draw, nobody scores and the cards are "
                "discarded unseen.")
    elif kind == "void":
        text = "Nobody slapped before the round timeout: the round is void and nobody scores."
    else:
        p = step.player
        fact = step.event["fact"]
        statement = said(fact, step.event.get("value"))
        played = step.rules.detail(step.after)["rounds"][-1]
        card = played["cards"][p]
        if played["correct"]:
            worth = f"{POINTS[fact]} point{'s' if POINTS[fact] != 1 else ''}"
            text = (f"{step.who(p)} states \"{statement}\" ({worth}): true, their card is "
                    f"{card}, so {_gains(step)}.")
        else:
            text = (f"{step.who(p)} states \"{statement}\": false, their card is {card}, so each "
                    f"other player gains 3.")
    if now["round"] == ROUNDS_PER_TURN:
        scores = ", ".join(f"{n} {s}" for n, s in zip(step.names, step.rules.scores(step.after)))
        text += f" Turn {now['turn']} ends: {scores}."
    return text


# --- three-player Pictionary -----------------------------------------------------------------------

def _trio(step: Step) -> str:
    before, after = step.before, step.after
    kind = step.kind
    if kind == "first_artist":
        return f"{step.who(step.event['player'])} is drawn to be the first artist."
    if kind == "word":
        return f"The artist {step.who(before.artist)} is shown the word {step.event['word']!r}."
    if kind == "new_word":
        return f"The artist {step.who(before.artist)} asks for another word."
    if kind == "timer":
        return f"The artist {step.who(before.artist)} starts the timer."
    artist = step.who(before.artist)
    if kind == "guessed":
        text = f"The artist {artist} judges {step.who(step.player)}'s guess right: {_gains(step)}."
        if after.winner is not None:
            text += f" {step.names[after.winner]} was eligible to win this round and scored: they win."
    elif kind == "both_guessed":
        text = (f"Both guessers were right within the tie window: only the artist {artist} "
                f"scores: {_gains(step)}.")
    elif kind == "correct":
        text = (f"The artist {step.who(before.judged[0])} takes back the judgement that ended their "
                f"round: it counts as if time ran out, so {_gains(step)}.")
    else:
        text = "Time is up: nobody scores."
    return text + _trio_round(step)


def _trio_round(step: Step) -> str:
    after = step.after
    if after.winner is not None:
        return ""
    text = f" Next artist: {step.who(after.artist)}."
    if after.skipped is not None:
        text += f" {step.who(after.skipped)} leads strictly and is ineligible to draw."
    if after.eligible is not None:
        text += f" {step.who(after.eligible)} is eligible to win this round."
    return text


# --- Pictomania -----------------------------------------------------------------------------------

def _pictomania(step: Step) -> str:
    from ..games.pictomania import LETTERS, card_told, word_at

    before, after = step.before, step.after
    kind = step.kind
    rnd = before.round
    if kind == "cards":
        cards = after.round.cards
        if not rnd.cards:
            shown = "; ".join(card_told(cards, letter) for letter in LETTERS)
            return f"Round {rnd.number}'s word cards, from the {rnd.deck} deck: {shown}."
        swapped = [letter for letter, old, new in zip(LETTERS, rnd.cards, cards) if old != new]
        which = f"card {swapped[0]} is" if len(swapped) == 1 else f"cards {' and '.join(swapped)} are"
        return (f"Round {rnd.number}: {which} swapped for another from the {rnd.deck} deck (someone did "
                f"not know a word): now {'; '.join(card_told(cards, letter) for letter in swapped)}.")
    if kind == "assign":
        def secret(letter: str, number: int) -> str:
            return f"{letter}{number} ({word_at(rnd.cards, letter, number)})" if rnd.cards else f"{letter}{number}"

        dealt = ", ".join(f"{step.who(p)} {secret(letter, number)}" for p, (letter, number)
                          in enumerate(zip(step.event["letters"], step.event["numbers"])))
        return f"Secret letters and numbers are dealt: {dealt}."
    p = step.player
    if kind == "guess":
        q, n = step.event["target"], step.event["number"]
        right = "right" if rnd.numbers[q] == n else f"wrong ({step.names[q]} drew {rnd.numbers[q]})"
        text = f"{step.who(p)} guesses {n} on {step.who(q)}'s drawing: {right}."
    elif kind == "done":
        token = after.results[-1].black[p] if len(after.results) > len(before.results) else after.round.black[p]
        took = f"takes the black token {token}" if token is not None else "finishes without a black token"
        text = f"{step.who(p)} is done guessing and {took}."
    else:
        at_reveal = rnd is None or not rnd.assigned
        text = (f"{step.who(p)} says they drew the wrong word"
                + (" at the reveal: the round is counted again, " if at_reveal else ": ")
                + "the guesses on their drawing are void, they keep all their tokens and their "
                "black token counts 0.")
        if at_reveal:
            return text + _pictomania_scores(step, after.results[-1], "scored again")
    if len(after.results) > len(before.results):
        text += _pictomania_scores(step, after.results[-1])
    return text


def _pictomania_scores(step: Step, r: Any, how: str = "scored") -> str:
    parts = []
    for p in range(len(r.scores)):
        gained = "+".join(map(str, r.gained(p))) or "0"
        parts.append(f"{step.names[p]} {r.scores[p]:+d} (guesses {gained}, kept "
                     f"-{sum(r.stacks[p].kept)}, black {r.black_counts[p]:+d})")
    sheep = "no black sheep" if r.black_sheep is None else f"black sheep {step.names[r.black_sheep]}"
    return f" Round {r.number} is {how}: {'; '.join(parts)}; {sheep}."


# --- the closest-number game ------------------------------------------------------------------------

def _closest(step: Step) -> str:
    from ..games.closest import TIE

    before, after = step.before, step.after
    p = step.player
    if step.kind == "start":
        how = "as the option start=seat1 says" if step.event["auto"] else "the start race or a draw"
        return f"{step.who(p)} starts round 1 ({how})."
    n = step.event["number"]
    decoy = step.event.get("decoy", False)
    if decoy:
        kind = " as their decoy" + (" (it counts in round 3)" if before.round == 3 else ", which will not count")
    else:
        kind = ""
    text = f"{step.who(p)} puts a card on {n}{kind}."
    if len(after.scored) > len(before.scored):
        r = after.scored[-1]
        won = []
        for q in range(len(step.names)):
            numbers = [i + 1 for i, v in enumerate(r.verdicts) if v == q]
            won.append(f"{step.names[q]} {r.points[q]} ({', '.join(map(str, numbers)) or 'none'})")
        ties = [str(i + 1) for i, v in enumerate(r.verdicts) if v == TIE]
        text += f" Round {r.round} is scored on 1..{r.line}: {'; '.join(won)}"
        text += f"; tied: {', '.join(ties)}." if ties else "."
        if not after.over and after.round > 2:
            text += f" A shared lead: round {after.round} is played on 1..{after.line}."
    return text


def _quiz(step: Step) -> str:
    """A quiz night's line: who the host armed for, who answered and how it was judged."""
    before, after, event, kind = step.before, step.after, step.event, step.kind
    names = lambda players: ", ".join(step.who(p) for p in players)  # noqa: E731
    if kind == "arm":
        if before.phase == "reopen":
            return f"The host re-opens question {after.question} for {names(after.eligible())}."
        asked = after.asking if "ask" in event else None
        pack = f" from the pack: \"{asked.question}\" (answer: {asked.answer})" if asked is not None else ""
        return f"The host arms the buzzers for question {after.question}{pack}."
    if kind == "buzz":
        if "players" in event:
            return f"A tie: {names(event['players'])} pressed within the tie window; pressed: {names(event['order'])}."
        later = f"; then {names(event['order'][1:])}" if len(event["order"]) > 1 else ""
        return f"{step.who(event['player'])} pressed first and answers{later}."
    if kind == "early":
        when = {"ready": f" while question {before.question + 1} was read", "reopen": " for the re-open"}
        return f"{step.who(event['player'])} pressed too early{when.get(before.phase, '')}: out for this question."
    if kind in ("pick", "tiebreak"):
        how = "The host picks" if kind == "pick" else "The draw picks"
        return f"{how} {step.who(after.answering)} to answer."
    if kind == "correct":
        p = event["target"]
        return f"The host corrects {step.who(p)}'s score from {before.scores[p]} to {event['score']}."
    if kind == "skip":
        text = f"The host skips question {before.question}."
    elif kind == "right":
        p = before.answering
        text = f"{step.who(p)} is right: {before.scores[p]} -> {after.scores[p]}."
    else:
        p = before.answering
        how = "runs out of time" if kind == "timeout" else "is wrong"
        text = f"{step.who(p)} {how}: {before.scores[p]} -> {after.scores[p]}."
        if after.answering is not None:
            text += f" Next in press order: {step.who(after.answering)}."
        elif after.phase == "reopen":
            text += " Nobody left in press order: the host may re-open."
    return text


TELLERS: dict[str, Callable[[Step], str]] = {
    "paytoplay": _paytoplay, "triangle": _triangle, "trio": _trio, "pictomania": _pictomania,
    "closest": _closest, "quiz": _quiz,
}
