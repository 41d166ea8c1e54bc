"""Bot seats: a seat the box plays itself, through the same rules, table and journal as a person.

A bot has no station. Its moves are made on the game table exactly as a player's buttons would
make them (the same methods, the same rule checks) and journaled with ``"bot": true``
(informational, docs/JOURNAL.md).

**Races are fair.** In a race a bot presses through the arbiter like any station: an input
event with its own edge time, from its own input source (``bot``) whose explicit watermark
(:mod:`companion.arbiter.watermark`) promises no bot press before its next committed one. The bot
decides *when the race is set up*, from what its seat may know (its peers' cards, the question),
never from a person's press, and commits to an edge time = the race's opening (a bot's seat has
no panel, so its onset is the opening) + a human-like delay drawn from its level's law below. It
can therefore win, lose or tie by edge time like anyone. If the race is decided before its press
is due, the bot withdraws its hand (as a person does who sees the card taken).

Delays, normal laws (mean, standard deviation) in ms, never under :data:`FASTEST_MS`:

- Triangle slap: easy = the seed's basic strategy, :data:`companion.bots.triangle.BASIC_REACH_MS`
  by tier; hard = :data:`companion.bots.triangle.HARD_SLOTS_MS` of the slot its plan picks, spread
  :data:`~companion.bots.triangle.HARD_JITTER_MS`.
- Closest start question: :data:`QUIZ_MS`; the easy bot answers wrong :data:`EASY_WRONG` of the time.
- Turn moves (stating a fact, placing a card, a Pay-to-Play move): :data:`THINK_MS`. The hard
  Pay-to-Play bot first waits for its solved table, filled in a background thread
  (:func:`companion.bots.paytoplay.prepare`): a few seconds here, so the loop never stalls.

**Resumed bots play on as before.** Every draw a bot makes (a delay, a wrong answer, an easy
move) comes from its own generator, seeded by the game's seed, the journal's place (the chance
events and actions applied, :attr:`~companion.record.match.Match.moves`), the seat, what it is for and,
for a race, when it opens in journal time: a game resumed from its journal draws what the
uninterrupted game would have. The hard Triangle bot's statement is worked out again from the
round, not remembered; only who slapped just after its claim is not journaled (a resumed bot
claimer states as if nobody had).

Levels: ``hard`` plays the solved tables and the Triangle brain (:mod:`companion.bots`); ``easy``
plays the seed's basic strategy in Triangle and random legal moves in the other two games.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Mapping

from ..arbiter.inputs import InputEvent
from ..games import all_games
from ..record.journal import BOT_LEVELS
from ..arbiter.watermark import Watermarks

if TYPE_CHECKING:
    from ..bots import triangle as brain

# The brains (companion.bots) are imported where a bot first plays, not with this module: the
# table imports it at start-up for the seats' names, and most games have no bot.

LEVELS = BOT_LEVELS
SOURCE = "bot"
GAMES = tuple(rules.name for rules in all_games() if rules.bots_play)
"""The games a bot can sit in."""
FASTEST_MS = 150
"""No human hand is faster than this after a screen change."""
THINK_MS = {"easy": (1600, 400), "hard": (900, 200)}
QUIZ_MS = {"easy": (2600, 600), "hard": (1700, 300)}
EASY_WRONG = 0.15
READ_MS = 4000
"""How long a table of bots alone leaves a round's result on the screens before one of them
deals the next round (the ``ok`` a person would press): long enough for watchers to read it."""
MS = 1_000_000


def bot_name(seat: int, bots: int) -> str:
    """``Bot`` for the only bot of a game, ``Bo2``, ``Bo3`` for several: three letters, as long a
    name as the cards' labels show whole."""
    return "Bot" if bots == 1 else f"Bo{seat + 1}"


def is_bot_name(name: str, seat: int) -> bool:
    """Whether a journal's player name is one :func:`bot_name` gives that seat."""
    return name in ("Bot", f"Bo{seat + 1}")


def check_levels(bots: Mapping[int, str]) -> None:
    """ValueError naming the seat and the allowed levels."""
    for seat, level in bots.items():
        if level not in LEVELS:
            raise ValueError(f"bot seat {seat + 1}: level must be {' or '.join(LEVELS)}, not {level!r}")


def seats_with(bots: Mapping[int, str], stations: int) -> int:
    """How many seats a box of ``stations`` has with these bot seats (ValueError if a level is
    unknown or a seat beyond the stations would be left empty)."""
    check_levels(bots)
    seats = max([stations, *(s + 1 for s in bots)])
    empty = [s + 1 for s in range(stations, seats) if s not in bots]
    if empty:
        raise ValueError(f"seat {empty[0]} has no station: with {stations} stations, bot seats "
                         f"beyond them must follow on ({stations + 1}, {stations + 2}, ...)")
    return seats


class BotSeats:
    """The bots of one game (seat -> level), acting on its table as time passes."""

    def __init__(self, levels: Mapping[int, str], seed: int | None) -> None:
        check_levels(levels)
        self.levels = dict(levels)
        self.seed = seed
        self.marks = Watermarks()
        self.marks.add_source(SOURCE)
        self.pending: list[tuple[object, InputEvent]] = []
        """Committed presses: (the race they are for, the press)."""
        self.planned: object = None
        """The race the bots have decided on last."""
        self.turn: tuple[object, int] | None = None
        """(the state a turn move answers, when it is due)."""
        self.counting: frozenset[int] = frozenset()
        """Triangle seats that reach when the hard bot would but state the coach's counting-only
        best: the speed-matched card counter the benchmark measures the hard bot against."""

    def leave(self, seat: int) -> None:
        """A person takes ``seat`` back: its bot's committed presses are withdrawn, its turn move
        forgotten."""
        self.levels.pop(seat, None)
        self.pending = [(r, e) for r, e in self.pending if e.station != seat]
        self.turn = None

    def rng(self, game, purpose: str, seat: int, *detail: object) -> random.Random:
        """The generator for one decision of ``seat``: from the seed and the journal's place (see
        the module docstring), so a resumed game's bots draw what the uninterrupted game's did."""
        match = game.match
        place = (match.chances, match.moves)
        return random.Random("/".join(map(str, ("bots", self.seed, *place, purpose, seat, *detail))))

    # --- the time the table asks about --------------------------------------------------------

    def watermark(self, now_ns: int) -> int:
        """The bot source's watermark: everything before the earliest committed press, or now."""
        self.marks.report(SOURCE, min([now_ns] + [event.t_ns for _, event in self.pending]))
        return self.marks.low(now_ns)

    def wakeup_ns(self) -> int | None:
        times = [event.t_ns for _, event in self.pending]
        if self.turn is not None:
            times.append(self.turn[1])
        return min(times, default=None)

    def step(self, game, now_ns: int) -> None:
        """Plan new races, press what is due, make a turn move that is due."""
        race = _open_race(game)
        if race is not None and race is not self.planned:
            self.planned = race
            for seat in sorted(self.levels):
                if seat in race.stations:
                    self._plan_press(game, race, seat)
        due = [(r, e) for r, e in self.pending if e.t_ns <= now_ns]
        self.pending = [(r, e) for r, e in self.pending if e.t_ns > now_ns]
        for r, event in due:
            if r is _open_race(game):   # withdrawn once the race is decided or replaced
                game.handle(event)
        self._turn_move(game, now_ns)

    # --- races --------------------------------------------------------------------------------

    def _plan_press(self, game, race, seat: int) -> None:
        from ..bots import triangle as brain

        level = self.levels[seat]
        key = race.key
        rng = self.rng(game, "race", seat, race.opens_at_ns - game.start_ns)
        if game.game == "triangle":
            view = _triangle_view(game, seat)
            if level == "hard":
                mean, sd = brain.HARD_SLOTS_MS[view.claim_slot()], brain.HARD_JITTER_MS
            else:
                mean, sd = brain.BASIC_REACH_MS[brain.tier(view.cards.values())]
        else:
            mean, sd = QUIZ_MS[level]
            if level == "easy" and rng.random() < EASY_WRONG:
                key = rng.choice([k for k in ("left", "ok", "right", "slap") if k != race.key])
        delay_ms = max(FASTEST_MS, rng.gauss(mean, sd))
        event = InputEvent(seat, key, True, race.opens_at_ns + round(delay_ms * MS), SOURCE)
        self.pending.append((race, event))

    # --- turn moves ---------------------------------------------------------------------------

    def _turn_move(self, game, now_ns: int) -> None:
        seat = _bot_to_act(game, self.levels)
        state = game.match.state
        if seat is None and _waits_for_ok(game) and all(s in self.levels for s in range(len(game.names))):
            self._next_round(game, state, now_ns)
            return
        if seat is None:
            self.turn = None
            return
        if game.game == "paytoplay" and self.levels[seat] == "hard" and not _solved(state.options):
            self.turn = (state, now_ns + 100 * MS)   # the solved table is still being filled
            return
        if self.turn is None or self.turn[0] is not state:
            mean, sd = THINK_MS[self.levels[seat]]
            think_ms = self.rng(game, "think", seat).gauss(mean, sd)
            self.turn = (state, now_ns + round(max(FASTEST_MS, think_ms) * MS))
            return
        if now_ns >= self.turn[1]:
            self.turn = None
            game.now_ns = game.since_ns = now_ns
            MOVES[game.game](self, game, seat)

    def _next_round(self, game, state, now_ns: int) -> None:
        """At a table of bots alone, nobody would press the ``ok`` that goes on from a round's
        result: the first bot does, once the result has been on the screens :data:`READ_MS`."""
        if self.turn is None or self.turn[0] is not state:
            self.turn = (state, now_ns + READ_MS * MS)
        elif now_ns >= self.turn[1]:
            self.turn = None
            game.handle(InputEvent(0, "ok", True, now_ns, SOURCE))


def _waits_for_ok(game) -> bool:
    """Whether the game waits for anyone's ``ok`` to go on from a round's result: Triangle
    between rounds, the closest game's scores (Pay-to-Play goes on by itself)."""
    if game.match.outcome is not None:
        return False
    if game.game == "triangle":
        return game.current is None
    return game.game == "closest" and game.showing is not None


def _solved(options) -> bool:
    """Whether Pay-to-Play's solved table for ``options`` is filled (it starts filling now)."""
    from ..bots import paytoplay as paytoplay_bot

    return paytoplay_bot.prepare(options).is_set()


def _open_race(game):
    """The race a bot could still press in, if any."""
    if game.game == "triangle":
        return game.race if game.racing and game.result is None else None
    if game.game == "closest":
        return game.race
    return None


def _bot_to_act(game, levels: Mapping[int, str]) -> int | None:
    """The bot seat whose turn move the table waits for, if any."""
    if game.match.outcome is not None:
        return None
    if game.game == "triangle":
        seat = game.claimer
    elif game.game == "closest":
        seat = None if game.race is not None or game.showing is not None else game.state.mover()
    else:
        state = game.match.state
        if game.offer_from is not None:
            seat = 1 - game.offer_from
        else:
            seat = state.to_move
    return seat if seat in levels else None


def _triangle_view(game, seat: int) -> brain.Seat:
    """The seat's knowledge; it trusts the basic strategy's pace fully only among easy bots."""
    from ..bots import triangle as brain

    state = game.match.state
    earlier = [c for r in state.turn_rounds() if r is not state.current for c in r.seen_by(seat)]
    basic = all(game.bots.get(p) == "easy" for p in range(3) if p != seat)
    return brain.seat_view(seat, game.current.cards, earlier, 1.0 if basic else brain.PEOPLE_TRUST)


def _triangle_statement(bots: BotSeats, game, seat: int) -> None:
    from ..bots import triangle as brain

    view = _triangle_view(game, seat)
    if seat in bots.counting:
        fact, value = view.best(view.odds(rts=game.current.rts))[0]
    elif bots.levels[seat] == "hard":
        later = game.result.later() if game.result is not None else ()  # not journaled: none when resumed
        late = frozenset(p.station for p in later if p.delta_ns <= brain.LATE_WINDOW_MS * MS)
        (fact, value), _, _ = view.best(view.odds(view.claim_slot(), late, game.current.rts))
    else:
        fact, value = brain.basic_statement(view.cards.values())
    game._state(fact, value)


def _closest_move(bots: BotSeats, game, seat: int) -> None:
    from ..bots import closest as closest_bot

    state = game.state
    if bots.levels[seat] == "hard":
        action = closest_bot.hard_move(state)
    else:
        action = closest_bot.easy_move(state, bots.rng(game, "move", seat))
    game._place(action["number"], action.get("decoy", False))


def _paytoplay_move(bots: BotSeats, game, seat: int) -> None:
    from ..bots import paytoplay as paytoplay_bot

    state = game.match.state
    if game.offer_from is not None:   # the other player offers a draw: take it if not worse
        if bots.levels[seat] == "easy" or _draw_suits(state, seat):
            game._act({"action": "draw"})
        else:
            game.offer_from = None
            game.message = "Draw declined"
        return
    if bots.levels[seat] == "hard":
        action = paytoplay_bot.best_action(state, draw=game.message != "Draw declined")
    else:
        actions = [a for a in game.match.rules.legal_actions(state) if a["action"] != "draw"]
        plays = [a for a in actions if a["action"] == "play"]
        action = bots.rng(game, "move", seat).choice(plays or actions)
    if action["action"] == "draw":
        game.offer_from = seat
        game.message = "Draw offered"
    else:
        game._act(action)


def _draw_suits(state, seat: int) -> bool:
    """Whether a draw now is worth at least the solved value of playing on, for ``seat``."""
    from ..bots import paytoplay as paytoplay_bot

    solver = paytoplay_bot.solver_for(state.options)
    key = paytoplay_bot.key_of(state, solver)
    draw = key[1] - key[2]
    on = solver.value(key)
    return draw >= on if seat == state.x else draw <= on


MOVES: dict[str, Any] = {"triangle": _triangle_statement, "closest": _closest_move, "paytoplay": _paytoplay_move}
