"""The phones' server behind the wall: ``python -m companion.web.child --pipe FD --listen FD``.

The referee (the daemon) starts this process (:mod:`.wall`) and hands it two descriptors: its
end of the wall's pipe and the phones' listening socket, which the referee made and keeps, so a
server that restarts listens on the same port and every page rejoins where it was. This process
runs the whole web companion (:class:`~.server.WebCompanion`) on a loop of its own, at normal
priority (``SCHED_OTHER``, set by the referee as it starts it: the unit runs the referee at
``SCHED_FIFO`` 20 and a child inherits it), so every frame a guest sends is paid for here, never by the loop that reads the
buttons and decides races. Only what the referee must know crosses the pipe: a seated phone's
presses, watermarks and paintings, who joined or left, and the seats' claims.

Its life is its pipe's: it ends when the referee closes the pipe (or dies), not on a terminal's
Ctrl-C or systemd's SIGTERM to the whole unit, which the referee answers by closing it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from .host import HostDesk
from .pipe import Pipe
from .room import PhoneSeat, Room
from .server import WebCompanion

log = logging.getLogger(__name__)

NAMING_S = 5.0
"""How long a seated phone's welcome waits for the referee to say the station's name."""


class Referee:
    """The box as the server sees it (:class:`~.server.Box`): each call a message across the
    pipe, and the table's latest view as the referee last sent it."""

    def __init__(self, pipe: Pipe) -> None:
        self.pipe = pipe
        self.view: dict[str, Any] = {}
        self.host_page: dict[str, Any] = {}
        """The quiz host's page as the referee last sent it."""
        self._naming: dict[int, deque[asyncio.Future]] = {}
        """Station -> the joins waiting for the referee to say its name, in the order sent."""

    async def phone_joined(self, station: int, name: str | None) -> str:
        """Seated by the referee, which answers with the station's name (the phone's, if taken)."""
        answer = asyncio.get_running_loop().create_future()
        self._naming.setdefault(station, deque()).append(answer)
        self.pipe.send(["joined", station, name])
        try:
            return await asyncio.wait_for(answer, NAMING_S)
        except asyncio.TimeoutError:  # the referee is gone or stuck: its pipe's end says so
            return name or f"P{station + 1}"

    def named(self, station: int, name: str) -> None:
        waiting = self._naming.get(station)
        if waiting:
            answer = waiting.popleft()
            if not answer.done():
                answer.set_result(name)

    def phone_left(self, station: int) -> None:
        self.pipe.send(["left", station])

    def phone_press(self, station: int, key: str, down: bool, t_ns: int, error_ns: int) -> None:
        self.pipe.seal(("mark", station))  # its next watermark follows this press, never overtakes it
        self.pipe.send(["press", station, key, down, t_ns, error_ns])

    def phone_watermark(self, station: int, t_ns: int) -> None:
        self.pipe.send(["mark", station, t_ns], key=("mark", station))

    def phone_painted(self, station: int, frame: int, t_ns: int, error_ns: int) -> None:
        self.pipe.send(["painted", station, frame, t_ns, error_ns], key=("painted", station))

    def phone_view(self) -> dict[str, Any]:
        return self.view

    def phone_hosting(self, hosting: bool) -> None:
        self.pipe.send(["hosting", hosting])

    def phone_host(self, act: str, turn: int, seat: int | None) -> None:
        self.pipe.send(["host", act, turn, seat])

    def phone_host_page(self) -> dict[str, Any]:
        return self.host_page


class PhonesServer:
    """The server on ``pipe_end`` and ``listening`` until the pipe closes (:meth:`run`); ``web``
    once the referee has said how to start it."""

    def __init__(self, pipe_end: socket.socket, listening: socket.socket,
                 now_ns: Callable[[], int] = time.monotonic_ns) -> None:
        self.pipe_end = pipe_end
        self.listening = listening
        self.now_ns = now_ns
        self.web: WebCompanion | None = None
        self._ended = asyncio.Event()
        self._pipe: Pipe | None = None
        self._referee: Referee | None = None
        self._racing = False
        """A race is open (the referee says): kept for a server still starting."""

    async def run(self) -> None:
        self._pipe = Pipe(self.pipe_end, asyncio.get_running_loop(), self._heard, self._ended.set, "the referee")
        self._referee = Referee(self._pipe)
        try:
            await self._ended.wait()
        finally:
            self._pipe.close()
            if self.web is not None:
                await self.web.close()
            self.listening.close()

    def _heard(self, message: list) -> None:
        kind, *fields = message
        if kind == "beat":  # the referee's heartbeat: this loop still turns (:mod:`.heartbeat`)
            self._pipe.send(["beat", fields[0]], key="beat")
        elif kind == "start":
            asyncio.ensure_future(self._start(**fields[0]))
        elif kind == "named":
            self._referee.named(*fields)
        elif kind == "table":
            self._referee.view = fields[0]
            if self.web is not None:
                self.web.show_table(fields[0])
        elif kind == "host_page":
            self._referee.host_page = fields[0]
            if self.web is not None:
                self.web.show_host(fields[0])
        elif kind == "panel" and self.web is not None:
            self.web.show_panel(*fields)
        elif kind == "want" and self.web is not None:
            self.web.want(fields[0])
        elif kind == "racing":
            self._racing = bool(fields[0])
            if self.web is not None:
                self.web.racing(self._racing)

    async def _start(self, **start: Any) -> None:
        """Start serving as the referee said; a start that fails ends this server, so that the
        wall sees its pipe close and starts another (with its back-off), rather than a server that
        answers its heartbeats and never serves a phone."""
        try:
            await self._serve(**start)
        except Exception:
            log.exception("phones: the server could not start")
            self._ended.set()

    async def _serve(self, code: str, pin: str, seats: list[list], claims: str | None, held: dict[str, Any],
                     join_url: str, panels: list[list]) -> None:
        room = Room([PhoneSeat(station, buzzer) for station, buzzer in seats], code,
                    None if claims is None else Path(claims))
        room.host = HostDesk(pin)
        room.hold(held)  # every seat's phone and the host's take their places back with their tokens
        room.on_claims = lambda claims: self._pipe.send(["claims", claims], key="claims")
        web = self.web = WebCompanion(self._referee, room, self.now_ns)
        web.referee_has_room = self._pipe.has_room
        for panel in panels:  # what each phone station shows now, before any phone is let in
            web.show_panel(*panel)
        web.show_table(self._referee.view)
        await web.serve(self.listening, join_url)
        web.racing(self._racing)
        self._pipe.send(["ready"])


def main(argv: list[str] | None = None) -> int:
    from ..logs import setup_logging

    parser = argparse.ArgumentParser(prog="python -m companion.web.child", description=__doc__.splitlines()[0])
    parser.add_argument("--pipe", type=int, required=True, help="the wall's pipe (a socket pair's end)")
    parser.add_argument("--listen", type=int, required=True, help="the phones' listening socket")
    args = parser.parse_args(argv)
    setup_logging()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    pipe_end = socket.socket(fileno=args.pipe)
    listening = socket.socket(fileno=args.listen)
    asyncio.run(PhonesServer(pipe_end, listening).run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
