"""``tablewatch demo --game iwari`` and ``tablewatch e2e --game iwari``: a bundled seeded Iwari game rendered once
into the cache, replayed through the real pipeline into an Iwari session, the standings the Iwari way (score so
far and if the next scoring were made now), then the tablet; the e2e figures of rendered Iwari games.

The demo runs for real (``--fast``, rendered frames through the pipeline, the cache moved to a temporary folder);
only the blocking server at the end is replaced by the same app under Flask's test client. The committed detector
does not see tents and totems yet, so these tests check the wiring (the game, the standings, the tablet, the
figures), not how many moves the camera recognises: ``tablewatch e2e --game iwari`` measures that.
"""

from __future__ import annotations

import io
import json
import re

import pytest

from assistant.apps import demo
from assistant.apps.cli import main
from web import server as webserver


class Terminal(io.StringIO):
    """Standard output as a terminal: the demo serves the tablet page only when someone is watching."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "args, words",
    [
        (["--game", "chess"], "no game called 'chess'"),
        (["--game", "iwari", "--players", "6"], "--players must be 2, 3, 4 or 5 (got 6)."),
        (["--players", "5"], "--players must be 2, 3 or 4 (got 5)."),  # Wendake stays 2-4
    ],
)
def test_demo_refuses_a_game_without_a_demo_or_a_player_count_in_one_line(tmp_path, monkeypatch, capsys, args, words):
    monkeypatch.setattr(demo, "CACHE", tmp_path / "cache")
    assert main(["demo", "--fast", "--no-serve", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
    assert not (tmp_path / "cache").exists()  # refused before rendering anything


def test_demo_plays_the_bundled_iwari_game_and_serves_its_tablet(tmp_path, monkeypatch):
    got: dict = {}

    def fake_serve(
        session,
        host="0.0.0.0",
        port=webserver.DEFAULT_PORT,
        pin_file=None,
        data_dir=None,
        db_path=None,
        pin=None,
        config=None,
        **kw,
    ):
        got["app"] = webserver.make_app(session, data_dir, db_path, pin_file=pin_file, pin=pin, config=config, out=out)
        return 0

    out = Terminal()
    monkeypatch.setattr(demo, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(webserver, "serve", fake_serve)
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    argv = ["demo", "--game", "iwari", "--players", "2", "--fast", "--no-pace", "--no-adapt", "--pin", "246802"]
    assert main([*argv, "--db", str(tmp_path / "demo.sqlite"), "--data-dir", str(tmp_path / "data")]) == 0
    text = out.getvalue()
    folder = tmp_path / "cache" / "iwari-2p-12"  # Wendake's folders keep their names (2p-12, 4p-12)
    meta = json.loads((folder / "session.json").read_text())
    assert meta["game"] == "iwari" and len(meta["players"]) == 2
    assert f"Tablewatch demo: Iwari, 2 players ({', '.join(meta['players'])})" in text
    # the standings the Iwari way: each player's score so far and if the half journey were scored now, the third tribe
    m = re.search(r"standings: so far \(if the half journey were scored now\): (.+)", text)
    assert m, text[-1500:]
    rows = m.group(1).split("  |  ")
    assert [r.rsplit(" ", 2)[0] for r in rows[:2]] == meta["players"] and rows[2].startswith("third tribe (")
    assert all(re.fullmatch(r".+ \d+ \(\d+\)", r) for r in rows)
    assert (
        re.search(r"harvested for learning: 1 set-up look\(s\)", text)
        and (tmp_path / "data" / "tables" / "demo-iwari-2p").is_dir()
    )
    assert "PIN for changes on the tablet (undo, corrections, setup): 246802" in text
    snap = got["app"].test_client().get("/api/snapshot").get_json()
    assert snap["game"] == "iwari" and [p["name"] for p in snap["players"]] == meta["players"]
    assert snap["raw"]["next_scoring"] == "half journey" and snap["raw"]["third_tribe"] is not None


def test_e2e_renders_and_scores_iwari_games(tmp_path, capsys):
    argv = [
        "e2e",
        "--game",
        "iwari",
        "--games",
        "1",
        "--injected-games",
        "1",
        "--inject-rate",
        "1",
        "--players",
        "3",
        "--max-states",
        "3",
        "--workers",
        "1",
        "--out",
        str(tmp_path),
    ]
    assert main([*argv, "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["games"] == 2
    for g in res["per_game"]:
        folder = tmp_path / g["folder"].rpartition("/")[2]
        assert json.loads((folder / "session.json").read_text())["game"] == "iwari"
        truth = json.loads((folder / "truth.json").read_text())
        assert g["injected"] == len(truth["injected"])
        assert g["moves_true"] == len(truth["moves"]) and g["turns"] == sum(m["type"] == "end_turn" for m in truth["moves"]) + (
            truth["moves"][-1]["type"] != "end_turn"
        )
    assert main(argv) == 0  # cached: the same games replayed, the figures printed as for Wendake
    printed = capsys.readouterr().out
    for line in (
        "games 2 (",
        "move log equals the truth:",
        "injected illegal moves flagged:",
        "false alerts per 20 legal games:",
    ):
        assert line in printed
