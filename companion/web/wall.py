"""The wall: the phones' server in a process of its own, and the referee's side of it.

The web companion once ran on the daemon's own loop, at the unit's real-time priority: every
frame a guest sent was paid for by the loop that reads the buttons and decides races (60
watchers' flood on a slow core: wired delivery max 0.1 -> 11.5 ms, ``python -m bench.webflood``).
Now the daemon starts the server as a child process (:mod:`.child`) at normal priority and talks
to it through a socket pair (:mod:`.pipe`): the daemon sends the table's view, each phone
station's panel (numbered here, so a reveal knows at once which frame shows it) and when a race
wants every phone's answer; the server sends a seated phone's presses, watermarks and paintings,
who joined or left, and the seats' claims. Watchers' frames never cross it.

The listening socket is made here and kept, so the port never changes. A server that dies is
started again after :data:`BACKOFF_S` (doubling to :data:`LONGEST_BACKOFF_S` while it keeps
dying, never a crash loop); meanwhile its phones have left (races go on with the wired stations),
every screen says the phones are restarting, and the pages rejoin with their seat tokens, whose
claims the daemon kept (:attr:`WebWall.room`). A server alive but no longer answering (stopped,
or its loop blocked) is found by the wall's heartbeat (:mod:`.heartbeat`), killed, and started
again the same way.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any, Callable, Protocol

from .child import PhonesServer
from .heartbeat import Heartbeat
from .pipe import Pipe
from .room import Room
from .door import join_url, listening_socket
from .server import Box

log = logging.getLogger(__name__)

BACKOFF_S = 1.0
"""How long after the server ends it is started again; doubled each time it ends within
:data:`STEADY_S` of its start, up to :data:`LONGEST_BACKOFF_S`."""
LONGEST_BACKOFF_S = 60.0
STEADY_S = 60.0
STOP_S = 5.0
"""How long the server has to close its phones' connections when the box stops."""
PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent
"""Where ``companion`` was imported from: the server imports the same."""


class Referee(Box, Protocol):
    """What the wall asks of the daemon beyond the server's calls."""

    def phone_joined(self, station: int, name: str | None) -> str: ...  # at once, not awaited
    def phone_panel(self, station: int) -> dict[str, Any]: ...
    def phone_host_page(self) -> dict[str, Any]: ...
    def phone_server(self, serving: bool) -> None: ...


class WebWall:
    """The daemon's side: what it calls on the web companion, across the wall. ``here`` runs the
    server on this loop instead of a process (the fake-clock tests: the same pipe, one clock)."""

    def __init__(self, box: Referee, room: Room, now_ns: Callable[[], int] = time.monotonic_ns) -> None:
        self.box = box
        self.room = room
        self.now_ns = now_ns
        self.here = False
        self.server: PhonesServer | None = None
        """The server, when it runs ``here``."""
        self.process: asyncio.subprocess.Process | None = None
        self.holders: set[int] = set()
        """Phone stations a phone holds now (as the server last said)."""
        self.join_url = ""
        self.serving = asyncio.Event()
        """Set while the server serves (from its word that it listens until its pipe closes)."""
        self.running: asyncio.Future | None = None
        """The server's run: its process's exit, or its task ``here``."""
        self.restarts = 0
        self._listening: socket.socket | None = None
        self._pipe: Pipe | None = None
        self._view: dict[str, Any] | None = None
        self._host_page: dict[str, Any] | None = None
        self._texts: dict[Any, str] = {}
        """What was last sent under each key (the view, the host's page, each panel), as JSON."""
        self.hosting = False
        """A phone hosts the quiz (as the server last said)."""
        self._panels: dict[int, tuple[int, dict[str, Any]]] = {}
        """Station -> (frame, panel) of its latest panel."""
        self._sent_ns: dict[int, int] = {}
        self._wanted: int | None = None
        self._racing = False
        self._backoff_s = BACKOFF_S
        self._started_ns = 0
        self._restart: asyncio.TimerHandle | None = None
        self._closing = False
        self.heartbeat: Heartbeat | None = None
        """The running server's heartbeat (None while none runs)."""

    async def start(self, host: str | None, port: int, shown_host: str) -> str:
        """Listen on ``host`` and ``port`` (0: any free one) and start the server; the join address."""
        self._listening = listening_socket(host, port)
        self.join_url = join_url(shown_host, self._listening, self.room.code)
        await self._spawn()
        return self.join_url

    async def close(self) -> None:
        """Close the pipe (the server then closes its phones' connections and ends) and wait."""
        self._closing = True
        if self._restart is not None:
            self._restart.cancel()
        if self._pipe is not None:
            self._pipe.close()
        if self.running is not None and not self.running.done():
            try:
                await asyncio.wait_for(asyncio.shield(self.running), STOP_S)
            except asyncio.TimeoutError:
                log.warning("phones: the phones' server did not stop within %g s: killed", STOP_S)
                if self.process is not None and self.process.returncode is None:
                    self.process.kill()
                await self.running
        if self._listening is not None:
            self._listening.close()

    # What the daemon shows, sent across

    def show_table(self, view: dict[str, Any]) -> None:
        """The table's public view, if changed."""
        if self._changed("table", view):
            self._view = view
            self._send(["table", view], "table")

    def show_host(self, page: dict[str, Any]) -> None:
        """The quiz host's page, if changed (to the host's phone alone, by the server)."""
        if self._changed("host_page", page):
            self._host_page = page
            self._send(["host_page", page], "host_page")

    def show_panel(self, station: int, panel: dict[str, Any]) -> None:
        """A phone station's panel, if changed: numbered here, its time of sending noted."""
        if not self._changed(("panel", station), panel):
            return
        old = self._panels.get(station)
        frame = 0 if old is None else old[0] + 1
        self._panels[station] = frame, panel
        self._sent_ns[station] = self.now_ns()
        self._send(["panel", station, frame, panel], ("panel", station))

    def _changed(self, key, value: dict[str, Any]) -> bool:
        """Whether ``value`` differs from what was last sent under ``key`` (then it is noted)."""
        text = json.dumps(value, sort_keys=True)
        if self._texts.get(key) == text:
            return False
        self._texts[key] = text
        return True

    def panel_sent(self, station: int) -> tuple[int, int] | None:
        """The frame a phone station's holder was last sent and when (box ns; sent across the
        wall then, so its phone showed it no earlier)."""
        if station not in self.holders or station not in self._panels:
            return None
        return self._panels[station][0], self._sent_ns[station]

    def want(self, due_ns: int | None) -> None:
        """A race waits for every phone's watermark to pass ``due_ns``: the server pings them in time."""
        if due_ns is not None and due_ns != self._wanted:
            self._wanted = due_ns
            self._send(["want", due_ns], "want")

    def racing(self, open_: bool) -> None:
        """A race opened or closed: the server pings the seated phones faster while one is open."""
        if open_ != self._racing:
            self._racing = open_
            self._send(["racing", open_], "racing")

    def _send(self, message: list, key) -> None:
        if self._pipe is not None:
            self._pipe.send(message, key)

    def check(self, now_ns: int) -> None:
        """At each of the referee's steps: the heartbeat's beat when due, and a server that has
        left its beats unanswered too long (:meth:`.Heartbeat.hung`) killed and started again."""
        heartbeat = self.heartbeat
        if heartbeat is None or self._pipe is None or self._pipe.closed:
            return
        waited_s = heartbeat.hung(now_ns)
        if waited_s is not None:
            log.error("phones: the phones' server has answered none of the last %d beats in %.1f s: it is hung "
                      "(stopped, or its loop blocked); killed, to be started again", heartbeat.sent -
                      heartbeat.answered_up_to, waited_s)
            self._pipe.close()
            self._ended()
            return
        number = heartbeat.beat(now_ns)
        if number is not None:
            self._send(["beat", number], "beat")

    def due_ns(self) -> int | None:
        """When the referee must next step for the heartbeat (None while no server runs)."""
        return None if self.heartbeat is None else self.heartbeat.due_ns()

    # The server's life

    async def _spawn(self) -> None:
        panels = [[station, frame, panel] for station, (frame, panel) in self._panels_now().items()]
        ours, theirs = socket.socketpair()
        loop = asyncio.get_running_loop()
        self._started_ns = time.monotonic_ns()
        self.heartbeat = Heartbeat(self.now_ns())
        if self.here:
            self.server = PhonesServer(theirs, self._listening.dup(), lambda: self.now_ns())
            self.running = asyncio.ensure_future(self.server.run())
        else:
            fds = (theirs.fileno(), self._listening.fileno())
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(PACKAGE_ROOT),
                                                                              os.environ.get("PYTHONPATH"))))}
            try:
                self.process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "companion.web.child", "--pipe", str(fds[0]), "--listen", str(fds[1]),
                    pass_fds=fds, stdin=asyncio.subprocess.DEVNULL, env=env)
            finally:
                theirs.close()
            normal_priority(self.process.pid)
            self.running = asyncio.ensure_future(self.process.wait())
        self._pipe = Pipe(ours, loop, self._heard, self._ended, "the phones' server")
        if self._closing:  # the box stopped while it started: it ends at once
            self._pipe.close()
            return
        self._pipe.send(["start", {
            "code": self.room.code, "pin": self.room.host.pin, "seats": [[s.station, s.buzzer] for s in self.room.seats.values()],
            "claims": None if self.room.claims is None else str(self.room.claims), "held": self.room.claims_held(),
            "join_url": self.join_url, "panels": panels}])
        self._send(["table", self._view if self._view is not None else self.box.phone_view()], "table")
        self._send(["host_page", self._host_page if self._host_page is not None else self.box.phone_host_page()],
                   "host_page")
        if self._wanted is not None:
            self._send(["want", self._wanted], "want")
        if self._racing:
            self._send(["racing", True], "racing")

    def _panels_now(self) -> dict[int, tuple[int, dict[str, Any]]]:
        """Every phone station's panel (asked of the box for one never shown yet)."""
        for station in self.room.seats:
            if station not in self._panels:
                self.show_panel(station, self.box.phone_panel(station))
        return self._panels

    def _heard(self, message: list) -> None:
        try:
            kind, *fields = message
            if kind == "beat":
                self.heartbeat.answered(int(fields[0]))
            elif kind == "ready":
                self._up()
            elif kind == "claims":
                self.room.hold(fields[0])
            elif kind == "hosting":
                self.hosting = bool(fields[0])
                self.box.phone_hosting(self.hosting)
            elif kind == "host":
                self.box.phone_host(str(fields[0]), int(fields[1]), None if fields[2] is None else int(fields[2]))
            else:
                station = fields[0]
                if station not in self.room.seats:
                    raise ValueError(f"station {station!r} is not a phone station")
                if kind == "joined":
                    self.holders.add(station)
                    self._pipe.send(["named", station, self.box.phone_joined(station, fields[1])])
                elif kind == "left":
                    self.holders.discard(station)
                    self.box.phone_left(station)
                elif kind == "press":
                    self.box.phone_press(station, str(fields[1]), bool(fields[2]), int(fields[3]), int(fields[4]))
                elif kind == "mark":
                    self.box.phone_watermark(station, int(fields[1]))
                elif kind == "painted":
                    self.box.phone_painted(station, int(fields[1]), int(fields[2]), int(fields[3]))
                else:
                    raise ValueError(f"no such message {kind!r}")
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
            log.error("phones: the phones' server said what the referee does not read (%s): it is restarted", e)
            self._pipe.close()
            self._ended()

    def _up(self) -> None:
        self.serving.set()
        if self.restarts:
            log.info("phones: the phones' server is back (restart %d): phones rejoin", self.restarts)
        self.box.phone_server(True)

    def _ended(self) -> None:
        """The pipe closed: the server ended (or must). Its phones have left; started again later."""
        if self._closing:
            return
        self.serving.clear()
        self.heartbeat = None
        if self.process is not None and self.process.returncode is None:
            self.process.kill()  # a server that broke the pipe's protocol, is hung, or closed it and lingers
        elif self.here and self.running is not None:
            self.running.cancel()  # the same, on this loop
        for station in sorted(self.holders):
            self.box.phone_left(station)
        self.holders.clear()
        if self.hosting:
            self.hosting = False
            self.box.phone_hosting(False)
        self.box.phone_server(False)
        if time.monotonic_ns() - self._started_ns >= STEADY_S * 1e9:  # it had run well: a fault, not a loop
            self._backoff_s = BACKOFF_S
        delay = self._backoff_s
        self._backoff_s = min(LONGEST_BACKOFF_S, delay * 2)
        log.warning("phones: the phones' server ended; wired stations play on, phones rejoin once it is started "
                    "again in %g s", delay)
        self.restarts += 1
        self._restart = asyncio.get_running_loop().call_later(delay, self._respawn)

    def _respawn(self) -> None:
        self._restart = None
        if not self._closing:
            asyncio.ensure_future(self._spawn())


def normal_priority(pid: int) -> None:
    """``pid`` down to ``SCHED_OTHER`` at once (a process may lower another of its user's; the
    unit's ``RestrictRealtime=`` refuses only raising): the referee's real-time priority is the
    referee's alone. The server's first few milliseconds, its interpreter starting, run at the
    referee's priority: nothing of a phone's is read before this."""
    try:
        os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))
    except (AttributeError, OSError) as e:  # not Linux: no real-time priority to drop
        log.warning("phones: the phones' server keeps the referee's priority (%s)", e)
