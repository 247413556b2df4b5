"""One game log for every command (issue 32, item 1): ``live``, ``serve``, the setup wizard, the Pi service,
``demo``, ``games`` and ``export`` find the log by one rule (``assistant.table.paths``), so the game a real table wrote
is the one ``tablewatch export latest`` reads."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import assistant.apps.demo  # noqa: F401 - its frame cache is the real user's (imported before a test's own HOME)
from assistant.apps.cli import build_parser, main
from assistant.table import paths
from web import security
from web.server import make_app

REPO = Path(__file__).resolve().parents[1]
PIN = "48219377"


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fresh user: HOME of their own and no Tablewatch environment variables."""
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv(paths.ENV_DB, raising=False)
    monkeypatch.delenv(paths.ENV_DATA_DIR, raising=False)
    return h


def _games_and_export(capsys, *options) -> tuple[str, dict]:
    capsys.readouterr()
    assert main(["games", *options]) == 0
    listed = capsys.readouterr().out
    assert main(["export", "latest", *options]) == 0
    return listed, json.loads(capsys.readouterr().out)


def test_the_rule():
    env = {paths.ENV_DB: "/x/old.sqlite", paths.ENV_DATA_DIR: "/srv/tw"}
    old = dict(os.environ)
    try:
        os.environ.update(env)
        assert paths.db_path() == Path("/x/old.sqlite")  # the older variable is still honoured
        assert paths.db_path(data_dir_given="/d") == Path("/d/games.sqlite")  # an option beats the environment
        assert paths.db_path("/e.sqlite", "/d") == Path("/e.sqlite")
        del os.environ[paths.ENV_DB]
        assert paths.db_path() == Path("/srv/tw/games.sqlite") and paths.data_dir() == Path("/srv/tw")
        del os.environ[paths.ENV_DATA_DIR]
        assert paths.db_path() == Path("~/.tablewatch/games.sqlite").expanduser()
    finally:
        os.environ.clear()
        os.environ.update(old)


def test_every_command_resolves_the_same_log(home, monkeypatch):
    """With no option, and with the same --data-dir, each command's options give the same file."""
    parser = build_parser()
    for extra in ([], ["--data-dir", str(home / "d")]):
        found = set()
        for argv in (["serve"], ["live"], ["games"], ["export", "latest"]):
            args = parser.parse_args(argv + extra)
            found.add(paths.db_path(args.db, args.data_dir))
        assert len(found) == 1, found
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(home / "env"))
    assert {paths.db_path(a.db, a.data_dir) for a in (parser.parse_args(["serve"]), parser.parse_args(["games"]))} \
        == {home / "env" / "games.sqlite"}


def test_a_game_started_in_the_wizard_of_serve_is_what_games_and_export_find(home, monkeypatch, capsys):
    """`tablewatch serve` (no options) -> Setup on the tablet starts a game -> `tablewatch games` / `export latest`
    with no options find it. Before one rule they read ~/.local/share/tablewatch/games.sqlite: "no game log"."""
    import web.server

    served = {}
    monkeypatch.setattr(web.server, "serve", lambda session, **kw: served.update(kw, session=session) or 0)
    assert main(["serve", "--no-qr"]) == 0
    db, data_dir = served["db_path"], served["data_dir"]
    assert Path(db) == home / ".tablewatch" / "games.sqlite"
    security.PinStore(Path(data_dir) / "pin.json").set_pin(PIN)
    app = make_app(served["session"], data_dir, db)
    c = app.test_client()
    t = c.get("/api/whoami").get_json()["csrf_token"]
    assert c.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t}).status_code == 200
    players = [{"name": "Ann", "colour": "yellow"}, {"name": "Bob", "colour": "green"}]
    r = c.post("/api/setup/game", json={"players": players, "seed": 5, "pairs": "economic+mask"}, headers={"X-CSRF-Token": t})
    assert r.status_code == 200, r.get_json()
    game = c.get("/api/snapshot").get_json()["game_id"]
    app.extensions["tablewatch"].session.close()
    listed, doc = _games_and_export(capsys)
    assert game in listed and doc["game_id"] == game and doc["setup"]["players"] == ["Ann", "Bob"]


def test_the_pi_service_log_is_found_by_export_with_the_installed_environment(monkeypatch):
    """The unit runs `live --data-dir /var/lib/tablewatch`; install.sh sets TABLEWATCH_DATA_DIR for login shells
    (/etc/profile.d/tablewatch.sh), so `tablewatch export latest` on the Pi resolves the same file."""
    import configparser

    cp = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    cp.optionxform = str
    cp.read_string((REPO / "hardware" / "tablewatch.service").read_text(encoding="utf-8"))
    argv = shlex.split(cp["Service"]["ExecStart"].replace("$TABLEWATCH_ARGS", ""))[1:]
    args = build_parser().parse_args(argv)
    service_db = paths.db_path(args.db, args.data_dir)
    install = (REPO / "hardware" / "install.sh").read_text(encoding="utf-8")
    line = next(x for x in install.splitlines() if x.strip().startswith(f"export {paths.ENV_DATA_DIR}="))
    value = line.split("=", 1)[1].strip().strip('"').replace("$DATA", "/var/lib/tablewatch")
    monkeypatch.delenv(paths.ENV_DB, raising=False)
    monkeypatch.setenv(paths.ENV_DATA_DIR, value)
    export = build_parser().parse_args(["export", "latest"])
    assert paths.db_path(export.db, export.data_dir) == service_db == Path("/var/lib/tablewatch/games.sqlite")
    assert "/etc/profile.d/tablewatch.sh" in install
    assert "TABLEWATCH_DATA_DIR" in (REPO / "hardware" / "README.md").read_text(encoding="utf-8")


def test_the_demo_says_where_its_log_is_and_export_reads_it(home, capsys, tmp_path):
    assert main(["demo", "--players", "2", "--fast", "--no-pace", "--no-serve", "--data-dir", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    db = tmp_path / "d" / "games.sqlite"
    assert f"game log {db}" in out and f"tablewatch export latest --db {db}" in out
    listed, doc = _games_and_export(capsys, "--data-dir", str(tmp_path / "d"))
    assert doc["game_id"] in listed and doc["events"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    from models.synth.recording import RecordingOptions, render_game

    out = tmp_path_factory.mktemp("rec") / "frames"
    render_game(out, RecordingOptions(players=2, seed=4, max_states=2, hand_rate=0.0))
    return out


def test_a_game_live_wrote_is_what_games_and_export_find(home, recording, capsys):
    """`tablewatch live --players ...` as a new user runs it (no --data-dir), stopped with SIGTERM; then `games`
    and `export latest` with no options."""
    meta = json.loads((recording / "session.json").read_text(encoding="utf-8"))
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = ["live", "--source", f"folder:{recording}", "--camera", str(recording / "camera.json"), "--host", "127.0.0.1",
            "--port", str(port), "--no-qr", "--players", ",".join(meta["players"])]
    argv += sum((["--layout", n] for n in meta["layouts"]), [])
    p = subprocess.Popen([sys.executable, "-m", "assistant.apps.cli", *argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env, stdin=subprocess.DEVNULL)
    game = None
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and game is None and p.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot", timeout=2) as r:
                    game = json.loads(r.read()).get("game_id")
            except OSError:
                time.sleep(0.3)
    finally:
        p.send_signal(signal.SIGTERM)
        out = p.communicate(timeout=60)[0]
    assert game, out
    assert str(home / ".tablewatch" / "games.sqlite") in out
    listed, doc = _games_and_export(capsys)
    assert game in listed and doc["game_id"] == game and doc["setup"]["players"] == meta["players"]
