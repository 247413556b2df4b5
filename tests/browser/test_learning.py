"""Learning the owner's table on the tablet, in real headless Chromium (Debian's /usr/bin/chromium, Playwright):
a camera reads the start position with every canoe as a warrior, the scoreboard shows the set-up check before
play starts with the map's picture and the offer to adapt; the offer asks for the PIN and starts the adapt; the
learning status the adapt runner writes (learning with a progress bar, then the card's line) reaches the open
page without a reload. Screenshots at 1280x800 go to tests/artifacts/ (git-ignored)."""

from __future__ import annotations

import json
import threading
import time
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
PIN = "582046"
TABLET = {"width": 1280, "height": 800}
CARD_LINE = "read 97.7 % \u2192 99.6 % of your table's regions"


def canoes_as_warriors(key, value):
    if isinstance(value, tuple) and any(k.startswith("canoe:") for k, _ in value):
        return tuple(sorted((k.replace("canoe:", "warrior_standing:"), n) for k, n in value))
    return value


def write_status(profile, **status) -> None:
    tmp = profile.status_path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"updated": "2026-11-26T16:00:00", **status}))
    tmp.replace(profile.status_path)


@pytest.fixture
def server(tmp_path):
    import cv2
    import numpy as np

    from assistant.table.profile import open_profile, profile_name
    from assistant.table.session import GameSession
    from web.app import create_app
    from web.security import PinStore
    from web.server import make_server

    PinStore(tmp_path / "pin.json").set_pin(PIN)
    session = GameSession.create(str(tmp_path / "games.sqlite"), players=["Ann", "Bob"], colours=["red", "blue"], seed=3)
    session.check_setup = True
    profile = open_profile(tmp_path / "data", profile_name(["wendake-map-2p"]))
    adapts: list[int] = []

    def adapt_now():
        adapts.append(1)
        return "learning your table from 1 look; the game goes on"

    def board_jpeg(board, regions):  # stands in for live's drawing: a grey board with one box per marked region
        img = np.full((240, 360, 3), 90, np.uint8)
        for i, _ in enumerate(regions):
            cv2.rectangle(img, (20 + 60 * i, 80), (70 + 60 * i, 150), (0, 220, 255), 4)
        return cv2.imencode(".jpg", img)[1].tobytes()

    app = create_app(
        session,
        {
            "PIN_FILE": str(tmp_path / "pin.json"),
            "DATA_DIR": str(tmp_path / "data"),
            "HEARTBEAT_S": 2,
            "TABLE_PROFILE": profile,
            "ADAPT_NOW": adapt_now,
            "BOARD_JPEG": board_jpeg,
        },
    )
    srv = make_server(app, "127.0.0.1", 0, threads=16)
    threading.Thread(target=srv.run, daemon=True).start()
    tw = app.extensions["tablewatch"]
    tw.hub.poll_s = 0.2
    tw.hub.start()
    yield {"url": f"http://127.0.0.1:{srv.effective_port}", "session": session, "profile": profile, "adapts": adapts}
    tw.hub.stop()
    srv.close()
    session.close()


@pytest.fixture
def page():
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        context = browser.new_context(viewport=TABLET)
        yield context.new_page()
        context.close()
        browser.close()


def test_set_up_check_offer_to_adapt_and_learning_status_reach_the_open_page(server, page):
    from assistant.table.observation import Observation, Reading

    session, profile = server["session"], server["profile"]
    page.goto(server["url"] + "/")
    expect(page.locator("#conn")).to_have_text("live")
    expect(page.locator("[data-setup-check]")).to_have_count(0)
    exp = session.game.expected_readings(session.tracker.initial)
    readings = {k: Reading(canoes_as_warriors(k, v), 0.9) for k, v in exp.items()}
    session.feed(Observation(0, 0.0, readings, boards_read=tuple(sorted({k.split("/")[0] for k in exp}))))

    panel = page.locator('[data-setup-check="open"]')
    expect(panel).to_be_visible()
    expect(panel.locator(".setup-check-text")).to_contain_text("Your canoes read as warriors standing")
    picture = panel.locator("figure.board-picture img")
    expect(picture).to_have_count(1)
    expect(picture).to_have_attribute("src", __import__("re").compile(r"^/board\.jpg\?board=wendake-map-2p&region="))
    # the picture loaded at its width: polled from here, as the page's script policy (script-src 'self') refuses the
    # string evaluation wait_for_function's polling uses once its first check fails (a slow box)
    deadline = time.monotonic() + 10.0
    while picture.evaluate("img => img.naturalWidth") != 360:
        assert time.monotonic() < deadline, "the board picture did not load at 360 px wide"
        time.sleep(0.05)
    page.screenshot(path=str(_artifact("setup-check")))

    panel.get_by_role("button", name="Adapt to this table").click()
    expect(page.locator("#pin-dialog")).to_be_visible()  # a change: the PIN first
    assert server["adapts"] == []
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    expect(page.locator("#toast")).to_have_text("learning your table from 1 look; the game goes on")
    assert server["adapts"] == [1]

    write_status(profile, state="learning", text="reading your table's looks", progress=0.4)  # as live's adapt runner
    status = page.locator('.learn-status[data-learn-status="learning"]')
    expect(status).to_contain_text("Learning your table")
    expect(status.locator("progress")).to_have_attribute("value", "40")
    expect(panel.get_by_role("button", name="Adapt to this table")).to_have_count(0)  # not twice at once
    page.screenshot(path=str(_artifact("learning")))
    write_status(profile, state="done", text="adapted", card={"text": CARD_LINE})
    expect(page.locator('.learn-status[data-learn-status="done"]')).to_have_text(f"Adapted to your table: {CARD_LINE}")
    page.goto(server["url"] + "/board")  # the Board page shows the same status
    expect(page.locator('.learn-status[data-learn-status="done"]')).to_have_text(f"Adapted to your table: {CARD_LINE}")
    write_status(profile, state="failed", text="adapt stopped: the disk is full; free space and adapt again")
    expect(page.locator('.learn-status[data-learn-status="failed"]')).to_contain_text("the disk is full")


def _artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / ".gitignore").write_text("*\n")
    return ARTIFACTS / f"{name}.png"
