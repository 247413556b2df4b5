"""Live updates: one pump thread reads the game session's events and fans them out to every SSE client.

The pump calls ``session.events_since(seq, timeout)`` (the only blocking call on the session), keeps the
recent events in a ring buffer for clients catching up, renders the page's live parts once per batch
(``render_parts(snapshot)`` -> {part name: HTML}, from the page's snapshot, web.adapter; kept as ``parts``, the
JSON the ``view`` message carries) and wakes the clients. Each client is a generator of SSE text (``stream``):

    id: <epoch>-<seq>        one "game" message per event, data = the event's JSON
    event: game
    data: {...}

    event: view              after each batch (and on connect, and after ``refresh``): the rendered parts,
    data: {...}              data = {"seq", "epoch", "version" (renders so far), "parts"}

    : ping                   a heartbeat comment every ``heartbeat_s`` so proxies and Wi-Fi keep the line open

``epoch`` counts game sessions (the setup wizard can start a new game): an id from another epoch means the
browser missed a new game, so it gets a ``reset`` message and the current parts instead of old events.
A browser reconnecting after a Wi-Fi drop sends ``Last-Event-ID``; it gets the events it missed and then the
current parts, so the page is whole again whatever it missed.

Each open stream holds one of the web server's worker threads, so streams are admitted (``admit``) up to
``max_streams`` in all and ``max_streams_per_client`` per client: the rest are refused at once (the app answers
429/503 with ``Retry-After``; the page then polls ``/api/view``), and the server's other threads always answer
pages. ``web.server.make_server`` sets ``max_streams`` from its thread count. A stream ends within about a second
of its client going away (``stream(gone=...)``), so a tablet moving between pages frees its slot.

The parts can change without an event: ``watch()`` (optional) returns a key that changes when something they show
changed outside the session (the table profile's learning status, web.learning); the pump compares it about once a
second, between its waits for events, and re-renders when it moved (``refresh``).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque

from flask import Response, jsonify, request, stream_with_context

from web import adapter, security

RETRY_MS = 2000
MAX_STREAMS = 36  # in all: 48 worker threads less the 12 that web.server.make_server keeps for pages
MAX_STREAMS_PER_CLIENT = 6  # a browser opens at most 6 connections to one server, so one device never needs more


def format_sse(data: str, event: str | None = None, id: str | None = None) -> str:
    """One SSE message; multi-line data is split over several ``data:`` lines."""
    out = []
    if id is not None:
        out.append(f"id: {id}")
    if event is not None:
        out.append(f"event: {event}")
    out += [f"data: {line}" for line in (data.split("\n") or [""])]
    return "\n".join(out) + "\n\n"


def parse_last_id(text: str | None) -> tuple[int, int] | None:
    """``"3-41"`` -> (3, 41); None for a missing or malformed id."""
    if not text:
        return None
    epoch, sep, seq = str(text).strip().partition("-")
    if not sep or not epoch.isdigit() or not seq.isdigit() or len(text) > 40:
        return None
    return int(epoch), int(seq)


class Hub:
    """Fans one session's events out to many SSE clients. Thread-safe; ``start`` runs the pump thread."""

    def __init__(self, session, render_parts=None, buffer: int = 4096, poll_s: float = 1.0, heartbeat_s: float = 15.0,
                 max_streams: int = MAX_STREAMS, max_streams_per_client: int = MAX_STREAMS_PER_CLIENT,
                 watch=None):
        self.render_parts = render_parts or (lambda snap: {})
        self.watch = watch
        self._watched = None
        self.version = 0  # renders so far (``_render``)
        self.max_streams = max_streams
        self.max_streams_per_client = max_streams_per_client
        self._open: dict[str, int] = {}  # client -> admitted streams
        self.refused = {"client": 0, "total": 0}
        self.poll_s = poll_s
        self.heartbeat_s = heartbeat_s
        self._cond = threading.Condition()
        self._ring: deque = deque(maxlen=buffer)  # (seq, event JSON text)
        self._buffer = buffer
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.epoch = 0
        self.clients = 0
        self._cut = 0  # bumped by disconnect_all: streams opened before it end
        self.errors: list[str] = []
        self._install(session)

    # ---- session ---------------------------------------------------------------------------------------
    def _install(self, session) -> None:
        self.session = session
        self.seq = adapter.last_seq(session)
        self.parts = self._render()

    def _watch_key(self):
        if self.watch is None:
            return None
        try:
            return self.watch()
        except Exception as exc:  # a broken watch must not stop the pump; the page shows what it can
            self.errors.append(repr(exc))
            return None

    def _check_watch(self) -> None:
        """Re-render when ``watch()`` moved since the last render."""
        key = self._watch_key()
        if key != self._watched:
            self.refresh()

    def replace(self, session) -> None:
        """Switch to another game session (a new game from the setup wizard); clients get a reset."""
        with self._cond:
            self.epoch += 1
            self._ring = deque(maxlen=self._buffer)
            self._install(session)
            self._cond.notify_all()

    def refresh(self) -> None:
        """Re-render the live parts now (after a change that made no event, e.g. a new layout chosen); open streams
        get the new ``view`` at once."""
        with self._cond:
            self.parts = self._render()
            self._cond.notify_all()

    def _render(self) -> str:
        """The parts as the ``view`` message carries them (JSON text); every render moves ``version`` on, so an
        open stream sends a view that changed without an event. Called with the lock held or before ``start``."""
        self.version += 1
        self._watched = self._watch_key()
        try:
            parts = self.render_parts(adapter.snapshot(self.session))
        except Exception as exc:  # a broken snapshot must not kill the live page; show it instead
            self.errors.append(repr(exc))
            parts = {"status": f"<p class='error'>The game state could not be shown: {exc!r}</p>"}
        return json.dumps({"seq": self.seq, "epoch": self.epoch, "version": self.version, "parts": parts})

    def disconnect_all(self) -> None:
        """End every open stream now (browsers reconnect and catch up): before a restart, or to test recovery."""
        with self._cond:
            self._cut += 1
            self._cond.notify_all()

    # ---- pump ------------------------------------------------------------------------------------------
    def start(self) -> "Hub":
        if self._thread is None:
            self._thread = threading.Thread(target=self._pump, name="tablewatch-sse-pump", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _pump(self) -> None:
        while not self._stop.is_set():
            session, since = self.session, self.seq
            try:
                events = adapter.events_since(session, since, self.poll_s)
            except Exception as exc:  # keep serving; the session may recover (e.g. a locked database)
                self.errors.append(repr(exc))
                time.sleep(self.poll_s)
                continue
            if not events:
                if self.watch is not None and session is self.session:
                    self._check_watch()
                continue
            with self._cond:
                if session is not self.session:  # a new game started while we waited
                    continue
                for seq, data in events:
                    if seq > self.seq:
                        self._ring.append((seq, data))
                        self.seq = seq
                self.parts = self._render()
                self._cond.notify_all()

    # ---- clients ---------------------------------------------------------------------------------------
    def admit(self, who: str) -> str | None:
        """Take a stream slot for client ``who``: None when admitted (``release`` it when the stream ends), else
        why not: ``"client"`` (this client has ``max_streams_per_client`` open) or ``"total"`` (all are taken)."""
        with self._cond:
            if self._open.get(who, 0) >= self.max_streams_per_client:
                reason = "client"
            elif sum(self._open.values()) >= self.max_streams:
                reason = "total"
            else:
                self._open[who] = self._open.get(who, 0) + 1
                return None
            self.refused[reason] += 1
            return reason

    def release(self, who: str) -> None:
        with self._cond:
            n = self._open.get(who, 0) - 1
            if n > 0:
                self._open[who] = n
            else:
                self._open.pop(who, None)

    @property
    def admitted(self) -> int:
        """Streams admitted and not yet released."""
        with self._cond:
            return sum(self._open.values())

    def _missed(self, after: int) -> list[tuple[int, str]]:
        """Events with seq > after: from the ring, or from the session when the ring no longer reaches back."""
        if self._ring and self._ring[0][0] <= after + 1:
            return [(s, d) for s, d in self._ring if s > after]
        if not self._ring and after >= self.seq:
            return []
        return [(s, d) for s, d in adapter.events_since(self.session, after, 0) if s <= self.seq]

    def stream(self, last_event_id: str | None = None, max_s: float | None = None, gone=None):
        """SSE text chunks for one client until the hub stops (or ``max_s`` passes, or ``gone()`` says the client
        has left: checked about once a second)."""
        start = time.monotonic()
        last = parse_last_id(last_event_id)
        with self._cond:
            self.clients += 1
            cut = self._cut
            epoch = self.epoch
            if last is None or last[0] != epoch:
                pending = []
                sent = self.seq
                first = format_sse("{}", event="reset") if last is not None else ""
            else:
                pending = self._missed(last[1])
                sent = self.seq
                first = ""
            parts = self.parts
            version = self.version
        try:
            yield f"retry: {RETRY_MS}\n\n" + first + "".join(
                format_sse(d, event="game", id=f"{epoch}-{s}") for s, d in pending
            ) + format_sse(parts, event="view", id=f"{epoch}-{sent}")
            last_beat = time.monotonic()
            while not self._stop.is_set():
                if max_s is not None and time.monotonic() - start > max_s:
                    return
                if gone is not None and gone():
                    return
                with self._cond:
                    if self.epoch == epoch and self.seq == sent and self.version == version and self._cut == cut:
                        self._cond.wait(timeout=min(self.heartbeat_s, 1.0))
                    if self._cut != cut:
                        return
                    if self.epoch != epoch:
                        epoch, sent = self.epoch, self.seq
                        chunk = format_sse("{}", event="reset") + format_sse(self.parts, event="view", id=f"{epoch}-{sent}")
                    elif self.seq != sent:
                        new = self._missed(sent)
                        sent = self.seq
                        chunk = "".join(format_sse(d, event="game", id=f"{epoch}-{s}") for s, d in new)
                        chunk += format_sse(self.parts, event="view", id=f"{epoch}-{sent}")
                    elif self.version != version:  # re-rendered without an event (Hub.refresh)
                        chunk = format_sse(self.parts, event="view", id=f"{epoch}-{sent}")
                    else:
                        chunk = None
                    version = self.version
                if chunk:
                    yield chunk
                    last_beat = time.monotonic()
                elif time.monotonic() - last_beat >= self.heartbeat_s:
                    yield ": ping\n\n"
                    last_beat = time.monotonic()
        finally:
            with self._cond:
                self.clients -= 1


STREAM_RETRY_S = 30  # a page refused a live stream polls /api/view and asks for a stream again after this


def stream_response(pump: "Hub", advice: str = "") -> Response:
    """The ``/api/events`` answer of a page served by ``pump``: its SSE stream, or, when ``admit`` refuses the
    client, a 429 (this device has too many) or 503 (all taken) with ``Retry-After`` and ``need: "poll"``; ``advice``
    ends the refusal's line. The stream's slot is released when the client goes."""
    who = security.client_key(request.remote_addr)
    refused = pump.admit(who)  # each stream holds a server thread: capped, so pages always answer
    if refused:
        why = (f"this device already has {pump.max_streams_per_client} live streams open" if refused == "client"
               else f"all {pump.max_streams} live streams are taken")
        resp = jsonify(error=f"No live stream: {why}. The page updates every few seconds instead{advice}.", need="poll")
        resp.status_code = 429 if refused == "client" else 503
        resp.headers["Retry-After"] = str(STREAM_RETRY_S)
        return resp
    last = request.headers.get("Last-Event-ID") or request.args.get("last")
    gone = request.environ.get("waitress.client_disconnected")
    resp = Response(stream_with_context(pump.stream(last, gone=gone)), mimetype="text/event-stream")
    resp.call_on_close(lambda: pump.release(who))
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp
