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
