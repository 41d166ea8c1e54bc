"""The public view: what the whole table may see at once, and nothing any player may not.

The table screen is a TV everyone faces, so it shows only what every player already knows or is
told aloud: the lobby, names and scores, whose turn it is, the countdown, each race's presses with
their times, Pictomania's three word cards, Pictionary's timer, and each scoring walk-through.
It never shows a secret: a player's own Triangle card (so never the cards while a round is played,
nor after a draw, which discards them unseen) and the Right to Speak card, a closest-number decoy
before its round is scored, Pictionary's word while it is being drawn, and Pictomania's letters
and numbers (nor the numbers players guessed) before the round's scoring. Nor does it show the
closest-number game's question while its race is open: each station is timed from the moment its
own screen showed the question, and a TV showing it sooner or later would undo that; the
question and its answer come with the race's timeline once it is decided.

:func:`public_view` turns the referee's :class:`~companion.table.Table` into a :class:`PublicView`
by reading each game table's public fields (one function per game). It keeps nothing of its own
(the scores over time are the match's), so a resumed game's table screen is the uninterrupted
one's. It runs on the daemon's loop and only reads, so it is cheap; drawing happens elsewhere
(:mod:`companion.tablescreen.render`). The view's data is :mod:`.publicview`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from .. import words as decks
from ..games.closest import TIE
from ..games.pictomania import NUMBERS
from ..games.options import option_label
from ..record.quiz_night import story_lines
from ..rulebook import KEYS, RULES
from ..table.pictomania_review import drawer_result
from ..table.triangle_views import VERDICT_LABELS, others_gained
from ..table.trio import LAST_SECONDS, clock
from .publicview import MS, PublicView, RacePress, WordCard, journaled_presses, race_presses


def lobby_view(table) -> PublicView:
    """The game menu, or the chosen game's options as the lobby has them."""
    lobby = table.lobby
    if table.seating is not None:  # as the panels ask it
        seating = table.seating
        joined = [seating.joined[s] for s in sorted(seating.joined)] + list(seating.bots) + \
            [f"{level} bot" for level in seating.added]
        return PublicView("Tabletop Companion", f"Who plays {lobby.game.title}?", names=table.names,
                          lines=(f"joined: {', '.join(joined) or 'nobody yet'}",
                                 f"{lobby.players_label()}: slap on your station to join"),
                          footer="ok: start with those who joined")
    if lobby.rules_page is not None:  # the page being read, for everyone to read along
        page = RULES[lobby.game.name] + (KEYS,)
        return PublicView("Tabletop Companion", f"{lobby.game.title}: rules", names=table.names,
                          lines=(page[lobby.rules_page],), turn=f"page {lobby.rules_page + 1}/{len(page)}")
    if lobby.row is None:
        return PublicView("Tabletop Companion", "Choose a game", names=table.names, lines=(
            f"{lobby.game.title}: {lobby.players_label()}", "", "left/right: choose a game   ok: pick   slap: rules"))
    game = lobby.game
    options = tuple(f"{option_label(game.Options, name)[0]}: {game.shown_option(name, lobby.values)}"
                    for name in lobby.values)
    return PublicView("Tabletop Companion", lobby.game.title, names=table.names,
                      lines=options + ("", "ok on Start starts the game"))


# --- one function per game ---------------------------------------------------------------------

def triangle_view(t) -> PublicView:
    state = t.match.state
    names = t.names
    base = PublicView("Triangle", "", names, tuple(state.scores),
                      turn=t.on_screen)
    outcome = t.match.outcome
    if outcome is not None and not t.holding_last_round:
        winners = tuple(outcome.winners)
        return replace(base, heading=_winners(names, winners), winners=winners, over=True,
                       footer="ok: back to the lobby")
    current = t.current
    if current is not None and current.claimer is None:
        early = tuple(f"{names[s]}: {'too early' if how == 'false_start' else 'locked out'}"
                      for s, how in sorted(t.early.items()) if s < len(names))
        if t.count > 0:
            return replace(base, heading="Get ready", count=t.count, lines=early)
        return replace(base, heading="Slap to speak!", lines=early)
    race = race_presses(t.result, names, t.late) or journaled_presses(t.race_line, names)
    base = replace(base, late=t.round_late_note or "")
    if current is not None:
        return replace(base, heading=f"{names[current.claimer]} speaks", mark=current.claimer, race=race,
                       footer="the claimer chooses a fact")
    done = t.last
    if done.fact is None:
        heading = ("Draw: " + ", ".join(names[p] for p in done.draw) if done.draw
                   else "Nobody spoke: void")
        return replace(base, heading=heading, race=race, lines=("the cards go away unseen",),
                       footer="ok: next round")
    said = VERDICT_LABELS[done.fact] + (f" {done.value}" if done.value is not None else "")
    verdict = f" +{done.points[done.claimer]}" if done.correct else "? No"  # as the panels say it
    cards = "   ".join(f"{names[p]} {c}" for p, c in enumerate(done.cards))
    gained = tuple(filter(None, (others_gained(done),)))
    return replace(base, heading=f"{names[done.claimer]}: {said}{verdict}", mark=done.claimer,
                   race=race, lines=(cards, *gained), footer="ok: next round")


def closest_view(t) -> PublicView:
    state = t.state
    names = t.names
    base = PublicView("Closest number", "", names, tuple(state.totals), turn=f"Round {state.round}")
    if t.race is not None:  # the question only on the stations, each timed from its own screen
        out = tuple(f"{names[p]}: wrong, out" for p in sorted(t.out) if p < len(names))
        return replace(base, heading="Answer on your screen", lines=(t.message, *out))
    race = race_presses(t.last_race, names, t.late) or journaled_presses(t.race_line, names)
    if race and t.question is not None and state.round == 1 and not state.cards and t.showing is None:
        a, b = t.question
        base = replace(base, lines=(f"{a} x {b} = {a * b}",))
    if t.showing is not None:
        played = t.showing
        won = "  ".join(f"{n} " + ({None: "-", TIE: "="}[v] if v in (None, TIE) else names[v])
                        for n, v in enumerate(played.verdicts, start=1))
        lines = ["cards (* decoy): " + _number_line(played.line, played.cards, names, reveal=True),
                 "won: " + won, "(= a tie, - no counting card)"]
        points = "  ".join(f"{names[p]} +{pts}" for p, pts in enumerate(played.points))
        outcome = t.match.outcome
        if outcome is not None:
            winners = tuple(outcome.winners)
            return replace(base, heading=_winners(names, winners), winners=winners, over=True,
                           lines=(points,), footer="ok: back to the lobby")
        return replace(base, heading=f"Round {played.round} scored", turn=f"Round {played.round}", lines=(points, *lines),
                       footer="ok: next round")
    mover = state.mover()
    heading = f"{names[mover]}'s turn" if mover is not None else ""
    return replace(base, heading=heading, mark=mover, race=race,
                   lines=(*base.lines, _number_line(state.line, state.cards, names, reveal=False), t.message))


def _number_line(line: int, cards, names: tuple[str, ...], reveal: bool) -> str:
    """``1 2 3:Ana 4 ...``: who holds each number; a decoy is marked only when ``reveal``."""
    held = {c.number: f"{c.number}:{names[c.player]}" + ("*" if reveal and c.decoy else "") for c in cards}
    return " ".join(held.get(n, str(n)) for n in range(1, line + 1))


def trio_view(t) -> PublicView:
    state = t.match.state
    names = t.names
    base = PublicView("Pictionary", "", names, tuple(state.scores), turn=f"Round {state.rounds + 1}")
    outcome = t.match.outcome
    if outcome is not None:
        winners = tuple(outcome.winners)
        return replace(base, heading=_winners(names, winners), winners=winners, over=True,
                       lines=(f"the last word was: {t.last_word}",), footer="ok: back to the lobby")
    if t.problem:
        return replace(base, heading="No words to draw", lines=("check the word file",))
    artist = state.artist
    timing = t.deadline_ns is not None
    base = replace(base, heading=f"{names[artist]} draws", mark=artist, clock=clock(t.remaining),
                   hurry=timing and t.remaining <= LAST_SECONDS)
    if not timing:
        lines = (t.result[0], t.result[1]) if t.result[0] else ("the artist reads the word",)
        return replace(base, lines=lines, footer="the artist's ok starts the timer")
    slaps = {**t.slaps, **t.claims}  # every claim this round, by edge time
    race: tuple[RacePress, ...] = ()
    if slaps:
        first = min(slaps.values())
        race = tuple(RacePress(names[s], s, (ts - first) / MS,
                               "judging" if s in t.judging else "waiting" if s in t.claims
                               else "right" if s in t.correct else "wrong")
                     for s, ts in sorted(slaps.items(), key=lambda kv: (kv[1], kv[0])))
    if t.judging:
        heading = "Tie: judging both" if t.tie else f"Is {names[t.judging[0]]} right?"
        return replace(base, heading=heading, race=race, lines=("the artist judges",))
    wrong = tuple(f"{names[s]}: wrong" for s in sorted(t.wrong_at))
    return replace(base, race=race, lines=wrong or ("slap to guess",))


def pictomania_view(t) -> PublicView:
    state = t.state
    names = t.names
    outcome = t.match.outcome
    base = PublicView("Pictomania", "", names, tuple(state.totals))
    if t.phase == "review":  # as far as the slowest player has turned: no page spoiled
        r = t.last_result
        seen = t.slowest_page()
        stacks = r.stacks if not seen.startswith("stack") else r.stacks[:int(seen.split()[1]) + 1]
        lines = []
        for s in stacks:
            word = decks.card(r.cards["ABC".index(s.letter)]).word(s.number) if r.cards else ""
            guesses = ", ".join(f"{names[c.player]} {c.number} "
                                + ("void" if s.void else f"+{c.token}" if c.token else "x")
                                for c in s.guesses) or "no guesses"
            lines.append(f"{names[s.drawer]} drew {s.letter}{s.number} {word}: {guesses}; {drawer_result(r, s)}")
        if t.rescored:
            lines.insert(0, t.rescored)
        waiting = t.waiting_for() if seen == t.review_pages()[-1] else ""  # who has not said ready
        if seen.startswith("stack"):  # the totals before this round, until its scores are turned to
            base = replace(base, scores=tuple(a - b for a, b in zip(state.totals, r.scores)))
            return replace(base, heading=f"Round {r.number}: the drawings", turn=f"Round {r.number}",
                           lines=tuple(lines), footer="each station turns its pages with ok")
        lines.append("round: " + "  ".join(f"{names[p]} {r.scores[p]:+d}" for p in range(len(names))))
        if t.learning(r):
            lines.append("learning round: every black token taken counts plus")
        elif r.black_sheep is not None:
            lines.append(f"black sheep: {names[r.black_sheep]}")
        if outcome is not None and seen == "final":
            winners = tuple(outcome.winners)
            return replace(base, heading=_winners(names, winners), winners=winners, over=True,
                           turn=f"Round {r.number}", lines=tuple(lines),
                           footer=f"ok: back to the lobby (waiting for {waiting})" if waiting
                           else "ok: back to the lobby")
        footer = f"ok on every station: {'the totals' if outcome is not None else 'next round'}"
        return replace(base, heading=f"Round {r.number} scored", turn=f"Round {r.number}",
                       lines=tuple(lines), footer=f"{footer} (waiting for {waiting})" if waiting else footer)
    rnd = state.round
    base = replace(base, turn=f"Round {rnd.number}: {rnd.deck}",
                   cards=tuple(WordCard(letter, tuple(decks.card(cid).word(n) for n in NUMBERS))
                               for letter, cid in zip("ABC", rnd.cards)))
    if t.phase == "reading":
        waiting = sum(not s.ready for s in t.seats)
        lines = () if t.box_words else ("lay out three cards as A, B and C",)
        return replace(base, heading="Read the words", lines=lines,
                       footer=f"waiting for {waiting} to say ready" if waiting else "")
    guessed = [sum(g.player == p for g in rnd.guesses) for p in range(len(names))]
    progress = "guesses: " + ", ".join(f"{names[p]} {guessed[p]}" + (" done" if rnd.done[p] else "")
                                       for p in range(len(names)))
    pool = " ".join(map(str, rnd.pool)) or "none"
    return replace(base, heading="Draw and guess", turn=f"{base.turn}   black tokens {pool}", footer=progress)


def paytoplay_view(t) -> PublicView:
    detail = t.match.rules.detail(t.match.state)
    names = t.names[:2]
    mover = detail["to_move"]
    turn = f"Game {detail['game']}/{detail['games']}" if detail["games"] > 1 else ""
    view = PublicView("Pay-to-Play", "", names, tuple(detail["balances"]), turn=turn, mark=mover,
                      board=detail["board"], lines=(t.message,) if t.message else ())
    outcome = t.match.outcome
    if outcome is not None:
        winners = tuple(outcome.winners)
        heading = "Draw!" if len(winners) > 1 else _winners(names, winners)
        return replace(view, heading=heading, winners=winners, over=True, footer="ok: back to the lobby")
    if t.offer_from is not None:  # the game waits for the other player's answer, not the mover
        asked = 1 - t.offer_from
        return replace(view, heading=f"{names[t.offer_from]} offers a draw: {names[asked]} decides",
                       mark=asked)
    if mover is None:
        return view
    return replace(view, heading=f"{names[mover]} to play ({'XO'[mover != detail['x']]})")


def quiz_view(t) -> PublicView:
    """The players (or teams) and their scores without the host, the question, who answers and
    the race's timeline with every press and its delay. Nothing more of the question: the host
    reads it aloud; from a pack, its category, and with the option ``tv_question`` its text once
    the host has read it and armed, never its answer or notes. The buzzers show as armed only once
    the panels show it, as the cue sounds."""
    state = t.state
    teams = state.options.teams
    if teams:
        groups = state.teams()
        names = tuple(f"Team {g + 1}" for g in groups)
        members = tuple(f"Team {g + 1}: " + ", ".join(t.names[p] for p in state.members(g)) for g in groups)
        scores = tuple(state.team_score(g) for g in groups)
        colour = {p: groups.index(state.team(p)) for p in state.contestants}
        trail = tuple(tuple(sum(row[p] for p in state.members(g)) for g in groups) for row in t.match.trail)
    else:
        names = t.names[1:]
        scores = state.scores[1:]
        members = ()
        colour = {p: p - 1 for p in state.contestants}
        trail = tuple(tuple(row[1:]) for row in t.match.trail)
    margins = t.margins_ms()
    race = tuple(RacePress(t.names[seat], colour[seat], round(delta / MS, 6),
                           {"team": "team mate", "tie": "tie"}.get(note, ""),
                           round(margins.get(seat, 0.0), 6))
                 for seat, delta, note in t.presses())
    mark = colour.get(state.answering)
    clock = f"{t.seconds_left}s" if state.phase == "answering" and t.seconds_left else ""
    # Armed, but the panels not yet showing it (the reveal is being written): not before the cue.
    hidden = state.phase == "open" and t.race is not None and t.race.onsets is None
    heading = f"Question {state.question}" if hidden else t.status()
    turn = f"Question {max(state.question, 1)} of {state.options.questions}"
    reading = t.reading()
    if reading is not None and state.phase == "ready":  # the next question's category, never its text
        turn = f"Next: question {state.question + 1} of {state.options.questions}"
    if reading is not None and reading.category:
        turn += f", {reading.category}"
    # The question itself once the host has read it and armed, with the option tv_question.
    asked = ((reading.question,) if reading is not None and state.options.tv_question
             and state.phase != "ready" and not hidden else ())
    view = PublicView("Quiz", heading, names, tuple(scores), mark=mark, race=race, trail=trail,
                      clock=clock, hurry=bool(clock) and t.seconds_left <= 3, late=t.late_note or "",
                      turn=turn,
                      lines=asked + tuple(f"{t.names[s]}: {'too early' if not t.prelock else 'locked till next'}"
                                  for s in t.told_early()) + members,
                      footer=("host: " if t.names[0] == "Host" else f"host {t.names[0]}: ") + {"ready": "slap arms", "open": "right skips",
                                         "answering": "ok right, left wrong", "tie": "picks among the tied",
                                         "reopen": "slap re-opens, right skips", "over": ""}[state.phase])
    outcome = t.match.outcome
    if outcome is None:
        return view
    return replace(view, heading=t.standings_text(1)[0], over=True, race=(),
                   winners=tuple(colour[p] for p in outcome.winners),
                   lines=tuple(story_lines(t.story(), t.names, bool(teams))), footer="ok: back to the lobby")


def _winners(names: tuple[str, ...], winners: tuple[int, ...]) -> str:
    who = " and ".join(names[p] for p in winners)
    return f"{who} win" + ("s" if len(winners) == 1 else "")


VIEWS: dict[str, Callable[[Any], PublicView]] = {
    "triangle": triangle_view, "closest": closest_view, "trio": trio_view,
    "pictomania": pictomania_view, "paytoplay": paytoplay_view, "quiz": quiz_view,
}


def over_the_games_view(table) -> PublicView | None:
    """What every panel shows instead of the lobby, the TV too: a game set aside by a fault, why
    the interrupted game was not resumed, the interrupted game offered to resume (with its players
    and scores), or the game just abandoned."""
    if table.fault_notice is not None:
        return PublicView("Tabletop Companion", table.fault_notice, footer="any key: back to the games")
    if table.not_resumed is not None:
        return PublicView("Tabletop Companion", "Game not resumed", lines=table.not_resumed,
                          footer="any key: back to the games")
    if table.offer is not None:
        match = table.offer.match
        return PublicView("Tabletop Companion", f"Resume {match.rules.title}?", match.players,
                          tuple(match.rules.scores(match.state)), lines=(f"last played at {table.offer_from}",),
                          footer="ok: resume   left: new game")
    if table.abandoned is not None:
        return PublicView("Tabletop Companion", f"{table.abandoned}: abandoned by {table.abandoned_by}",
                          footer="ok: back to the games")
    return None


def public_view(table) -> PublicView:
    """The public view of a :class:`~companion.table.Table`: the lobby's, or the game's with its
    score over time (the match's trail, which a resumed game replays from its journal) and, for
    a few seconds after a resume or a take-back ("Ana took back a mark"), the banner the panels
    show."""
    game = table.game
    if game is None:
        return over_the_games_view(table) or lobby_view(table)
    view = VIEWS[game.match.rules.name](game)
    if view.over and game.bot_played:  # the result flags the seats a bot took over
        view = replace(view, lines=view.lines + tuple(game.flagged(p) for p in sorted(game.bot_played)))
    notice = "RESUMED" if table.resumed_until_ns is not None else ""
    return replace(view, trail=view.trail or tuple(game.match.trail),
                   notice=table.announced[0]() if table.announced is not None else notice)
