"""The Triangle brain: exact odds of each fact from the cards seen this turn and who reached when.

**Counting.** A player's own card is one of the cards they have not seen this turn, and every
unseen card is equally likely to be it (the deal is a fair shuffle), so the odds of each value
are its unseen copies over all unseen cards. After a claim the RtS card is seen too.

**Timing: the seed's basic strategy.** A basic player reaches for the RtS in one of three tiers
set by the two cards they see: two even cards right away (tier 0, to say "my peers are even"), one
even and one odd after a second or two (tier 1, "I am odd"), two odd after longer (tier 2, "I am
odd"). The tier a peer is in depends on *my* card, which they see, so "nobody has reached by tier
k" and "this peer reached just after I did" both rule values of my card in or out. The model's
times (:data:`BASIC_REACH_MS`, means and spreads of a normal law) are a human-like reading of the
seed's "a second or two" and "longer"; the hard bot decides just before each tier
(:data:`HARD_SLOTS_MS`) and so learns from a peer who reaches within :data:`LATE_WINDOW_MS` after
its own claim that this peer was in that tier. It never reads silence: on the box a bot's slap
that falls due after the race is decided is withdrawn, so "nobody slapped after me" says nothing.

**Worth of a statement.** The hard bot scores a fact by what it does to its *lead*: its own gain
minus the mean gain of the two others. A true fact is +points; a false one gives each other player
3, so -3. Another player's statement is judged the same way from the bot's seat (it sees their
card): a true "odd" by a peer is -1 (2 points over two others), a false one +1.5.

**Against people** the pace is a guess: the table gives the hard bot a ``trust`` of
:data:`PEOPLE_TRUST` that its peers keep it (1 when both are basic-strategy bots), and its odds
are the timed odds and counting alone mixed in that proportion, so a table that never reaches
does not fool it into long shots.

**When to reach.** At each slot the bot compares stating now (the expected best fact after seeing
the RtS card and who reached just after) with waiting for the next slot, where peers of the coming
tier will claim first: an exact backward induction over the four slots.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from ..games.triangle import FACTS, POINTS, ROUNDS_PER_TURN, VALUES, WRONG_POINTS, fact_true, peers

BASIC_REACH_MS = ((700, 120), (2000, 250), (3500, 300))
"""Basic strategy: (mean, standard deviation) of the reach time after 0, per tier."""
HARD_SLOTS_MS = (400, 1500, 3000, 5000)
"""When the hard bot may reach: before each basic tier, and a last slot once every tier passed."""
HARD_JITTER_MS = 60
"""The hard bot's hand: a normal spread around its slot."""
PEOPLE_TRUST = 0.5
"""How far the hard bot trusts people to keep the basic strategy's pace (a guess, not measured)."""
LATE_WINDOW_MS = 600
"""A peer reaching this soon after the claim was already moving: they were in the slot's tier."""

Statement = tuple[str, int | None]
"""(fact, value): value only for ``exact``."""
STATEMENTS: tuple[Statement, ...] = tuple((f, None) for f in FACTS if f != "exact") + tuple(("exact", v) for v in VALUES)


def tier(seen: Iterable[int]) -> int:
    """The basic strategy's tier for a player seeing these two cards: how many are odd."""
    return sum(c % 2 for c in seen)


def basic_statement(seen: Iterable[int]) -> Statement:
    """What a basic player says once they have the RtS: "peers even" on two even cards, else "odd"."""
    return ("peers_even", None) if tier(seen) == 0 else ("odd", None)


def unseen_cards(seen_this_turn: Iterable[int]) -> Counter:
    """How many of each value a player has not seen this turn (of the four per value)."""
    seen = Counter(seen_this_turn)
    return Counter({v: 4 - seen[v] for v in VALUES})


@dataclass(frozen=True)
class Seat:
    """What one player knows at the start of a race: their seat, the peers' cards, the unseen
    cards (the peers' current cards already counted as seen)."""

    me: int
    cards: dict[int, int]
    unseen: Counter
    trust: float = 1.0
    """How sure the seat is that its peers keep the basic strategy's pace: the timed odds are
    mixed with counting alone in this proportion (1 against basic players, as in the bench)."""

    def peer_tier(self, peer: int, mine: int) -> int:
        """The tier ``peer`` is in if my card is ``mine``: they see mine and the third card."""
        third = next(c for p, c in self.cards.items() if p != peer)
        return tier((mine, third))

    def fits(self, mine: int, slot: int, late: frozenset[int] | None = None) -> bool:
        """Whether my card being ``mine`` agrees with nobody reaching before ``slot`` and, once I
        claimed at ``slot``, with the peers in ``late`` reaching just after (so in the slot's tier).

        Silence is no evidence: a peer who did not slap after my claim may have been in the tier
        all the same, since the box withdraws a bot's slap that falls due once the race is decided
        and a person who sees the card taken keeps their hand back. Only a slap seen counts."""
        for peer in self.cards:
            t = self.peer_tier(peer, mine)
            if t < slot or (late is not None and peer in late and t != slot):
                return False
        return True

    def odds(self, slot: int | None = None, late: frozenset[int] | None = None,
             rts: int | None = None) -> dict[int, float]:
        """P(my card = v) from counting, the RtS card once seen, and the timing (``slot=None``:
        counting only). Timing that no basic player would produce (empty) falls back to counting."""
        weights = {v: max(self.unseen[v] - (v == rts), 0) for v in VALUES}
        counted = _normal(weights)
        if slot is None or self.trust == 0:
            return counted
        timed = _normal({v: w * self.fits(v, slot, late) for v, w in weights.items()})
        if not timed:
            return counted
        mixed = {v: self.trust * timed.get(v, 0) + (1 - self.trust) * p for v, p in counted.items()}
        return {v: p for v, p in mixed.items() if p > 0}

    def worth(self, statement: Statement, odds: dict[int, float]) -> tuple[float, float]:
        """(chance the statement is true, its expected gain in lead) under ``odds``."""
        fact, value = statement
        p = sum(pr for v, pr in odds.items() if fact_true(self._deal(v), self.me, fact, value))
        return p, p * POINTS[fact] - (1 - p) * WRONG_POINTS

    def best(self, odds: dict[int, float]) -> tuple[Statement, float, float]:
        """The statement of highest expected gain: (statement, chance true, expected gain)."""
        scored = [(s, *self.worth(s, odds)) for s in STATEMENTS]
        return max(scored, key=lambda row: row[2])

    def _deal(self, mine: int) -> tuple[int, int, int]:
        return tuple(mine if p == self.me else self.cards[p] for p in range(3))

    # --- when to reach -------------------------------------------------------------------

    def claim_worth(self, slot: int) -> float:
        """Expected gain of claiming at ``slot`` (nobody reached before), before seeing the RtS
        card: the best statement for each RtS card that could be seen. It counts on no slap
        after its claim (the box withdraws bots' late slaps), so only the race and the RtS card
        inform it; a late slap seen at the table is a bonus it uses when stating."""
        alive = {v: w for v, w in self.unseen.items() if w > 0 and self.fits(v, slot)}
        total = sum(w * (sum(self.unseen.values()) - 1) for w in alive.values())
        if total == 0:
            return self.best(self.odds())[2]
        worth = 0.0
        for rts in VALUES:
            pairs = sum(w * (self.unseen[rts] - (rts == v)) for v, w in alive.items())
            if pairs > 0:
                worth += pairs / total * self.best(self.odds(slot, None, rts))[2]
        return worth

    def peer_claim_worth(self, mine: int, slot: int) -> float:
        """My gain in lead when the peers of tier ``slot`` claim first (a coin decides between
        two) and state what the basic strategy says."""
        claimers = [p for p in self.cards if self.peer_tier(p, mine) == slot]
        deal = self._deal(mine)
        gain = 0.0
        for p in claimers:
            fact, value = basic_statement(c for q, c in enumerate(deal) if q != p)
            gain += -POINTS[fact] / 2 if fact_true(deal, p, fact, value) else WRONG_POINTS / 2
        return gain / len(claimers)

    def plan(self) -> list[tuple[float, float]]:
        """(claim now, wait) expected gains at each slot, by backward induction from the last."""
        rows: list[tuple[float, float]] = []
        later = None
        for slot in reversed(range(len(HARD_SLOTS_MS))):
            now = self.claim_worth(slot)
            if later is None:
                wait = float("-inf")
            else:
                alive = {v: w for v, w in self.unseen.items() if w > 0 and self.fits(v, slot)}
                total = sum(alive.values())
                wait = (sum(w * (later if self.fits(v, slot + 1) else self.peer_claim_worth(v, slot))
                            for v, w in alive.items()) / total) if total else later
            rows.append((now, wait))
            later = max(now, wait)
        return rows[::-1]

    def claim_slot(self) -> int:
        """The first slot where claiming is worth at least waiting."""
        return next(k for k, (now, wait) in enumerate(self.plan()) if now >= wait)


def _normal(weights: dict[int, float]) -> dict[int, float]:
    total = sum(weights.values())
    return {v: w / total for v, w in weights.items() if w > 0} if total else {}


def seat_view(me: int, cards: tuple[int, int, int], seen_before: Iterable[int], trust: float = 1.0) -> Seat:
    """The knowledge of seat ``me`` at the start of a race: ``seen_before`` is every card this
    player saw in the earlier rounds of the turn (:meth:`Round.seen_by`)."""
    visible = {p: cards[p] for p in peers(me)}
    return Seat(me, visible, unseen_cards([*seen_before, *visible.values()]), trust)


# --- the coach -------------------------------------------------------------------------------

LABELS = {"peers_even": "peers even", "even": "I'm even", "odd": "I'm odd", "greater": "I'm greater",
          "among": "I'm among"}


def label(statement: Statement) -> str:
    """``I'm a 5`` / ``peers even``: a statement in the players' words."""
    fact, value = statement
    return f"I'm a {value}" if fact == "exact" else LABELS[fact]


@dataclass(frozen=True)
class Advice:
    """The coach's verdict on one claimed round, from what the claimer knew when speaking."""

    claimer: int
    best: Statement
    best_chance: float
    best_gain: float
    said: Statement
    said_chance: float
    said_gain: float


def advise(earlier: Iterable, done) -> Advice | None:
    """The best statement for the claimer of ``done`` (a finished :class:`Round`), given the cards
    they had seen in the ``earlier`` rounds of the turn, the peers' cards and the RtS card.

    The coach counts cards only: it does not read the reach times, because people at a real table
    do not keep the basic strategy's pace the way the model's bots do. None for a round nobody
    spoke in (a draw or a void round).
    """
    if done.fact is None:
        return None
    me = done.claimer
    view = seat_view(me, done.cards, [c for r in earlier for c in r.seen_by(me)])
    odds = view.odds(rts=done.rts)
    best, best_chance, best_gain = view.best(odds)
    said = (done.fact, done.value)
    return Advice(me, best, best_chance, best_gain, said, *view.worth(said, odds))


def advice_for_round(state, index: int) -> Advice | None:
    """:func:`advise` for round ``index`` (0-based over the game) of a Triangle state's history."""
    start = index - index % ROUNDS_PER_TURN
    return advise(state.history[start:index], state.history[index])
