"""``tablewatch demo`` reaches the tablet: it serves on the local network by default (``--local``: this machine
only), prints a one-time PIN instead of asking for one, and its Board page shows the boards the pipeline read.
The demo runs for real (``--fast``, rendered frames through the pipeline); only the blocking server at the end
is replaced by the same app under Flask's test client."""

from __future__ import annotations

import io
import re

import pytest

from assistant.apps.cli import main
from web import server as webserver


class Terminal(io.StringIO):
    """Standard output as a terminal: the demo serves the tablet page only when someone is watching."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def served(monkeypatch, tmp_path):
    """Run ``tablewatch demo --fast --no-pace`` with ``args``; the serve call's arguments, the app it would serve
    and the printed text."""

    def run(*args: str) -> dict:
        got: dict = {}

        def fake_serve(session, host="0.0.0.0", port=webserver.DEFAULT_PORT, pin_file=None, data_dir=None, db_path=None,
                       pin=None, config=None, **kw):
            app = webserver.make_app(session, data_dir, db_path, pin_file=pin_file, pin=pin, config=config, out=out)
            got.update(host=host, port=port, pin=pin, app=app, url=webserver.page_url(host, port))
            return 0

        out = Terminal()
        monkeypatch.setattr(webserver, "serve", fake_serve)
        monkeypatch.setattr("sys.stdout", out)
        monkeypatch.setattr("sys.stdin", io.StringIO(""))  # nobody to type a PIN: the demo must not wait for one
        assert main(["demo", "--fast", "--no-pace", "--db", str(tmp_path / "demo.sqlite"), *args]) == 0
        got["out"] = out.getvalue()
        return got

    return run


def test_demo_serves_the_lan_with_a_printed_one_time_pin_and_shows_the_board(served):
    got = served()
    assert got["host"] == "0.0.0.0"  # a tablet that scans the QR code must reach this machine, not itself
    if webserver.lan_address() != "127.0.0.1":  # a machine with a network: the printed URL is its LAN address
        assert "127.0.0.1" not in got["url"]
    m = re.search(r"PIN for changes on the tablet[^:]*: (\d{6})", got["out"])
    assert m, got["out"][-500:]
    c = got["app"].test_client()
    token = c.get("/api/whoami").get_json()["csrf_token"]
    assert c.post("/api/undo", headers={"X-CSRF-Token": token}).status_code == 403  # changes need the PIN
    r = c.post("/api/unlock", json={"pin": m.group(1)}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and r.get_json()["unlocked"]
    img = c.get("/board.jpg")
    assert img.status_code == 200 and img.mimetype == "image/jpeg" and img.data[:2] == b"\xff\xd8"
    assert 'id="board-img"' in c.get("/board").get_data(as_text=True)


def test_demo_local_serves_this_machine_only_and_takes_a_chosen_pin(served):
    got = served("--local", "--pin", "135791")
    assert got["host"] == "127.0.0.1" and got["pin"] == "135791"
    assert "PIN for changes on the tablet (undo, corrections, setup): 135791" in got["out"]


def test_demo_checks_the_set_up_harvests_the_game_and_the_tablet_shows_it(served, tmp_path):
    """The demo's first look is checked against the start position (printed, and on the tablet through the demo
    profile's status.json) and the looks the tracker explained surely are kept in the demo profile."""
    from vision.harvest import list_looks

    got = served("--no-adapt", "--data-dir", str(tmp_path / "data"))
    out = got["out"]
    m = re.search(r"SetupCheck\s+(the set-up reads well: (\d+) of (\d+) regions as set up[.;][^\n]*)", out)
    assert m and int(m.group(3)) > 200, out[:1500]
    m2 = re.search(r"harvested for learning: (\d+) set-up look\(s\), (\d+) explained look\(s\)", out)
    assert m2 and m2.group(1) == "1" and int(m2.group(2)) >= 6, out[-800:]
    looks = list_looks(tmp_path / "data" / "tables" / "demo-4p" / "looks")
    assert len(looks) == 1 + int(m2.group(2)) and looks[0].source == "setup"
    learning = got["app"].test_client().get("/api/snapshot").get_json()["learning"]
    assert learning["profile"] == "demo-4p" and learning["setup_check"]["text"] == m.group(1)
    assert learning["can_adapt"] and "learning this table" not in out


def test_demo_learns_the_table_after_the_game_and_the_tablet_shows_the_result(served, tmp_path):
    """After the game the demo runs ``tablewatch adapt`` on the looks it harvested and prints its one line; the
    tablet shows the adapted card's line."""
    got = served("--data-dir", str(tmp_path / "data"))
    m = re.search(r"learnt: (.+)", got["out"])
    assert m, got["out"][-1500:]
    learning = got["app"].test_client().get("/api/snapshot").get_json()["learning"]
    assert learning["state"] == "done" and learning["text"] == m.group(1).strip(), (learning, m.group(1))
    assert re.search(r"(read [\d.]+ % \u2192 [\d.]+ %|kept the current weights: the new ones read)", learning["text"])
    if "kept" not in learning["text"]:  # swapped in: the tablet shows the adapted card's line
        assert learning["card_text"] and learning["card_text"] in m.group(1)
