"""Phones: the web companion behind its wall, and each phone station as a source of presses.

A phone station is a station like any other to the table: it is seated, drawn and raced. What
differs is how its presses and its screen travel, and how sure the box is of their times:

- its presses come over the network with the phone's own time of the touch, mapped to the box's
  clock with an error (:mod:`companion.web.phoneclock`); races never rank presses whose intervals
  overlap (:mod:`companion.arbiter.race`);
- each phone is a source with a watermark of its own, its heartbeat (every pong) less its error,
  so a race waits for every phone as for the button board; a phone silent for
  :data:`SILENT_NS` is dropped from the watermarks (races go on without it, every screen says
  so) until it answers again, and a press of it that would have changed a verdict is a late press;
- a race revealed on the screens times a phone from when its page painted the panel (its
  ``painted`` report), as a real panel from its onset; a phone that does not say so within
  :data:`PAINT_WAIT_NS` is timed from when the box sent it the race (no touch after that is a
  false start), the whole span since as its error.

The table screen's public view goes to every connection, and each phone station's panel to its
holder alone: nothing else leaves the box. The server itself runs in a process of its own at
normal priority (:mod:`companion.web.wall`): what the daemon calls on ``self.web`` and what the
server calls here cross a pipe, so a guest's frames cost this loop nothing; if the server dies,
every screen says so until it is back, and the wired stations play on meanwhile.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, replace
import socket
from typing import Any

from ..arbiter.inputs import InputEvent
from ..profile.box import MAX_NAME
from ..table import Table

log = logging.getLogger(__name__)

SILENT_NS = 1_500_000_000
"""A phone whose watermark has not moved for this long is not waited for: six pings missed. A
phone in Wi-Fi power save naps up to a second (races wait that long for it, as they must)."""
PAINT_WAIT_NS = 1_000_000_000
"""How long a reveal waits for a phone to say it painted the race."""
SERVER = -1
"""The phones' server, among the phone troubles (said first, in the lobby too)."""


def source_of(station: int) -> str:
    """A phone station's input source, as the watermarks name it."""
    return f"phone{station + 1}"


class Phones:
    """The daemon's part that serves the phones (:mod:`companion.web`); idle without ``[web]``."""

    def _open_phones(self) -> None:
        """Build the web companion if the profile enables it (at start, before the loop runs)."""
        self.web = None
        self.phone_stations = set(self.profile.phone_stations())
        self._phone_heard: dict[int, int] = {}
        """Held phone station -> when its watermark last moved (box ns)."""
        self._silent_phones: set[int] = set()
        self._phone_troubles: dict[int, tuple[str, str]] = {}
        """Phone station -> what every screen says of its phone (left, silent), while it plays."""
        self._phone_frames: dict[int, tuple[int, int]] = {}
        """Phone station -> (frame, sent ns) of the panel each phone was sent last."""
        self._painted: dict[int, tuple[int, int, int]] = {}
        """Phone station -> (frame, painted ns, error ns) of the latest panel its phone painted."""
        self._reveal_frames: dict[int, dict[int, tuple[int, int]]] = {}
        """Reveal number -> the phone stations' (frame, sent ns) that showed it."""
        self._panel_pngs: dict[int, tuple[tuple, str]] = {}
        """Phone station -> its panel's pixels and their PNG, as last encoded."""
        self._phones_served = False
        if not self.profile.web.enabled or not isinstance(self.table, Table):  # not for the self-test
            return
        from ..web.room import CLAIMS_FILE, PhoneSeat, Room
        from ..web.wall import WebWall

        seats = [PhoneSeat(i, self.profile.stations[i].buzzer_only) for i in sorted(self.phone_stations)]
        kept = self._state_dir is not None and not self.saving.unsaved
        room = Room(seats, claims=self._state_dir / CLAIMS_FILE if kept else None)
        if self._game_resumes:  # each phone seat is held for the phone that had it: it comes back with its token
            held = room.resume_claims()
            if held:
                log.info("phones: %d phone seats held for their phones (the interrupted game goes on)", held)
        else:
            room.forget_claims()
        self.web = WebWall(self, room)
        self.table.lobby.room = self.web.room.code
        self.table.phone_host.pin = room.host.pin
        self._host_acts: list[tuple[str, int, int | None]] = []
        """Keys of the host's phone not yet handed to the table (on the loop's next step)."""
        if self.public_view is None:
            from ..tablescreen.public import public_view

            self.public_view = public_view
        if self.phone_stations:  # a phone shows a race when it paints it: races wait to hear when
            self.timed_reveals = True
            self.table.screens_take_time = True

    async def _start_web(self) -> None:
        web = self.profile.web
        host = {"lan": "0.0.0.0", "loopback": "127.0.0.1"}.get(web.bind, web.bind)  # lan: IPv4, one port
        shown = lan_address() if web.bind == "lan" else host
        await self.web.start(host, web.port, shown)  # joined once its server says it serves (phone_server)
        self._shown = -1  # the lobby and the TV show the room code

    async def _stop_web(self) -> None:
        await self.web.close()

    # --- what the web companion asks of the box -------------------------------------------------

    def phone_joined(self, station: int, name: str | None) -> str:
        """A phone took (or took back) ``station``: races wait for it from its first pong. In the
        lobby, its name becomes the station's. The station's name now, for its welcome."""
        source = source_of(station)
        if source not in self.watermarks:
            self.watermarks.add_source(source, in_order=False)  # its pongs alone say how far it is
        self._silent_phones.discard(station)
        self._phone_trouble(station, None)
        if name is not None:
            self._rename(station, name)
        log.info("phones: station %d taken by a phone", station + 1)
        self._shown = -1
        self._wake_loop()
        return self._station_name(station)

    def phone_left(self, station: int) -> None:
        """Its connection closed: nothing more can come from it. Its seat waits for it (a bot
        takes it over only if a player asks, as for a player who leaves)."""
        source = source_of(station)
        if source in self.watermarks:
            self.watermarks.remove_source(source)
        self._phone_heard.pop(station, None)
        name = self._station_name(station)
        self._phone_trouble(station, (f"{name}'s phone left", f"{name}'s phone left: it rejoins with the room code"))
        log.info("phones: station %d's phone left", station + 1)
        self._wake_loop()

    def phone_press(self, station: int, key: str, down: bool, t_ns: int, error_ns: int) -> None:
        self._on_edge(InputEvent(station, key, down, t_ns, source_of(station), error_ns))

    def phone_watermark(self, station: int, t_ns: int) -> None:
        source = source_of(station)
        if source not in self.watermarks:
            self.watermarks.add_source(source, in_order=False)
        if station in self._silent_phones:
            self._silent_phones.discard(station)
            self._phone_trouble(station, None)
            log.info("phones: station %d's phone answers again", station + 1)
        self.watermarks.report(source, t_ns)
        self._phone_heard[station] = self.web.now_ns()  # the clock the pings are stamped on
        if self.table.wakeup_ns() is not None or self._shown_reveals:
            self._wake_loop()

    def phone_painted(self, station: int, frame: int, t_ns: int, error_ns: int) -> None:
        self._painted[station] = (frame, t_ns, error_ns)
        if self._shown_reveals:
            self._wake_loop()

    def phone_server(self, serving: bool) -> None:
        """The phones' server serves (the first time: where to join is logged), or it ended and is
        started again: every screen says so until it is back."""
        if serving and not self._phones_served:
            self._phones_served = True
            log.info("phones: join at %s (room %s)", self.web.join_url, self.web.room.code)
            log.info("phones: the quiz host's phone joins with the PIN %s (shown on the host's panel)",
                     self.web.room.host.pin)
        self._phone_trouble(SERVER, None if serving else ("phones restarting", "The phones' server is restarting: "
                                                          "phones rejoin in a moment"))
        self._wake_loop()

    def phone_hosting(self, hosting: bool) -> None:
        """A phone hosts the quiz now, or no longer: the host's panel shows the PIN only without one."""
        self.table.hosting(hosting)
        log.info("phones: %s", "a phone hosts the quiz" if hosting else "the quiz host's phone left")
        self._wake_loop()

    def phone_host(self, act: str, turn: int, seat: int | None) -> None:
        self._host_acts.append((act, turn, seat))
        self._wake_loop()

    def phone_host_page(self) -> dict[str, Any]:
        return self.table.host_page()

    def _take_host_acts(self, now_ns: int) -> None:
        """The host phone's keys since the last step, to the table in the order they came."""
        acts, self._host_acts = self._host_acts, []
        for act, turn, seat in acts:
            self.table.host_act(act, turn, seat, now_ns)

    def phone_view(self) -> dict[str, Any]:
        """The public view as the TV shows it (the room code, and in the lobby the join
        address; the notice every screen shows)."""
        return as_json(self._noticed(self._with_room(self.public_view(self.table))))

    def phone_panel(self, station: int, screen=None) -> dict[str, Any]:
        """A phone station's panel as the protocol sends it: the picture, its keys, its light."""
        if screen is None:
            screen = self._screens.get(station) or self.table.screen(station)
        lights = getattr(self.table, "lights", None)
        light = lights()[station] if lights is not None else "off"
        keys = ["slap"] if self.profile.stations[station].buzzer_only else ["slap", "left", "ok", "right"]
        return {"png": self._panel_png(station, screen), "keys": keys, "light": light}

    def _panel_png(self, station: int, screen) -> str:
        """The panel's PNG, encoded again only when its pixels changed. Every change on the table
        shows every phone station's panel, and the wall sends only those that differ; but the
        encoding (about 0.16 ms a panel on a laptop core, several times that on a Pi's) is the
        referee's time, so a quiz of eight phone buzzers paid it eight times for one changed panel."""
        from ..web.server import panel_png

        pixels = (screen.mode, screen.size, screen.tobytes())
        kept = self._panel_pngs.get(station)
        if kept is None or kept[0] != pixels:
            kept = self._panel_pngs[station] = pixels, panel_png(screen)
        return kept[1]

    # --- on the loop -----------------------------------------------------------------------------

    def _show_phones(self, screens: dict[int, Any], reveal: int | None) -> None:
        """Send what changed: the public view to everyone, each phone station's panel (as
        ``screens`` has it, notice and all) to its holder; a reveal notes the frame each phone
        was sent it in."""
        if self.web is None:
            return
        self.web.show_table(self.phone_view())
        self.web.show_host(self.table.host_page())
        self.web.racing(self.table.race_open())
        shown: dict[int, tuple[int, int]] = {}
        for station in sorted(self.phone_stations):
            self.web.show_panel(station, self.phone_panel(station, screens.get(station)))
            sent = self.web.panel_sent(station)
            if sent is not None:
                shown[station] = sent
        if reveal is not None:
            self._reveal_frames[reveal] = shown
            for old in [r for r in self._reveal_frames if r < reveal - 8]:
                del self._reveal_frames[old]

    def _phone_onsets(self, reveal: int, now_ns: int) -> tuple[dict[int, int], dict[int, int]] | None:
        """When each held phone painted ``reveal``, with its error; None while one may still say."""
        onsets, errors = {}, {}
        for station, (frame, sent_ns) in self._reveal_frames.get(reveal, {}).items():
            painted = self._painted.get(station)
            if painted is not None and painted[0] >= frame:
                onsets[station], errors[station] = painted[1], painted[2]
            elif now_ns - sent_ns < PAINT_WAIT_NS and station in self.web.holders:
                return None
            else:  # it painted between the send and now, if at all: timed from the send, the span its error
                onsets[station] = sent_ns  # the earliest it could have shown: no touch after it is early
                errors[station] = now_ns - sent_ns
                log.warning("phones: station %d did not say when it painted a race: timed from %d ms either way",
                            station + 1, errors[station] // 1_000_000)
        return onsets, errors

    def _phones_check(self, now_ns: int) -> None:
        """A held phone whose watermark stands still for :data:`SILENT_NS` is not waited for; the
        phones' server's heartbeat (:meth:`~companion.web.wall.WebWall.check`)."""
        self.web.check(now_ns)
        for station, heard in list(self._phone_heard.items()):
            source = source_of(station)
            if now_ns - heard > SILENT_NS and station not in self._silent_phones and source in self.watermarks:
                self._silent_phones.add(station)
                self.watermarks.remove_source(source)
                name = self._station_name(station)
                self._phone_trouble(station, (f"{name}'s phone silent", f"{name}'s phone is silent: races go on "
                                                                            "without it"))
                log.warning("phones: station %d's phone silent for %.1f s: races go on without it",
                            station + 1, (now_ns - heard) / 1e9)

    def _phones_due_ns(self) -> int | None:
        """When the next phone would be found silent, a reveal stops waiting for a painting, or
        the phones' server's next beat is due."""
        times = [heard + SILENT_NS + 1 for station, heard in self._phone_heard.items()
                 if station not in self._silent_phones]
        beat = self.web.due_ns()
        if beat is not None:
            times.append(beat)
        if self._shown_reveals:
            times += [sent + PAINT_WAIT_NS for frames in self._reveal_frames.values() for _, sent in frames.values()]
        return min(times, default=None)

    # --- helpers ---------------------------------------------------------------------------------

    def _with_room(self, view):
        """The public view with the room code, and in the lobby the join address (its QR code)."""
        if self.web is None:
            return view
        return replace(view, room=self.web.room.code,
                       join=self.web.join_url if getattr(self.table, "game", None) is None else "")

    def _phone_trouble(self, station: int, trouble: tuple[str, str] | None) -> None:
        """Note (or with None clear) what is wrong with a phone station's phone; every screen
        says the first of them (the panels' line, the TV's) while the phone plays in a game."""
        if trouble is None:
            self._phone_troubles.pop(station, None)
        else:
            self._phone_troubles[station] = trouble
        playing = [t for s, t in sorted(self._phone_troubles.items()) if s == SERVER or self._plays(s)]
        short, longer = playing[0] if playing else (None, None)
        self._tell(None if short is None else short[:21], "phones", longer, cue=False)

    def _plays(self, station: int) -> bool:
        """Whether ``station`` has a seat in the game in play."""
        seat_of = getattr(self.table, "seat_of", None)
        return getattr(self.table, "game", None) is not None and seat_of is not None and seat_of(station) is not None

    def _rename(self, station: int, name: str) -> None:
        """A phone's name for its station, while no game is being set up or played (a game keeps
        the names it started with); a name another station has is left."""
        name = " ".join(name.split())[:MAX_NAME]
        names = list(self.table.names)
        table = self.table
        if not name or name in names or getattr(table, "game", None) is not None \
                or getattr(table, "seating", None) is not None or getattr(table, "seated", None) is not None:
            return
        names[station] = name
        table.names = tuple(names)
        table.version += 1

    def _station_name(self, station: int) -> str:
        """The name the station plays under: its seat's in the game being set up or played (a
        resumed game's, from its journal), else the table's."""
        seated = getattr(self.table, "seated", None)
        if seated is not None and station in seated.stations:
            return seated.names[seated.stations.index(station)]
        return self.table.names[station] if station < len(self.table.names) else f"P{station + 1}"

    def _wake_loop(self) -> None:
        if self._wake is not None:
            self._wake.set()


def as_json(view) -> dict[str, Any]:
    """A :class:`~companion.tablescreen.publicview.PublicView` as plain JSON values."""
    return asdict(view)


def lan_address() -> str:
    """The address phones on the box's network reach it at: the one its default route leaves
    from (no packet is sent: a UDP socket's connect only picks the route); this machine's
    loopback if it has no network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, only routed
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"
