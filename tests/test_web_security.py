"""The tablet app against a hostile neighbour on the same Wi-Fi (issue 32, items 4-6) and a first start at the
terminal (item 10): a flood of event streams through a real waitress server, parallel PIN guesses, Lock against a
copied cookie, where a made-up PIN goes, and a mistyped PIN confirmation."""

from __future__ import annotations

import hashlib
import http.client
import io
import json
import re
import select
import socket
import stat
import threading
import time

import pytest

from assistant.apps import bench_web as bench
from assistant.errors import UserError
from web import security, server
from web.app import create_app

PIN = "482193"


class Session:
    """The least a game session needs for the app: a snapshot and events."""

    def __init__(self):
        self.calls = []
        self.last_seq = 0

    def events_since(self, seq, timeout=None):
        if timeout:
            time.sleep(min(timeout, 0.2))
        return []

    def snapshot(self):
        return {"format": "tablewatch.snapshot/1", "game_id": "g-1", "seq": 0, "game": "wendake", "year": 1, "phase": "actions",
                "pairs": [["economic", "military"], ["ritual", "mask"]], "turn_order": [0], "current": 0, "current_name": "Ann",
                "players": [{"index": 0, "name": "Ann", "colour": "red", "tracks": {"economic": 1, "military": 2, "ritual": 0, "mask": 0},
                             "pairs": [], "projected_total": 1, "turtles": 0, "swap_tokens": 1, "turn_position": 1, "is_current": True}],
                "leader": "Ann", "alerts": [], "confirmation": None, "moves": [], "finished": False, "results": None,
                "score_by_year": {"years": [], "players": []}, "log_status": {"ok": True, "message": None}}

    def undo(self):
        self.calls.append("undo")


def make_app(tmp_path, **config):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    return create_app(Session(), {"PIN_FILE": str(tmp_path / "pin.json"), "DATA_DIR": str(tmp_path), "HEARTBEAT_S": 1, **config})


# ---- item 4: a flood of event streams ---------------------------------------------------------------------------
@pytest.fixture
def live_server(tmp_path):
    """The app behind a real waitress server on 127.0.0.1 with 16 worker threads (8 of them kept for pages)."""
    app = make_app(tmp_path)
    srv = server.make_server(app, "127.0.0.1", 0, threads=16)
    tw = app.extensions["tablewatch"]
    threading.Thread(target=srv.run, daemon=True).start()
    tw.hub.start()
    socks: list[socket.socket] = []
    yield int(srv.effective_port), tw, socks
    tw.hub.stop()
    for s in socks:
        s.close()
    srv.close()
    srv.task_dispatcher.shutdown(timeout=2)


def open_streams(port: int, n: int, socks: list, sources=("127.0.0.1",)) -> list[socket.socket]:
    """``n`` GET /events requests, each on its own connection, from the source addresses in turn."""
    opened = []
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        socks.append(s)
        s.bind((sources[i % len(sources)], 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /events HTTP/1.1\r\nHost: tablewatch\r\nAccept: text/event-stream\r\n\r\n")
        opened.append(s)
    return opened


def answers(socks: list[socket.socket], within_s: float = 10.0) -> list[tuple[int, dict, bytes] | None]:
    """Each connection's response head (status, headers) and the start of its body; None where none came in time."""
    bufs = {s: b"" for s in socks}
    out: dict[socket.socket, tuple] = {}
    end = time.monotonic() + within_s
    while len(out) < len(socks) and time.monotonic() < end:
        ready, _, _ = select.select([s for s in socks if s not in out], [], [], 0.2)
        for s in ready:
            data = s.recv(65536)
            bufs[s] += data
            head, sep, body = bufs[s].partition(b"\r\n\r\n")
            if not sep:
                if not data:
                    out[s] = None
                continue
            lines = head.decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
            status = int(lines[0].split()[1])
            length = int(headers.get("content-length", 0))
            if status == 200 or len(body) >= length or not data:
                out[s] = (status, headers, body)
    return [out.get(s) for s in socks]


def pages_answer(port: int, timeout: float = 5.0) -> None:
    """The scoreboard, the snapshot API and the PIN (token, then unlock) all answer."""
    for path in ("/", "/api/snapshot", "/api/view"):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request("GET", path)
        r = c.getresponse()
        assert r.status == 200, path
        r.read()
        c.close()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request("GET", "/api/whoami")
    r = c.getresponse()
    cookie = r.getheader("Set-Cookie").split(";")[0]
    csrf = json.loads(r.read())["csrf_token"]
    c.request("POST", "/api/unlock", body=json.dumps({"pin": PIN}),
              headers={"Content-Type": "application/json", "X-CSRF-Token": csrf, "Cookie": cookie})
    r = c.getresponse()
    assert r.status == 200 and json.loads(r.read())["unlocked"]
    c.close()


def test_a_flood_of_streams_from_one_address_is_refused_and_pages_still_answer(live_server):
    port, tw, socks = live_server
    streams = open_streams(port, 80, socks)
    got = answers(streams)
    assert None not in got, f"{got.count(None)} of 80 stream requests got no answer: the server's threads are used up"
    live = [s for s, a in zip(streams, got) if a[0] == 200]
    refused = [a for a in got if a[0] != 200]
    assert len(live) == tw.hub.max_streams_per_client == 6
    assert {a[0] for a in refused} == {429} and len(refused) == 74
    for _status, headers, body in refused:
        assert headers["retry-after"] == "30" and headers["content-type"] == "application/json"
        error = json.loads(body)["error"]
        assert "\n" not in error and "already has 6 live streams open" in error and "every few seconds" in error
    pages_answer(port)
    # a device that closes its pages gets its streams back within a few seconds
    for s in live:
        s.close()
    deadline = time.monotonic() + 8
    while True:
        (again,) = answers(open_streams(port, 1, socks), within_s=5)
        if again and again[0] == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert again and again[0] == 200


def test_streams_from_many_addresses_are_capped_in_all_and_pages_still_answer(live_server):
    port, tw, socks = live_server
    sources = [f"127.0.0.{i}" for i in range(2, 22)]  # 20 devices, 4 streams each: each under its own cap
    try:
        probe = socket.socket()
        probe.bind((sources[-1], 0))
        probe.close()
    except OSError as exc:
        pytest.skip(f"this machine cannot send from other loopback addresses (127.0.0.21: {exc.strerror})")
    got = answers(open_streams(port, 80, socks, sources))
    assert None not in got, f"{got.count(None)} of 80 stream requests got no answer: the server's threads are used up"
    statuses = [a[0] for a in got]
    assert tw.hub.max_streams == server.stream_budget(16) == 8
    assert statuses.count(200) == 8 and statuses.count(503) == 72
    error = json.loads(next(a for a in got if a[0] == 503)[2])["error"]
    assert "all 8 live streams are taken" in error
    pages_answer(port)


def test_a_refused_page_polls_the_same_view_the_stream_sends(tmp_path):
    app = make_app(tmp_path, MAX_STREAMS=0)
    c = app.test_client()
    r = c.get("/events")
    assert r.status_code == 503 and r.headers["Retry-After"] == "30" and r.get_json()["need"] == "poll"
    view = c.get("/api/view")
    assert view.status_code == 200 and view.get_json() == json.loads(app.extensions["tablewatch"].hub.parts)
    assert "Ann" in view.get_json()["parts"]["scoreboard"]


# ---- item 5: parallel PIN guesses -----------------------------------------------------------------------------
def test_parallel_wrong_pins_are_counted_before_the_check(tmp_path):
    app = make_app(tmp_path)
    n = 48
    clients = [app.test_client() for _ in range(n)]
    tokens = [c.get("/api/whoami").get_json()["csrf_token"] for c in clients]
    start = threading.Barrier(n)
    results: list = [None] * n

    def guess(i):
        start.wait()
        r = clients[i].post("/api/unlock", json={"pin": f"{100000 + i}"}, headers={"X-CSRF-Token": tokens[i]})
        results[i] = (r.status_code, r.get_json()["error"], r.headers.get("Retry-After"))

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    checked = [r for r in results if r[0] == 403]
    refused = [r for r in results if r[0] == 429]
    assert len(checked) == security.FREE_ATTEMPTS == 5 and all(r[1] == "Wrong PIN." for r in checked)
    assert len(refused) == n - 5
    for _, error, retry in refused:
        assert re.fullmatch(r"Too many PIN attempts from this device\. Wait (\d+) s and try again\.", error)
        assert 55 <= int(retry) <= 60
    # the owner's tablet, another device, is not held up by those guesses
    owner = app.test_client()
    t = owner.get("/api/whoami", environ_overrides={"REMOTE_ADDR": "192.168.1.23"}).get_json()["csrf_token"]
    r = owner.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t}, environ_overrides={"REMOTE_ADDR": "192.168.1.23"})
    assert r.status_code == 200


def test_new_pins_need_six_digits_and_a_stored_short_pin_still_opens(tmp_path):
    with pytest.raises(UserError, match="6 to 12 digits"):
        security.PinStore(tmp_path / "new.json").set_pin("4821")
    # a pin.json written by an earlier version with a 4-digit PIN
    salt = bytes(16)
    digest = hashlib.scrypt(b"4821", salt=salt, n=2**14, r=8, p=1, dklen=32).hex()
    (tmp_path / "old.json").write_text(json.dumps({"format": security.FORMAT, "salt": salt.hex(), "hash": digest, "secret": "s" * 64}))
    c = create_app(Session(), {"PIN_FILE": str(tmp_path / "old.json")}).test_client()
    t = c.get("/api/whoami").get_json()["csrf_token"]
    assert c.post("/api/unlock", json={"pin": "4821"}, headers={"X-CSRF-Token": t}).status_code == 200
    assert c.post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 200


def test_ipv6_devices_are_counted_by_their_network():
    assert security.client_key("2001:db8::1") == security.client_key("2001:db8::ffff:2") == "2001:db8::/64"
    assert security.client_key("::ffff:192.168.1.5") == "192.168.1.5" == security.client_key("192.168.1.5")


# ---- item 6: Lock means locked -----------------------------------------------------------------------------------
def unlock(client) -> str:
    t = client.get("/api/whoami").get_json()["csrf_token"]
    assert client.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t}).status_code == 200
    return t


def copy_of(app, client):
    other = app.test_client()
    other.set_cookie("session", client.get_cookie("session").value)
    return other


def test_lock_ends_a_copied_unlocked_cookie_at_once(tmp_path):
    app = make_app(tmp_path)
    tablet = app.test_client()
    t = unlock(tablet)
    thief = copy_of(app, tablet)  # the cookie copied while unlocked
    assert thief.post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 200
    assert tablet.post("/api/lock", headers={"X-CSRF-Token": t}).status_code == 200
    r = thief.post("/api/undo", json={}, headers={"X-CSRF-Token": t})
    assert r.status_code == 403 and r.get_json()["need"] == "pin"
    assert thief.get("/api/whoami").get_json()["unlocked"] is False
    unlock(tablet)  # the owner unlocks again: the old copy stays locked
    assert thief.post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 403
    assert tablet.post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 200
    # and the lock outlasts a restart of the server (same PIN file)
    again = create_app(Session(), {"PIN_FILE": str(tmp_path / "pin.json")})
    assert copy_of(again, thief).post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 403
    assert copy_of(again, tablet).post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 200


def test_a_new_pin_ends_every_unlock_and_a_visitor_cannot_lock_the_owner_out(tmp_path):
    app = make_app(tmp_path)
    tablet = app.test_client()
    t = unlock(tablet)
    visitor = app.test_client()
    v = visitor.get("/api/whoami").get_json()["csrf_token"]
    assert visitor.post("/api/lock", headers={"X-CSRF-Token": v}).status_code == 200  # not unlocked: locks nobody else
    assert tablet.post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 200
    app.extensions["tablewatch"].pins.set_pin("135790")
    assert tablet.post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 403


# ---- item 6: a PIN made up at first start --------------------------------------------------------------------------
class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_made_up_pin_goes_to_a_private_file_when_no_terminal_is_attached(tmp_path):
    journal = io.StringIO()  # e.g. systemd's stdout
    server.ensure_pin(tmp_path / "pin.json", interactive=False, out=journal)
    first = tmp_path / server.FIRST_PIN_FILE
    pin = first.read_text().strip()
    assert re.fullmatch(r"\d{6}", pin) and security.PinStore(tmp_path / "pin.json").verify(pin)
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    assert pin not in journal.getvalue() and str(first) in journal.getvalue()
    assert len(journal.getvalue().strip().splitlines()) == 1


def test_a_made_up_pin_is_shown_once_on_a_terminal(tmp_path):
    term = Terminal()
    server.ensure_pin(tmp_path / "pin.json", interactive=False, out=term)
    pin = re.search(r"the PIN for changes is (\d{6})", term.getvalue()).group(1)
    assert security.PinStore(tmp_path / "pin.json").verify(pin)
    assert not (tmp_path / server.FIRST_PIN_FILE).exists()
    server.ensure_pin(tmp_path / "pin.json", interactive=False, out=term)
    assert term.getvalue().count(pin) == 1


# ---- item 10: typing the PIN at first start ------------------------------------------------------------------------
def test_mistyped_pins_ask_again_until_the_two_match(tmp_path, monkeypatch):
    typed = iter(["", "4821", "482193", "482139", "abcdef", "482193", "48219", "482193", "482193"])
    prompts = []

    def getpass(prompt=""):
        prompts.append(prompt)
        return next(typed)

    monkeypatch.setattr(server.getpass, "getpass", getpass)
    out = io.StringIO()
    server.ensure_pin(tmp_path / "pin.json", interactive=True, out=out)
    assert security.PinStore(tmp_path / "pin.json").verify("482193")
    assert out.getvalue().count("The two PINs differ") == 2 and out.getvalue().count("6 to 12 digits") == 3
    assert prompts[-2:] == ["PIN: ", "PIN again: "]


def test_bench_web_prints_the_flood_figures(capsys):
    bench.main(["--seconds", "0.5", "--clients", "2", "--streams", "30", "--addresses", "1", "--samples", "2"])
    out = capsys.readouterr().out
    assert "flood: 30 streams from 1 addresses, 48 threads (streams admitted at most 36): accepted 6, refused 24 " \
           "(429 per device 24, 503 all taken 0), unanswered 0" in out
    for route in ("/", "/api/whoami", "/api/unlock", "/api/snapshot"):
        assert re.search(rf"^  {re.escape(route)} +2/2 answered; p50 [\d.]+ ms, p95 [\d.]+ ms", out, re.M), route
