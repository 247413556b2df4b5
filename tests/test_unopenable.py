"""A game log that cannot be opened is never "No game yet" (issue 32, item 2): damaged (random bytes), truncated
(a real log cut in half), locked by another program, read-only (a read-only mount). The terminal and the tablet
say what is wrong, where the file is and what to do; nothing is written over it; a read-only log is still read.

Tests run as root here and in CI, where file permissions are ignored: a read-only log is a log on a tmpfs the test
mounts and remounts read-only (skipped, with the reason, only where mounting is impossible)."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from mounts import small_tmpfs

from assistant.apps.cli import main
from assistant.apps.live import open_game
from assistant.apps.serve import open_session
from assistant.table.eventlog import EventLog
from assistant.table.session import GameSession
from web import security
from web.adapter import NoGame
from web.server import make_app

PIN = "48219377"


def _real_log(path: Path, looks: int = 0) -> str:
    s = GameSession.create(path, players=["Ann", "Bob"], seed=3, game_id="g-kept")
    for i in range(looks):
        s.log.append(s.game_id, "Note", {"i": i, "pad": "x" * 3000})
    s.close()
    return "g-kept"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _client(session, data_dir: Path, db: Path):
    security.PinStore(data_dir / "pin.json").set_pin(PIN)
    app = make_app(session, data_dir, str(db))
    c = app.test_client()
    t = c.get("/api/whoami").get_json()["csrf_token"]
    assert c.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t}).status_code == 200
    return app, c, {"X-CSRF-Token": t}


def _new_game(c, h):
    players = [{"name": "Cy", "colour": "yellow"}, {"name": "Di", "colour": "green"}]
    return c.post("/api/setup/game", json={"players": players, "seed": 5, "pairs": "economic+mask"}, headers=h)


def _damaged(tmp_path) -> Path:
    db = tmp_path / "games.sqlite"
    db.write_bytes(os.urandom(64 * 1024))
    return db


def _truncated(tmp_path) -> Path:
    db = tmp_path / "games.sqlite"
    _real_log(db, looks=200)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    return db


@pytest.mark.parametrize("make", [_damaged, _truncated], ids=["random-bytes", "cut-in-half"])
def test_a_damaged_log_is_said_on_the_terminal_and_the_tablet_and_never_replaced(make, tmp_path, capsys):
    db = make(tmp_path)
    before, files = _digest(db), sorted(p.name for p in tmp_path.iterdir())
    session = open_session(str(db), None)
    err = capsys.readouterr().err
    assert isinstance(session, NoGame) and session.problem  # before: a plain NoGame, and nothing on stderr
    assert str(db) in err and "damaged" in err and "--db" in err and len(err.strip().splitlines()) == 1
    app, c, h = _client(session, tmp_path / "data", db)
    page = c.get("/").get_data(as_text=True)
    assert "No game yet" not in page and "cannot be opened" in page and str(db) in page
    view = c.get("/api/snapshot").get_json()
    assert any(a["kind"] == "LogProblem" and str(db) in a["message"] for a in view["alerts"])
    r = _new_game(c, h)  # Setup must not start a game over it
    assert r.status_code == 400 and "damaged" in r.get_json()["error"]
    assert _digest(db) == before and sorted(p.name for p in tmp_path.iterdir() if p.name != "data") == files
    # the command-line readers say the same, in one line, without a traceback
    assert main(["games", "--db", str(db)]) == 2
    assert "damaged" in capsys.readouterr().err
    live_session = open_game(str(db), None, None, None, None)  # `tablewatch live` opens its game the same way
    assert isinstance(live_session, NoGame) and "damaged" in live_session.problem
    assert _digest(db) == before


def test_a_log_locked_by_another_program_is_not_no_game(tmp_path, capsys):
    """Another program holds the file in exclusive locking mode: nobody else can even read it."""
    db = tmp_path / "games.sqlite"
    _real_log(db)
    other = sqlite3.connect(str(db), isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    other.execute("INSERT INTO events (seq, game_id, t, kind, payload) VALUES (1000, 'g-kept', 0, 'Note', '{}')")
    other.execute("COMMIT")
    try:
        t0 = time.monotonic()
        session = open_session(str(db), None)
        err = capsys.readouterr().err
        assert time.monotonic() - t0 < 8  # before: 10 s, then "may be corrupt: move it aside"
        assert isinstance(session, NoGame) and "locked by another program" in session.problem
        assert "corrupt" not in err and "locked by another program" in err and str(db) in err
        app, c, h = _client(session, tmp_path / "data", db)
        assert "No game yet" not in c.get("/").get_data(as_text=True)
        assert _new_game(c, h).status_code == 400
    finally:
        other.close()


def test_a_log_another_writer_holds_shows_the_game_and_says_it_is_locked(tmp_path, capsys):
    """BEGIN EXCLUSIVE on a WAL log (e.g. `sqlite3 games.sqlite` left in a transaction): it reads, it cannot be
    written. The game is shown; the events wait in memory with a message that says why (not "free disk space"),
    and a look does not wait for the lock each time."""
    db = tmp_path / "games.sqlite"
    _real_log(db)
    other = sqlite3.connect(str(db), isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        session = open_session(str(db), None)
        assert session.game_id == "g-kept"
        t0 = time.monotonic()
        for i in range(5):
            session.log.append(session.game_id, "Note", {"i": i})
        assert time.monotonic() - t0 < 5  # before: 10 s per event
        status = session.log.status
        assert not status["ok"] and status["pending"] == 5
        assert "locked by another program" in status["message"] and "disk space" not in status["message"]
        assert "locked by another program" in capsys.readouterr().err
    finally:
        other.close()
    deadline = time.monotonic() + 10  # released: the retry timer writes them, no new event needed
    while session.log.status["pending"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert session.log.status["ok"]
    session.close()
    assert len(EventLog(db, read_only=True).events("g-kept")) == 5


@pytest.fixture
def read_only_log(tmp_path):
    """A real log on a tmpfs remounted read-only."""
    with small_tmpfs(tmp_path / "ro") as mnt:
        db = mnt / "games.sqlite"
        _real_log(db)
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        yield db


def test_a_read_only_log_is_read_by_games_export_and_the_scoreboard(read_only_log, tmp_path, capsys):
    db = read_only_log
    assert main(["games", "--db", str(db)]) == 0  # before: "cannot be written ... Free some space"
    assert "g-kept" in capsys.readouterr().out
    assert main(["export", "latest", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["game_id"] == "g-kept"
    session = open_session(str(db), None)
    err = capsys.readouterr().err
    assert session.game_id == "g-kept" and "read-only" in err and str(db) in err
    app, c, h = _client(session, tmp_path / "data", db)
    view = c.get("/api/snapshot").get_json()
    assert [p["name"] for p in view["players"]] == ["Ann", "Bob"]
    assert any(a["kind"] == "LogProblem" and "read-only" in a["message"] for a in view["alerts"])
    r = _new_game(c, h)  # a new game there would be lost at the next start
    assert r.status_code == 400 and "read-only" in r.get_json()["error"]
