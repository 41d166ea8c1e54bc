"""The quiz host's phone: the page it shows the host alone, and what its keys do.

The page (sent to the host's phone only, :mod:`companion.web.host`) holds what the host's panel
has no room for: the question to read in full, its answer and the pack's notes, every ring-in
with its delay after the first and its margin (a phone's clock error), who answers and who is
next if the answer is wrong; and the keys that do something now: arm, right, wrong, skip, next
question (after a wrong answer with nobody left: the question closes, as ``right`` does on the
host's station), pick one of the tied, correct the last verdict, pause.

**Two hosts.** The station's keys (:mod:`.quiz`) keep working while a phone hosts; both act on
the one night. Each phone key names the turn of the page it was pressed on (the quiz's moves so
far, :meth:`QuizHostPhone.host_turn`), and the box acts on it only if the night is still at that
turn and the key is one that page offered: of two verdicts on one answer, the first to reach the
box counts and the later one is refused and said on the phone, never applied to the next
player's answer.

**Correct the last verdict** turns the last right or wrong around: a right becomes a wrong (the
question's points and the penalty off that player's score), a wrong a right (both on), journaled
as a score correction (``correct``) that every screen shows; who answers now does not change.
It is offered once per verdict.

**Pause** holds the night: the answer timer stops where it is, every screen says ``Paused`` and
nothing is armed until the host goes on (the phone's key again, or any key at the host's
station). A pause is not journaled: a night resumed after a restart is not paused.
"""

from __future__ import annotations

from typing import Any

from ..games.quiz_state import HIGHEST_SCORE, LOWEST_SCORE

MS = 1_000_000

KEYS = {"ready": ["arm"], "open": ["skip"], "answering": ["right", "wrong", "skip"], "reopen": ["arm", "next"],
        "tie": ["pick"], "over": []}
"""The host phone's keys by the quiz's phase, before correct and pause."""


class QuizHostPhone:
    """The :class:`~companion.table.quiz.QuizTable`'s part that serves the host's phone."""

    phone_host = None
    """The table's :class:`~companion.table.hostphone.PhoneHost` (None: a table on its own)."""
    paused = False
    paused_left_ns: int | None = None
    """While paused with an answer timer running: how long it had left."""
    turned_around: tuple[int, int, str] | None = None
    """(question, seat, verdict) last turned around: each verdict is turned once."""
    host_note = ""
    """Why the phone's last key did nothing, said on its page until the next key."""

    def host_turn(self) -> int:
        return self.match.moves + self.match.chances

    def host_keys(self) -> list[str]:
        state = self.state
        if self.match.outcome is not None:
            return []
        if self.paused:
            return ["pause"]
        keys = list(KEYS[state.phase])
        if state.phase == "tie" and state.options.tie != "host":
            keys = []  # the box draws
        if self.last_verdict() is not None:
            keys.append("correct")
        if state.phase in ("ready", "answering", "reopen"):
            keys.append("pause")
        return keys

    def last_verdict(self) -> tuple[int, int, str] | None:
        """(question, seat, ``right`` or ``wrong``) of the last verdict, if it may be turned around."""
        state = self.state
        verdict = None
        if state.phase == "ready" and state.asked:
            last = state.asked[-1]
            if last.right is not None:
                verdict = (last.question, last.right, "right")
            elif last.wrong:
                verdict = (last.question, last.wrong[-1], "wrong")
        elif state.phase in ("open", "answering", "reopen", "tie") and state.wrong:
            verdict = (state.question, state.wrong[-1], "wrong")
        return None if verdict == self.turned_around else verdict

    # --- the keys --------------------------------------------------------------------------------

    def host_act(self, act: str, turn: int, seat: int | None, now_ns: int) -> None:
        """A key of the host's phone, pressed on the page of ``turn``; ``seat``: a pick's player."""
        self.now_ns = max(self.now_ns, now_ns)
        if turn != self.host_turn() or act not in self.host_keys():
            self.host_note = f"Not done: the night moved on ({self.status(40)})"
            return
        self.host_note = ""
        self.since_ns = self.now_ns
        state = self.state
        if act == "arm":
            self.match.act(self.arm())
            self._open_race(self.now_ns)
        elif act in ("right", "wrong"):
            self._judge(None, act)
        elif act in ("skip", "next"):
            self._judge(None, "skip")
        elif act == "pick":
            if seat not in state.tied:
                self.host_note = "Not done: pick one of the tied"
                return
            self.match.act({"action": "pick", "target": seat})
            self._start_timer()
        elif act == "correct":
            self._turn_around()
        else:
            self.pause(self.now_ns)

    def _turn_around(self) -> None:
        question, seat, verdict = self.last_verdict()
        swing = self.state.points + self.match.options.penalty
        score = self.state.scores[seat] + (-swing if verdict == "right" else swing)
        self.match.act({"action": "correct", "target": seat,
                        "score": max(LOWEST_SCORE, min(HIGHEST_SCORE, score))})
        self.turned_around = (question, seat, verdict)
        self.cues.append("move")

    def pause(self, now_ns: int) -> None:
        """Pause the night, or go on (the answer timer with what it had left)."""
        if self.paused:
            self.paused = False
            if self.paused_left_ns is not None and self.state.phase == "answering":
                self.answer_due_ns = now_ns + self.paused_left_ns
            self.paused_left_ns = None
            return
        self.paused = True
        if self.answer_due_ns is not None:
            self.paused_left_ns = max(0, self.answer_due_ns - now_ns)
            self.answer_due_ns = None

    # --- the page --------------------------------------------------------------------------------

    def host_page(self) -> dict[str, Any]:
        state = self.state
        reading = self.reading()
        over = self.match.outcome is not None
        margins = self.margins_ms()
        queue = state.queue() if state.phase == "answering" and state.options.after_wrong == "next" else []
        last = self.last_verdict()
        if over:  # the standings' first line over the story, no question left to read
            reading = None
        status = "Read Q1, then arm" if state.phase == "ready" and not state.asked and not self.paused else self.status(40)
        number = state.question + (state.phase == "ready" and not over)  # between questions: the next one's
        return {
            "quiz": True, "turn": self.host_turn(), "phase": state.phase,
            "heading": self.heading() if over else f"Q{number}/{state.options.questions}",
            "question": number, "questions": state.options.questions,
            "status": status, "paused": self.paused, "note": self.host_note,
            "category": reading.category if reading else "", "text": reading.question if reading else "",
            "answer": reading.answer if reading else "", "notes": reading.notes if reading else "",
            "race": [{"name": self.names[seat], "delta_ms": delta / MS, "margin_ms": round(margins.get(seat, 0.0), 1),
                      "note": note} for seat, delta, note in self.presses()],
            "answering": self.names[state.answering] if state.answering is not None else None,
            "next": self.names[queue[0]] if queue else None,
            "tied": [{"seat": seat + 1, "name": self.names[seat]} for seat in state.tied],
            "last": f"{self.names[last[1]]} was {last[2]}" if last is not None else "",
            "keys": self.host_keys(),
        }
