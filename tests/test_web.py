"""The tablet web app through Flask's test client: PIN, CSRF, input validation, SSE format, snapshot rendering,
setup wizard, layout tracer and the server helpers. The session is a small in-memory double with the
GameSession interface (snapshot format ``tablewatch.snapshot/1``)."""

from __future__ import annotations

import argparse
import io
import json
import re
import stat
import threading

import pytest
from conftest_vision import real

from assistant.errors import UserError
from web import adapter, security
from web import hub as hubmod
from web.app import create_app
from web.chart import score_chart

PIN = "482193"


class FakeSession:
    """In-memory GameSession double: records the actions, produces events on demand."""

    def __init__(self, alerts=None, finished=False):
        self.cond = threading.Condition()
        self.events: list[dict] = []
        self.last_seq = 0
        self.calls: list[tuple] = []
        self.alerts = alerts or []
        self.finished = finished

    def emit(self, kind="MoveRecognized", **payload):
        with self.cond:
            self.last_seq += 1
            self.events.append({"seq": self.last_seq, "kind": kind, "t": 0.0, "payload": {"kind": kind, **payload}})
            self.cond.notify_all()

    def events_since(self, seq, timeout=None):
        with self.cond:
            if self.last_seq <= seq and timeout:
                self.cond.wait(timeout)
            return [e for e in self.events if e["seq"] > seq]

    def snapshot(self):
        players = [
            {"index": 0, "name": "Ann", "colour": "red", "tracks": {"economic": 3, "military": 5, "ritual": 1, "mask": 0},
             "pairs": [{"tracks": ["economic", "military"], "values": [3, 5], "lower": "economic", "counted": 3},
                       {"tracks": ["ritual", "mask"], "values": [1, 0], "lower": "mask", "counted": 0}],
             "projected_total": 4, "turtles": 1, "swap_tokens": 1, "turn_position": 2, "is_current": True},
            {"index": 1, "name": "Bob <b>", "colour": "blue", "tracks": {"economic": 6, "military": 4, "ritual": 2, "mask": 2},
             "pairs": [{"tracks": ["economic", "military"], "values": [6, 4], "lower": "military", "counted": 4},
                       {"tracks": ["ritual", "mask"], "values": [2, 2], "lower": None, "counted": 2}],
             "projected_total": 7, "turtles": 0, "swap_tokens": 0, "turn_position": 1, "is_current": False},
        ]
        results = None
        if self.finished:
            results = {"ranking": ["Bob <b>", "Ann"], "winner": "Bob <b>", "tie_break": "Bob wins with the lower turn-order marker (W-SCR-4).",
                       "players": [{"name": p["name"], "total": p["projected_total"], "swap_tokens": p["swap_tokens"],
                                    "tracks": {t: {"before_turtles": v, "turtles": 0, "final": v} for t, v in p["tracks"].items()},
                                    "pairs": p["pairs"], "turtle_choices": [], "unknown_turtles": 0} for p in players]}
        return {"format": "tablewatch.snapshot/1", "game_id": "g-1", "seq": self.last_seq, "game": "wendake", "year": 3,
                "phase": "over" if self.finished else "actions", "pairs": [["economic", "military"], ["ritual", "mask"]],
                "turn_order": [1, 0], "current": 0, "current_name": "Ann", "players": players, "leader": "Bob <b>",
                "alerts": list(self.alerts), "confirmation": None,
                "moves": [{"index": 0, "seq": 1, "year": 1, "player": 0, "name": "Ann", "text": "Ann: harvests", "scores": {"economic": 1}}],
                "finished": self.finished, "results": results,
                "score_by_year": {"years": [1, 2, 3], "players": [{"name": "Ann", "colour": "red", "totals": [1, 3, 4]},
                                                                   {"name": "Bob <b>", "colour": "blue", "totals": [2, 5, 7]}]},
                "log_status": {"ok": True, "message": None}}

    def undo(self):
        self.calls.append(("undo",))
        self.emit("Correction", text="undo")

    def correct(self, moves):
        self.calls.append(("correct", moves))
        self.emit("Correction", moves=moves)

    def confirm(self, index):
        self.calls.append(("confirm", index))


@pytest.fixture
def env(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    session = FakeSession()
    app = create_app(session, {"PIN_FILE": str(tmp_path / "pin.json"), "DATA_DIR": str(tmp_path / "data"), "TESTING": True})
    return app, session, app.test_client()


def token(client) -> str:
    return client.get("/api/whoami").get_json()["csrf_token"]


def unlocked(client) -> str:
    t = token(client)
    r = client.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t})
    assert r.status_code == 200
    return t


# ---- rendering ---------------------------------------------------------------------------------------------
def test_pages_render_and_escape(env):
    app, session, c = env
    for url in ("/", "/log", "/board", "/results", "/setup", "/trace"):
        r = c.get(url)
        assert r.status_code == 200, url
        assert b'href="/setup"' in r.data and b"Bob <b>" not in r.data, url
    page = c.get("/").get_data(as_text=True)
    assert "Bob &lt;b&gt;" in page and "Bob <b>" not in page
    assert re.search(r'<meta name="csrf-token" content="[\w-]+">', page)


def test_scoreboard_flags_lower_track_projection_leader_and_turn(env):
    _, _, c = env
    page = c.get("/").get_data(as_text=True)
    ann = page[page.index('data-player="Ann"'):page.index('data-player="Bob')]
    assert re.search(r'class="tr lower" data-track="economic">3<', ann)
    assert re.search(r'class="tr" data-track="military">5<', ann)
    assert 'data-projected="4"' in ann and "current" in page[page.rindex("<tr", 0, page.index('data-player="Ann"')):page.index('data-player="Ann"')]
    bob = page[page.index('data-player="Bob'):]
    assert 'class="tr lower" data-track="military">4<' in bob
    assert 'data-track="ritual">2<' in bob and not re.search(r'class="tr[^"]*lower[^"]*" data-track="(ritual|mask)"', bob)  # a tie flags neither
    assert "Leader: <b>Bob &lt;b&gt;</b>" in page
    assert "Year <b>3</b>" in page and "Turn: <b" in page


def test_alert_banner_shows_rule_message_and_fix(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    s = FakeSession(alerts=[{"id": 1, "kind": "IllegalMove", "rule": "W-LINE-2", "message": "Three markers in a line <x>",
                             "fix": "Put the red marker on [0, 1] back.", "player": 0, "seq": 3}])
    c = create_app(s, {"PIN_FILE": str(tmp_path / "pin.json")}).test_client()
    page = c.get("/").get_data(as_text=True)
    assert 'class="alert alert-illegalmove"' in page
    assert "W-LINE-2" in page and "Three markers in a line &lt;x&gt;" in page and "To fix: Put the red marker on [0, 1] back." in page


def test_results_page_breakdown_tiebreak_and_svg_chart(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    c = create_app(FakeSession(finished=True), {"PIN_FILE": str(tmp_path / "pin.json")}).test_client()
    page = c.get("/results").get_data(as_text=True)
    assert "Winner: Bob &lt;b&gt;" in page
    assert "Tie-break: Bob wins with the lower turn-order marker (W-SCR-4)." in page
    assert "economic / military: 6 / 4" in page
    assert page.count("<polyline") == 2 and "<svg" in page


def test_chart_draws_one_line_per_player_and_escapes_names():
    svg = score_chart({"A&B": [1, 4, 9], "C": [2, 2, 3]}, {"A&B": "red", "C": "blue"})
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<polyline") == 2 and "A&amp;B 9" in svg and "#d62728" in svg
    assert "No completed year" in score_chart({}, {})


def test_a_choice_shows_once_what_its_candidates_share_and_then_where_they_differ():
    s = FakeSession()
    raw = s.snapshot()
    act = "Bob: activates Canoe (action side) at [2, 2]"
    raw["confirmation"] = {"seq": 4, "candidates": [{"index": 0, "moves": [act, "Bob: puts a canoe on L1"]},
                                                    {"index": 1, "moves": [act, "Bob: puts a canoe on L2"]},
                                                    {"index": 2, "moves": [act]}]}
    s.snapshot = lambda: raw
    conf = [a for a in adapter.snapshot(s)["alerts"] if a["kind"] == "NeedsConfirmation"][0]
    assert [c["text"] for c in conf["candidates"]] == ["Bob: puts a canoe on L1", "Bob: puts a canoe on L2", "nothing more"]
    assert act in conf["message"]


def test_adapter_normalises_confirmation_and_log_status():
    s = FakeSession()
    raw = s.snapshot()
    raw["confirmation"] = {"seq": 4, "candidates": [{"index": 0, "moves": ["Ann: harvests"]}, {"index": 1, "moves": ["Ann: hunts", "Ann: ends the turn"]}]}
    raw["log_status"] = {"ok": False, "message": "disk full"}
    s.snapshot = lambda: raw
    v = adapter.snapshot(s)
    conf = [a for a in v["alerts"] if a["kind"] == "NeedsConfirmation"][0]
    assert conf["candidates"] == [{"index": 0, "text": "Ann: harvests"}, {"index": 1, "text": "Ann: hunts; Ann: ends the turn"}]
    assert any(a["message"] == "disk full" for a in v["alerts"])
    assert v["score_by_year"] == {"Ann": [1, 3, 4], "Bob <b>": [2, 5, 7]}
    assert v["log"][0]["changes"] == {"economic": 1} and v["log"][0]["player"] == "Ann"
    assert v["current"] == "Ann" and v["turn_order"] == ["Bob <b>", "Ann"]


# ---- PIN and CSRF ------------------------------------------------------------------------------------------
def test_pin_is_stored_hashed_and_private(tmp_path):
    store = security.PinStore(tmp_path / "pin.json")
    store.set_pin("123456")
    text = (tmp_path / "pin.json").read_text()
    assert "123456" not in text
    assert stat.S_IMODE((tmp_path / "pin.json").stat().st_mode) == 0o600
    again = security.PinStore(tmp_path / "pin.json")
    assert again.verify("123456") and not again.verify("123457") and not again.verify("")
    for bad in ("12", "4821", "abcdef", "1234567890123", "123 456"):
        with pytest.raises(Exception, match="6 to 12 digits"):
            store.set_pin(bad)


def test_changes_need_csrf_then_pin(env):
    _, session, c = env
    r = c.post("/api/undo", json={})
    assert r.status_code == 403 and r.get_json()["need"] == "reload"
    t = token(c)
    r = c.post("/api/undo", json={}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403 and r.get_json()["need"] == "reload"
    r = c.post("/api/undo", json={}, headers={"X-CSRF-Token": t})
    assert r.status_code == 403 and r.get_json()["need"] == "pin"
    assert session.calls == []
    r = c.post("/api/unlock", json={"pin": "0000"}, headers={"X-CSRF-Token": t})
    assert r.status_code == 403 and r.get_json()["error"] == "Wrong PIN."
    r = c.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t})
    assert r.status_code == 200
    assert c.post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 200
    assert session.calls == [("undo",)]
    c.post("/api/lock", headers={"X-CSRF-Token": t})
    assert c.post("/api/undo", json={}, headers={"X-CSRF-Token": t}).status_code == 403


def test_pin_attempts_are_limited(env):
    _, _, c = env
    t = token(c)
    for _ in range(security.MAX_FAILURES):
        assert c.post("/api/unlock", json={"pin": "9999"}, headers={"X-CSRF-Token": t}).status_code == 403
    r = c.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t})
    assert r.status_code == 429 and "Wait 60 s" in r.get_json()["error"] and r.headers["Retry-After"] == "60"


def test_limiter_delay_grows_and_a_right_pin_clears_it():
    now = [0.0]
    lim = security.AttemptLimiter(free=2, first_delay_s=10, max_delay_s=25, clock=lambda: now[0])
    assert lim.take("a") == 0 and lim.take("a") == 0
    assert lim.wait_left("a") == 10 and lim.take("a") == 10 and lim.wait_left("b") == 0  # refused, not counted
    now[0] = 11
    assert lim.take("a") == 0 and lim.wait_left("a") == 20  # the delay doubles
    now[0] = 31
    assert lim.take("a") == 0 and lim.wait_left("a") == 25  # up to the most
    lim.succeeded("a")
    assert lim.wait_left("a") == 0


def test_correction_is_validated_and_recorded(env):
    _, session, c = env
    t = unlocked(c)
    h = {"X-CSRF-Token": t}
    cases = [("not json", "not valid JSON"), ("[]", "as a JSON list"), ('[{"type": "teleport"}]', "unknown move type 'teleport'"),
             ('[{"type": "harvest", "speed": 3}]', "has no field 'speed'"), (5, "as a JSON list")]
    for moves, message in cases:
        r = c.post("/api/correct", json={"moves": moves}, headers=h)
        assert r.status_code == 400 and message in r.get_json()["error"], moves
    assert c.post("/api/correct", data="x", headers=h).status_code == 400
    r = c.post("/api/correct", json={"moves": [{"type": "activate", "slot": [1, 2]}, {"type": "harvest"}]}, headers=h)
    assert r.status_code == 200
    assert session.calls == [("correct", [{"type": "activate", "slot": [1, 2]}, {"type": "harvest"}])]
    assert session.events[-1]["kind"] == "Correction"


def test_confirm_index_is_validated(env):
    _, session, c = env
    h = {"X-CSRF-Token": unlocked(c)}
    for bad in (-1, "1", True, None, 1.5):
        assert c.post("/api/confirm", json={"index": bad}, headers=h).status_code == 400
    assert c.post("/api/confirm", json={"index": 1}, headers=h).status_code == 200
    assert session.calls == [("confirm", 1)]


# ---- SSE ---------------------------------------------------------------------------------------------------
def test_sse_message_format():
    assert hubmod.format_sse('{"a": 1}', event="game", id="0-3") == 'id: 0-3\nevent: game\ndata: {"a": 1}\n\n'
    assert hubmod.format_sse("x\ny") == "data: x\ndata: y\n\n"
    assert hubmod.parse_last_id("2-17") == (2, 17)
    for bad in ("", None, "17", "a-1", "1-b", "1-2-3"):
        assert hubmod.parse_last_id(bad) is None


def parse_stream(text: str) -> list[dict]:
    out = []
    for block in text.split("\n\n"):
        msg = {}
        for line in block.split("\n"):
            key, _, value = line.partition(": ")
            if key in ("id", "event", "retry"):
                msg[key] = value
            elif key == "data":
                msg["data"] = msg.get("data", "") + value
        if msg:
            out.append(msg)
    return out


def test_sse_stream_sends_view_then_events_with_ids(env):
    app, session, c = env
    r = c.get("/events")
    assert r.mimetype == "text/event-stream" and r.headers["Cache-Control"] == "no-cache"
    hub = app.extensions["tablewatch"].hub
    gen = hub.stream(None)
    first = parse_stream(next(gen))
    assert first[0]["retry"] == "2000"
    view = first[-1]
    assert view["event"] == "view" and view["id"] == "0-0"
    parts = json.loads(view["data"])["parts"]
    assert set(parts) == {"alerts", "turn", "scoreboard", "log", "results"} and "Ann" in parts["scoreboard"]
    session.emit(text="Ann: harvests")
    session.emit(text="Ann: ends the turn")
    hub.start()
    msgs = parse_stream(next(gen))
    hub.stop()
    games = [m for m in msgs if m.get("event") == "game"]
    assert [m["id"] for m in games] == ["0-1", "0-2"]
    assert json.loads(games[0]["data"])["payload"]["text"] == "Ann: harvests"
    assert msgs[-1]["event"] == "view" and msgs[-1]["id"] == "0-2"


def test_sse_catch_up_after_a_drop_and_reset_on_new_game(env):
    app, session, _ = env
    hub = app.extensions["tablewatch"].hub
    for i in range(5):
        session.emit(text=f"move {i}")
    hub.start()
    try:
        deadline = __import__("time").monotonic() + 5
        while hub.seq < 5 and __import__("time").monotonic() < deadline:
            __import__("time").sleep(0.01)
        msgs = parse_stream(next(hub.stream("0-2")))  # the browser saw up to seq 2, then Wi-Fi dropped
        assert [m["id"] for m in msgs if m.get("event") == "game"] == ["0-3", "0-4", "0-5"]
        assert msgs[-1]["event"] == "view"
        app.extensions["tablewatch"].replace_session(FakeSession())
        msgs = parse_stream(next(hub.stream("0-5")))  # a new game started meanwhile
        assert [m.get("event") for m in msgs if "event" in m] == ["reset", "view"]
        assert msgs[-1]["id"] == "1-0"
    finally:
        hub.stop()


def test_sse_catch_up_beyond_the_ring_reads_the_session(tmp_path):
    session = FakeSession()
    h = hubmod.Hub(session, buffer=2)
    for _i in range(6):
        session.emit()
    h.start()
    try:
        deadline = __import__("time").monotonic() + 5
        while h.seq < 6 and __import__("time").monotonic() < deadline:
            __import__("time").sleep(0.01)
        msgs = parse_stream(next(h.stream("0-1")))
        assert [m["id"] for m in msgs if m.get("event") == "game"] == ["0-2", "0-3", "0-4", "0-5", "0-6"]
    finally:
        h.stop()


def test_sse_heartbeat_when_idle(env):
    app, _, _ = env
    hub = app.extensions["tablewatch"].hub
    hub.heartbeat_s = 0.05
    gen = hub.stream(None)
    next(gen)
    assert next(gen) == ": ping\n\n"


# ---- board view --------------------------------------------------------------------------------------------
def test_board_image_hook(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    frames = [None]
    app = create_app(FakeSession(), {"PIN_FILE": str(tmp_path / "pin.json"), "BOARD_IMAGE": lambda: frames[0]})
    c = app.test_client()
    assert c.get("/board.jpg").status_code == 404
    frames[0] = b"\xff\xd8\xff\xe0JPEGDATA"
    r = c.get("/board.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data == frames[0]


# ---- setup wizard ------------------------------------------------------------------------------------------
def test_new_game_form_is_validated_and_swaps_the_session(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    made = []

    def new_game(params):
        made.append(params)
        return FakeSession()

    app = create_app(FakeSession(), {"PIN_FILE": str(tmp_path / "pin.json"), "DATA_DIR": str(tmp_path), "NEW_GAME": new_game})
    c = app.test_client()
    h = {"X-CSRF-Token": unlocked(c)}
    good = [{"name": "Ann", "colour": "red", "tribe": ""}, {"name": "Bob", "colour": "blue", "tribe": "wendat"}]
    bad = [
        ({"players": good[:1]}, "2 to 4 players"),
        ({"players": [good[0], {**good[1], "colour": "red"}]}, "same colour"),
        ({"players": [good[0], {**good[1], "name": "ann"}]}, "same name"),
        ({"players": [good[0], {**good[1], "name": "<script>"}]}, "the name must be"),
        ({"players": [good[0], {**good[1], "colour": "pink"}]}, "colour must be one of"),
        ({"players": [good[0], {**good[1], "tribe": "martians"}]}, "unknown tribe"),
        ({"players": good, "pairs": "mask+mask"}, "track pairs must be"),
        ({"players": good, "seed": "abc"}, "whole number"),
        ({"players": good, "game": "chess"}, "no game called 'chess'"),
    ]
    for body, message in bad:
        r = c.post("/api/setup/game", json=body, headers=h)
        assert r.status_code == 400 and message in r.get_json()["error"], body
    assert made == []
    r = c.post("/api/setup/game", json={"players": good, "pairs": "economic+ritual", "seed": "7"}, headers=h)
    assert r.status_code == 200
    assert made == [{"game": "wendake", "players": ["Ann", "Bob"], "colours": ["red", "blue"], "seed": 7,
                     "pairs": [["economic", "ritual"], ["military", "mask"]], "tribes": [None, "wendat"]}]
    assert app.extensions["tablewatch"].hub.epoch == 1


def test_new_game_from_the_wizard_creates_a_real_session(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    app = create_app(adapter.NoGame(), {"PIN_FILE": str(tmp_path / "pin.json"), "DATA_DIR": str(tmp_path), "DB_PATH": str(tmp_path / "g.sqlite")})
    c = app.test_client()
    h = {"X-CSRF-Token": unlocked(c)}
    players = [{"name": "Ann", "colour": "yellow"}, {"name": "Bob", "colour": "green"}, {"name": "Cy", "colour": "red"}]
    r = c.post("/api/setup/game", json={"players": players, "seed": 5, "pairs": "economic+mask"}, headers=h)
    assert r.status_code == 200, r.get_json()
    view = c.get("/api/snapshot").get_json()
    assert [p["name"] for p in view["players"]] == ["Ann", "Bob", "Cy"] and [p["colour"] for p in view["players"]] == ["yellow", "green", "red"]
    assert view["pairs"] == [["economic", "mask"], ["military", "ritual"]] and view["epoch"] == 1
    assert "Ann" in c.get("/").get_data(as_text=True)


def test_layout_choice_is_checked_and_saved(env):
    app, _, c = env
    h = {"X-CSRF-Token": unlocked(c)}
    r = c.post("/api/setup/layouts", json={"boards": {"mask": "wendake-mask", "bogus": "x", "village-1": "../../etc/passwd"}}, headers=h)
    assert r.status_code == 422
    problems = " ".join(r.get_json()["problems"])
    assert "unknown board 'bogus'" in problems and "no layout called '../../etc/passwd'" in problems and "choose the map" in problems
    r = c.post("/api/setup/layouts", json={"boards": {"map": "wendake-mask"}}, headers=h)
    assert r.status_code == 422 and "not a wendake-map board" in r.get_json()["problems"][0]
    r = c.post("/api/setup/layouts", json={"boards": {"map": "wendake-map-2p", "mask": "wendake-mask"}}, headers=h)
    assert r.status_code == 200
    saved = json.loads((app.config["DATA_DIR"] and __import__("pathlib").Path(app.config["DATA_DIR"]) / "setup.json").read_text())
    assert saved["boards"] == {"map": "wendake-map-2p", "mask": "wendake-mask"}


def test_camera_check_without_camera_or_photo_says_so(env):
    _, _, c = env
    h = {"X-CSRF-Token": unlocked(c)}
    r = c.post("/api/setup/camera-check", data={"layout": "wendake-map-2p"}, headers=h)
    assert r.status_code == 400 and "no camera" in r.get_json()["error"]
    r = c.post("/api/setup/camera-check", data={"layout": "wendake-map-2p", "photo": (io.BytesIO(b"not an image"), "x.jpg")}, headers=h)
    assert r.status_code == 400 and "not a JPEG or PNG" in r.get_json()["error"]


def test_camera_check_reports_on_a_real_photo(env):
    photo = real("aruco-sheet", "aruco.jpg").read_bytes()
    _, _, c = env
    h = {"X-CSRF-Token": unlocked(c)}
    r = c.post("/api/setup/camera-check", data={"layout": "aruco-sheet", "photo": (io.BytesIO(photo), "a.jpg")}, headers=h)
    body = r.get_json()
    assert r.status_code == 200, body
    b = body["boards"][0]
    assert b["found"] and b["markers_seen"] == 8 and b["coverage"] > 0.9 and b["sharpness"] is not None


# ---- layout tracer -----------------------------------------------------------------------------------------
def _start_trace(c, h, name="my-map"):
    r = c.post("/api/trace/start", data={"plan": "wendake-map-2p", "width_mm": "612", "height_mm": "408", "name": name}, headers=h)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_tracer_start_checks_input(env):
    _, _, c = env
    h = {"X-CSRF-Token": unlocked(c)}
    for data, message in [({"plan": "nope"}, "choose which board"),
                          ({"plan": "wendake-map-2p", "name": "../x", "width_mm": "600", "height_mm": "400"}, "layout name"),
                          ({"plan": "wendake-map-2p", "name": "wendake-mask", "width_mm": "600", "height_mm": "400"}, "built-in"),
                          ({"plan": "wendake-map-2p", "name": "m", "width_mm": "wide", "height_mm": "400"}, "must be a number"),
                          ({"plan": "wendake-map-2p", "name": "m", "width_mm": "6", "height_mm": "400"}, "between")]:
        r = c.post("/api/trace/start", data=data, headers=h)
        assert r.status_code == 400 and message in r.get_json()["error"], data
    start = _start_trace(c, h)
    assert start["image"] == f"/trace/image/{start['token']}.png" and start["px_per_mm"] == 2.0
    img = c.get(start["image"])
    assert img.status_code == 200 and img.data[:4] == b"\x89PNG"
    assert c.get("/trace/image/..%2Fpin.png").status_code == 404


def test_tracer_save_shows_validation_problems_and_saves_a_valid_layout(env):
    app, _, c = env
    h = {"X-CSRF-Token": unlocked(c)}
    start = _start_trace(c, h)
    sq = lambda x0, y0, x1, y1: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]  # noqa: E731
    # two territories overlapping, and a productive area without its attributes
    regions = [{"id": "T01", "kind": "territory", "polygon_px": sq(200, 200, 600, 600)},
               {"id": "T02", "kind": "territory", "polygon_px": sq(500, 200, 900, 600)},
               {"id": "T01.pa0", "kind": "productive_area", "parent": "T01", "polygon_px": sq(250, 250, 350, 350)}]
    r = c.post("/api/trace/save", json={"token": start["token"], "regions": regions}, headers=h)
    assert r.status_code == 422
    problems = " | ".join(r.get_json()["problems"])
    assert "productive area 'T01.pa0' needs attributes.pa" in problems
    regions[1]["polygon_px"] = sq(600, 200, 1000, 600)
    regions[2]["attributes"] = {"pa": "hunt"}
    r = c.post("/api/trace/save", json={"token": start["token"], "regions": regions}, headers=h)
    assert r.status_code == 422 and "missing adjacency: T01 and T02" in " ".join(r.get_json()["problems"])
    r = c.post("/api/trace/save", json={"token": start["token"], "regions": regions, "adjacency": [["T01", "T02", "land"]]}, headers=h)
    assert r.status_code == 200, r.get_json()
    from calibration import layout

    saved = layout.load(__import__("pathlib").Path(app.config["DATA_DIR"]) / "layouts" / "my-map.json")
    assert {x["id"] for x in saved["regions"]} == {"T01", "T02", "T01.pa0"}
    assert saved["regions"][0]["polygon"][0] == [100.25, 100.25]  # pixel -> mm at 2 px/mm
    # the saved layout is now offered by the wizard and can be reopened for editing
    assert "my-map (yours)" in c.get("/setup").get_data(as_text=True)
    r = c.post("/api/trace/start", data={"mine": "my-map"}, headers=h)
    assert r.status_code == 200 and {x["id"] for x in r.get_json()["regions"]} == {"T01", "T02", "T01.pa0"}


def test_tracer_save_rejects_malformed_input(env):
    _, _, c = env
    h = {"X-CSRF-Token": unlocked(c)}
    start = _start_trace(c, h)
    for body, message in [({"token": "../../etc", "regions": []}, "unknown or expired"),
                          ({"token": start["token"], "regions": []}, "at least one region"),
                          ({"token": start["token"], "regions": [{"id": "A", "kind": "area", "polygon_px": [[0, 0], [1, 1]]}]}, "3 to"),
                          ({"token": start["token"], "regions": [{"id": "A", "kind": "area", "polygon_px": [[0, 0], [9, 0], [0, "x"]]}]}, "3 to"),
                          ({"token": start["token"], "regions": [{"id": "A", "kind": "area", "polygon_px": [[0, 0], [9, 0], [0, 9]]}], "adjacency": "x"}, "adjacency")]:
        r = c.post("/api/trace/save", json=body, headers=h)
        assert r.status_code == 400 and message in r.get_json()["error"], body


# ---- server and CLI ----------------------------------------------------------------------------------------
def test_qr_code_and_url():
    from web.server import page_url, qr_text

    q = qr_text("http://192.168.1.20:8080/")
    lines = q.split("\n")
    assert len(lines) > 10 and len({len(x) for x in lines}) == 1 and set(q) <= {"\u2588", "\u2580", "\u2584", " ", "\n"}
    assert page_url("127.0.0.1", 9000) == "http://127.0.0.1:9000/"
    assert re.match(r"http://[\d.]+:8080/$", page_url("0.0.0.0", 8080))


def test_first_start_sets_a_pin(tmp_path):
    from web.server import ensure_pin

    out = io.StringIO()  # not a terminal: the PIN goes to a private file, not to the output (tests/test_web_security.py)
    ensure_pin(tmp_path / "pin.json", interactive=False, out=out)
    pin = (tmp_path / "first-pin.txt").read_text().strip()
    assert re.fullmatch(r"\d{6}", pin) and pin not in out.getvalue()
    assert security.PinStore(tmp_path / "pin.json").verify(pin)
    ensure_pin(tmp_path / "pin.json", interactive=False, out=out)  # second start: kept
    assert security.PinStore(tmp_path / "pin.json").verify(pin)
    with pytest.raises(Exception, match="different PIN"):
        ensure_pin(tmp_path / "pin.json", pin="11112222")


def test_first_start_says_so_when_the_input_ends_before_the_pin(tmp_path, monkeypatch):
    from web import server

    answers = iter(["482611"])

    def typed(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(server.getpass, "getpass", typed)
    with pytest.raises(UserError, match="input ended before a PIN was set"):
        server.ensure_pin(tmp_path / "pin.json", interactive=True, out=io.StringIO())
    assert not security.PinStore(tmp_path / "pin.json").is_set


def test_app_refuses_to_start_without_a_pin(tmp_path):
    with pytest.raises(Exception, match="no PIN is set"):
        create_app(FakeSession(), {"PIN_FILE": str(tmp_path / "none.json")})


def test_serve_command_parses_options(tmp_path):
    from assistant.apps import serve as cli

    p = argparse.ArgumentParser()
    cli.add_parser(p.add_subparsers(dest="command"))
    a = p.parse_args(["serve", "--host", "127.0.0.1", "--port", "9001", "--db", "g.sqlite", "--game", "g-1"])
    assert (a.host, a.port, a.db, a.game) == ("127.0.0.1", 9001, "g.sqlite", "g-1")
    assert isinstance(cli.open_session(str(tmp_path / "missing.sqlite"), None), adapter.NoGame)
    with pytest.raises(Exception, match="does not exist"):
        cli.open_session(str(tmp_path / "missing.sqlite"), "g-1")


def test_no_game_yet_page_points_to_setup(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    c = create_app(adapter.NoGame(), {"PIN_FILE": str(tmp_path / "pin.json")}).test_client()
    assert "Start one in" in c.get("/").get_data(as_text=True)
    h = {"X-CSRF-Token": unlocked(c)}
    r = c.post("/api/undo", json={}, headers=h)
    assert r.status_code == 400 and "no game yet" in r.get_json()["error"]
    r = c.post("/api/tablet/ghost_card", json={"card": "M01"}, headers=h)
    assert r.status_code == 400 and "no game yet" in r.get_json()["error"]


# ---- game options and the solo Ghost (issue 7) -----------------------------------------------------------------
class SoloSession(FakeSession):
    """A FakeSession holding a real solo engine State whose deck is face down (a real table); its snapshot carries
    the game's options and Ghost parts as a GameSession's does (``Game.snapshot``)."""

    def __init__(self, options=None):
        from assistant.wendake import ghost

        super().__init__()
        self.state = ghost.new_solo_game("Ann", seed=4, options=options)
        self.state.mask_deck = [None] * len(self.state.mask_deck)

    def snapshot(self):
        from assistant.table import game as games

        part = games.get("wendake").snapshot(self.state, [], {}, self.state)
        return super().snapshot() | {k: part[k] for k in ("options", "options_changed", "ghost")}

    def correct(self, moves):
        from assistant.wendake import rules
        from assistant.wendake.moves import move_from_json

        for m in moves:
            rules.apply(self.state, move_from_json(m))
        super().correct(moves)


def _solo_env(tmp_path, session):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    app = create_app(session, {"PIN_FILE": str(tmp_path / "pin.json"), "DATA_DIR": str(tmp_path / "data"), "TESTING": True})
    return app.test_client()


def test_scoreboard_shows_the_ghost_instruction_card_form_and_options(tmp_path):
    """W-SOLO-8: the tablet asks for the Ghost's mask card when it cannot be known; section 20 options are listed."""
    from assistant.wendake.state import Options

    session = SoloSession(Options(ties_win_empty=True))
    c = _solo_env(tmp_path, session)
    page = c.get("/").get_data(as_text=True)
    assert "reveal the top mask card of the deck for the Ghost" in page and "data-ghost-card-form" in page
    known = [c for c in session.state.players[0].hand + session.state.mask_discard if c]  # face up or in hand
    assert known and page.count("<option value=\"M") == 36 - len(known)  # any other card can be the one revealed
    assert not any(f'<option value="{c}"' in page for c in known)
    assert "<b>1 changed</b>" in page and 'data-option="ties_win_empty"' in page and "W-PRG-L3-2" in page
    view = c.get("/api/snapshot").get_json()
    assert view["ghost"]["awaiting_card"] and view["ghost"]["card_unread"] and view["options_changed"] == 1
    assert len(view["options"]) == 14


def test_ghost_card_tap_needs_the_pin_and_is_checked(tmp_path):
    session = SoloSession()
    c = _solo_env(tmp_path, session)
    t = token(c)
    r = c.post("/api/tablet/ghost_card", json={"card": "M01"}, headers={"X-CSRF-Token": t})
    assert r.status_code == 403 and r.get_json()["need"] == "pin"
    t = unlocked(c)
    h = {"X-CSRF-Token": t}
    r = c.post("/api/tablet/ghost_card", json={"card": "M99"}, headers=h)
    assert r.status_code == 400 and "not a mask card" in r.get_json()["error"]
    assert c.post("/api/tablet/ghost_card", json={"card": "M05"}, headers=h).status_code == 200
    assert session.calls == [("correct", [{"type": "ghost_card", "card": "M05"}])]
    assert session.state.solo.year_card == "M05" and not session.state.solo.awaiting_card
    r = c.post("/api/tablet/ghost_card", json={"card": "M06"}, headers=h)
    assert r.status_code == 400 and "already known" in r.get_json()["error"]
    page = c.get("/").get_data(as_text=True)
    assert "data-ghost-card-form" not in page and "It is your turn." in page


def test_ghost_instruction_names_the_piece_and_place(tmp_path):
    """W-SOLO-9/10: on the Ghost's turn the tablet says which Ghost piece or disk goes where."""
    from assistant.wendake import moves as M
    from assistant.wendake import rules

    session = SoloSession()
    rules.apply(session.state, M.GhostCard("M05"))
    rules.apply(session.state, M.Activate((0, 0)))
    rules.apply(session.state, M.EndTurn())
    view = adapter.snapshot(session)
    assert view["ghost"]["text"].startswith("Ghost action 1") and not view["ghost"]["choices"]


def test_ghost_card_refused_outside_a_solo_game(env):
    _, session, c = env
    t = unlocked(c)
    r = c.post("/api/tablet/ghost_card", json={"card": "M01"}, headers={"X-CSRF-Token": t})
    assert r.status_code == 400 and "not a solo game" in r.get_json()["error"]
    page = c.get("/").get_data(as_text=True)
    assert "data-ghost" not in page and "data-options" not in page  # no engine state: nothing to show


def test_options_from_a_real_game_session(tmp_path):
    """The game's options come through a real GameSession's snapshot (Game.snapshot)."""
    from assistant.table.session import GameSession

    s = GameSession.create(tmp_path / "g.sqlite", players=["Ann", "Bob"], seed=1, options={"smallpox_from_home_only": True})
    view = adapter.snapshot(s)
    assert view["options_changed"] == 1 and view["ghost"] is None
    assert next(o for o in view["options"] if o["option"] == "smallpox_from_home_only")["rule"] == "W-ACT-10b"
    s.close()
