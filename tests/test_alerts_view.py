"""Alerts readable from across the table (the game's alert words, assistant.wendake.tablet, through the session's
snapshot and web.adapter, drawn by parts/alerts.html): what to move in a player's words, one short line each, with place names and player names, never region ids; the places marked on
a picture of their board; the rule badge naming every rule the text cites. A real GameSession is fed what a
camera would read of a table where a piece was put where it should not be."""

from __future__ import annotations

import re
import tempfile

import pytest

from assistant.table.observation import Observation, Reading
from assistant.table.session import GameSession
from assistant.wendake.observer import expected_readings
from assistant.wendake.tablet import fix_lines
from web import adapter, security
from web.app import create_app

PIN = "482193"
REGION_ID = re.compile(r"wendake-(map|village|scores|mask)|\b[HTL]\d{1,2}\b|\.pa\d|\bslot\.\d|\bsage\.\d")


def feed(session, state, frame=1):
    readings = {k: Reading(v, 0.99) for k, v in expected_readings(state).items()}
    return session.feed(Observation(frame=frame, t=float(frame), readings=readings))


@pytest.fixture
def warrior_across_the_lake(tmp_path):
    """4 players; one of Cy's (yellow) warriors taken from his Home and put in Moose Fen, far across the map: the
    tracker reads it as Ann's illegal move (W-MOV-2, whose text cites W-TERM-2)."""
    s = GameSession.create(str(tmp_path / "g.sqlite"), players=["Ann", "Bob", "Cy", "Di"],
                           colours=["red", "blue", "yellow", "green"], seed=3)
    bad = s.state.copy()
    home = bad.players[2].home
    bad.territories[home].guards[2] -= 1
    bad.territories["T16"].guards[2] += 1
    assert [e.kind for e in feed(s, bad)] == ["IllegalMove"]
    return s


def page_of(session, tmp_path) -> str:
    security.PinStore(tmp_path / "pin.json").set_pin(PIN)
    return create_app(session, {"PIN_FILE": str(tmp_path / "pin.json")}).test_client().get("/").get_data(as_text=True)


def alerts_html(page: str) -> str:
    return page[page.index('id="alerts"'):page.index("<main>")]


def test_the_fix_says_what_to_move_in_a_players_words(warrior_across_the_lake):
    (a,) = adapter.snapshot(warrior_across_the_lake)["alerts"]
    assert a["fix_lines"] == ["Put back: 1 yellow warrior from Moose Fen to South-East Home"]
    for text in [a["message"], a["fix"], *a["fix_lines"]]:
        assert not REGION_ID.search(text), text


def test_the_rule_badge_names_every_rule_the_text_cites(warrior_across_the_lake, tmp_path):
    (a,) = adapter.snapshot(warrior_across_the_lake)["alerts"]
    assert a["rule"] == "W-MOV-2" and a["rules"] == ["W-MOV-2", "W-TERM-2"]
    html = alerts_html(page_of(warrior_across_the_lake, tmp_path))
    badges = re.findall(r'<span class="rule">([^<]+)</span>', html)
    text = re.sub(r"<[^>]+>", " ", html)
    cited = set(re.findall(r"\bW(?:-[A-Za-z0-9]+)+\b", text))
    assert cited == set(badges) == {"W-MOV-2", "W-TERM-2"}


def test_the_alert_marks_the_places_on_a_picture_of_the_board(warrior_across_the_lake, tmp_path):
    (a,) = adapter.snapshot(warrior_across_the_lake)["alerts"]
    (board,) = a["boards"]
    assert board["title"] == "The map" and sum(r["marked"] for r in board["regions"]) == 2
    html = alerts_html(page_of(warrior_across_the_lake, tmp_path))
    assert '<figure class="alert-board" data-board="wendake-map-4p">' in html and html.count('class="mark"') == 2
    assert 'href="/board"' in html
    shown = re.sub(r"<[^>]+>", " ", html)
    assert not REGION_ID.search(shown), shown


def test_a_marker_put_on_the_grid_reads_as_the_players_grid_and_sage_space():
    s = GameSession.create(tempfile.mkdtemp() + "/g.sqlite", players=["Ann", "Bob"], colours=["red", "blue"], seed=3)
    bad = s.state.copy()
    other = next(i for i in range(bad.n) if i != bad.current)
    bad.players[other].markers.append(0)
    bad.players[other].sages -= 1
    feed(s, bad)
    (a,) = adapter.snapshot(s)["alerts"]
    assert a["fix_lines"] == ["Put back: 1 blue action marker from Bob's grid, row 1, column 1 to Bob's sage space 4"]
    assert not REGION_ID.search(a["message"]), a["message"]
    assert a["boards"][0]["title"] == "Bob's village"


def test_pieces_to_turn_over_take_away_and_put_back():
    names, pairs = ["Ann", "Bob"], [["economic", "military"], ["ritual", "mask"]]
    put_back = [
        {"board": "wendake-map-2p", "region": "T01.pa0", "expected": {"woman:red:colour": 1}, "seen": {"woman:red:grey": 1}},
        {"board": "wendake-village-2", "region": "long_house", "expected": {}, "seen": {"hunter:blue:grey": 2}},
        {"board": "wendake-scores-a", "region": "upper.7", "expected": {"tribe_disk:red": 1}, "seen": {}},
        {"board": "wendake-village-1", "region": "slot.4#tile", "expected": "B-TRADE:action", "seen": None},
    ]
    lines = fix_lines(put_back, names, pairs)
    assert "Turn over: 1 red woman on the corn area of Pine Ridge to its colour side" in lines
    assert "Take away: 2 blue hunters (grey side) from Bob's Long House" in lines
    assert "Put back: 1 red tribe disk on the Economic track, space 7" in lines
    assert "Put back: the Trade tile (action side up) on Ann's grid, row 2, column 2" in lines
    assert not any(REGION_ID.search(line) for line in lines), lines
