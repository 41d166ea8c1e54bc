"""A phone on the box's network, as far as the virtual Pi's guest has one (its loopback): asks the
web companion for the phone's page and opens its websocket (test harness only).

``python3 phone.py PORT SECONDS``: tries for up to SECONDS (0: once) until the page is served,
then prints ``page: STATUS BYTES bytes`` and ``socket: STATUS LINE`` of the websocket's upgrade;
``page: refused`` when nothing listens. Standard library only: the guest's own python3.
"""

import base64
import http.client
import os
import socket
import sys
import time

port, wait_s = int(sys.argv[1]), float(sys.argv[2])
deadline = time.monotonic() + wait_s
while True:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/")
        reply = conn.getresponse()
        print(f"page: {reply.status} {len(reply.read())} bytes")
        conn.close()
        break
    except OSError as e:
        if time.monotonic() >= deadline:
            print(f"page: refused ({e})")
            sys.exit(0)
        time.sleep(0.5)  # the web companion starts after the box's READY: polled until it serves
key = base64.b64encode(os.urandom(16)).decode()
with socket.create_connection(("127.0.0.1", port), timeout=30) as ws:
    ws.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    print(f"socket: {ws.makefile('rb').readline().decode(errors='replace').strip()}")
