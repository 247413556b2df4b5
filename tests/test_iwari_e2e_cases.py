"""Cases from the rendered Iwari games (``tablewatch e2e --game iwari``): a tracker fed the looks a camera gave
there, so that no illegal table is explained by a legal-looking line (issue 35)."""

from __future__ import annotations

from iwari_helpers import game, give, tent, totem

from assistant.iwari.edits import conceal
from assistant.iwari.observer import PLAYED, expected_readings, play_space_key, play_spaces
from assistant.iwari.table_game import Iwari
from assistant.table.observation import Observation, Reading
from assistant.table.tracker import Tracker

IWARI = Iwari()


def look(tracker, readings: dict, weak: dict) -> list:
    """The events of one look: ``readings`` read sure, those in ``weak`` at the confidence it gives."""
    obs = {k: Reading(v, weak.get(k, 1.0)) for k, v in readings.items()}
    return tracker.observe(Observation(1, 1.0, obs))


def test_a_totem_over_the_majority_is_not_explained_by_an_unseen_totem_on_the_movers_own_stack():
    """iwari_5p_s1004, frame 338: a red totem put on another tribe's stack over the tent majority (I-TURN-5), its top
    read red just below the alert confidence, two cards in the play area. The mover's own stack elsewhere, topped
    red already, would hide a legal totem paid with those cards; but all of a turn's pieces go into one territory
    (I-TURN-1) and the look shows the mover's piece in another one, so that line does not explain the look."""
    s = game()
    tent(s, "S01", 0)
    tent(s, "S02", 0)
    totem(s, "T01", 0)  # Ann's stack, her top: a second totem there shows nothing
    tent(s, "S05", 1)
    totem(s, "T02", 1)  # Bob's stack, one tent: a second totem breaks the majority
    give(s, 0, "forest", "forest", "coast")
    tracker = Tracker(conceal(s), game=IWARI)
    readings = expected_readings(s)
    readings["iwari-standard/totem.T02"] = (("totem:red", 1),)
    readings[PLAYED] = (("card:forest", 2),)
    events = look(tracker, readings, {"iwari-standard/totem.T02": 0.59})
    kinds = [e.kind for e in events]
    assert "MoveRecognized" not in kinds, [e.to_json() for e in events]
    alerts = [e for e in events if e.kind == "IllegalMove"]
    assert alerts and alerts[0].rule == "I-TURN-5", [e.to_json() for e in events]


def _tied_pair_look(played_1: Reading) -> list:
    """iwari_2p_s9, frame 12: Ann pays a tent in T01 (tundra) with a desert pair, the first card read glaciers just
    ahead of desert (``played_1``), the second desert, unsurely, with no runner-up listed."""
    s = game(2)
    give(s, 0, "desert", "desert", "coast")  # her hand known (cards taken from the display): no tundra card
    tracker = Tracker(s, game=IWARI)
    readings = {k: Reading(v, 1.0) for k, v in expected_readings(s).items() if k != PLAYED}  # the spaces tell it
    readings["iwari-standard/S01"] = Reading((("tent:" + s.tribes[0], 1),), 1.0)
    spaces = play_spaces()
    readings[play_space_key(1)] = played_1
    readings[play_space_key(2)] = Reading("desert", 0.45)
    for i in range(3, len(spaces) + 1):
        readings[play_space_key(i)] = Reading(None, 1.0)
    return tracker.observe(Observation(1, 1.0, readings))


def test_a_pair_read_as_a_near_tie_is_followed():
    """A play space read below the alert confidence, its runner-up listed close behind, may show the runner-up: the
    desert pair that turns it explains the look, one step behind, and no I-TURN-6 alert is raised."""
    events = _tied_pair_look(Reading("glaciers", 0.26, (("desert", 0.2563),)))
    assert not [e for e in events if e.kind in ("IllegalMove", "TableOutOfSync")], [e.to_json() for e in events]
    moves = [m for e in events if e.kind == "MoveRecognized" for m in e.moves]
    assert [(m["territory"], m["cards"]) for m in moves if m["type"] == "place"] == [("T01", ["desert", "desert"])]


def test_a_sure_or_far_read_still_contradicts_the_payment():
    """The same look with the first card read glaciers surely, or unsurely with its runner-up far behind: no pair
    the play area shows pays in T01, an IllegalMove naming I-TURN-6."""
    for read in (Reading("glaciers", 0.9, (("desert", 0.9),)), Reading("glaciers", 0.55, (("desert", 0.55),))):
        events = _tied_pair_look(read)
        assert "MoveRecognized" not in [e.kind for e in events], [e.to_json() for e in events]
        alerts = [e for e in events if e.kind == "IllegalMove"]
        assert alerts and alerts[0].rule == "I-TURN-6", [e.to_json() for e in events]
