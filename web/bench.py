"""``tablewatch bench web``: SSE fan-out under load, measured end to end on loopback.

A synthetic game session produces events at ``--hz`` (default 10/s), each stamped with the time it was made;
the real app (web.app, with its page rendering per batch) runs under waitress on 127.0.0.1, and ``--clients``
(default 20) SSE clients, each in its own thread, read the stream for ``--seconds`` (default 60). Reported:
events dropped (a seq a client never got), late events (delivered more than ``--late-ms`` after they were made),
and the p50/p95/max delivery latency over all deliveries. Target: 0 dropped, p95 <= 100 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import tempfile
import threading
import time

TRACKS = ("economic", "military", "ritual", "mask")


class SyntheticSession:
    """A session-shaped load source: ``tick()`` records one event; snapshot and events_since as GameSession."""

    def __init__(self, players: int = 4):
        self.names = ["Ann", "Bob", "Cleo", "Dan"][:players]
        self.colours = ["red", "blue", "green", "yellow"][:players]
        self.tracks = [dict.fromkeys(TRACKS, 0) for _ in self.names]
        self.events: list[dict] = []
        self.last_seq = 0
        self._cond = threading.Condition()

    def tick(self) -> None:
        with self._cond:
            self.last_seq += 1
            p = self.last_seq % len(self.names)
            track = TRACKS[self.last_seq % 4]
            self.tracks[p][track] = min(25, self.tracks[p][track] + 1)
            self.events.append({"seq": self.last_seq, "kind": "MoveRecognized", "t": time.time(),
                                "payload": {"kind": "MoveRecognized", "text": f"{self.names[p]}: +1 {track}"}})
            self._cond.notify_all()

    def events_since(self, seq: int, timeout: float | None = None) -> list[dict]:
        with self._cond:
            if self.last_seq <= seq:
                self._cond.wait(timeout)
            return [e for e in self.events[max(0, seq - 1):] if e["seq"] > seq]

    def snapshot(self) -> dict:
        with self._cond:
            log = [{"index": e["seq"], "text": e["payload"]["text"], "scores": {}} for e in self.events[-200:]]
            return {"players": [{"name": n, "colour": c, "tracks": dict(t), "swap_tokens": 1, "turtles": 0}
                                for n, c, t in zip(self.names, self.colours, self.tracks)],
                    "pairs": [["economic", "military"], ["ritual", "mask"]], "year": 1, "current": self.last_seq % len(self.names),
                    "turn_order": list(range(len(self.names))), "alerts": [], "moves": log}


class Client(threading.Thread):
    """One SSE reader: records (seq, latency) for every ``game`` message."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.got: dict[int, float] = {}
        self.connected = threading.Event()
        self.error: str | None = None
        self._conn = None

    def run(self) -> None:
        try:
            self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self._conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
            resp = self._conn.getresponse()
            self.connected.set()
            event, data = None, []
            while True:
                line = resp.readline()
                if not line:
                    return
                line = line.decode("utf-8").rstrip("\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip(" "))
                elif line == "":
                    if event == "game" and data:
                        now = time.time()
                        d = json.loads("\n".join(data))
                        self.got[int(d["seq"])] = now - float(d["t"])
                    event, data = None, []
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self.error = repr(exc)
            self.connected.set()

    def close(self) -> None:
        try:
            if self._conn is not None and self._conn.sock is not None:
                self._conn.sock.shutdown(2)
                self._conn.close()
        except OSError:
            pass


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q / 100 * (len(s) - 1)))))]


def run(clients: int = 20, hz: float = 10.0, seconds: float = 60.0, late_ms: float = 100.0, threads: int | None = None) -> dict:
    from web.app import create_app
    from web.security import PinStore
    from web.server import make_server

    tmp = tempfile.TemporaryDirectory()
    PinStore(f"{tmp.name}/pin.json").set_pin(f"{time.time_ns() % 10**8:08d}")
    session = SyntheticSession()
    app = create_app(session, {"PIN_FILE": f"{tmp.name}/pin.json", "DATA_DIR": tmp.name})
    tw = app.extensions["tablewatch"]
    server = make_server(app, "127.0.0.1", 0, threads or clients + 8)
    port = server.effective_port
    serving = threading.Thread(target=server.run, daemon=True)
    serving.start()
    tw.hub.start()
    readers = [Client(port) for _ in range(clients)]
    for r in readers:
        r.start()
    deadline = time.monotonic() + 10
    while tw.hub.clients < clients and time.monotonic() < deadline:
        time.sleep(0.01)
    first = session.last_seq + 1
    t0 = time.monotonic()
    n = 0
    while True:  # ticks on a fixed schedule, so a slow tick does not stretch the run
        target = t0 + n / hz
        if target - t0 >= seconds:
            break
        delay = target - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        session.tick()
        n += 1
    last = session.last_seq
    time.sleep(max(1.0, 3 * late_ms / 1000))
    tw.hub.stop()  # the streams end, then the clients and the server close
    deadline = time.monotonic() + 5
    while tw.hub.clients and time.monotonic() < deadline:
        time.sleep(0.02)
    for r in readers:
        r.close()
    time.sleep(0.2)
    server.close()
    server.task_dispatcher.shutdown()
    tmp.cleanup()
    expected = set(range(first, last + 1))
    lat = [v for r in readers for s, v in r.got.items() if s in expected]
    dropped = sum(len(expected - set(r.got)) for r in readers)
    late = sum(1 for v in lat if v * 1000 > late_ms)
    return {"clients": clients, "connected": sum(1 for r in readers if r.error is None), "hz": hz, "seconds": seconds,
            "events": len(expected), "deliveries": len(lat), "expected_deliveries": len(expected) * clients,
            "dropped": dropped, "late": late, "late_ms": late_ms,
            "p50_ms": percentile(lat, 50) * 1000, "p95_ms": percentile(lat, 95) * 1000, "max_ms": max(lat, default=float("nan")) * 1000,
            "errors": [r.error for r in readers if r.error] + tw.hub.errors}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="tablewatch bench web", description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--hz", type=float, default=10.0, help="events per second")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--late-ms", type=float, default=100.0, help="a delivery slower than this counts as late")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = p.parse_args(argv)
    if a.clients < 1 or a.hz <= 0 or a.seconds <= 0:
        p.error("--clients, --hz and --seconds must be positive")
    res = run(a.clients, a.hz, a.seconds, a.late_ms)
    if a.json:
        print(json.dumps(res, indent=2))
    else:
        print(f"SSE fan-out: {res['connected']}/{res['clients']} clients, {res['events']} events at {res['hz']:g} Hz over {res['seconds']:g} s "
              f"({res['deliveries']}/{res['expected_deliveries']} deliveries)")
        print(f"dropped {res['dropped']}, late (>{res['late_ms']:g} ms) {res['late']}; "
              f"latency p50 {res['p50_ms']:.1f} ms, p95 {res['p95_ms']:.1f} ms, max {res['max_ms']:.1f} ms")
        for e in res["errors"][:5]:
            print(f"error: {e}")
    ok = res["dropped"] == 0 and res["p95_ms"] <= 100 and res["connected"] == res["clients"]
    print("target (0 dropped, p95 <= 100 ms): " + ("met" if ok else "NOT met"))
    return 0 if ok else 1
