"""Telling systemd how the daemon is doing: ready, alive (watchdog), stopping.

The protocol is one datagram per message on the socket named by ``$NOTIFY_SOCKET`` (a leading
``@`` means Linux's abstract namespace). Outside systemd there is no socket and every call does
nothing, so the daemon runs the same by hand.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Mapping

log = logging.getLogger(__name__)


class Notifier:
    def __init__(self, environ: Mapping[str, str] = os.environ) -> None:
        address = environ.get("NOTIFY_SOCKET", "")
        self.address = "\0" + address[1:] if address.startswith("@") else address
        usec = environ.get("WATCHDOG_USEC", "")
        self.watchdog_interval_ns = int(usec) * 1000 // 2 if usec.isdigit() and int(usec) > 0 else None
        """Half the watchdog timeout, as systemd advises; None when no watchdog is set."""
        self._last_ping_ns: int | None = None

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def send(self, message: str) -> None:
        if not self.address:
            return
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto(message.encode(), self.address)
        except OSError as e:  # a lost notification must never stop the game
            log.warning("could not notify systemd (%s): %s", message.split("=")[0], e)

    def ready(self, status: str = "") -> None:
        self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def alive(self, now_ns: int) -> None:
        """Ping the watchdog if half its timeout has passed since the last ping. Called from the
        event loop, so a hung loop stops the pings and systemd restarts the service."""
        interval = self.watchdog_interval_ns
        if interval is None:
            return
        if self._last_ping_ns is None or now_ns - self._last_ping_ns >= interval:
            self._last_ping_ns = now_ns
            self.send("WATCHDOG=1")

    def extend_start(self, seconds: float) -> None:
        """Ask systemd for ``seconds`` more to start (a long journal to replay before the first
        frame), so the unit's start timeout does not kill a resume that is simply long."""
        self.send(f"EXTEND_TIMEOUT_USEC={round(seconds * 1e6)}")

    def stopping(self) -> None:
        self.send("STOPPING=1")
