"""Cases from the rendered Iwari games (``tablewatch e2e --game iwari``): a tracker fed the looks a camera gave
there, so that no illegal table is explained by a legal-looking line (issue 35)."""

from __future__ import annotations

from iwari_helpers import game, give, tent, totem

from assistant.iwari.edits import conceal
from assistant.iwari.observer import PLAYED, expected_readings
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
