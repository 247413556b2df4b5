"""Iwari on the tablet, through Flask's test client and a real ``GameSession``: the set-up wizard offers Iwari (its
player counts, maps, modules and readings) beside Wendake, which stays the default; a game started there is played
through the web API ("this is what happened"), and the scoreboard shows the score so far, what the next scoring
would give now per territory and per connection, the cards until that scoring, the half journey's and the final
scoring's breakdowns; undo and export work as for Wendake."""

from __future__ import annotations

import json
import random
import re

import pytest

from assistant.apps.games import export_game
from assistant.table import game as games
from assistant.table import hubmsg
from web import adapter, security
from web.app import create_app

PIN = "482193"
IWARI = games.get("iwari")
PLAYERS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "yellow"}]


@pytest.fixture
def env(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    app = create_app(
        adapter.NoGame(),
        {
            "PIN_FILE": str(tmp_path / "pin.json"),
            "DATA_DIR": str(tmp_path),
            "DB_PATH": str(tmp_path / "g.sqlite"),
            "TESTING": True,
        },
    )
    c = app.test_client()
    t = c.get("/api/whoami").get_json()["csrf_token"]
    assert c.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t}).status_code == 200
    return app, c, {"X-CSRF-Token": t}


def start(c, h, **form) -> dict:
    """Start an Iwari game from the wizard; the parameters the session was made with."""
    body = {"game": "iwari", "players": PLAYERS, "seed": "5", **form}
    r = c.post("/api/setup/game", json=body, headers=h)
    assert r.status_code == 200, r.get_json()
    return IWARI.parse_setup(body)


def truth_of(params: dict):
    """The true table of the game the wizard set up (the session sees hands and deck as unknown)."""
    opts = {k: v for k, v in params.items() if k not in ("players", "seed")}
    return IWARI.new_state(params["players"], seed=params["seed"], **opts)


def play(c, h, truth, rng, until, batch: int = 20) -> list[dict]:
    """Play random moves on ``truth`` until ``until(truth)``, entering them through ``/api/correct``; the moves."""
    done, pending = [], []
    while not until(truth) and not IWARI.is_over(truth):
        move = IWARI.random_move(truth, rng)
        IWARI.apply(truth, move)
        pending.append(IWARI.move_to_json(move))
        if len(pending) == batch or until(truth) or IWARI.is_over(truth):
            r = c.post("/api/correct", json={"moves": pending}, headers=h)
            assert r.status_code == 200, r.get_json()
            done += pending
            pending = []
    return done


def raw(app) -> dict:
    """The session's snapshot (``tablewatch.snapshot/1``) with Iwari's part, as the pages' templates read it."""
    return adapter.snapshot(app.extensions["tablewatch"].session)["raw"]


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# ---- the wizard --------------------------------------------------------------------------------------------------
def test_the_wizard_offers_iwari_and_keeps_wendake_the_default(env):
    _, c, _ = env
    plain = c.get("/setup").get_data(as_text=True)
    assert "Track pairs" in plain and 'value="wendake" selected' in plain and 'value="iwari"' in plain
    page = c.get("/setup?game=iwari").get_data(as_text=True)
    assert 'value="iwari" selected' in page and "Track pairs" not in page
    for title in ("the base map", "Floating Lands", "Glacial Mass", "The Long Road"):
        assert title in page
    assert 'name="feats"' in page and 'name="expeditions"' in page and "I-TURN-5" in page and "I-TURN-6" in page
    assert [int(n) for n in re.findall(r"<option (?:selected)?\s*>(\d)</option>", page)] == [2, 3, 4, 5]
    r = c.get("/setup?game=chess")
    assert r.status_code == 400 and "no game called 'chess'" in r.get_json()["error"]


@pytest.mark.parametrize(
    "form, message",
    [
        ({"players": PLAYERS[:1]}, "Iwari needs 2 to 5 players"),
        ({"map": "moon"}, "map must be one of"),
        ({"feats": "yes"}, "feats is true or false"),
        ({"totem_cap": "C"}, 'totem_cap is reading "A" or "B"'),
        ({"players": [PLAYERS[0], {**PLAYERS[1], "colour": "red"}]}, "same colour"),
        ({"players": [PLAYERS[0], {**PLAYERS[1], "colour": "pink"}]}, "colour must be one of"),
    ],
)
def test_a_bad_iwari_form_is_one_line_and_starts_nothing(env, form, message):
    app, c, h = env
    r = c.post("/api/setup/game", json={"game": "iwari", "players": PLAYERS, **form}, headers=h)
    assert r.status_code == 400 and message in r.get_json()["error"]
    assert isinstance(app.extensions["tablewatch"].session, adapter.NoGame)


def test_the_wizard_starts_iwari_with_its_map_modules_and_readings(env):
    app, c, h = env
    start(c, h, map="long-road", feats=True, expeditions=True, pair="B")
    state = app.extensions["tablewatch"].session.state
    assert state.map.special == "long-road" and state.options.feats and state.options.expeditions
    assert state.options.pair == "B" and state.options.totem_cap == "A"
    view = c.get("/api/snapshot").get_json()
    assert view["game"] == "iwari" and [p["name"] for p in view["players"]] == ["Ann", "Bob", "Cy"]
    assert [p["colour"] for p in view["players"]] == ["red", "blue", "yellow"]
    assert raw(app)["stage"] == "Round 1, before the half journey" and raw(app)["map"]["special"] == "long-road"
    page = c.get("/").get_data(as_text=True)
    assert "Round 1, before the half journey" in text(page) and "The half-journey scoring if it were now" in page
    # the layouts step checks the boards against Iwari's roles
    r = c.post("/api/setup/layouts", json={"game": "iwari", "boards": {"map": "wendake-map-2p"}}, headers=h)
    assert r.status_code == 422 and "not a iwari- board" in r.get_json()["problems"][0]
    r = c.post(
        "/api/setup/layouts", json={"game": "iwari", "boards": {"map": "iwari-long-road", "display": "iwari-display"}}, headers=h
    )
    assert r.status_code == 200, r.get_json()


# ---- the scoreboard through a whole game -------------------------------------------------------------------------
def test_an_iwari_game_on_the_tablet_scores_undoes_and_exports(env):
    app, c, h = env
    params = start(c, h)
    truth, rng = truth_of(params), random.Random(3)
    moves = play(c, h, truth, rng, until=lambda s: s.tents)  # the first tent
    view = c.get("/api/snapshot").get_json()
    part = raw(app)
    assert part["next_scoring"] == "half journey" and part["deck"] == len(truth.deck)
    assert f"{len(truth.deck)} cards in the deck until it runs out" in part["deck_text"]
    now = part["scoring_now"]
    assert now["scoring"] == "half" and not now["connection_rows"]
    (row,) = now["territory_rows"]
    (space,) = truth.tents
    placer = truth.players[truth.tents[space]].name
    assert row["id"] == truth.map.tent_spaces[space] and row["majority"] == [placer] and row["worth"] == 1
    projected = {p["name"]: p["projected"] for p in view["players"]}
    assert projected[placer] == 1 and view["leader"] == placer
    assert all(p["score"] == 0 for p in view["players"])
    page = text(c.get("/").get_data(as_text=True))
    assert f"{row['id']}" in page and f"Leader if scored now: {placer}" in page

    # undo takes the last move back, as for Wendake
    before = len(view["log"])
    assert c.post("/api/undo", headers=h).status_code == 200
    undone = c.get("/api/snapshot").get_json()
    assert len(undone["log"]) == before - 1
    r = c.post("/api/correct", json={"moves": moves[-1:]}, headers=h)
    assert r.status_code == 200 and len(c.get("/api/snapshot").get_json()["log"]) == before

    # the half journey: its breakdown as made, figures that add up to the points scored
    play(c, h, truth, rng, until=lambda s: s.half is not None)
    part = raw(app)
    half = part["half_scoring"]
    assert half["scoring"] == "half" and half["round"] == truth.year
    for p in half["players"]:
        assert p["this_scoring"] == truth.half["totals"][p["tribe"]] == sum(p["tents"].values())
        assert p["this_scoring"] == sum(
            x["points"] for t in half["territory_rows"] for x in t["tribes"] if x["tribe"] == p["tribe"]
        )
    assert {p["name"]: p["score"] for p in part["players"]} == {pl.name: truth.scores[i] for i, pl in enumerate(truth.players)}
    assert part["next_scoring"] == "end" and part["scoring_now"]["scoring"] == "final"
    page = c.get("/").get_data(as_text=True)
    assert "The half-journey scoring, as made in round" in page and "The final scoring if it were now" in page
    assert 'data-connection="1"' in page

    # the end: the final scoring's breakdown, the winner and the tie-break; the export
    play(c, h, truth, rng, until=lambda s: False)
    view = c.get("/api/snapshot").get_json()
    assert view["finished"] and view["results"]["winners"] == [truth.players[i].name for i in truth.winners]
    final = raw(app)["final_scoring"]
    for p in final["players"]:
        assert (
            p["this_scoring"] == truth.final["totals"][p["tribe"]] and p["total"] == truth.scores[truth.tribes.index(p["tribe"])]
        )
    for row in final["connection_rows"]:
        c_ = truth.map.connection(row["id"])
        assert row["mountain"] == c_.mountain and (not row["mountain"] or not row["holders"])
    results = text(c.get("/results").get_data(as_text=True))
    assert f"Winner: {view['results']['winner']}" in results and truth.tie_break in results
    assert "The final scoring (I-END-3)" in results and "Game over" in text(c.get("/").get_data(as_text=True))
    session = app.extensions["tablewatch"].session
    summary = hubmsg.summary(session.snapshot())  # what the hub shows of this table
    assert summary["over"] and summary["stage"] == "Game over" and summary["winners"] == view["results"]["winners"]
    assert [p["score"] for p in summary["players"]] == truth.scores[: truth.n]
    doc = export_game(session.log, "latest")
    assert doc["game"] == "iwari" and doc["record"]["format"] == "tablewatch.iwari.game/1"
    assert doc["results"]["winners"] == view["results"]["winners"] and len(doc["moves"]) == len(view["log"])
    assert IWARI.state_from_json(json.loads(json.dumps(doc["final_state"]))).scores == truth.scores


def test_an_illegal_correction_is_one_line_and_changes_nothing(env):
    _, c, h = env
    start(c, h)
    r = c.post("/api/correct", json={"moves": [{"type": "chess"}]}, headers=h)
    assert r.status_code == 400 and r.get_json()["error"].startswith("move 1:")
    r = c.post("/api/tablet/ghost_card", json={"card": "M05"}, headers=h)
    assert r.status_code == 400 and "Iwari has no tablet action" in r.get_json()["error"]
    assert c.get("/api/snapshot").get_json()["log"] == []
