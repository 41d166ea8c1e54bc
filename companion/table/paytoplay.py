"""Pay-to-Play Tic-Tac-Toe at the table: two stations take turns; others watch.

The accounts show the balances as the seed counts them, without the income of the turn being
played; the mover's own station adds "after your income: N", the number that lets them place.
On your turn ``left``/``right`` move a cursor over the free cells you can afford, then Pass
(and Draw? once the endless-passing draw is on offer); ``ok`` or ``slap`` confirms. A forced pass
is made by the box, shown on both stations and beeped. Offering the draw asks the other player,
who accepts with ``ok`` or declines with ``left``.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from ..games.base import IllegalAction
from ..games.paytoplay import CELL_COST, after_income
from ..arbiter.inputs import InputEvent
from ..screens.canvas import abbreviate, fitting
from ..screens.paytoplay import SIDE_COLS, PayToPlayView, screen
from .game import YOUR_TURN, GameTable, Message


def _choice(action: dict[str, Any]) -> int | str:
    return action["cell"] if action["action"] == "play" else action["action"]


class PayToPlayTable(GameTable):
    game = "paytoplay"
    takeback_words = {"play": "a mark", "pass": "a pass"}
    message = Message()
    """What just happened, above the cost: "Draw offered", "Ana can't pay", an illegal move."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.cursor = 0
        self.offer_from: int | None = None
        self.message = ""
        self.passed: tuple[int, ...] = ()
        """Who the box just passed for (can't pay), while :attr:`message` says so."""

    def after_takeback(self, seat: int) -> None:
        """The mover taking back starts again from the first choice; a draw offered is withdrawn."""
        self.cursor = 0
        self.offer_from = None
        self.message, self.passed = "", ()

    def choices(self) -> list[dict[str, Any]]:
        """The mover's menu: affordable free cells in reading order, then Pass, then Draw?."""
        actions = self.match.rules.legal_actions(self.match.state)
        return sorted(actions, key=lambda a: (a["action"] != "play", a.get("cell", 0), a["action"] != "pass"))

    def on_input(self, event: InputEvent) -> None:
        if not event.pressed:
            return
        mover = self.match.rules.to_move(self.match.state)
        if self.offer_from is not None:
            if event.station == 1 - self.offer_from and event.key in ("ok", "left"):
                self.changed(event)
                if event.key == "ok":
                    self._act({"action": "draw"})
                else:
                    self.offer_from = None
                    self.message, self.passed = "Draw declined", ()
            return
        if event.station not in mover:
            return
        if event.key in ("left", "right"):  # moving the cursor needs only the menu's length
            count = len(self.match.rules.legal_actions(self.match.state))
            self.cursor = (self.cursor + (1 if event.key == "right" else -1)) % count
            if self.passed:  # read: the cost of the cell chosen takes its line back
                self.message, self.passed = "", ()
        elif event.key in ("ok", "slap"):
            self.changed(event)
            choices = self.choices()
            action = choices[self.cursor % len(choices)]
            if action["action"] == "draw":
                self.offer_from = event.station
                self.message, self.passed = "Draw offered", ()
            else:
                self._act(action)

    def _act(self, action: dict[str, Any]) -> None:
        names = self.names
        try:
            applied = self.match.act(action)
        except IllegalAction as e:
            self.message, self.passed = str(e), ()
            self.cues.append("illegal")
            return
        self.offer_from = None
        self.cursor = 0
        self.message = ""
        auto = [a for a in applied if a.get("auto")]
        self.passed = tuple(a["player"] for a in auto)
        if self.match.outcome is not None:
            self.cues.append("draw" if len(self.match.outcome.winners) > 1 else "win")
        elif auto:
            self.message = lambda: ("both" if len(auto) > 1 else
                                    abbreviate(names[auto[0]["player"]], SIDE_COLS)) + " can't pay"
            self.cues.append("auto_pass")
        else:
            self.cues.append("move" if action["action"] == "play" else "pass")

    def waiting_on(self, seat: int) -> str:
        """The mover's turn; the player asked whether to accept a draw."""
        if self.match.outcome is not None:
            return ""
        if self.offer_from is not None:
            return YOUR_TURN if seat == 1 - self.offer_from else ""
        return YOUR_TURN if seat == self.match.state.to_move else ""

    def _result(self) -> str:
        outcome = self.match.outcome
        if outcome is None:
            return ""
        if len(outcome.winners) > 1:
            return "Draw!"
        return fitting(lambda w: f"{abbreviate(self.names[outcome.winners[0]], w)} wins", SIDE_COLS)

    def _why(self, detail: dict[str, Any]) -> str:
        """How the game was won when it is not plain to see: a full board goes on points."""
        if self.match.outcome is None or detail["line"] or len(self.match.outcome.winners) > 1:
            return ""
        return "on points "

    def view(self, station: int) -> PayToPlayView:
        detail = self.match.rules.detail(self.match.state)
        mover = detail["to_move"]
        me = station if station < 2 else None
        cursor = None
        income = None
        result = self._result()
        prompt = self._why(detail) + "ok: lobby" if result else self.message
        status = ""
        if self.offer_from is not None:
            asked = 1 - self.offer_from
            status = "Draw?"
            prompt = "ok: yes left: no" if me == asked else \
                fitting(lambda w: f"{abbreviate(self.names[asked], w)} decides", SIDE_COLS)
        elif mover is not None and mover == me:
            income = after_income(self.match.state, me)
            choices = self.choices()
            cursor = _choice(choices[self.cursor % len(choices)])
            if isinstance(cursor, int) and len(self.passed) == 1:
                # "Ana can't pay" takes two lines, which "after your income: N" needs: said in
                # one, it stands for the cost until the cursor moves
                name = self.names[self.passed[0]]
                prompt = fitting(lambda w: f"{abbreviate(name, w)} passed", SIDE_COLS)
            elif isinstance(cursor, int):  # a message goes above the cost, never instead of it
                prompt = "\n".join(filter(None, (self.message, f"cost {CELL_COST[cursor]}")))
            if cursor == "draw":
                prompt = prompt or "ok: offer"
            elif self.cursor % len(choices) == 0 and any(c["action"] == "draw" for c in choices) \
                    and not self.message:  # left from the first item wraps to Draw?, and only there
                prompt = (prompt + "\n" if prompt else "") + "<: Draw?"
        header = "Watching" if me is None else f"Game {detail['game']}/{detail['games']}" if detail["games"] > 1 else ""
        return PayToPlayView(
            board=detail["board"], names=self.names[:2], balances=tuple(detail["balances"]),
            x=detail["x"], me=me, to_move=mover, cursor=cursor, prompt=prompt,
            line=tuple(detail["line"] or ()), header=header, result=result, status=status,
            after_income=income,
        )

    def screen(self, station: int) -> Image.Image:
        return screen(self.view(station))

    def watching_screen(self) -> Image.Image:
        """The board fills the panel's height: "Watching" is the side's top line, where a
        title bar would cover the first account and the board's top row."""
        return self.screen(len(self.names))
