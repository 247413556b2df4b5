"""Re-reads on a table the tracker keeps losing (``REREAD_WINDOW``, ``REREAD_LOOKS``): a look nothing explains
re-reads earlier looks, the costliest search (seconds a look on foreign table 103), so they run on a few looks of
any ``REREAD_WINDOW``; every such look is still called out, and a game followed well is not touched."""

from __future__ import annotations

from game_looks import seeded_game

from assistant.table.alternatives import REREAD_LOOKS, REREAD_WINDOW
from assistant.table.events import IllegalMove, TableOutOfSync
from assistant.table.observation import Observation, Reading
from assistant.table.tracker import Tracker
from assistant.wendake import moves as M
from assistant.wendake.observer import expected_readings, map_board


def look(state, frame: int, **sure) -> Observation:
    readings = {k: Reading(v, 0.95) for k, v in expected_readings(state).items()}
    for lake, colour in sure.items():  # a canoe read surely where no move puts one
        readings[f"{map_board(2)}/{lake}"] = Reading(((f"canoe:{colour}", 1),), 0.8)
    return Observation(frame, float(frame), readings)


def turns(n: int) -> tuple[list, list[int]]:
    """(states, the move indexes of the first ``n`` turns' ends) of a random 2-player game."""
    states, moves = seeded_game(5)
    return states, [i for i, m in enumerate(moves) if isinstance(m, (M.EndTurn, M.Restore))][:n]


def test_a_table_lost_again_and_again_re_reads_on_a_few_looks_of_each_window_and_is_still_called_out():
    states, ends = turns(6)
    tracker = Tracker(states[0])
    frame = 0
    for i in ends:  # six turns followed: the tracker keeps their looks to re-read
        frame += 1
        tracker.observe(look(states[i + 1], frame))
    followed = len(tracker.moves)
    assert followed >= ends[-1] and tracker.looks  # (the last turn's end may wait for the next look)
    now = states[ends[-1] + 1]
    called = 0
    rounds = REREAD_WINDOW  # a bad look and the table put back, over two windows of looks
    for _ in range(rounds):
        frame += 1
        events = tracker.observe(look(now, frame, L1="black"))
        called += any(isinstance(e, (TableOutOfSync, IllegalMove)) and "L1" in e.message for e in events)
        frame += 1
        tracker.observe(look(now, frame))
        assert not tracker.alerts
    assert called == rounds  # every bad look is called out
    assert tracker.stats["reread_looks"] <= 2 * REREAD_LOOKS and tracker.stats["reread_looks"] < rounds
    assert tracker.stats["reread_skipped"] == rounds - tracker.stats["reread_looks"]
    assert len(tracker.moves) == followed  # no move taken for the canoe


def test_a_game_followed_well_re_reads_whenever_it_needs_to():
    """The window never binds on a game the tracker follows: an unexplained look now and then re-reads each time."""
    states, ends = turns(12)
    tracker = Tracker(states[0])
    for frame, i in enumerate(ends):
        if frame in (5, 9):  # a bad look of the table as the last turn left it
            tracker.observe(look(states[ends[frame - 1] + 1], 100 + frame, L1="black"))
        tracker.observe(look(states[i + 1], frame))
    assert tracker.stats["reread_looks"] == 2 and tracker.stats["reread_skipped"] == 0
    assert len(tracker.moves) >= ends[-1] and not tracker.alerts
