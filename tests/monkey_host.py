"""The table monkey's quiz host on a phone: beside a life's box, a :class:`~bench.phoneclient.PhoneClient`
takes the host's role with the PIN the box logs, and presses the keys its page offers at random
(arm, right, wrong, next, skip, pick, correct the last verdict, pause) while the script's host
presses the station's keys: two hosts on one night, as docs/QUIZ.md lets them be.

It runs on its own thread and event loop (the monkey's are a process watcher's), from the box's
first log line naming where phones join until the box ends or is killed. What it counts goes into
the monkey's figures; a box that will not let it host with the PIN it logged is a failure
(``host``), and so is a page whose keys the box refuses as broken frames (the phone closed).
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
from collections import Counter
from pathlib import Path

import aiohttp

from bench.phoneclient import PhoneClient

WEB = '\n[web]\nenabled = true\nport = 0\nbind = "loopback"\n'
"""The profile section a phone-hosted night adds: the phones' server on loopback, any free port."""
JOIN = re.compile(r"phones: join at (http://\S+)/\?room=\S+ \(room ([A-Z]+)\)")
PIN = re.compile(r"joins with the PIN (\d{6})")
WEIGHTS = {"arm": 4, "right": 3, "wrong": 2, "next": 1, "skip": 1, "pick": 3, "correct": 1, "pause": 1}
GAP_S = (0.05, 1.2)
"""How long the host waits between two keys: a quick thumb, or a question read aloud."""
CLOSE_REFUSED, CLOSE_POLICY = 4003, 1008


def hosted(profile_text: str) -> str:
    """The profile with its phones' server on (a profile with one already is left)."""
    return profile_text if "[web]" in profile_text else profile_text + WEB


class HostPhone:
    """The host's phone for one life of the box whose log is ``log_path``."""

    def __init__(self, log_path: Path, seed: int) -> None:
        self.log_path = log_path
        self.rnd = random.Random(seed)
        self.figures = Counter()
        self.problems: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._host()), daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """The box has ended: the phone stops (its link is gone with the box)."""
        self._stop.set()
        self._thread.join(30)

    def _where(self) -> tuple[str, str, str] | None:
        """The join address, room code and PIN from the box's log, once it has said them."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        join, pin = JOIN.search(text), PIN.search(text)
        return (join.group(1), join.group(2), pin.group(1)) if join and pin else None

    async def _host(self) -> None:
        where = None
        while where is None and not self._stop.is_set():
            where = self._where()
            await asyncio.sleep(0.05)
        if where is None:
            return  # killed before its phones' server started
        url, room, pin = where
        async with aiohttp.ClientSession() as session:
            phone = PhoneClient(session, url)
            try:
                welcome = await phone.join(room, "host", pin=pin)
            except aiohttp.ClientError:
                return  # the box went down as the phone joined (a kill)
            if welcome is None:
                if phone.refused is not None:
                    self.problems.append(f"the box refused its own PIN: {phone.refused}")
                return
            self.figures["host_phone_lives"] += 1
            try:
                await self._press(phone)
            finally:
                await phone.close()
            if phone.closed_code in (CLOSE_REFUSED, CLOSE_POLICY):
                self.problems.append(f"the box closed the host's phone ({phone.closed_code}): "
                                     f"{[f for f in phone.received if f['type'] != 'ping'][-3:]}")

    async def _press(self, phone: PhoneClient) -> None:
        """Keys of the page at random, until the box ends or the phone's link does."""
        while not self._stop.is_set() and phone.closed_code is None:
            await asyncio.sleep(self.rnd.uniform(*GAP_S))
            page = phone.host_page or {}
            keys = page.get("keys") or []
            if not keys:
                continue
            act = self.rnd.choices(keys, [WEIGHTS[k] for k in keys])[0]
            seat = self.rnd.choice(page["tied"])["seat"] if act == "pick" and page.get("tied") else None
            try:
                await phone.host(act, seat)
            except (aiohttp.ClientError, ConnectionError, RuntimeError):
                return  # the box was killed
            self.figures[f"host_key_{act}"] += 1
        # keys the station's host (the script) had made stale by the time they came: refused, said
        self.figures["host_keys_refused"] += sum(f["page"].get("note", "").startswith("Not done")
                                                 for f in phone.frames("host"))
