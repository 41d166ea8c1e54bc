"""Pictomania's drawing and guessing on a station: the menu, a guess's number, the black tokens.

The menu keeps one place for every item all round: ``Guess <name>`` for each other player in
seat order, then ``Words`` (box words only), ``Done`` and ``Wrong word``. An item that can no
longer be picked stays where it was, drawn unlit with what happened to it (``Ben: guessed 3``),
and ``ok`` on it says why not; so a player who knows that two ``left`` presses from the top
reach ``Done`` finds it there whatever they have guessed. ``left``/``right`` walk the menu and
``ok`` picks; a guess then takes a number (``left``/``right``, the three words of that number
shown), ``ok`` asks once more (a guess is final: the seed never takes one back, so a double
press must not make one) and ``ok`` again sends it; ``slap`` goes back. ``Done`` offers the black
tokens, highest first, or none.

Separate from the round's phases and the time order of sent actions (:mod:`.pictomania`):
this is what one player sees and picks while everybody draws.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from ..arbiter.inputs import InputEvent
from ..games.pictomania import NUMBERS
from ..screens import pictomania as screens
from ..screens.canvas import COLUMNS, abbreviate, fitting
from .pictomania_review import wrong_word_screen
from .pictomania_station import Station

ITEM_COLUMNS = COLUMNS - 4
"""The menu's line between its arrows."""


class Guessing:
    """The Pictomania table's part that runs each station's menu while everybody draws."""

    def menu(self, station: int) -> list[tuple[str, int | None]]:
        """The station's menu: a guess on every other drawing, Words, Done, Wrong word. The same
        items in the same places all round; :meth:`refusal` says which can no longer be picked."""
        items: list[tuple[str, int | None]] = [("guess", q) for q in range(self.players) if q != station]
        if self.box_words:
            items.append(("words", None))
        return items + [("done", None), ("wrong", None)]

    def _sent(self, station: int) -> list[dict[str, Any]]:
        """The station's actions waiting for their turn in time order."""
        return [p.action for p in self.pending if p.station == station]

    def _guessed(self, station: int, target: int) -> int | None:
        """The number ``station`` guessed (or sent) on ``target``'s drawing, if any."""
        for g in self.state.round.guesses:
            if g.player == station and g.target == target:
                return g.number
        return next((a["number"] for a in self._sent(station) if a.get("target") == target), None)

    def done_guessing(self, station: int) -> bool:
        """Done guessing, or Done sent."""
        return self.state.round.done[station] or any(a["action"] == "done" for a in self._sent(station))

    def refusal(self, station: int, item: tuple[str, int | None]) -> str | None:
        """Why ``item`` can no longer be picked (shown on the bottom line at ``ok``), or None."""
        kind, target = item
        rnd = self.state.round
        if kind == "words":
            return None
        if kind == "wrong":
            said = rnd.wrong_word[station] or any(a["action"] == "wrong_word" for a in self._sent(station))
            return "already said" if said else None
        if self.done_guessing(station):
            return "you are done"
        if kind == "done":
            return None
        name = self.names[target]
        if self._guessed(station, target) is not None:
            return fitting(lambda w: f"{abbreviate(name, w)}: already guessed")
        if rnd.wrong_word[target]:
            return fitting(lambda w: f"{abbreviate(name, w)}: wrong word")
        return None

    def item_label(self, station: int, item: tuple[str, int | None]) -> str:
        """The item as the menu line shows it; a guess made says its number."""
        kind, target = item
        if kind != "guess":
            said = kind == "wrong" and self.refusal(station, item) is not None
            return {"words": "Words", "done": "Done", "wrong": "Wrong word: said" if said else "Wrong word"}[kind]
        name, number = self.names[target], self._guessed(station, target)
        if number is not None:
            return fitting(lambda w: f"{abbreviate(name, w)}: guessed {number}", ITEM_COLUMNS)
        if self.state.round.wrong_word[target]:
            return fitting(lambda w: f"{abbreviate(name, w)}: wrong word", ITEM_COLUMNS)
        return fitting(lambda w: f"Guess {abbreviate(name, w)}", ITEM_COLUMNS)

    def token_choices(self) -> list[tuple[str, int | None]]:
        """(label, token) for Done: the highest remaining (sent without a value, so it is the
        highest when the box applies it), each lower value, and none."""
        pool = self.state.round.pool
        out: list[tuple[str, int | None]] = []
        if pool:
            out.append((f"take highest ({pool[0]})", -1))
            out += [(f"take a {v}", v) for v in sorted(set(pool[1:]) - {pool[0]}, reverse=True)]
        out.append(("no black token", None))
        return out

    def _play(self, event: InputEvent, seat: Station) -> None:
        station, key = event.station, event.key
        step = {"left": -1, "right": 1}.get(key, 0)
        if key == "slap":
            seat.mode = "menu"
            return
        if seat.mode == "menu":
            items = self.menu(station)
            if step:
                seat.cursor = (seat.cursor + step) % len(items)
            elif key == "ok":
                item = items[seat.cursor % len(items)]
                if (why := self.refusal(station, item)) is not None:
                    seat.message = why
                    self.cues.append("illegal")
                    return
                kind, target = item
                seat.mode = {"guess": "number", "done": "token"}.get(kind, kind)
                seat.page, seat.number, seat.target = 0, 1 if kind == "guess" else 0, target or 0
        elif seat.mode == "number":
            if step:
                seat.number = (seat.number - 1 + step) % len(NUMBERS) + 1
            elif key == "ok":
                seat.mode = "sure"
        elif seat.mode == "sure":
            if step:
                seat.mode = "number"
            elif key == "ok":
                self._send(event, {"action": "guess", "player": station, "target": seat.target,
                                   "number": seat.number})
                seat.message = f"sent: {self.names[seat.target]} {seat.number}"
        elif seat.mode == "token":
            choices = self.token_choices()
            if step:
                seat.number = (seat.number + step) % len(choices)
            elif key == "ok":
                token = choices[seat.number % len(choices)][1]
                action = {"action": "done", "player": station}
                if token != -1:
                    action["token"] = token
                self._send(event, action)
                seat.message = "done guessing"
        elif seat.mode == "words":
            if step:
                seat.page = (seat.page + step) % (2 * len(self.state.round.cards))
            elif key == "ok":
                seat.mode = "menu"
        elif seat.mode == "wrong" and key == "ok":
            self._send(event, {"action": "wrong_word", "player": station})
            seat.message = "wrong word: said"

    def _play_screen(self, station: int, seat: Station) -> Image.Image:
        rnd = self.state.round
        if seat.mode == "words":
            lines = self.word_lines()
            start = (seat.page // 2) * len(NUMBERS) + (seat.page % 2) * screens.LINES
            end = (seat.page // 2 + 1) * len(NUMBERS) if seat.page % 2 else start + screens.LINES
            return screens.words(screens.WordsView(f"Words {seat.page + 1}/6  ok: back", tuple(lines[start:end])))
        if seat.mode == "number":
            notes = tuple(f"{letter}{seat.number} {self.word(letter, seat.number)}"
                          for letter in "ABC"[:len(rnd.cards)])
            return screens.choice(screens.ChoiceView(
                f"Guess {self.names[seat.target]}", f"number {seat.number}", notes or ("ok: send",)))
        if seat.mode == "sure":
            return screens.panel(fitting(lambda w: f"Guess {abbreviate(self.names[seat.target], w)}: {seat.number}?"),
                                 ("a guess is final", "ok: guess it", "</>: other number", "slap: back"))
        if seat.mode == "token":
            choices = self.token_choices()
            label = choices[seat.number % len(choices)][0]
            left = " ".join(map(str, rnd.pool)) or "none"
            return screens.choice(screens.ChoiceView("Done guessing?", label, (f"middle: {left}", "ok: done", "slap: back")))
        if seat.mode == "wrong":
            return wrong_word_screen()
        secret = screens.secret_line(rnd.letters[station], rnd.numbers[station],
                                     self.word(rnd.letters[station], rnd.numbers[station]))
        items = self.menu(station)
        item = items[seat.cursor % len(items)]
        hint = "done: wait for others" if self.done_guessing(station) else "</>: menu  ok: pick"
        return screens.play(screens.PlayView(secret, self.marks(station), self.item_label(station, item),
                                             seat.told() or hint, taken=self.refusal(station, item) is not None))

    def marks(self, station: int) -> tuple[screens.GuessMark, ...]:
        """What ``station`` has guessed on each other drawing, waiting guesses marked."""
        waiting = {a.get("target") for a in self._sent(station)}
        return tuple(screens.GuessMark(self.names[q], self._guessed(station, q), sent=q not in waiting)
                     for q in range(self.players) if q != station)
