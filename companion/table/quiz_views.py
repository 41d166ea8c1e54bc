"""What each station and the host see on quiz night: the question's heading, who pressed in
which order and how much later, the standings (by team, with teams), and the host's own
screen with what to press next.

Separate from refereeing the question (:mod:`.quiz`) because it only reads the state: the same
lines make the stations' panels and the table screen's public view.
"""

from __future__ import annotations

import textwrap

from ..games.quiz import HOST
from ..games.quiz_packs import PackQuestion
from ..record.journal import race_winners, reaction_times
from ..record.quiz_night import NightStory, margin, night_story
from ..screens.canvas import CHAR_W, COLUMNS, abbreviate, fitting, measure
from ..screens.quiz import QuizView

MS = 1_000_000
S = 1_000_000_000
ASKING = ("open", "tie", "answering", "reopen")
"""The phases of a question still being asked: who is out of it is told only then."""


def wrap(text: str, rows: int) -> list[str]:
    """A pack's text in at most ``rows`` panel lines, by words, the last one cut with ``..`` if
    the text goes on: the host's panel shows what it can, the host's phone and the TV the whole."""
    return textwrap.wrap(text, COLUMNS, max_lines=rows, placeholder="..") or [""]


def delay_ms(ns: int) -> str:
    """``+12ms`` (to the ms), ``+400us`` under one (a tie's margin), ``+2.1s`` from a second on."""
    if ns >= S:
        return f"+{ns / S:.1f}s"
    return f"+{round(ns / 1000)}us" if 0 < ns < MS else f"+{round(ns / MS)}ms"


class QuizViews:
    """The quiz table's part that makes each station's view and the lines the table screen shows."""

    def name(self, seat: int, width: int = 10) -> str:
        return abbreviate(self.names[seat], width)

    def presses(self) -> list[tuple[int, int, str]]:
        """The race on screen as (seat, delay ns, note): counted presses by time, ``team`` for a
        team mate's press that did not count, ``tie`` for each press of a declared tie (the
        later ones too: inside the tie window a margin is shown, never a ranking). From the
        journal's line in a resumed question."""
        result = self.result
        if result is not None:
            timed = [(p.station, p.delta_ns) for p in result.order]
            tied = set(result.winners) if result.tie else set()
        else:  # a resumed question: its journal line (later presses are not journaled)
            timed = reaction_times(self.race_line, len(self.names)) or []
            timed = [(p, round((ms - timed[0][0]) * MS)) for ms, p in timed]
            named = race_winners(self.race_line, len(self.names)) if self.race_line else []
            tied = set(named) if len(named) > 1 else set()
        teams: set[int] = set()
        out = []
        for seat, delta in timed:
            team = self.state.team(seat)
            out.append((seat, delta, "team" if team in teams else "tie" if seat in tied else ""))
            teams.add(team)
        return out

    def margins_ms(self) -> dict[int, float]:
        """Each seat's error on the race on screen, in ms, where it has one (a phone's): from the
        result, or in a resumed question from its journal line's ``error_ms``."""
        if self.result is not None:
            return {p.station: p.error_ns / MS for p in self.result.order if p.error_ns}
        errors = (self.race_line or {}).get("error_ms")
        return {seat: float(e) for seat, e in enumerate(errors if isinstance(errors, list) else [])
                if isinstance(e, (int, float)) and not isinstance(e, bool) and 0 < e < 3_600_000}

    def told_early(self) -> list[int]:
        """Seats told now that they pressed too early: the question's prelocks (the match's), and
        lockouts not over yet (the table's)."""
        lockouts = {seat for seat, until in self.early.items() if until > self.now_ns}
        return sorted(lockouts.union(self.state.prelocked))

    def race_lines(self, rows: int) -> list[str]:
        """``Ben first  Cy +12ms`` packed into at most ``rows`` 21-column lines; a tie is
        ``Cy tie  Eve +57us tie``, as the table screen says it."""
        words = []
        for seat, delta, note in self.presses():
            when = ("tie" if note == "tie" else "first") if delta == 0 else delay_ms(delta)
            words.append(f"{self.name(seat, 5)} {when}" + {"team": "(t)", "tie": " tie"}.get(note, "") * (delta != 0))
        lines: list[str] = []
        for word in words:
            gap = next((g for g in ("  ", " ") if lines and len(lines[-1] + g + word) <= COLUMNS), None)
            if gap is not None:
                lines[-1] += gap + word
            elif len(lines) < rows:
                lines.append(word)
        return lines

    def heading(self) -> str:
        state = self.state
        outcome = self.match.outcome
        if outcome is not None:
            best = self.standings_text(1)
            return best[0] if best else "Quiz over"
        return f"Q{max(state.question, 1)}/{state.options.questions}"

    def standings_text(self, rows: int) -> list[str]:
        """``1. Ana 5`` (teams: ``1. Team 2 7``), ties sharing a rank."""
        state = self.state
        out = []
        for rank, who, points in state.standings()[:rows]:
            room = COLUMNS - len(f"{rank}. {points}") - 1
            if state.options.teams:
                label = ("Team " if len(who) == 1 else "Teams ") + "&".join(str(t + 1) for t in who)
            else:
                label = fitting(lambda w: "&".join(self.name(p, w) for p in who), room)
                if measure(label) > room * CHAR_W:
                    label = f"{len(who)} players"
            out.append(f"{rank}. {label} {points}")
        return out

    def status(self, columns: int = COLUMNS) -> str:
        """What is happening, for everyone: the public line, in ``columns`` cells."""
        state = self.state
        phase = state.phase
        if self.paused and self.match.outcome is None:
            return "Paused"
        if phase == "ready":
            last = state.asked[-1] if state.asked else None
            if last is None:
                return "Host reads Q1"
            if last.right is not None:
                return fitting(lambda w: f"{self.name(last.right, w)} was right!", columns)
            return "Nobody got it"
        if phase == "open":
            return "Buzzers armed!"
        if phase == "tie":
            return fitting(lambda w: "Tie: " + "&".join(self.name(p, w) for p in state.tied), columns)
        if phase == "answering":
            clock = f" {self.seconds_left}s" if self.seconds_left else ""
            return fitting(lambda w: f"{self.name(state.answering, w)} answers{clock}", columns)
        if phase == "reopen":
            return "Time up! Re-open?" if state.timed_out else "Wrong! Re-open?"
        return "Quiz over"

    def view(self, station: int) -> QuizView:
        if station == HOST:
            return self._host_view()
        state = self.state
        me = station if station < len(self.names) else None
        if me is not None and self.match.outcome is not None:  # the night's story, as it was for me
            night = next(p for p in self.story().players if p.seat == me)
            fastest = f"fastest {margin(night.fastest_ms)}" if night.fastest_ms is not None else "never buzzed"
            return QuizView(self.heading(), "", (f"{night.right} right, {night.wrong} wrong", fastest,
                                                 self._standing_line(me)), "ok: lobby")
        if me is None or self.match.outcome is not None:
            return QuizView(self.heading(), self.status() if self.match.outcome is None else "",
                            tuple(self.race_lines(1)) + tuple(self.standings_text(2)),
                            "ok: lobby" if self.match.outcome is not None else "")
        big = self.status()
        if me in self.told_early() or self.too_early(me):
            big = "Too early: out" if self.prelock else "Too early! wait"
        elif state.team(me) in state.out and state.phase in ASKING:
            big = "Team out" if me not in state.wrong else (
                "Out: time up" if state.timed_out and me == state.wrong[-1] else "Out: wrong")
        elif state.phase == "answering" and state.answering == me:
            big = "YOU ANSWER" + (f" {self.seconds_left}s" if self.seconds_left else "")
        elif state.phase == "open":
            big = "BUZZ!"
        return QuizView(self.heading(), big, tuple(self.race_lines(2)), self._standing_line(me))

    def _standing_line(self, me: int) -> str:
        """``You: 3  rank 1``; in a team quiz the team's score and rank first, as the table
        screen shows them, and the player's own points after: ``T1: 3 rank 1 you 0``."""
        state = self.state
        if not state.options.teams:
            rank = next(r for r, who, _ in state.standings() if me in who)
            return f"You: {state.scores[me]}  rank {rank}"
        team = state.team(me)
        rank = next(r for r, who, _ in state.standings() if team in who)
        return f"T{team + 1}: {state.team_score(team)} rank {rank} you {state.scores[me]}"

    def story(self) -> NightStory:
        """The night's story so far (told at its end): standings, right and wrong, fastest buzzes
        and the closest races."""
        return night_story(self.state, self.races)

    def reading(self) -> PackQuestion | None:
        """The pack's question the host reads: between questions the next one (none once the pack
        is read through, or in a night without a pack), while it is asked the one armed."""
        state = self.state
        if state.phase != "ready":
            return state.asking
        pack = self.pack
        return pack.questions[state.question] if pack is not None and state.question < len(pack.questions) else None

    def _host_view(self) -> QuizView:
        state = self.state
        if self.match.outcome is not None:
            closest = self.story().closest[:1]
            close = [fitting(lambda w: f"Q{r.question} closest: {margin(r.margin_ms)}") for r in closest]
            return QuizView(self.heading(), "", tuple(self.standings_text(3 - len(close)) + close), "ok: lobby")
        if self.menu:
            players = list(state.contestants)
            if self.correcting is None:
                p = players[self.cursor % len(players)]
                return QuizView("Correct a score", fitting(lambda w: f"< {self.name(p, w)}: {state.scores[p]} >"),
                                ("ok: change it", "slap: back"), "</> choose a player")
            return QuizView("Correct a score",
                            fitting(lambda w: f"{self.name(self.correcting, w)}: "
                                              f"{state.scores[self.correcting]} -> {self.edit}"),
                            ("</>: -1/+1", "ok: save  slap: back"), "everyone sees it")
        keys = {
            "ready": "slap:arm ok:correct",
            "open": "right: skip",
            "answering": "ok:right left:wrong",
            "reopen": "slap:open ok:correct",
            "tie": "</>:choose ok:pick" if state.options.tie == "host" else "drawing...",
        }[state.phase]
        lines = self.race_lines(2)
        reading = self.reading()
        pin = self.phone_host.shown_pin if self.phone_host is not None and state.phase == "ready" else None
        pin_line = [] if pin is None else [f"Host phone PIN {pin}"]  # no phone hosts: how one may
        if state.phase == "ready" and reading is not None:  # the question to read, then arm
            return QuizView(fitting(lambda w: f"Read Q{state.question + 1} {reading.category}".strip()), "",
                            tuple(wrap(reading.question, 3 - len(pin_line)) + pin_line), keys)
        if state.phase == "answering" and reading is not None:
            lines = [wrap(f"A: {reading.answer}", 1)[0]] + lines[:1]
        if state.phase == "ready" and self.pack_trouble and not state.asked:
            lines = [self.pack_trouble, "read from paper"]
        if pin_line:
            lines = lines[:2] + pin_line
        if state.phase == "tie" and state.options.tie == "host":
            p = state.tied[self.cursor % len(state.tied)]
            lines = [fitting(lambda w: f"Pick: < {self.name(p, w)} >")] + lines[:1]
        elif state.phase in ("answering", "reopen"):
            lines.append("right: skip question")
        if not state.asked and state.phase == "ready":
            title = "Read Q1, then arm"  # not "Q1 Host reads Q1": the host is the one reading
        else:
            title = f"Q{max(state.question, 1)} " + self.status(COLUMNS - 3 - len(str(state.question)))
        return QuizView(title, "", tuple(lines), keys)
