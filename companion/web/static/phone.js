"use strict";
/*
 * The phone's page: join a room, then watch the table, play a seat, buzz in a quiz or host it
 * (docs/PHONES.md; the messages are docs/PHONE-PROTOCOL.md's).
 *
 * The page decides nothing. The box keeps the phone's clock synced and judges every race, so the
 * page only says, on its own clock, when things happened: a touch's own event time, the frame an
 * image was painted in, and the time it answered each ping. Those answers are sent at once and
 * never adjusted here: the box's offset and error for this phone are measured from them.
 *
 * Everything a player typed (names) reaches the page as text and is shown with textContent,
 * never as markup.
 */
(function () {
  const $ = (id) => document.getElementById(id);

  /** Now, on the phone's clock, in ms: the same clock as a touch's event time. */
  const phoneMs = () => performance.timeOrigin + performance.now();

  const KEY_LABELS = { slap: "SLAP", left: "\u25C0", ok: "OK", right: "\u25B6" };
  const RETRY_MS = [250, 500, 1000, 2000, 4000];
  const TAKEN_BACK = 4001;
  const SILENT_MS = 3000;  // the box pings every 250 ms: this long without a word, the link is gone
  const HISTORY = 30;
  const HAPTIC_MS = 15;
  const BEAT_MS = 50;         // the page's heartbeat: a later beat means the main thread was busy
  const STALL_MS = 1000;      // how long a stall is told in every pong after it

  let socket = null;
  let joining = null;   // {room, role, name, token}: what the next hello says
  let refused = false;  // the box said no: no rejoining until the player asks again
  let retries = 0;
  let retryTimer = null;
  let seq = 0;
  let heard = 0;        // when the box last said anything (phone ms)
  let keysShown = "";
  let lastRace = [];     // the race the newest history entry tells
  let paintedFrame = null;
  let synced = false;   // a ping answered on this connection: the box can place our times now
  let unsent = null;    // a painted report made before that, sent right after the first pong
  const pressed = new Map();  // seq -> the key's button, until the box says it got that press

  // --- the seat token, kept per room so a reload or a dropped connection retakes the seat ----

  const tokenKey = (room) => "companion.seat." + room;

  function storedSeat(room) {
    try {
      const seat = JSON.parse(localStorage.getItem(tokenKey(room)));
      return seat && typeof seat.token === "string" ? seat : null;
    } catch (e) {
      return null;
    }
  }

  function keepSeat() {
    localStorage.setItem(tokenKey(joining.room), JSON.stringify(
      { token: joining.token, role: joining.role, name: joining.name }));
  }

  // --- the connection ------------------------------------------------------------------------

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(scheme + "//" + location.host + "/ws");
    socket = ws;
    synced = false;
    unsent = null;
    document.body.classList.add("unsynced");
    ws.onopen = () => {
      heard = phoneMs();
      const hello = { type: "hello", room: joining.room, role: joining.role };
      if (joining.name) hello.name = joining.name;
      if (joining.token) hello.token = joining.token;
      else if (joining.pin) hello.pin = joining.pin;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (event) => {
      heard = phoneMs();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      const handler = HANDLERS[message.type];
      if (handler) handler(message);
    };
    ws.onclose = (event) => {
      if (socket !== ws) return;
      socket = null;
      if (event.code === TAKEN_BACK) {  // never take it back in turn: two tabs would fight
        refused = true;
        say("This seat is played on another page now");
      }
      dropped();
    };
  }

  /** The connection is gone: unless the box refused us, try again with the seat's token. */
  function dropped() {
    document.body.classList.add("offline");
    if (refused || !joining) return;
    say(joining.role === "watch" ? "Connection lost: reconnecting\u2026"
      : "Connection lost: rejoining your seat\u2026");
    const wait = RETRY_MS[Math.min(retries, RETRY_MS.length - 1)];
    retries += 1;
    retryTimer = setTimeout(connect, wait);
  }

  /** A link that dies without a word (Wi-Fi gone, the phone asleep) never closes by itself: the
   * box's pings stop, so the page gives it up and rejoins, instead of showing a seat that is
   * not connected. */
  function checkSilence() {
    const ws = socket;
    if (!ws || ws.readyState !== WebSocket.OPEN || phoneMs() - heard < SILENT_MS) return;
    socket = null;
    ws.close();
    dropped();
  }

  setInterval(checkSilence, SILENT_MS / 4);

  function rejoinNow() {
    if (joining && !refused && !socket) connect();
  }

  window.addEventListener("online", rejoinNow);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") rejoinNow();
  });

  // --- the clock's step ----------------------------------------------------------------------
  /*
   * Browsers coarsen performance.now() (5 us to 0.1 ms in Chrome, whose clamp jitters up as well
   * as down; 1 ms in Firefox and Safari; 16.67 ms or 100 ms when resisting fingerprinting), so a
   * stamp may be a step from the true time either way. Every pong says the step, and the box
   * widens this phone's error by it rather than assuming one. Measured once, at load: the
   * smallest change between the clock's next few changes (at most a quarter second of looking).
   */
  const CLOCK_STEP_MS = (function () {
    const start = performance.now();
    let last = start;
    const changes = [];
    while (changes.length < 4 && last - start < 250) {
      const now = performance.now();
      if (now !== last) changes.push(now);
      last = now;
    }
    let step = 1000;  // no two changes seen: coarser than the look, say the most the box takes
    for (let i = 1; i < changes.length; i++) step = Math.min(step, changes[i] - changes[i - 1]);
    return Math.min(1000, Math.max(0.001, step));
  })();

  // --- the main thread's stalls --------------------------------------------------------------
  /*
   * A touch is stamped when it happens, but handled when the main thread is free: behind a busy
   * task the page may answer a ping before it handles a touch made earlier (Chromium does), so a
   * pong's "every press before t has been sent" would be false by up to the stall. The page cannot
   * see input still queued for it, but it can see that it was busy: a heartbeat that comes late.
   * Each pong says the longest gap between beats in the last second (a beat on time: 0), and the
   * box holds this phone's watermark back by it; each press says its own handler's delay.
   * A hidden page cannot be touched, so it says 0.
   */
  let lastBeat = phoneMs();
  let gaps = [];  // [when the beat came, how long after the one before]

  function beat() {
    const now = phoneMs();
    gaps.push([now, now - lastBeat]);
    lastBeat = now;
    gaps = gaps.filter(([at]) => at > now - STALL_MS);
  }

  function stall() {
    if (document.hidden) return 0;
    const now = phoneMs();
    let longest = 0;
    for (const [at, gap] of gaps.concat([[now, now - lastBeat]])) {
      if (at > now - STALL_MS && gap > 1.5 * BEAT_MS) longest = Math.max(longest, gap);
    }
    return longest;
  }

  setInterval(beat, BEAT_MS);
  document.addEventListener("visibilitychange", () => {
    lastBeat = phoneMs();
    gaps = [];
  });

  // --- what the box sends --------------------------------------------------------------------

  const HANDLERS = {
    welcome(m) {
      retries = 0;
      pressed.clear();
      refused = false;
      joining.role = m.role;
      joining.name = m.name || joining.name;
      joining.token = m.token || joining.token;
      if (m.role !== "watch" && joining.token) keepSeat();
      joining.pin = null;  // the token takes the role back from now on
      document.body.dataset.role = m.role;
      $("join").hidden = true;
      $("table").hidden = false;
      $("seat").hidden = m.role === "watch" || m.role === "host";
      $("host").hidden = m.role !== "host";
      $("history-box").open = m.role === "watch";  // a watcher has the room for it
      const seat = m.role === "watch" || m.role === "host" ? ""
        : "Seat " + m.seat + (joining.name ? ": " + joining.name : "");
      say(m.role === "watch" ? "Watching room " + m.room : m.role === "host" ? "Hosting room " + m.room : seat);
      $("seat-name").textContent = seat;
      $("panel").alt = seat + ", its panel";
      if (m.keys && m.keys.length) showKeys(m.keys);
    },

    refused(m) {
      refused = true;
      if (joining && joining.token) localStorage.removeItem(tokenKey(joining.room));
      if (joining && joining.role === "host") $("hosting").open = true;  // the PIN is asked again
      joining = null;
      showJoin(m.reason || "The box refused to join.");
    },

    ping(m) {
      send({ type: "pong", id: m.id, t: phoneMs(), lag: stall(), res: CLOCK_STEP_MS });
      if (!synced) {
        synced = true;
        document.body.classList.remove("offline", "unsynced");
        if (unsent) send(unsent);
        unsent = null;
      }
    },

    table(m) {
      showTable(m.view || {});
    },

    panel(m) {
      showPanel(m);
    },

    host(m) {
      showHost(m.page || {});
    },

    got(m) {
      const button = pressed.get(m.seq);
      pressed.delete(m.seq);
      if (!button) return;
      button.classList.remove("flash");
      void button.offsetWidth;  // restart the flash's animation
      button.classList.add("flash");
    },
  };

  // --- a seat's panel and keys ---------------------------------------------------------------

  /** Show the seat's panel; once the frame that paints it starts, say so with that frame's time
   * (the box times a reveal on this phone from it, as it does from a panel's onset). */
  function showPanel(m) {
    const img = $("panel");
    const frame = m.frame;
    paintedFrame = frame;
    img.src = "data:image/png;base64," + m.png;
    $("light").className = "light " + (m.light || "off");
    showKeys(m.keys || ["slap"]);
    img.decode().catch(() => null).then(() => {
      if (paintedFrame !== frame) return;  // a newer frame came: it reports itself
      requestAnimationFrame((ts) => {
        if (paintedFrame !== frame) return;
        const painted = { type: "painted", frame: frame, t: performance.timeOrigin + ts };
        if (synced) send(painted);
        else unsent = painted;
      });
    });
  }

  function showKeys(keys) {
    const shown = keys.join(" ");
    if (shown === keysShown) return;
    keysShown = shown;
    const box = $("keys");
    box.replaceChildren();
    box.classList.toggle("buzzer", shown === "slap");
    for (const key of keys) {
      if (!(key in KEY_LABELS)) continue;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "key key-" + key;
      button.dataset.key = key;
      button.textContent = shown === "slap" ? "BUZZ" : KEY_LABELS[key];
      button.setAttribute("aria-label", key);
      button.addEventListener("pointerdown", (e) => touch(e, key, true));
      button.addEventListener("pointerup", (e) => touch(e, key, false));
      button.addEventListener("pointercancel", (e) => touch(e, key, false));
      button.addEventListener("contextmenu", (e) => e.preventDefault());
      box.appendChild(button);
    }
  }

  /** A key goes down or up: sent with the touch's own time. The phone buzzes at the touch
   * (where it can), and the key flashes once the box says it got the press. */
  function touch(event, key, down) {
    const lag = Math.max(0, performance.now() - event.timeStamp);  // first: the handler's delay
    const button = event.currentTarget;
    event.preventDefault();
    if (down) {
      button.setPointerCapture(event.pointerId);
    } else if (!button.classList.contains("down")) {
      return;
    }
    button.classList.toggle("down", down);
    if (!synced) return;  // the box cannot place a touch on its clock before our first pong
    seq += 1;
    const sent = send({ type: "press", key: key, down: down,
      t: performance.timeOrigin + event.timeStamp, seq: seq, lag: lag });
    if (!down || !sent) return;
    pressed.set(seq, button);
    if (navigator.vibrate) navigator.vibrate(HAPTIC_MS);
  }

  // --- the quiz host's page ------------------------------------------------------------------
  /*
   * Sent to the host's phone alone: the question to read, its answer and notes, every ring-in
   * with its delay and margin, who answers and who is next, and the keys that do something now.
   * Each key says the turn of the page it was pressed on: a page the other host (at the station)
   * has moved past is refused by the box, never applied to what came after.
   */
  let hostKeysShown = "";

  function hostLabel(key, page, tied) {
    if (key === "pick") return "Pick " + tied.name;
    if (key === "pause") return page.paused ? "Go on" : "Pause";
    if (key === "correct") return "Correct: " + page.last + " \u2192 " + (/right$/.test(page.last) ? "wrong" : "right");
    return { arm: "Arm buzzers", right: "Right", wrong: "Wrong", skip: "Skip question",
      next: "Next question" }[key] || key;
  }

  function showHost(page) {
    text("h-heading", page.quiz ? page.heading + (page.category ? " \u00B7 " + page.category : "") : "");
    text("h-question", page.text);
    text("h-answer", page.answer ? "Answer: " + page.answer : "");
    text("h-notes", page.notes);
    text("h-status", page.status);
    text("h-note", page.note);
    const race = page.race || [];
    items("h-race", race, (li, r) => {
      const who = document.createElement("span");
      who.textContent = r.name + (r.name === page.answering ? " answers" : "");
      const at = document.createElement("span");
      at.className = "when";
      at.textContent = (r.delta_ms === 0 ? (r.note || "first") : when(r.delta_ms) + (r.note ? " " + r.note : ""))
        + (r.margin_ms >= 0.5 ? " \u00B1" + Math.round(r.margin_ms) + " ms" : "");
      li.append(who, at);
      li.className = r.note || (r.delta_ms === 0 ? "first" : "");
    });
    text("h-next", page.next ? "Next if wrong: " + page.next : "");
    const keys = [];
    for (const key of page.keys || []) {
      if (key === "pick") for (const tied of page.tied || []) keys.push([key, tied]);
      else keys.push([key, null]);
    }
    const shown = JSON.stringify([page.turn, page.paused, page.last, keys]);
    if (shown === hostKeysShown) return;
    hostKeysShown = shown;
    const box = $("h-keys");
    box.replaceChildren();
    for (const [key, tied] of keys) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "key key-" + key;
      button.dataset.key = key;
      button.textContent = hostLabel(key, page, tied);
      button.addEventListener("click", () => {
        seq += 1;
        const act = { type: "host", act: key, turn: page.turn, seq: seq };
        if (tied) act.seat = tied.seat;
        if (send(act)) pressed.set(seq, button);
      });
      box.appendChild(button);
    }
  }

  // --- the table screen's public view --------------------------------------------------------

  function text(id, value) {
    const el = $(id);
    el.textContent = value || "";
    el.hidden = !value;
  }

  function items(id, values, fill) {
    const list = $(id);
    list.replaceChildren();
    for (const value of values) {
      const li = document.createElement("li");
      fill(li, value);
      list.appendChild(li);
    }
    list.hidden = values.length === 0;
  }

  function when(ms) {
    if (Math.abs(ms) < 1 && ms !== 0) return (ms > 0 ? "+" : "") + Math.round(ms * 1000) + " \u00B5s";
    return (ms > 0 ? "+" : "") + Math.round(ms) + " ms";
  }

  /** A phone's press is placed within its clock's error: the margin the verdict allowed it, as
   * the TV says it (a wired station's is 0, and not said). */
  function margin(r) {
    return r.error_ms >= 0.5 && r.note !== "false start" ? " \u00B1" + Math.round(r.error_ms) + " ms" : "";
  }

  function showTable(view) {
    const names = view.names || [];
    text("t-game", view.game);
    text("t-heading", view.heading);
    text("t-late", view.late);
    text("t-count", view.count === null || view.count === undefined ? "" : String(view.count));
    text("t-clock", view.clock);
    $("t-clock").classList.toggle("hurry", !!view.hurry);
    text("t-turn", view.turn);
    text("t-board", view.board ? view.board.match(/.{1,3}/g).join("\n") : "");
    text("t-footer", view.notice || view.footer);
    $("t-footer").classList.toggle("notice", !!view.notice);

    const scores = view.scores || [];
    const winners = view.winners || [];
    items("t-scores", names.map((name, i) => i), (li, i) => {
      const who = document.createElement("span");
      who.textContent = names[i];
      const points = document.createElement("b");
      points.textContent = i < scores.length ? String(scores[i]) : "";
      li.append(who, points);
      li.classList.toggle("mark", view.mark === i);
      li.classList.toggle("winner", winners.includes(i));
    });

    const race = view.race || [];
    const counted = race.filter((r) => r.note !== "false start").map((r) => r.delta_ms);
    const span = Math.max(1, ...counted);
    items("t-race", race, (li, r) => {
      const who = document.createElement("span");
      who.textContent = r.name;
      const at = document.createElement("span");
      at.className = "when";
      at.textContent = (r.delta_ms === 0 && r.note !== "false start" ? (r.note || "first")
        : when(r.delta_ms) + (r.note ? " " + r.note : "")) + margin(r);
      const bar = document.createElement("i");
      bar.style.width = Math.max(0, Math.min(100, 100 * r.delta_ms / span)) + "%";
      li.append(who, at, bar);
      li.className = (r.note || "").replace(/\s+/g, "-");
    });

    items("t-cards", view.cards || [], (el, card) => {
      el.textContent = card.letter + ": " + (card.words || []).join(", ");
    });
    items("t-lines", view.lines || [], (li, line) => { li.textContent = line; });
    remember(view);
  }

  /** The page's history: each race with its latest verdict, newest first (the TV shows only the
   * latest; a phone can scroll back). A race that grows (later presses) or is judged ("was
   * right!") stays one entry, brought up to date. */
  function remember(view) {
    const race = (view.race || []).map((r) => r.name + (r.delta_ms === 0 ? "" : " " + when(r.delta_ms)));
    if (!race.length && !view.over) return;
    const entry = view.heading + (race.length ? " \u2014 " + race.join(", ") : "");
    const list = $("history");
    const same = lastRace.length > 0 && race.length >= lastRace.length
      && lastRace.every((press, i) => press === race[i]);
    lastRace = race;
    if (same && list.firstChild) {
      list.firstChild.textContent = entry;
      return;
    }
    const li = document.createElement("li");
    li.textContent = entry;
    list.prepend(li);
    while (list.children.length > HISTORY) list.lastChild.remove();
  }

  // --- joining -------------------------------------------------------------------------------

  function say(message) {
    $("status").textContent = message;
  }

  function showJoin(reason) {
    $("join").hidden = false;
    $("seat").hidden = true;
    $("host").hidden = true;
    $("table").hidden = true;
    $("refused").textContent = reason || "";
    say("Not joined");
  }

  function join(room, role, name, token, pin) {
    refused = false;
    retries = 0;
    joining = { room: room, role: role, name: name, token: token || null, pin: pin || null };
    history.replaceState(null, "", "?room=" + encodeURIComponent(room));
    say("Joining room " + room + "\u2026");
    connect();
  }

  $("join").addEventListener("submit", (event) => {
    event.preventDefault();
    const room = $("room").value.trim().toUpperCase();
    const name = $("name").value.trim();
    const role = event.submitter ? event.submitter.dataset.role : "watch";
    if (!room) return;
    const pin = $("pin").value.trim();
    if (role === "host" && !/^[0-9]{6}$/.test(pin)) {
      $("refused").textContent = "Type the host's PIN: six digits, on the quiz host's panel.";
      return;
    }
    const kept = storedSeat(room);
    localStorage.setItem("companion.name", name);
    $("pin").value = "";
    join(room, role, name, kept && kept.role === role ? kept.token : null, role === "host" ? pin : null);
  });

  const params = new URLSearchParams(location.search);
  const room = (params.get("room") || "").trim().toUpperCase();
  $("room").value = room;
  $("name").value = localStorage.getItem("companion.name") || "";
  const kept = room ? storedSeat(room) : null;
  if (kept) {
    join(room, kept.role, kept.name, kept.token);  // a reload: back to the same seat
  } else {
    showJoin("");
    $(room ? "name" : "room").focus();
  }
})();
