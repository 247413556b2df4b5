"""Iwari on the tablet in real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright), behind the real
server (waitress): the wizard switches to Iwari's form and starts a game with its map and modules; the game is then
played at the table, seen by a perfect camera (``assistant.iwari.observer.expected_readings``), and the open page
follows: the score so far, what the next scoring would give now per territory and per connection, the cards until
that scoring, the half journey's breakdown and the final result. Screenshots at tablet size (1280x800) go to
tests/artifacts/ (git-ignored)."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')"
)
if not CHROMIUM.exists():
    pytest.skip("Chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)", allow_module_level=True)
expect = playwright_api.expect

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PIN = "246813"
TABLET = {"width": 1280, "height": 800}


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / ".gitignore").write_text("*\n")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from web import adapter
    from web.app import create_app
    from web.security import PinStore
    from web.server import make_server

    tmp = tmp_path_factory.mktemp("web-iwari")
    PinStore(tmp / "pin.json").set_pin(PIN)
    app = create_app(
        adapter.NoGame(),
        {
            "PIN_FILE": str(tmp / "pin.json"),
            "DATA_DIR": str(tmp / "data"),
            "DB_PATH": str(tmp / "games.sqlite"),
            "HEARTBEAT_S": 2,
        },
    )
    srv = make_server(app, "127.0.0.1", 0, threads=16)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    tw = app.extensions["tablewatch"]
    tw.hub.start()
    yield {"url": f"http://127.0.0.1:{srv.effective_port}", "tw": tw}
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


class Table:
    """The true Iwari table the players make, fed to the session as a perfect camera reads it after each move that
    changes what it sees."""

    def __init__(self, session, truth, seed: int):
        self.session, self.truth, self.rng, self.frame = session, truth, random.Random(seed), 0

    def play_until(self, done) -> None:
        from assistant.iwari import rules
        from assistant.iwari.generate import random_move
        from assistant.iwari.observer import expected_readings
        from assistant.table.observation import Observation, Reading

        seen = expected_readings(self.truth)
        while not done(self.truth) and self.truth.phase != "over":
            rules.apply(self.truth, random_move(self.truth, self.rng))
            readings = expected_readings(self.truth)
            if readings == seen:
                continue
            seen = readings
            self.frame += 1
            events = self.session.feed(
                Observation(self.frame, float(self.frame), {k: Reading(v, 1.0) for k, v in readings.items()})
            )
            assert not [e.to_json() for e in events if e.kind in ("IllegalMove", "TableOutOfSync")]


def wait_for_seq(page, session):
    expect(page.locator("body")).to_have_attribute("data-seq", str(session.last_seq))


def test_an_iwari_game_from_the_wizard_to_the_results(server, page):
    from assistant.iwari.setup import new_game

    url, tw = server["url"], server["tw"]
    page.goto(url + "/setup")
    expect(page.locator("select[name=game]")).to_have_value("wendake")
    page.select_option("select[name=game]", "iwari")
    expect(page.locator("#game-form select[name=map]")).to_be_visible()  # the page came back with Iwari's form
    page.select_option("#player-count", "3")
    for i, name in enumerate(["Ann", "Bob", "Cy"]):
        page.fill(f"input[name=name{i}]", name)
    page.select_option("#game-form select[name=map]", "glacial-mass")
    page.check("input[name=feats]")
    page.fill("input[name=seed]", "11")
    page.locator("#game-form button[type=submit]").click()
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    expect(page.locator("#game-ok")).to_contain_text("Game started: Ann, Bob, Cy.")
    session = tw.session
    state = session.state
    assert session.game.name == "iwari" and state.map.special == "glacial-mass" and state.options.feats
    shot(page, "iwari-setup")

    truth = new_game(["Ann", "Bob", "Cy"], seed=11, map="glacial-mass", colours=state.tribes, feats=True)
    table = Table(session, truth, seed=4)
    page.goto(url + "/")
    expect(page.locator("#conn")).to_have_text("live")
    expect(page.locator("table.scores tr.player")).to_have_count(3)
    expect(page.locator(".turnbar .year")).to_have_text("Round 1, before the half journey")
    table.play_until(lambda s: len(s.tents) >= 4)
    wait_for_seq(page, session)
    snap = session.snapshot()
    for p in snap["players"]:
        row = page.locator(f'tr.player[data-player="{p["name"]}"]')
        expect(row.locator("td.tot")).to_have_text(str(p["projected_total"]))
    expect(page.locator("[data-scoring-now=half] tr[data-territory]")).to_have_count(len(snap["scoring_now"]["territory_rows"]))
    expect(page.locator("p[data-deck]")).to_have_attribute("data-deck", str(len(truth.deck)))
    shot(page, "iwari-scoreboard")

    table.play_until(lambda s: session.state.half is not None)  # the camera tells the deck ran out by what comes next
    wait_for_seq(page, session)
    half = page.locator("details[data-half-scoring]")
    expect(half).to_be_visible()
    expect(page.locator("[data-scoring-now=final] tr[data-connection]")).to_have_count(len(truth.map.connections))
    for tribe, points in truth.half["totals"].items():
        expect(half.locator(f'tr[data-tribe="{tribe}"] td[data-this-scoring]')).to_have_text(str(points))
    shot(page, "iwari-half-journey")

    table.play_until(lambda s: False)
    wait_for_seq(page, session)
    expect(page.locator(".turnbar")).to_contain_text("Game over")
    page.goto(url + "/results")
    winners = " and ".join(truth.players[i].name for i in truth.winners)
    expect(page.locator("h2.winner")).to_have_text(f"Winner: {winners}")
    expect(page.locator("[data-tally=final] td.tot").first).to_be_visible()
    shot(page, "iwari-results")
