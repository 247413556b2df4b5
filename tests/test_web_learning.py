"""The tablet's part in learning the owner's table (issue 34), through Flask's test client and the live stream: the
learning status of the table profile (learning with a progress bar, the adapted card's line, a failure's line),
the set-up check before play starts (its line, the board pictures with the misread regions, the offer to adapt),
the adapt button (only with the PIN, only when the program can adapt), one board's picture route, the board
pictures of a NeedsConfirmation, and bad input (one line, never a 500)."""

from __future__ import annotations

import html as htmllib
import json
import re
import threading
import time

import pytest

from assistant.errors import UserError
from assistant.table.profile import open_profile, profile_name
from assistant.table.session import GameSession
from web import adapter, security
from web.app import create_app

PIN = "731946"
CANOES = {"kind": "SetupCheck", "ok": False, "offer_adapt": True, "checked": 212, "misread": 4, "by_kind": {},
          "text": "your canoes read as warriors standing: 3 of 4 canoe spaces misread (and 1 more kind). "
                  "Learning this table can fix it.",
          "problems": [{"subject": "canoe", "checked": 4, "misread": 3, "boards": ["wendake-map-2p"],
                        "text": "your canoes read as warriors standing: 3 of 4 canoe spaces misread",
                        "keys": ["wendake-map-2p/L1", "wendake-map-2p/L2", "wendake-map-2p/L3"]},
                       {"subject": "hunter", "checked": 2, "misread": 1, "boards": ["wendake-village-1"],
                        "text": "your hunters read as women: 1 of 2 hunter spaces misread",
                        "keys": ["wendake-village-1/long_house"]}],
          "boards": ["wendake-map-2p", "wendake-village-1"],
          "regions": ["wendake-map-2p/L1", "wendake-map-2p/L2", "wendake-map-2p/L3", "wendake-village-1/long_house"]}
GOOD = {"kind": "SetupCheck", "ok": True, "offer_adapt": False, "checked": 212, "misread": 0, "problems": [],
        "boards": [], "regions": [], "text": "the set-up reads well: 212 of 212 regions as set up."}


class Session:
    """A game session double (the GameSession interface the app uses) whose events the test makes."""

    def __init__(self, moves=0, confirmation=None, alerts=()):
        self.cond = threading.Condition()
        self.events: list[dict] = []
        self.last_seq = 0
        self.moves = moves
        self.confirmation = confirmation
        self.alerts = list(alerts)

    def emit(self, kind: str, **payload) -> None:
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
        return {"format": "tablewatch.snapshot/1", "game_id": "g-1", "seq": self.last_seq, "game": "wendake",
                "players": [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}],
                "alerts": self.alerts, "confirmation": self.confirmation, "log_status": {"ok": True, "message": None},
                "moves": [{"index": i, "text": f"Ann: move {i}"} for i in range(self.moves)]}


@pytest.fixture
def pin_file(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    return str(tmp_path / "pin.json")


@pytest.fixture
def profile(tmp_path):
    return open_profile(tmp_path / "data", profile_name(["wendake-map-2p"]))


def make_app(pin_file, session, **config):
    return create_app(session, {"PIN_FILE": pin_file, "DATA_DIR": str(pin_file).rsplit("/", 1)[0] + "/data",
                                "TESTING": True, **config})


def write_status(profile, **status) -> None:
    tmp = profile.status_path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"updated": "2026-11-26T15:00:00", **status}))
    tmp.replace(profile.status_path)


def text_of(page: str) -> str:
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", "", page)).split())


def learning_section(page: str) -> str:
    return re.search(r'<section class="learning.*?</section>', page, re.S).group(0)


def csrf(client) -> str:
    return client.get("/api/whoami").get_json()["csrf_token"]


def unlock(client) -> str:
    token = csrf(client)
    assert client.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": token}).status_code == 200
    return token


# ---- the learning status -------------------------------------------------------------------------------------------
def test_learning_status_shows_progress_then_the_cards_line_then_a_failure(pin_file, profile, tmp_path):
    session = GameSession.create(str(tmp_path / "games.sqlite"), players=["Ann", "Bob"], colours=["red", "blue"], seed=3)
    c = make_app(pin_file, session, TABLE_PROFILE=profile).test_client()
    write_status(profile, state="learning", text="reading 40 of your table's looks", progress=0.4)
    for url in ("/", "/board"):
        html = c.get(url).get_data(as_text=True)
        assert 'data-learn-status="learning"' in html and "Learning your table" in html
        assert re.search(r'<progress max="100" value="40">', html), url
    write_status(profile, state="learning", text="starting")  # no figure yet: a bar without a value
    html = c.get("/").get_data(as_text=True)
    assert '<progress max="100"></progress>' in html
    card = {"format": "tablewatch.adapted/1", "text": "read 97.7 % \u2192 99.6 % of your table's regions"}
    write_status(profile, state="done", text="adapted", card=card)
    html = c.get("/").get_data(as_text=True)
    assert "Adapted to your table: read 97.7 % \u2192 99.6 % of your table's regions" in text_of(html)
    assert "<progress" not in html
    kept = "kept the current weights: the new ones read 99.7 % of your table's held-out regions, the current ones 99.8 %"
    write_status(profile, state="done", text=kept)  # an adapt that swapped nothing in: no card, its own line
    html = c.get("/").get_data(as_text=True)
    assert "Learnt from your table: " + kept in text_of(html) and "Adapted to your table" not in html
    write_status(profile, state="failed", text="adapt stopped: the disk is full (12 MB free); free space and adapt again")
    html = c.get("/board").get_data(as_text=True)
    assert 'data-learn-status="failed"' in html
    assert "Learning your table failed: adapt stopped: the disk is full (12 MB free); free space and adapt again" in text_of(html)
    snap = c.get("/api/snapshot").get_json()
    assert snap["learning"]["state"] == "failed" and snap["learning"]["profile"] == profile.name


def test_an_earlier_adaptation_is_shown_while_idle_and_a_broken_status_is_one_line(pin_file, profile):
    c = make_app(pin_file, Session(), TABLE_PROFILE=profile).test_client()
    assert "data-learn-status" not in c.get("/").get_data(as_text=True)  # nothing learnt, nothing said yet
    profile.adapted_dir.mkdir()
    (profile.adapted_dir / "card.json").write_text(json.dumps({"text": "read 95.0 % \u2192 99.1 % of your table's regions"}))
    assert "Adapted to your table: read 95.0 % \u2192 99.1 %" in text_of(c.get("/").get_data(as_text=True))
    profile.status_path.write_text('{"state": "learning", "progress": NaN')
    r = c.get("/")
    assert r.status_code == 200
    problem = re.search(r'<span class="warn">([^<]*)</span>', r.get_data(as_text=True)).group(1)
    assert "status cannot be read" in problem and "status.json" in problem and "\n" not in problem
    profile.status_path.write_text('["not", "an", "object"]')
    assert "not a JSON object" in c.get("/").get_data(as_text=True)


def test_a_dropped_adaptation_says_so_for_its_game_only(pin_file, profile):
    """The adaptation guard (assistant.apps.learn.AdaptationGuard) dropped the adaptation for this game: the tablet
    says so in its words instead of the card's line; another game's verdict is not shown."""
    profile.adapted_dir.mkdir()
    (profile.adapted_dir / "card.json").write_text(json.dumps({"text": "read 95.0 % \u2192 99.1 % of your table's regions"}))
    line = "your table's adaptation read the set-up worse (18 misread vs 0): using the base model for this game"
    write_status(profile, state="idle", guard={"game_id": "g-1", "dropped": True, "text": line})
    session = Session()
    c = make_app(pin_file, session, TABLE_PROFILE=profile).test_client()
    page = text_of(c.get("/").get_data(as_text=True))
    assert "Not using your table's adaptation: " + line in page and "Adapted to your table" not in page
    for guard in ({"game_id": "g-1", "dropped": False, "text": "as well or better"},
                  {"game_id": "g-0", "dropped": True, "text": line}):  # kept, or another game's verdict
        write_status(profile, state="idle", guard=guard)
        page = text_of(c.get("/").get_data(as_text=True))
        assert "Not using" not in page and "Adapted to your table: read 95.0 %" in page


def test_no_profile_and_no_set_up_check_shows_nothing_about_learning(pin_file):
    c = make_app(pin_file, Session(), ADAPT_NOW=lambda: "started").test_client()
    html = c.get("/").get_data(as_text=True)
    assert "learning" not in re.sub(r"<script.*?</script>", "", html).lower().replace("data-pick", "")
    assert c.get("/api/snapshot").get_json()["learning"] is None


def test_the_status_file_changing_reaches_an_open_stream_without_an_event(pin_file, profile):
    app = make_app(pin_file, Session(), TABLE_PROFILE=profile)
    hub = app.extensions["tablewatch"].hub
    hub.poll_s = 0.05
    gen = hub.stream(None)
    first = next(gen)
    assert "Learning your table" not in first
    hub.start()
    try:
        write_status(profile, state="learning", text="reading your table's looks", progress=0.25)
        deadline = time.monotonic() + 10
        chunk = ""
        while "Learning your table" not in chunk and time.monotonic() < deadline:
            chunk = next(gen)
        view = json.loads(re.search(r"event: view\ndata: (.*)\n\n", chunk).group(1))
        assert 'value="25"' in view["parts"]["scoreboard"] and view["seq"] == 0
        polled = app.test_client().get("/api/view").get_json()  # a page refused a stream polls the same view
        assert polled["version"] == view["version"] and 'value="25"' in polled["parts"]["scoreboard"]
    finally:
        hub.stop()


# ---- the set-up check ---------------------------------------------------------------------------------------------
def test_set_up_check_panel_before_play_with_pictures_and_the_offer_to_adapt(pin_file, profile):
    write_status(profile, state="idle", text="", setup_check=CANOES)
    drawn = []

    def board_jpeg(board, regions):
        drawn.append((board, regions))
        return b"\xff\xd8\xff\xe0" + board.encode()

    session = Session(moves=0)
    c = make_app(pin_file, session, TABLE_PROFILE=profile, ADAPT_NOW=lambda: "learning started",
                 BOARD_JPEG=board_jpeg).test_client()
    html = c.get("/").get_data(as_text=True)
    panel = learning_section(html)
    assert 'data-setup-check="open"' in panel
    line = re.search(r'<p class="setup-check-text">([^<]*)</p>', panel).group(1)
    assert line == "Your canoes read as warriors standing: 3 of 4 canoe spaces misread (and 1 more kind). Learning this table can fix it."
    assert re.findall(r"<li>([^<]*)</li>", panel) == ["your hunters read as women: 1 of 2 hunter spaces misread"]
    srcs = [s.replace("&amp;", "&") for s in re.findall(r'<img src="([^"]+)"', panel)]
    assert [s.split("&v=")[0] for s in srcs] == ["/board.jpg?board=wendake-map-2p&region=L1&region=L2&region=L3",
                                                 "/board.jpg?board=wendake-village-1&region=long_house"]
    r = c.get(srcs[0])
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data.endswith(b"wendake-map-2p")
    assert drawn == [("wendake-map-2p", ["L1", "L2", "L3"])]
    assert 'data-action="adapt"' in panel and "Adapt to this table" in panel
    session.moves = 1  # play started: the check folds away, still there to open
    html = make_app(pin_file, session, TABLE_PROFILE=profile, ADAPT_NOW=lambda: "x").test_client().get("/").get_data(as_text=True)
    assert 'data-setup-check="folded"' in html and 'data-setup-check="open"' not in html
    assert '<img src="/board.jpg?v=' in html  # without the BOARD_JPEG hook: the whole board image


def test_no_adapt_button_without_the_hook_or_while_learning(pin_file, profile):
    write_status(profile, state="idle", setup_check=CANOES)
    html = make_app(pin_file, Session(), TABLE_PROFILE=profile).test_client().get("/").get_data(as_text=True)
    assert 'data-setup-check="open"' in html and 'data-action="adapt"' not in html
    write_status(profile, state="learning", progress=0.1, setup_check=CANOES)
    html = make_app(pin_file, Session(), TABLE_PROFILE=profile, ADAPT_NOW=lambda: "x").test_client().get("/").get_data(as_text=True)
    assert 'data-action="adapt"' not in html and "Learning your table" in html


def test_set_up_check_that_reads_well_is_one_quiet_line_and_another_games_is_not_shown(pin_file, profile):
    write_status(profile, setup_check=GOOD)
    html = make_app(pin_file, Session(), TABLE_PROFILE=profile, ADAPT_NOW=lambda: "x").test_client().get("/").get_data(as_text=True)
    assert 'data-setup-check="ok"' in html and "the set-up reads well: 212 of 212 regions as set up." in html
    assert 'data-action="adapt"' not in html
    write_status(profile, setup_check=CANOES | {"game_id": "an-older-game"})
    html = make_app(pin_file, Session(), TABLE_PROFILE=profile).test_client().get("/").get_data(as_text=True)
    assert "data-setup-check" not in html
    session = Session()
    session.setup_check = GOOD  # the session's own check is this game's: it wins over the status's
    write_status(profile, setup_check=CANOES)
    html = make_app(pin_file, session, TABLE_PROFILE=profile).test_client().get("/").get_data(as_text=True)
    assert 'data-setup-check="ok"' in html and "canoes" not in html


def canoes_as_warriors(key, value):
    if isinstance(value, tuple) and any(k.startswith("canoe:") for k, _ in value):
        return tuple(sorted((k.replace("canoe:", "warrior_standing:"), n) for k, n in value))
    return value


def test_the_sessions_set_up_check_reaches_the_open_page_and_a_restarted_server(pin_file, tmp_path):
    """A camera reads the start position with every canoe as a warrior: the session's SetupCheck comes through the
    stream with the panel, its line, and the map's picture with the lakes marked (no profile needed)."""
    from assistant.table.observation import Observation, Reading

    db = str(tmp_path / "games.sqlite")
    session = GameSession.create(db, players=["Ann", "Bob"], colours=["red", "blue"], seed=3)
    session.check_setup = True  # as the camera programs turn it on
    app = make_app(pin_file, session, BOARD_JPEG=lambda b, r: b"\xff\xd8")
    hub = app.extensions["tablewatch"].hub
    hub.poll_s = 0.05
    gen = hub.stream(None)
    assert "setup-check" not in next(gen)
    hub.start()
    try:
        exp = session.game.expected_readings(session.tracker.initial)
        lakes = sorted(k for k, v in exp.items() if canoes_as_warriors(k, v) != v)
        readings = {k: Reading(canoes_as_warriors(k, v), 0.9) for k, v in exp.items()}
        boards = tuple(sorted({k.split("/")[0] for k in exp}))
        events = session.feed(Observation(0, 0.0, readings, boards_read=boards))
        assert [e.kind for e in events if e.kind == "SetupCheck"] == ["SetupCheck"]
        deadline, chunk = time.monotonic() + 10, ""
        while "setup-check" not in chunk and time.monotonic() < deadline:
            chunk = next(gen)
        assert '"kind": "SetupCheck"' in chunk or '"kind":"SetupCheck"' in chunk
        view = json.loads(re.search(r"event: view\ndata: (.*)\n\n", chunk).group(1))
        panel = learning_section(view["parts"]["scoreboard"])
    finally:
        hub.stop()
    assert 'data-setup-check="open"' in panel and 'data-action="adapt"' not in panel  # no ADAPT_NOW: no offer
    assert f"Your canoes read as warriors standing: {len(lakes)} of {len(lakes)} canoe spaces misread" in text_of(panel)
    src = re.search(r'<img src="([^"]+)"', panel).group(1).replace("&amp;", "&")
    board = lakes[0].split("/")[0]
    assert src.startswith(f"/board.jpg?board={board}&" + "&".join(f"region={k.split('/')[1]}" for k in lakes))
    assert re.findall(r"<figcaption>([^<]*)</figcaption>", panel) == ["The map"]  # the players' name, not the layout's
    session.close()
    again = GameSession.resume(db)  # a server started later on the same game: the check is the game's
    try:
        page = make_app(pin_file, again).test_client().get("/").get_data(as_text=True)
        assert "Your canoes read as warriors standing" in text_of(page) and 'data-setup-check="open"' in page
    finally:
        again.close()


# ---- the adapt button ---------------------------------------------------------------------------------------------
def test_adapt_needs_the_csrf_token_and_the_pin_and_calls_the_hook_once(pin_file, profile):
    calls = []

    def adapt_now():
        calls.append(1)
        return "learning your table: 42 looks; the game goes on"

    c = make_app(pin_file, Session(), TABLE_PROFILE=profile, ADAPT_NOW=adapt_now).test_client()
    assert c.post("/api/adapt").status_code == 403  # no CSRF token
    r = c.post("/api/adapt", headers={"X-CSRF-Token": csrf(c)})
    assert r.status_code == 403 and r.get_json()["need"] == "pin"
    assert calls == []
    token = csrf(c)
    assert c.post("/api/unlock", json={"pin": "000000"}, headers={"X-CSRF-Token": token}).status_code == 403
    assert c.post("/api/adapt", headers={"X-CSRF-Token": token}).status_code == 403 and calls == []
    token = unlock(c)
    r = c.post("/api/adapt", headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and r.get_json() == {"ok": True, "message": "learning your table: 42 looks; the game goes on"}
    assert calls == [1]


def test_adapt_without_the_hook_or_with_a_failing_hook_is_one_line(pin_file):
    c = make_app(pin_file, Session()).test_client()
    r = c.post("/api/adapt", headers={"X-CSRF-Token": unlock(c)})
    assert r.status_code == 404 and "cannot adapt" in r.get_json()["error"]

    def broken():
        raise RuntimeError("adapt runner\nis gone")

    def refused():
        raise UserError("an adapt is already running; wait for it to finish.")

    for hook, status, words in ((broken, 503, "could not start: adapt runner is gone"), (refused, 400, "already running")):
        c = make_app(pin_file, Session(), ADAPT_NOW=hook).test_client()
        r = c.post("/api/adapt", data=b"\x00\xff not json", headers={"X-CSRF-Token": unlock(c)})
        assert r.status_code == status and words in r.get_json()["error"] and "\n" not in r.get_json()["error"]


# ---- the board image of one board ------------------------------------------------------------------------------------------
def test_board_picture_route_checks_its_input_and_never_fails_with_a_500(pin_file):
    pictures = {"wendake-village-1": b"\xff\xd8village"}
    seen = []

    def board_jpeg(board, regions):
        seen.append((board, regions))
        if board == "boom":
            raise ValueError("no such view")
        return pictures.get(board)

    c = make_app(pin_file, Session(), BOARD_JPEG=board_jpeg).test_client()
    r = c.get("/board.jpg?board=wendake-village-1&region=long_house&region=slot.4&region=long_house")
    assert r.status_code == 200 and r.data == b"\xff\xd8village" and r.headers["Cache-Control"] == "no-store"
    assert seen[-1] == ("wendake-village-1", ["long_house", "slot.4"])
    bad = ["?board=", "?board=../../etc/passwd", "?board=a%20b", "?board=x&region=%3Cscript%3E",
           "?board=x&region=" + "a" * 81, "?board=x" + "".join(f"&region=r{i}" for i in range(65))]
    for query in bad:
        r = c.get("/board.jpg" + query)
        assert r.status_code == 400, query
        assert r.get_json()["error"] and "\n" not in r.get_json()["error"]
    assert len(seen) == 1  # bad input never reaches the hook
    r = c.get("/board.jpg?board=wendake-map-2p")
    assert r.status_code == 404 and "No picture of wendake-map-2p yet" in r.get_data(as_text=True)
    r = c.get("/board.jpg?board=boom")
    assert r.status_code == 503 and r.get_data(as_text=True).count("\n") == 0
    whole = make_app(pin_file, Session(), BOARD_IMAGE=lambda: b"\xff\xd8whole").test_client()
    assert whole.get("/board.jpg?board=wendake-map-2p&region=L1").data == b"\xff\xd8whole"  # no BOARD_JPEG: the whole image


# ---- NeedsConfirmation with the board pictures ------------------------------------------------------------------------
def test_needs_confirmation_shows_the_candidates_and_the_pictures_of_the_boards_involved(pin_file):
    conf = {"seq": 9, "candidates": [{"index": 0, "moves": ["Ann: puts 2 beavers on her village"], "cost": 0.4,
                                      "boards": ["wendake-village-1"]},
                                     {"index": 1, "moves": ["Ann: puts 3 beavers on her village"], "cost": 0.6,
                                      "boards": ["wendake-village-1", "wendake-map-2p"]}]}
    alert = {"id": 4, "kind": "NeedsConfirmation", "message": "The beaver pile reads unsurely: which was it?"}
    session = Session(confirmation=conf, alerts=[alert])
    html = make_app(pin_file, session, BOARD_JPEG=lambda b, r: b"\xff\xd8").test_client().get("/").get_data(as_text=True)
    banner = re.search(r'<section class="alert alert-needsconfirmation".*?</section>', html, re.S).group(0)
    assert [b.strip() for b in re.findall(r'data-action="confirm" data-index="\d">([^<]*)<', banner)] == [
        "Ann: puts 2 beavers on her village", "Ann: puts 3 beavers on her village"]
    assert re.findall(r'<figure class="alert-picture" data-board="([^"]+)"', banner) == ["wendake-village-1", "wendake-map-2p"]
    assert "/board.jpg?board=wendake-village-1" in banner
    # the board names in the event itself (the alert's own "boards"), and without the crop hook: the whole picture
    session = Session(alerts=[alert | {"boards": ["wendake-village-2"]}], confirmation={"candidates": [{"index": 0, "moves": ["a"]}]})
    html = make_app(pin_file, session).test_client().get("/").get_data(as_text=True)
    assert re.search(r'<figure class="alert-picture" data-board="wendake-village-2"><a href="/board"><img src="/board.jpg', html)
    # no boards named: the candidates alone, as before
    session = Session(alerts=[alert], confirmation={"candidates": [{"index": 0, "moves": ["a"]}, {"index": 1, "moves": ["b"]}]})
    v = adapter.snapshot(session)
    assert [a["pictures"] for a in v["alerts"]] == [[]]
    assert "alert-picture" not in make_app(pin_file, session).test_client().get("/").get_data(as_text=True)
