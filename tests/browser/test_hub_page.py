"""The hub's page in real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright), end to end: three
tables play games and publish them through a real Mosquitto (tests/mqtt_broker.py) with the tables' own publisher;
the hub's subscriber archives them and its page, behind the real server (waitress), must show two tables' live
scores, the table that went offline, and the standings of the game that ended; it is read-only until the
organiser's PIN is typed. Screenshots go to tests/artifacts/ (git-ignored)."""

from __future__ import annotations

import functools
import random
import threading
from pathlib import Path

import pytest

from tests.mqtt_broker import play
from tests.mqtt_broker import until as wait_until

until = functools.partial(wait_until, poll=0.05)

CHROMIUM = Path("/usr/bin/chromium")
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')"
)
if not CHROMIUM.exists():
    pytest.skip("Chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)", allow_module_level=True)
expect = playwright_api.expect

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PIN = "246813"
SCREEN = {"width": 1280, "height": 800}


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / ".gitignore").write_text("*\n")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    from assistant.apps.hub_publish import Publisher
    from assistant.apps.hub_serve import Subscriber
    from assistant.table import hubfollow
    from assistant.table.hubarchive import HubArchive
    from assistant.table.session import GameSession
    from tests.mqtt_broker import Broker
    from web.hubpage import create_hub_app
    from web.security import PinStore
    from web.server import make_server, stream_budget

    tmp = tmp_path_factory.mktemp("hub")
    broker = Broker(tmp).start()
    archive = HubArchive(tmp / "archive.sqlite")
    sub = Subscriber(archive, hubfollow.parse_broker(broker.url), on_message=lambda level, text: None).start(wait_s=5)
    PinStore(tmp / "pin.json").set_pin(PIN)
    app = create_hub_app(archive, {"PIN_FILE": str(tmp / "pin.json"), "HEARTBEAT_S": 2, "BROKER_STATE": sub.state})
    hp = app.extensions["tablewatch_hub"]
    srv = make_server(app, "127.0.0.1", 0, threads=16)
    hp.pump.max_streams = stream_budget(16)
    threading.Thread(target=srv.run, daemon=True).start()
    hp.pump.start()
    tables, pubs = {}, []
    for name, players in (("Table 1", ["Ann", "Bob"]), ("Table 2", ["Cy", "Dee"]), ("Table 3", ["Eve", "Fay"])):
        s = GameSession.create(tmp / f"{name}.sqlite", players=players, seed=len(tables) + 3)
        tables[name] = s
        pubs.append(
            Publisher(
                s.log.path,
                hubfollow.settings(broker.url, name),
                snapshot_of=lambda gid, s=s: s.snapshot(),
                on_message=lambda level, text: None,
            ).start()
        )
    rng = random.Random(5)
    play(tables["Table 1"], 12, rng)
    play(tables["Table 2"], 2000, rng)  # to the end: the standings have a finished game
    play(tables["Table 3"], 4, rng)
    for p in pubs:
        p.wake()

    def arrived(name):
        t = next((t for t in archive.tables() if t["name"] == name), None)
        return t is not None and t["snapshot"] is not None and t["snapshot"]["last_seq"] == tables[name].last_seq

    until(lambda: all(arrived(n) for n in tables), what="the three tables at the hub")
    pubs[2].stop()  # Table 3 leaves: its status goes offline
    until(lambda: any(t["name"] == "Table 3" and t["state"] == "offline" for t in archive.tables()), what="Table 3 offline")
    yield {"url": f"http://127.0.0.1:{srv.effective_port}", "tables": tables, "archive": archive, "rng": rng, "pubs": pubs}
    for p in pubs[:2]:
        p.stop()
    hp.pump.stop()
    srv.close()
    sub.stop()
    broker.stop()


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=SCREEN)
    pg = context.new_page()
    yield pg
    context.close()


def card(page, slug: str):
    return page.locator(f'section.tablecard[data-table="{slug}"]')


def test_the_page_shows_live_scores_an_offline_table_and_the_standings(hub, page):
    from assistant.table import hubmsg

    page.goto(hub["url"] + "/")
    expect(page.locator("#conn")).to_have_text("live")
    for name, slug in (("Table 1", "table-1"), ("Table 2", "table-2")):
        summary = hubmsg.summary(hub["tables"][name].snapshot())
        for p in summary["players"]:
            expect(card(page, slug).locator(f'tr[data-player="{p["name"]}"] td.tot')).to_have_text(str(p["score"]))
    expect(card(page, "table-1").locator(".state")).to_have_text("online")
    expect(card(page, "table-3")).to_have_attribute("data-state", "offline")
    expect(card(page, "table-3").locator(".state")).to_contain_text("offline since")
    expect(page.locator(".hubhead [data-offline-count]")).to_contain_text("1 offline: Table 3 since")
    final = hubmsg.summary(hub["tables"]["Table 2"].snapshot())
    assert final["over"]
    expect(card(page, "table-2").locator(".stage")).to_contain_text("Game over")
    rows = page.locator('table.standings[data-standings="default"] tbody tr')
    expect(rows).to_have_count(2)
    winner = final["winners"][0]
    expect(rows.first).to_have_attribute("data-player", winner)
    expect(page.locator("table.gamelist tr[data-game]")).to_have_count(3)
    shot(page, "hub")

    # live: Table 1 plays on; its card follows without a reload
    s = hub["tables"]["Table 1"]
    play(s, 10, hub["rng"])
    hub["pubs"][0].wake()
    expect(card(page, "table-1").locator("[data-events]")).to_have_attribute("data-events", str(len(s.log.events(s.game_id))))
    for p in hubmsg.summary(s.snapshot())["players"]:
        expect(card(page, "table-1").locator(f'tr[data-player="{p["name"]}"] td.tot')).to_have_text(str(p["score"]))


def test_the_page_is_read_only_until_the_organisers_pin(hub, page):
    page.goto(hub["url"] + "/")
    expect(page.locator("#conn")).to_have_text("live")
    form = page.locator('form[data-standings-form="default"]')
    expect(form).to_be_hidden()
    expect(page.locator("table.gamelist a.organiser").first).to_be_hidden()
    page.click("#lockbtn")
    page.fill("#pin-input", "000000")
    page.click("#pin-ok")
    expect(page.locator("#pin-error")).to_have_text("Wrong PIN.")
    expect(form).to_be_hidden()
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    expect(form).to_be_visible()
    form.locator('select[name="rule"]').select_option("points")
    form.get_by_role("button", name="Apply").click()
    expect(page.locator(".notice.ok")).to_contain_text("Standings of default: points")
    expect(page.locator("p.rulefacts[data-rule]")).to_have_attribute("data-rule", "points")
    assert hub["archive"].settings["default"]["rule"] == "points"
    shot(page, "hub-organiser")
    page.click("#lockbtn")  # Lock: read-only again
    expect(form).to_be_hidden()
