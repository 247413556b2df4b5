"""The Iwari tracker on a table it reads unsurely: a tent read weakly where none lies, now and then (the familiar
family's 3p s2, a red tent read at 0.30-0.37 on S11 at 7 of its 139 looks), and a camera whose first look came
after play began (5p s1004, 8 moves in). Cases from ``tablewatch e2e --game iwari --family familiar``."""

from __future__ import annotations

import copy

from iwari_helpers import game, give, look

from assistant.iwari import moves as M
from assistant.iwari.edits import conceal
from assistant.iwari.observer import PLAY_AREA, PLAYED, expected_readings
from assistant.iwari.table_game import Iwari
from assistant.table.tracker import Tracker

IWARI = Iwari()
MAP = "iwari-standard/"
WEAK = 0.35  # how surely the phantom tent reads: under any alert, above any reading the tracker ignores


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def three_players():
    """Ann (red) to play with two forest cards, Bob (blue) and Cy (green) after her."""
    s = game(3)
    give(s, 0, "forest", "forest", "coast")
    return s, Tracker(conceal(s), game=IWARI)


def test_a_weak_tent_taken_for_a_turn_is_read_again_when_a_later_look_shows_the_space_empty():
    """3p s2 frames 3-8: Ann's tent on the coast, paid with a pair of forest cards, and a blue tent read at 0.35 on S10 where none lies.
    A line that ends Ann's turn and has Bob pay the same pair shown for S10 explains every reading, so the
    tracker takes it. The next look shows S10 surely empty and Bob's tent on S28: no line from the accepted position
    explains that, and a search straight from before Ann's turn cannot see her cards any more. Read again look by
    look, the first look is Ann's turn with the weak tent a misreading, and Bob's turn follows."""
    s, tracker = three_players()
    readings = expected_readings(s)
    assert kinds(look(tracker, readings)) == []
    readings[MAP + "S17"] = (("tent:red", 1),)
    readings[PLAYED] = (("card:forest", 2),)
    readings[PLAY_AREA] = (("card", 2),)
    readings[MAP + "S10"] = (("tent:blue", 1),)
    look(tracker, readings, {MAP + "S10": WEAK})
    readings[MAP + "S10"] = ()
    readings[MAP + "S28"] = (("tent:blue", 1),)
    readings[PLAYED] = (("card:tundra", 1),)
    readings[PLAY_AREA] = (("card", 1),)
    events = look(tracker, readings)
    assert not {"IllegalMove", "TableOutOfSync"} & set(kinds(events)), [e.to_json() for e in events]
    places = [(m.space, m.cards) for m in tracker.moves if isinstance(m, M.Place)]
    assert places == [("S17", ("forest", "forest")), ("S28", ("tundra",))], tracker.moves
    assert tracker.state.current == 1


def test_a_phantom_tent_that_comes_back_is_no_move():
    """3p s2 frames 16-209: a weak red tent on S10 was tolerated once (Ann's pieces go into T05 this turn), then read
    right (empty). Bob places his tent. When the phantom comes back as weakly while his turn ends, it is the same
    phantom: no whole round is played to 'explain' it (Bob ends, Cy swaps the tundra card just shown, Ann places
    on S10), though such a round costs less than the reading. Read surely, it is evidence."""
    s, tracker = three_players()
    readings = expected_readings(s)
    look(tracker, readings)
    readings[MAP + "S17"] = (("tent:red", 1),)
    readings[PLAYED] = (("card:forest", 2),)
    readings[PLAY_AREA] = (("card", 2),)
    look(tracker, readings)
    readings[MAP + "S10"] = (("tent:red", 1),)
    look(tracker, readings, {MAP + "S10": WEAK})
    assert MAP + "S10" in tracker.misreadings
    readings[MAP + "S10"] = ()
    look(tracker, readings)
    assert MAP + "S10" not in tracker.misreadings
    readings[MAP + "S28"] = (("tent:blue", 1),)  # Ann's turn over, Bob's tent paid with tundra
    readings[PLAYED] = (("card:tundra", 1),)
    readings[PLAY_AREA] = (("card", 1),)
    look(tracker, readings)
    assert tracker.state.current == 1
    readings[PLAYED] = readings[PLAY_AREA] = ()  # his turn ends
    readings[MAP + "S10"] = (("tent:red", 1),)
    surely = copy.deepcopy(tracker)
    events = look(surely, readings, {MAP + "S10": 0.9})
    assert any(isinstance(m, M.Place) and m.space == "S10" for m in surely.moves), surely.moves  # evidence
    at = len(tracker.moves)
    events = look(tracker, readings, {MAP + "S10": WEAK})
    assert not any(isinstance(m, M.Place) for m in tracker.moves[at:]), [e.to_json() for e in events]
    assert tracker.state.current == 2


def test_a_first_look_after_play_began_is_caught_up_with_the_turns_it_shows():
    """5p s1004 frame 26: the camera's first settled look came after three turns and a fourth tent. The cards in
    the play area are the last turn's, not the first player's, so the earlier turns' cards are unseen and each of
    those turns may end within the look: the look is explained as the turns it shows, not taken for misreadings."""
    s, tracker = three_players()
    readings = expected_readings(s)
    readings[MAP + "S32"] = (("tent:red", 1),)  # Ann's turn, her cards gone to the discard pile
    readings[MAP + "S17"] = (("tent:blue", 1),)  # Bob's
    readings[MAP + "S28"] = (("tent:green", 1),)  # Cy's, his card still in the play area
    readings[PLAYED] = (("card:tundra", 1),)
    readings[PLAY_AREA] = (("card", 1),)
    events = look(tracker, readings)
    assert not {"IllegalMove", "TableOutOfSync", "NeedsConfirmation"} & set(kinds(events)), [e.to_json() for e in events]
    places = [(m.space, m.cards) for m in tracker.moves if isinstance(m, M.Place)]
    assert [p[0] for p in places] == ["S32", "S17", "S28"], tracker.moves
    assert places[-1][1] == ("tundra",)
    assert tracker.state.current == 2
