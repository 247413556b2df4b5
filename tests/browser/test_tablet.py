"""The tablet page in real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright): a recorded game
is replayed through a real GameSession behind the real server (waitress), as a perfect camera would read it
(``assistant.wendake.observer.expected_readings``), and the page must follow. Screenshots at tablet size
(1280x800) go to tests/artifacts/ (git-ignored)."""

from __future__ import annotations

import random
import re
import threading
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
if not CHROMIUM.exists():
    pytest.skip("Chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)", allow_module_level=True)
expect = playwright_api.expect

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PIN = "246813"  # new PINs have 6-12 digits (web.security)
TABLET = {"width": 1280, "height": 800}


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / ".gitignore").write_text("*\n")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


class Table:
    """A game at the table: the engine state the players have made, fed to the session as camera observations."""

    def __init__(self, session, seed: int):
        self.session = session
        self.state = session.state.copy()
        self.rng = random.Random(seed)
        self.frame = 0

    def observe(self, state=None):
        from assistant.table.observation import Observation, Reading
        from assistant.wendake.observer import expected_readings

        self.frame += 1
        readings = {k: Reading(v, 0.99) for k, v in expected_readings(state or self.state).items()}
        return self.session.feed(Observation(frame=self.frame, t=float(self.frame), readings=readings))

    def play_turn(self):
        from assistant.wendake import moves as M
        from assistant.wendake import rules
        from assistant.wendake.generate import random_move

        while self.state.phase != "over":
            move = random_move(self.state, self.rng)
            rules.apply(self.state, move)
            if isinstance(move, M.EndTurn):
                break
        return self.observe()

    def out_of_turn_marker(self):
        """The state with a player who is not on turn having put an action marker on his grid (W-RND-3)."""
        bad = self.state.copy()
        other = next(i for i in range(bad.n) if i != bad.current)
        pl = bad.players[other]
        pl.markers.append(next(i for i in range(9) if i not in pl.markers))
        pl.sages -= 1
        return bad


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from assistant.table.session import GameSession
    from web.app import create_app
    from web.security import PinStore
    from web.server import make_server

    tmp = tmp_path_factory.mktemp("web")
    PinStore(tmp / "pin.json").set_pin(PIN)
    session = GameSession.create(str(tmp / "games.sqlite"), players=["Ann", "Bob"], colours=["red", "blue"], seed=3)
    app = create_app(session, {"PIN_FILE": str(tmp / "pin.json"), "DATA_DIR": str(tmp / "data"), "HEARTBEAT_S": 2})
    srv = make_server(app, "127.0.0.1", 0, threads=16)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    tw = app.extensions["tablewatch"]
    tw.hub.start()
    yield {"url": f"http://127.0.0.1:{srv.effective_port}", "session": session, "table": Table(session, seed=3), "tw": tw}
    tw.hub.stop()
    srv.close()


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=TABLET)
    pg = context.new_page()
    yield pg
    context.close()


def wait_for_seq(page, session):
    """The page has applied the view of the session's latest event."""
    expect(page.locator("body")).to_have_attribute("data-seq", str(session.last_seq))


def wait_for_new_events(session, seq: int, timeout_s: float = 15.0) -> None:
    """The session has logged something after ``seq`` (a request the page sent has been handled)."""
    session.events_since(seq, timeout=timeout_s)
    assert session.last_seq > seq, f"no event after seq {seq} within {timeout_s} s"


def test_scoreboard_follows_the_game(server, page):
    session, table = server["session"], server["table"]
    page.goto(server["url"] + "/")
    expect(page.locator("#conn")).to_have_text("live")
    rows = page.locator("table.scores tr.player")
    expect(rows).to_have_count(2)
    for _ in range(6):
        table.play_turn()
        wait_for_seq(page, session)
    snap = session.snapshot()
    assert len(snap["moves"]) > 6
    for p in snap["players"]:
        row = page.locator(f'tr.player[data-player="{p["name"]}"]')
        expect(row.locator("td.tot")).to_have_text(str(p["projected_total"]))
        for pair in p["pairs"]:
            for track, value in zip(pair["tracks"], pair["values"]):
                cell = row.locator(f'td[data-track="{track}"]')
                expect(cell).to_have_text(str(value))
                if track == pair["lower"] and pair["values"][0] != pair["values"][1]:
                    expect(cell).to_have_class(re.compile(r"\blower\b"))
    expect(page.locator(".turnbar .who")).to_have_text(snap["current_name"])
    shot(page, "scoreboard")
    page.goto(server["url"] + "/log")
    expect(page.locator("ol.log li")).to_have_count(len(snap["moves"]))
    expect(page.locator("ol.log li").first).to_contain_text(snap["moves"][-1]["text"].split(": ", 1)[1])
    shot(page, "move-log")


def test_illegal_move_raises_the_banner_and_fixing_the_table_clears_it(server, page):
    table = server["table"]
    page.goto(server["url"] + "/")
    expect(page.locator("#conn")).to_have_text("live")
    events = table.observe(table.out_of_turn_marker())
    assert "IllegalMove" in [e.kind for e in events]
    banner = page.locator("section.alert-illegalmove")
    expect(banner).to_be_visible()
    expect(banner.locator(".rule")).to_have_text("W-RND-3")
    # what to move, in a player's words (one line per piece), and where, marked on a picture of the board
    expect(banner.locator(".alert-fixlist li")).to_have_text([re.compile(r"^Put back: 1 \w+ action marker from \w+'s grid, "
                                                                       r"row \d, column \d to \w+'s sage space \d$")])
    expect(banner.locator("figure.alert-board polygon.mark")).to_have_count(2)
    assert not re.search(r"wendake-village|slot\.\d|sage\.\d", banner.inner_text())
    box = banner.bounding_box()
    assert box["height"] < 0.3 * TABLET["height"], box  # readable from across the table without hiding the scores
    shot(page, "alert-banner")
    events = table.observe()  # the player takes the marker back
    assert "AlertCleared" in [e.kind for e in events]
    expect(banner).to_have_count(0)


def test_page_catches_up_after_the_connection_drops(server, browser):
    session, table = server["session"], server["table"]
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    try:
        page.goto(server["url"] + "/log")
        expect(page.locator("#conn")).to_have_text("live")
        before = page.locator("ol.log li").count()
        context.set_offline(True)  # Wi-Fi gone: the open stream breaks and reconnecting fails
        server["tw"].hub.disconnect_all()
        expect(page.locator("#conn")).to_contain_text("offline")
        table.play_turn()
        table.play_turn()
        context.set_offline(False)
        expect(page.locator("#conn")).to_have_text("live", timeout=15000)
        wait_for_seq(page, session)
        expect(page.locator("ol.log li")).to_have_count(len(session.snapshot()["moves"]))
        assert page.locator("ol.log li").count() > before
    finally:
        context.close()


def test_undo_needs_the_pin_and_records_a_correction(server, page):
    session = server["session"]
    page.goto(server["url"] + "/log")
    expect(page.locator("#conn")).to_have_text("live")
    moves_before = len(session.snapshot()["moves"])
    page.get_by_role("button", name="Undo last move").click()
    dialog = page.locator("#pin-dialog")
    expect(dialog).to_be_visible()
    assert len(session.snapshot()["moves"]) == moves_before  # nothing changed without the PIN
    page.fill("#pin-input", "0000")
    page.click("#pin-ok")
    expect(page.locator("#pin-error")).to_have_text("Wrong PIN.")
    shot(page, "pin-dialog")
    seq_before = session.last_seq
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    expect(dialog).to_be_hidden()
    wait_for_new_events(session, seq_before)  # the dialog closes before the undo request has reached the server
    wait_for_seq(page, session)
    kinds = [e["kind"] for e in session.events_since(0)]
    assert kinds[-1] in ("Correction", "AlertCleared") and "Correction" in kinds
    assert len(session.snapshot()["moves"]) < moves_before
    expect(page.locator("ol.log li")).to_have_count(len(session.snapshot()["moves"]))


def test_correction_form_shows_validation_errors(server, page):
    page.goto(server["url"] + "/log")
    page.get_by_role("button", name="Correct…").click()
    page.fill("#correct-moves", '[{"type": "teleport"}]')
    page.get_by_role("button", name="Record correction").click()
    expect(page.locator("#pin-dialog")).to_be_visible()  # a fresh tablet: the PIN first
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    expect(page.locator("#correct-error")).to_contain_text("unknown move type 'teleport'")


def test_results_and_setup_pages_render_at_tablet_size(server, page):
    page.goto(server["url"] + "/results")
    expect(page.locator("[data-part=results]")).to_contain_text("not over yet")
    expect(page.locator("svg.chart polyline")).to_have_count(2)
    shot(page, "results-in-play")
    page.goto(server["url"] + "/setup")
    expect(page.locator(".player-row:visible")).to_have_count(4)
    page.select_option("#player-count", "2")
    expect(page.locator(".player-row:visible")).to_have_count(2)
    shot(page, "setup")


def test_final_results_after_a_new_game_replaces_the_old_one(server, page, tmp_path):
    """A whole recorded game (entered as one correction) becomes the served game; the open page resets to it."""
    from assistant.table.session import GameSession
    from assistant.wendake.generate import play_random_game
    from assistant.wendake.moves import move_to_json

    page.goto(server["url"] + "/results")
    expect(page.locator("[data-part=results]")).to_contain_text("not over yet")
    finished = GameSession.create(str(tmp_path / "final.sqlite"), players=["Ann", "Bob"], colours=["red", "blue"], seed=4)
    _, moves = play_random_game(["Ann", "Bob"], seed=4)
    finished.correct([move_to_json(m) for m in moves])
    res = finished.snapshot()["results"]
    server["tw"].replace_session(finished)
    expect(page.locator("h2.winner")).to_have_text(f"Winner: {res['winner']}")
    rows = page.locator("table.results tbody tr")
    expect(rows).to_have_count(2)
    for p in res["players"]:
        expect(page.locator(f'table.results tr[data-player="{p["name"]}"] td.tot')).to_have_text(str(p["total"]))
    expect(page.locator("svg.chart polyline")).to_have_count(2)
    if res["tie_break"]:
        expect(page.locator(".tiebreak")).to_contain_text("W-SCR-4")
    expect(page.locator(".turnbar")).to_contain_text("Game over")
    shot(page, "results-final")


def test_layout_tracer_shows_problems_inline_and_saves(server, page):
    page.goto(server["url"] + "/trace")
    page.select_option("select[name=plan]", "wendake-map-2p")
    page.fill("input[name=width_mm]", "612")
    page.fill("input[name=height_mm]", "408")
    page.fill("input[name=name]", "my-map")
    page.get_by_role("button", name="Open").click()
    expect(page.locator("#pin-dialog")).to_be_visible()
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    canvas = page.locator("#trace-canvas")
    expect(canvas).to_be_visible()
    page.select_option("#r-kind", "productive_area")
    box = canvas.bounding_box()
    corners = [(0.30, 0.30), (0.45, 0.30), (0.45, 0.50), (0.30, 0.50), (0.30, 0.30)]
    for fx, fy in corners:
        canvas.click(position={"x": box["width"] * fx, "y": box["height"] * fy})
    expect(page.locator("#region-list li")).to_have_count(1)
    page.get_by_role("button", name="Save layout").click()
    expect(page.locator("#trace-problems li").first).to_contain_text("needs attributes.pa")
    expect(page.locator("#region-list li.error")).to_have_count(1)
    shot(page, "tracer-problems")
    page.fill("#r-attrs", '{"pa": "hunt"}')
    page.dispatch_event("#r-attrs", "change")
    page.get_by_role("button", name="Save layout").click()
    expect(page.locator("#trace-ok")).to_contain_text("Saved my-map: 1 regions")
    expect(page.locator("#trace-problems li")).to_have_count(0)
