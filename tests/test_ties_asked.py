"""Which ties the tracker asks about (``NeedsConfirmation``): not a line the turn may still go on to, but one
that the turn went past without it showing."""

from __future__ import annotations

from game_looks import seeded_game

from assistant.table.events import IllegalMove, NeedsConfirmation, ScoreMismatch, TableOutOfSync
from assistant.table.observation import Observation, Reading
from assistant.table.tracker import Tracker
from assistant.wendake import moves as M
from assistant.wendake.edits import conceal
from assistant.wendake.observer import expected_readings, map_board
from assistant.wendake.setup import new_game

NAMES = ["Ann", "Bob"]


def look(state, frame, lake=None, shown=None):
    readings = {k: Reading(v, 0.95) for k, v in expected_readings(state).items()}
    if lake is not None:
        readings[lake] = Reading(shown, 0.95)
    return Observation(frame, float(frame), readings)


def test_a_canoe_not_put_down_yet_is_not_asked_about_one_hidden_on_its_lake_is():
    """Game 2, moves 3-6: Ann activates a Canoe tile, puts a canoe on Lake 3 over the one there (a lake is a pile:
    the new canoe does not show), ends her turn, and Bob activates a tile. At the look after the activation the
    lines that add a canoe on a lake tie with the one that adds none, but the turn goes on: the next look shows
    whether she puts one down, so nothing is asked (e2e 3p s2: 9 of its 16 questions were this one). Once the turn
    went on past it with no canoe showing, the tracker asks."""
    states, moves = seeded_game(2, NAMES)
    i = 3
    assert [type(m) for m in moves[i : i + 4]] == [M.Activate, M.Canoe, M.EndTurn, M.Activate]
    lake = f"{map_board(2)}/{moves[i + 1].lake}"
    before = expected_readings(states[i])[lake]
    assert before  # a canoe lies there already: one more may hide under it or over it
    tracker = Tracker(conceal(new_game(NAMES, seed=2)))
    for k in range(i):
        tracker.observe(look(states[k + 1], k))
    events = tracker.observe(look(states[i + 1], i))
    assert [type(m) for m in tracker.moves[i:]] == [M.Activate]
    assert not any(isinstance(e, NeedsConfirmation) for e in events)
    assert tracker.had_choice  # a choice all the same: this look shows no doubted kind read well (GameSession)
    events = tracker.observe(look(states[i + 4], i + 1, lake, before))  # the new canoe never shows
    assert not any(isinstance(e, (IllegalMove, TableOutOfSync, ScoreMismatch)) for e in events)
    asked = [e for e in events if isinstance(e, NeedsConfirmation)]
    assert len(asked) == 1
    assert any(m["type"] == "canoe" for c in asked[0].candidates for m in c["moves"])
