"""Iwari behind the table core's ``Game`` interface (``assistant.iwari.table_game.Iwari``, registered by
``assistant/iwari/game.py``, so tests/test_conformance.py runs every conformance check on it): whole games followed
by the tracker, and its explainer catching, with rule IDs, what a camera sees done wrong at the table.
"""

from __future__ import annotations

import random

import pytest
from iwari_helpers import game, give, supply, tent, totem

from assistant.iwari import rules
from assistant.iwari.edits import conceal
from assistant.iwari.observer import expected_readings, region_kind
from assistant.iwari.table_game import Iwari
from assistant.table import game as games
from assistant.table.game import Game
from assistant.table.observation import Observation, Reading, camera_values
from assistant.table.tracker import Tracker

IWARI = Iwari()
COUNTS = list(IWARI.player_counts)


def test_iwari_implements_the_game_interface_and_is_registered():
    assert isinstance(IWARI, Game) and IWARI.name == "iwari" and COUNTS == [2, 3, 4, 5]
    assert "iwari" in games.names() and isinstance(games.get("iwari"), Iwari)
    assert games.names()[0] == "iwari" and games.DEFAULT_GAME == "wendake"  # the default is named, not the first


def follow(state, every: int, limit: int = 10_000) -> tuple[Tracker, int]:
    """A tracker fed the perfect camera's readings of a random game from ``state`` after every ``every``-th move
    that changes them; (the tracker, how many looks did not give the true table or raised an alert)."""
    rng = random.Random(5)
    truth = state.copy()
    tracker = Tracker(conceal(state), game=IWARI)
    seen, bad, k = expected_readings(truth), 0, 0
    while truth.phase != "over" and k < limit:
        rules.apply(truth, IWARI.random_move(truth, rng))
        k += 1
        readings = expected_readings(truth)
        if readings == seen or (k % every and truth.phase != "over"):
            continue
        look = camera_values(readings, seen)  # a stack's height does not show, its change does
        seen = readings
        events = tracker.observe(Observation(k, float(k), {key: Reading(v, 1.0) for key, v in look.items()}))
        alerts = [e for e in events if e.kind in ("IllegalMove", "TableOutOfSync")]
        bad += bool(alerts) or expected_readings(tracker.state) != readings
    return tracker, bad


@pytest.mark.parametrize("players", [2, 4])
def test_the_tracker_follows_whole_games_with_feats(players):
    """A whole game, feats on (their tokens read on the map), every change seen: no alert, the true table."""
    tracker, bad = follow(game(players, feats=True, seed=3), every=1)
    assert bad == 0 and tracker.state.phase == "over"


def test_the_tracker_follows_looks_that_merge_two_moves():
    """Two moves between looks (a piece and a draw, a draw and the turn's end, the end and the next piece): the
    payments the play area shows and the refills the display shows still explain every look."""
    tracker, bad = follow(game(3, seed=2), every=2)
    assert bad == 0 and tracker.state.phase == "over"


def test_region_kinds():
    assert region_kind("iwari-standard/totem.T01") == "top-of-stack" and region_kind("iwari-display/slot.1") == "count"


# ---- what the camera sees done wrong -----------------------------------------------------------------------------
def first_alert(before, after):
    """The alert a tracker at ``before`` (concealed) raises when the camera sees ``after``'s table."""
    tracker = Tracker(conceal(before), game=IWARI)
    readings = expected_readings(after)
    events = tracker.observe(Observation(1, 1.0, {k: Reading(v, 1.0) for k, v in readings.items()}))
    alerts = [e for e in events if e.kind in ("IllegalMove", "TableOutOfSync")]
    assert alerts, [e.kind for e in events]
    return alerts[0]


def placed(s, *pieces):
    """``s`` with Ann's pieces put on the table as a camera would see them, paid with the cards named (no rule
    applied): (piece, territory, space or None, cards)."""
    t = s.copy()
    for piece, terr, space, cards in pieces:
        for c in cards:
            t.hands[0].remove(c)
            t.played.append(c)
        if piece == "tent":
            tent(t, space, 0)
        else:
            totem(t, terr, 0)
    return t


@pytest.mark.parametrize(
    "pieces, rule",
    [
        ((("tent", "T01", "S01", ("tundra",)), ("tent", "T02", "S05", ("forest",))), "I-TURN-1"),  # two territories
        ((("tent", "T01", "S01", ("tundra",)), ("tent", "T01", "S02", ("tundra",))), "I-TURN-2"),  # two in an unexplored one
        ((("totem", "T02", None, ("forest",)),), "I-TURN-5"),  # a totem above the tent majority
        ((("tent", "T02", "S05", ("forest",)),), "I-TURN-4"),  # a tent on an occupied space
    ],
    ids=["two-territories", "two-in-unexplored", "totem-above-majority", "tent-on-occupied-space"],
)
def test_illegal_placements_are_caught_with_their_rule(pieces, rule):
    s = game()
    tent(s, "S05", 1)
    totem(s, "T02", 1)
    give(s, 0, "tundra", "tundra", "forest")
    alert = first_alert(s, placed(s, *pieces))
    assert alert.kind == "IllegalMove" and alert.rule == rule, alert.to_json()


def test_more_pieces_than_the_tribe_has_are_caught():
    s = game()
    tent(s, "S10", 0)
    supply(s, 0, tents=0)
    give(s, 0, "tundra", "tundra", "forest")
    alert = first_alert(s, placed(s, ("tent", "T01", "S01", ("tundra",))))
    assert alert.kind == "IllegalMove" and alert.rule == "I-COMP-3", alert.to_json()


def test_a_payment_the_visible_cards_contradict_is_caught():
    """Nine of the ten glaciers cards were seen going to the discard pile: a glaciers pair paid from a hidden hand
    is one the visible cards contradict, an alert naming I-TURN-6."""
    hidden = conceal(game())
    hidden.discard = ["glaciers"] * (hidden.cards["glaciers"] - 1)
    hidden.deck = hidden.deck[len(hidden.discard) :]
    hidden.display = [c if c != "glaciers" else "tundra" for c in hidden.display]
    tracker = Tracker(hidden, game=IWARI)
    readings = expected_readings(hidden)
    readings["iwari-standard/S01"] = (("tent:red", 1),)
    readings["iwari-display/played"] = (("card:glaciers", 2),)
    events = tracker.observe(Observation(1, 1.0, {k: Reading(v, 1.0) for k, v in readings.items()}))
    alerts = [e for e in events if e.kind == "IllegalMove"]
    assert alerts and alerts[0].rule == "I-TURN-6" and "glaciers" in alerts[0].message, [e.to_json() for e in events]
