"""Iwari's own words on the tablet, through Flask's test client and a real ``GameSession``: the move log tags a
move with its round ("R1", the game's ``round_label``) where Wendake's keep their year ("Y1"), ``/api/snapshot``
keeps the game's own figures (``raw``: Iwari's scorings, deck and display), and the set-up wizard's colour step
names as many spots as the game has colours and the colour card has spots."""

from __future__ import annotations

import random
import re

import pytest

from assistant.table import game as games
from calibration import layout
from web import adapter, security
from web.app import create_app

PIN = "482193"
PLAYERS = [{"name": "Ann", "colour": "red"}, {"name": "Bob", "colour": "blue"}, {"name": "Cy", "colour": "yellow"}]


@pytest.fixture
def env(tmp_path):
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    config = {"PIN_FILE": str(tmp_path / "pin.json"), "DATA_DIR": str(tmp_path), "DB_PATH": str(tmp_path / "g.sqlite")}
    app = create_app(adapter.NoGame(), config | {"TESTING": True})
    c = app.test_client()
    t = c.get("/api/whoami").get_json()["csrf_token"]
    assert c.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": t}).status_code == 200
    return app, c, {"X-CSRF-Token": t}


def first_moves(c, h, game: str, body: dict, n: int) -> None:
    """Start ``game`` from the wizard with ``body`` and enter its first ``n`` moves, as the seeded random player
    plays them on the true table, through "this is what happened"."""
    r = c.post("/api/setup/game", json={"game": game, "seed": "5", **body}, headers=h)
    assert r.status_code == 200, r.get_json()
    g = games.get(game)
    params = g.parse_setup({"game": game, "seed": "5", **body})
    truth = g.new_state(params.pop("players"), **params)
    rng, moves = random.Random(1), []
    for _ in range(n):
        m = g.random_move(truth, rng)
        g.apply(truth, m)
        moves.append(g.move_to_json(m))
    r = c.post("/api/correct", json={"moves": moves}, headers=h)
    assert r.status_code == 200, r.get_json()


def log_tags(c) -> list[str]:
    return re.findall(r'<span class="ly">([^<]*)</span>', c.get("/log").get_data(as_text=True))


def test_the_move_log_tags_iwari_moves_with_their_round(env):
    _, c, h = env
    first_moves(c, h, "iwari", {"players": PLAYERS}, 6)
    view = c.get("/api/snapshot").get_json()
    assert [e["label"] for e in view["log"]] == ["R1"] * 6 and all(e["year"] == 1 for e in view["log"])
    assert log_tags(c) == ["R1"] * 6


def test_wendake_moves_keep_their_year(env):
    _, c, h = env
    first_moves(c, h, "wendake", {"players": PLAYERS}, 3)
    view = c.get("/api/snapshot").get_json()
    assert view["game"] == "wendake" and [e["label"] for e in view["log"]] == ["Y1"] * 3
    assert log_tags(c) == ["Y1"] * 3


def test_the_snapshot_api_keeps_the_games_own_figures(env):
    """The page's snapshot as JSON keeps ``raw``: Iwari's deck count, next scoring and what it would give now."""
    app, c, h = env
    first_moves(c, h, "iwari", {"players": PLAYERS}, 2)
    view = c.get("/api/snapshot").get_json()
    raw = view["raw"]
    state = app.extensions["tablewatch"].session.state
    assert raw["deck"] == len(state.deck) and raw["next_scoring"] == "half journey"
    assert raw["scoring_now"]["scoring"] == "half" and raw["display"] == list(state.display)
    assert raw["stage"] == "Round 1, before the half journey"


@pytest.mark.parametrize("game", ["wendake", "iwari"])
def test_the_colour_step_follows_the_games_colours_and_the_cards_spots(env, game):
    _, c, _ = env
    page = c.get(f"/setup?game={game}").get_data(as_text=True)
    colours = games.get(game).setup_options()["colours"]
    spots = sum(r["kind"] == "colour_spot" for r in layout.load_builtin("colour-card")["regions"])
    n = min(len(colours), spots)
    step = page[page.index("3 · Colours") : page.index("4 · Board layouts")]
    assert f"spots 1-{n} in this order" in step and len(re.findall(r"<label>Spot \d", step)) == n
    assert (f"has {len(colours)} colours and the card {spots} spots" in step) == (len(colours) > spots)
