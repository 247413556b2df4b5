"""The Iwari tracker after an illegal change on the table: the change is flagged, never accepted as a legal line
that leaves it aside (a stale misplacement) or rewrites an earlier turn to fit it (a re-read). Cases from the
rendered games with injected illegal changes (``tablewatch e2e --game iwari --injected-games``)."""

from __future__ import annotations

from iwari_helpers import game, give, look, tent, totem

from assistant.iwari.edits import conceal
from assistant.iwari.observer import PLAYED, expected_readings
from assistant.iwari.table_game import Iwari
from assistant.table.tracker import Tracker

IWARI = Iwari()
MAP = "iwari-standard/"


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def test_a_tent_on_an_occupied_space_is_not_let_in_beside_an_unseen_totem():
    """iwari_2p_s1001 frame 213, iwari_5p_s1004 frame 399: a tent put on another tribe's space (I-TURN-4), the card
    paid in the play area. A totem on the mover's own stack shows nothing but the card, so that legal line leaves
    only the tent unexplained, in a place it does not touch; a difference new in this look is the illegal move
    seen, not a piece put back wrong earlier, so the totem is not accepted and the tent is flagged."""
    s = game(2)
    tent(s, "S06", 0)
    tent(s, "S07", 0)
    totem(s, "T02", 0)  # Ann's stack in T02 (forest), her top: a totem there shows nothing
    tent(s, "S05", 1)  # Bob's tent in T02
    give(s, 0, "forest", "tundra", "coast")
    tracker = Tracker(conceal(s), game=IWARI)
    readings = expected_readings(s)
    assert kinds(look(tracker, readings)) == []
    readings[MAP + "S05"] = (("tent:red", 1),)
    readings[PLAYED] = (("card:forest", 1),)
    events = look(tracker, readings)
    assert "MoveRecognized" not in kinds(events), [e.to_json() for e in events]
    assert tracker.moves == []
    alerts = [e for e in events if e.kind in ("IllegalMove", "TableOutOfSync")]
    assert alerts, [e.to_json() for e in events]


def test_a_re_read_does_not_take_an_earlier_tent_for_noise_to_fit_an_illegal_tent():
    """iwari_4p_s1003 frame 14: a tent put on the space whose tent the last turn placed (I-TURN-4). Re-read from
    before that turn, a swap then this tent explains the look, and the earlier look that showed the first tent is
    off by one piece only: a tent read where the line has none is no pile miscounted, so the earlier turn is not
    rewritten and the illegal tent is flagged."""
    s = game(2)
    give(s, 0, "forest", "tundra", "coast")
    give(s, 1, "desert", "desert", "forest")
    tracker = Tracker(conceal(s), game=IWARI)
    readings = expected_readings(s)
    assert kinds(look(tracker, readings)) == []
    readings[MAP + "S34"] = (("tent:red", 1),)
    readings[PLAYED] = (("card:forest", 1),)
    assert "MoveRecognized" in kinds(look(tracker, readings, {PLAYED: 0.5}))  # the card read unsure
    readings[PLAYED] = ()  # Ann's turn over: her card gone to the discard pile
    look(tracker, readings)
    placed = list(tracker.moves)
    readings[MAP + "S34"] = (("tent:blue", 1),)
    readings[PLAYED] = (("card:desert", 2),)
    events = look(tracker, readings)
    assert "Correction" not in kinds(events) and "MoveRecognized" not in kinds(events), [e.to_json() for e in events]
    assert tracker.moves[: len(placed)] == placed
    alerts = [e for e in events if e.kind == "IllegalMove"]
    assert alerts and alerts[0].rule == "I-TURN-4", [e.to_json() for e in events]
