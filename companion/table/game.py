"""What every game's table has in common: a Match, the journal's clock, cues, the end screen.

A game table is the referee for one game: it turns station inputs into game actions, keeps
what each station may see, and says when players are done with the end screen. Inputs whose
edge came before the last change of state are *stale* (a press aimed at a state that has since
moved on) and are dropped rather than applied to the new state.

A press that reaches the table after a race was decided, with an edge early enough to matter, is
still shown to that race (stale or not), which tells whether it would have changed the verdict:
a *late press* (:class:`~companion.arbiter.race.LatePress`). The verdict stands; the daemon hands the
late press back (:meth:`GameTable.late_press`), the table journals it on a line of its own and
shows a short note (:attr:`GameTable.late_note`) while the verdict's result is on the screens.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import replace
from typing import Any, Callable, ClassVar

from PIL import Image

from ..games.base import Rules
from ..arbiter.inputs import InputEvent
from ..record.journal import JournalWriter
from ..arbiter.latepress import LateNote
from ..arbiter.unread import UnreadNote
from ..record import seats
from ..record.match import Match
from ..arbiter.race import Race
from ..screens.canvas import abbreviate, fitting
from ..screens.seating import spectator


TABLES: dict[str, type["GameTable"]] = {}
"""The table (referee) of each game whose module is imported, by game code name."""
PACKAGE = __name__.rsplit(".", 1)[0]
"""A game's table is the module of this package named after the game (``triangle``)."""
RACE = "RACE!"
YOUR_TURN = "YOUR TURN"
"""The words of :meth:`GameTable.waiting_on`: short enough for a badge in a title bar."""
TOO_EARLY_SHOWN_NS = 1_000_000_000
"""How long a player who pressed while their panel was still dark (a race's screens being written,
:meth:`GameTable.reveal`) is told "Too early!" once the panel shows the race, when the game has no
lockout (with one, until the lockout ends, as any false start). A false start before the race
opened is told until it opens; one in the dark could not be told then, and without this the
player would never learn why their press did not count. A second reads two words."""


def has_table(game: str) -> bool:
    """Whether ``game`` has a table (its module is found, not imported: the lobby asks at start-up)."""
    return importlib.util.find_spec(f"{PACKAGE}.{game}") is not None


def table_for(game: str) -> type["GameTable"]:
    """``game``'s table, its module imported when a game of it first starts or resumes. Start-up
    imports none of them: the lobby, the first frame, needs only the rules (the five tables and
    their screens took 22 ms of a 150 ms start to the first frame here)."""
    if game not in TABLES:
        importlib.import_module(f"{PACKAGE}.{game}")
    return TABLES[game]


class Message:
    """A line a game table keeps for its screens (who starts, "Ana can't pay"): a string, or a
    function making it, set for words that name players. Those are made when read, so each panel
    shows the names as the rest of that panel does
    (:func:`~companion.screens.canvas.one_form_per_name`)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.kept = "_" + name

    def __get__(self, table: Any, owner: type | None = None) -> Any:
        if table is None:
            return self
        said = getattr(table, self.kept, "")
        return said() if callable(said) else said

    def __set__(self, table: Any, said: str | Callable[[], str]) -> None:
        setattr(table, self.kept, said)


class GameTable:
    game: ClassVar[str]
    """The code name of the game this table referees; setting it registers the table."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "game" in cls.__dict__:
            TABLES[cls.game] = cls

    def __init__(self, rules: Rules, options: Any, names: tuple[str, ...], stations: int,
                 seed: int | None, journal: JournalWriter | None, start_ns: int,
                 match: Match | None = None, screens_take_time: bool = False,
                 resumed_ns: int | None = None) -> None:
        """A new game, or with ``match`` one resumed from its journal (``start_ns`` then lies
        in the past, so journal times carry on from where they stopped, and ``resumed_ns`` is
        the moment it is picked up: the journal time of its last line, where every timer the
        journal restores starts again). With
        ``screens_take_time`` (real panels) a race opened by a screen change waits for the
        onsets the daemon reports (:meth:`revealed`); without, it opens on every station at once."""
        self.stations = stations
        self.journal = journal
        self.start_ns = start_ns
        self.now_ns = self.since_ns = start_ns if resumed_ns is None else resumed_ns
        """``since_ns``: edge time of the input that last changed the state: older inputs are stale."""
        self.cues: list[str] = []
        self.finished = False
        """True once a player has dismissed the end screen: the table returns to the lobby."""
        self.bots_told = self.tells_bots_on_end_screen
        """True once every screen has said which seats a bot took over (:meth:`bots_lines`),
        after the end screen's ``ok`` (from the start where the end screen says it itself);
        then ``ok`` returns to the lobby."""
        self.screens_take_time = screens_take_time
        self.reveal_asked = False
        """Set by :meth:`reveal` until the table passes it on to the daemon."""
        self.revealing: Race | None = None
        self.last_reveal: Race | None = None
        """The race last revealed: a press in the dark of its reveal is told once it shows."""
        self.decided: Race | None = None
        """The race decided last: a press arriving for it later is shown to it (:meth:`handle`)."""
        self.late: LateNote | None = None
        """The last late press found for :attr:`decided`, while that race is the last decided."""
        self.aside: dict[str, Any] = {}
        """Informational fields for the next journal line (a race's onsets and reaction times)."""
        self.bots: dict[int, str] = {}
        """Seats the box plays (:mod:`.bots`): their action lines say ``"bot": true``."""
        self.bot_played: dict[int, tuple[str, str | None]] = {}
        """Seats a bot took over from a player who left: (from when, until when the player came
        back, or None), as :meth:`progress` says it."""
        self.race_line: dict[str, Any] | None = None
        """The journal line of the race last decided, race fields and all (:meth:`act_after`), or
        in a resumed game the journal's (:meth:`resume_race`): the table screen shows the race
        from it when the race's own result is not kept."""
        self.match = match or Match(rules, options, names, seed)
        self.match.record = self._record if journal else None
        self.match.settle()

    def _record(self, line: dict[str, Any]) -> int:
        bot = {"bot": True} if line.get("type") == "action" and line.get("player") in self.bots else {}
        number = self.journal.write({**line, **self.aside, **bot, "t": self.seconds(self.now_ns)})
        self.aside = {}
        return number

    @property
    def names(self) -> tuple[str, ...]:
        return self.match.players

    def seconds(self, t_ns: int) -> float:
        """Journal time ``t``: seconds since the game started."""
        return round((t_ns - self.start_ns) / 1e9, 3)

    def handle(self, event: InputEvent) -> None:
        decided = self.decided
        if decided is not None and event.pressed and event.t_ns < decided.decision_due_ns:
            self.straggler(decided, event)  # a press that may have come too late for it
        if event.t_ns < self.since_ns:
            return
        self.now_ns = event.t_ns
        if self.match.outcome is not None and self.showing_end(event.station):
            if event.pressed and event.key == "ok" and self.bot_played and not self.bots_told:
                self.bots_told = True  # the end screen's ok shows the seats bots played first
            elif event.pressed and event.key == "ok":
                self.finished = True
            return
        self.on_input(event)

    def showing_end(self, station: int) -> bool:
        """True once the game is over and ``station`` shows the end screen, where ``ok`` returns
        to the lobby; a table that first walks players through the last result says False until
        then, and its ``on_input`` keeps receiving that station's inputs."""
        return True

    def lights(self) -> dict[int, str]:
        """The station lights by seat: ``on`` for the race winner, ``blink`` for the players of a
        tie, while the result stands; a seat not named is off."""
        return {}

    def changed(self, event: InputEvent) -> None:
        self.since_ns = event.t_ns

    def on_input(self, event: InputEvent) -> None:
        raise NotImplementedError

    def reveal(self, race: Race) -> None:
        """The screen change due now opens ``race`` (created ``revealed``): the box shows it on
        every station at once and reports each station's onset to :meth:`revealed`. Shown as
        soon as asked (``screens_take_time`` False), every onset is the race's opening."""
        self.last_reveal = race
        if not self.screens_take_time:
            race.reveal({})
            return
        self.revealing = race
        self.reveal_asked = True

    def race_open(self) -> bool:
        """A race revealed and not yet judged, and still the game's (a question skipped leaves
        none): while one is, the box pings its phones faster (:mod:`companion.web.pings`)."""
        race = self.last_reveal
        return race is not None and race is not self.decided and race is getattr(self, "race", race)

    def revealed(self, onsets: dict[int, int], light: dict[int, int] | None = None,
                 errors: dict[int, int] | None = None) -> bool:
        """Each station's onset of the race being revealed (and its light, where a sensor saw
        it: :meth:`~companion.arbiter.race.Race.reveal`); True if a screen changed (a press
        already made turned out to be before its station's onset)."""
        race, self.revealing = self.revealing, None
        if race is None:
            return False
        race.reveal(onsets, light, errors)
        return any(race.early(s) for s in race.stations)

    def _told_early_until(self) -> list[tuple[int, int]]:
        """(seat, until when it is told "Too early!") for every seat that pressed in the dark of
        the last reveal, whether the press arrived before the onsets were known or after."""
        race = self.last_reveal
        if race is None or race.onsets is None:
            return []
        return [(seat, race.lockout_end_ns(seat) if race.lockout_ns else race.onsets[seat] + TOO_EARLY_SHOWN_NS)
                for seat in race.stations if race.early_unseen(seat)]

    def too_early(self, seat: int) -> bool:
        """True while ``seat`` is told its press in the dark of the last reveal was too early."""
        return any(s == seat and until > self.now_ns for s, until in self._told_early_until())

    def told_early_ends(self, since_ns: int, now_ns: int) -> bool:
        """True if a "Too early!" told after a reveal ended after ``since_ns``, by ``now_ns``."""
        return any(since_ns < until <= now_ns for _, until in self._told_early_until())

    def told_early_due_ns(self) -> int | None:
        """When the next "Too early!" told after a reveal ends (a screen to redraw), if any."""
        return min((until for _, until in self._told_early_until() if until > self.now_ns), default=None)

    def straggler(self, race: Race, event: InputEvent) -> None:
        """A press with an edge before the decided ``race`` was due, arriving after its decision:
        the race says whether it would have changed the verdict. A game whose races take wrong
        answers passes those on as such."""
        race.press(event)

    def judged(self, race: Race) -> None:
        """``race`` is decided: presses arriving for it from now on go to it (:meth:`handle`)."""
        if race is not self.decided:
            self.decided, self.late = race, None

    def late_press(self, note: LateNote, now_ns: int) -> None:
        """The daemon found that a press came too late for :attr:`decided` (the race just told it):
        journaled on a ``late`` line of its own (the race's line is written already) and noted
        on the screens. The verdict stands."""
        note = replace(note, t=self.seconds(now_ns))
        self.late = note
        if self.journal is not None:
            self.journal.write({**note.as_json(), "t": note.t})

    def unread(self, source: str, for_ns: int, now_ns: int) -> None:
        """``source``'s buttons could not be read for ``for_ns`` up to now (their reader died and
        is back): journaled on an ``unread`` line (:mod:`companion.arbiter.unread`), so a press
        lost in that time is not silently missing from the game's record."""
        if self.journal is not None:
            note = UnreadNote(source, round(for_ns / 1e9, 3), self.seconds(now_ns))
            self.journal.write({**note.as_json(), "t": note.t})

    @property
    def late_note(self) -> str | None:
        """A short line for the screens while the verdict a late press would have changed shows,
        saying what the press would have made it: ``Late press: Ben first``, ``Late: tie Ana&Ben``
        or ``Late press: no winner`` (the verdict stands; the journal has the rest)."""
        late = self.late
        if late is None:
            return None
        who = late.would_be
        if not who:
            return "Late press: no winner"
        if len(who) > 1:
            return fitting(lambda w: "Late: tie " + "&".join(abbreviate(self.names[p], w) for p in who))
        return fitting(lambda w: f"Late press: {abbreviate(self.names[who[0]], w)} first")

    def act_after(self, race: Race | None, action: dict[str, Any], **notes: Any) -> None:
        """Apply the action a race led to, journaled with the race's onsets and reaction times
        (informational: ``onset_ms`` from the race's opening and ``reaction_ms``, per player,
        null for a player not in the race or without a counted press, ``light_ms`` when the
        race timed players from their light sensors, ``error_ms`` when a phone played in it;
        replay ignores them) and
        ``notes``, the game's own race fields (:data:`companion.record.journal.NOTES`)."""
        if race is not None:
            self.judged(race)
        if race is not None and race.onsets is not None:
            players = range(len(self.names))
            opens = race.opens_at_ns
            self.aside = {  # to the ns the race measured: a resumed table screen shows what the live one did
                "onset_ms": self._after(race.onsets, opens),
                "reaction_ms": [None if (r := race.reaction_ns(p)) is None else round(r / 1e6, 6)
                                for p in players],
                **notes,
            }
            errors = [race.error_ns(p) for p in players]
            if any(errors):  # a phone played: how sure each reaction time is
                self.aside["error_ms"] = [None if e is None else round(e / 1e6, 6) for e in errors]
            if race.light is not None:  # the race timed each player from their panel's light
                self.aside["onset_ms"] = self._after(race.stamped, opens)
                self.aside["light_ms"] = self._after(race.light, opens)
        line = {**action, **self.aside}
        try:
            self.match.act(action)
        finally:
            self.aside = {}
        if "reaction_ms" in line:
            self.race_line = line

    def _after(self, times: dict[int, int], opens: int) -> list[float | None]:
        """Per player, ``times`` in ms after the race opened (null for a player not in it)."""
        return [round((times[p] - opens) / 1e6, 6) if p in times else None for p in range(len(self.names))]

    def resumed_from(self, lines: list[bytes]) -> None:
        """A resumed game's journal, the header first: for what a game tells at its end from
        more than its state (the quiz's races). Nothing by default."""

    def resume_race(self, line: dict[str, Any]) -> None:
        """A resumed game's race still on screen, as its journal line tells it (the race's
        result is not kept: later presses and false starts are not journaled)."""
        self.race_line = line

    def progress(self) -> str:
        """Where the game is, in players' words, for "Ana (bot from round 4)": the round, the game
        of a tournament, else the move."""
        detail = self.match.rules.detail(self.match.state)
        if "turn" in detail:  # Triangle's rounds count again in each turn, as its screens say
            return f"turn {detail['turn']} round {detail['round']}"
        if "round" in detail:
            return f"round {detail['round']}"
        if detail.get("games", 1) > 1:
            return f"game {detail['game']}"
        return f"move {self.match.moves + 1}"

    def seat_changes(self, player: int, level: str | None, station: int | None) -> None:
        """``player``'s seat is played by a bot of ``level`` from now on (the player left), or by
        the person at ``station`` (0-based; a bot's seat taken back): journaled on a ``seat``
        line with where the game is (``when``), and the seat's moves are marked ``"bot": true``
        while a bot plays it."""
        when = self.progress()
        self.seat_changed(player, level, when)
        if self.journal is not None:
            self.journal.write({"type": "seat", "player": player, "bot": level,
                                "station": None if station is None else station + 1, "when": when,
                                "t": self.seconds(self.now_ns)})

    def seat_changed(self, player: int, level: str | None, when: str) -> None:
        """Note who plays ``player``'s seat from ``when`` (a seat line, live or replayed): its
        moves' lines say ``"bot": true`` while a bot plays it, and the result flags the seat."""
        if level is None:
            self.bots.pop(player, None)
        else:
            self.bots[player] = level
        seats.seat_changed(self.bot_played, player, level, when)

    tells_bots_on_end_screen: ClassVar[bool] = False
    """The game's end screen flags the seats a bot took over itself (Triangle's has room)."""

    def bots_lines(self) -> list[str]:
        """The seats a bot took over, for a panel's three lines: ``Ana: bot from round 4`` and
        ``to round 6`` on a line of its own if the player came back; shortened to a line a seat
        (``Ana: bot round 4-6``) when that takes more."""
        lines = []
        for player, (since, until) in sorted(self.bot_played.items()):
            lines.append(fitting(lambda w: f"{abbreviate(self.names[player], w)}: bot from {since}"))
            lines += [f"to {until}"] if until else []
        if len(lines) <= 3:
            return lines
        return [fitting(lambda w: f"{abbreviate(self.names[p], w)}: {seats.short_flag(*span)}")
                for p, span in sorted(self.bot_played.items())]

    def flagged(self, player: int) -> str:
        """``player``'s name as the result gives it: ``Ana (bot from round 4)`` for a seat a bot
        took over (``... to round 6`` if the player came back)."""
        return seats.flagged(self.names[player], player, self.bot_played)

    takeback_words: ClassVar[dict[str, str]] = {}
    """What each action the game lets a player take back is, in players' words (``play``: ``a
    mark``), for "Ana took back a mark"; an action not named is "a move"."""

    def takeback_refusal(self, seat: int) -> str | None:
        """Why ``seat`` may not take back their last action now, or None if they may."""
        return self.match.takeback_refusal(seat)

    def takeback_word(self, seat: int) -> str:
        """What ``seat`` would take back (``a mark``); asked only when they may."""
        return self.takeback_words.get(self.match.steps[-1].action.get("action"), "a move")

    def take_back(self, seat: int, event: InputEvent) -> str:
        """Take back ``seat``'s last action (journaled as ``undo``, naming its line): the game is
        as if it had never been made. Returns what was taken back (``a mark``). IllegalAction
        with the reason if it may not be."""
        word = self.takeback_word(seat) if self.takeback_refusal(seat) is None else ""
        self.now_ns = max(self.now_ns, event.t_ns)
        self.match.act(self.match.takeback_line(seat))
        self.changed(event)
        self.after_takeback(seat)
        self.cues.append("take_back")
        return word

    def after_takeback(self, seat: int) -> None:
        """Put back what the table keeps beside the match (a cursor, a menu, a note) as it is at
        the state taken back to: by default nothing."""

    def tick(self, now_ns: int, watermark_ns: int) -> bool:
        """Time passing: countdowns, race decisions. True if a screen changed."""
        return False

    def wakeup_ns(self) -> int | None:
        """When ``tick`` next has something to do, if ever."""
        return None

    def screen(self, station: int) -> Image.Image:
        """What ``station`` shows; stations beyond the players watch the public state."""
        raise NotImplementedError

    def watching_screen(self) -> Image.Image:
        """What a station without a seat shows (one that watches, or whose seat a bot plays):
        the public state under a "Watching" title bar. A game whose panel has no title bar to
        give up says it in its own layout instead."""
        return spectator(self.screen(len(self.names)), self.match.rules.title)

    def waiting_on(self, seat: int) -> str:
        """What the game wants from ``seat`` now, said in a word or two: ``RACE!`` while a race
        the seat may press in is open (or counting down to it), ``YOUR TURN`` while the game
        waits for the seat's move; empty when neither. A player reading the rules pages cannot
        see the game behind them, so those pages show it (:data:`RACE` or :data:`YOUR_TURN`)."""
        return ""
