"""No false alarm from a doubted reading (issue 34 §3): when every reading that no legal line explains is one the
tracker doubts (weighed below its alert confidence), the tracker looks once more, then accepts the best legal
line and asks (``NeedsConfirmation`` naming the boards it doubts), never an ``IllegalMove`` or a
``TableOutOfSync``. The same disagreement read surely is an alert at once. Hand-made observations of a random
2-player game, through ``Tracker.observe`` and ``GameSession``."""

from __future__ import annotations

from game_looks import seeded_game

from assistant.table.events import IllegalMove, MoveRecognized, NeedsConfirmation, TableOutOfSync
from assistant.table.observation import Observation, Reading
from assistant.table.session import GameSession
from assistant.table.tracker import Tracker
from assistant.wendake.observer import expected_readings, map_board

NAMES = ["Ann", "Bob"]
ALERTS = (IllegalMove, TableOutOfSync)


def _game(seed: int = 21):
    return seeded_game(seed, NAMES)


def _turn_starts(states):
    return [i for i, s in enumerate(states) if s.phase == "actions" and s.turn and s.turn.placed is None]


def _look(state, frame: int, wrong: dict | None = None, confidence: float = 0.95) -> Observation:
    """A look at ``state`` read at 0.95, with the regions in ``wrong`` read as given at ``confidence``."""
    readings = {k: Reading(v, 0.95) for k, v in expected_readings(state).items()}
    for k, v in (wrong or {}).items():
        readings[k] = Reading(v, confidence)
    return Observation(frame, float(frame), readings)


def _case():
    """(the position before a turn, the position after it, three empty map territories): corn read in three empty
    territories is no legal position, whatever the turn was."""
    states, _ = _game()
    starts = _turn_starts(states)
    i, j = starts[6], starts[7]
    board = map_board(2)
    empty = sorted(k for k, v in expected_readings(states[j]).items()
                   if k.startswith(board + "/T") and "." not in k and v == () and k == k.split("#")[0])
    assert len(empty) >= 3
    return states[i], states[j], {k: (("corn:none", 3),) for k in empty[:3]}


def test_a_doubted_disagreement_asks_and_never_alerts():
    before, after, wrong = _case()
    tracker = Tracker(before)
    first = tracker.observe(_look(after, 1, wrong, confidence=0.45))
    assert not [e for e in first if isinstance(e, ALERTS + (MoveRecognized,))]  # looked at once more
    second = tracker.observe(_look(after, 2, wrong, confidence=0.45))
    assert not [e for e in second if isinstance(e, ALERTS)]
    asks = [e for e in second if isinstance(e, NeedsConfirmation)]
    assert len(asks) == 1
    assert asks[0].candidates[0]["boards"] == [map_board(2)] and map_board(2) in asks[0].message
    assert expected_readings(tracker.state) == expected_readings(after)  # the best legal line was accepted
    # the doubted readings are known misreadings now: the same look again is explained, and asks nothing new
    again = tracker.observe(_look(after, 3, wrong, confidence=0.45))
    assert not [e for e in again if isinstance(e, ALERTS + (NeedsConfirmation,))]


def test_the_same_disagreement_read_surely_is_an_alert_at_once():
    before, after, wrong = _case()
    tracker = Tracker(before)
    events = tracker.observe(_look(after, 1, wrong, confidence=0.9))
    assert [e for e in events if isinstance(e, ALERTS)]
    assert not [e for e in events if isinstance(e, NeedsConfirmation)]


def test_a_doubted_look_put_right_at_once_asks_nothing():
    """A look read doubtfully and then read right (a passing misread): the game goes on, no question, no alert."""
    before, after, wrong = _case()
    tracker = Tracker(before)
    events = tracker.observe(_look(after, 1, wrong, confidence=0.45)) + tracker.observe(_look(after, 2))
    assert [e.kind for e in events if isinstance(e, ALERTS + (NeedsConfirmation,))] == []
    assert expected_readings(tracker.state) == expected_readings(after)


def test_a_doubted_question_is_answered_after_a_restart(tmp_path):
    """From the set-up (a 2-player game's first turn): the doubted question is in the game log, so a resumed
    session still has it open and ``confirm`` answers it."""
    s = GameSession.create(tmp_path / "g.sqlite", players=NAMES, seed=21)
    start = s.state.copy()
    board = map_board(2)
    empty = sorted(k for k, v in expected_readings(start).items() if k.startswith(board + "/T") and "." not in k and v == ())
    wrong = {k: (("corn:none", 3),) for k in empty[:3]}
    events = s.feed(_look(start, 1, wrong, confidence=0.45)) + s.feed(_look(start, 2, wrong, confidence=0.45))
    assert [e.kind for e in events if isinstance(e, ALERTS + (NeedsConfirmation,))] == ["NeedsConfirmation"]
    s.close()
    again = GameSession.resume(tmp_path / "g.sqlite")
    assert [a["kind"] for a in again.snapshot()["alerts"]] == ["NeedsConfirmation"]
    again.confirm(0)
    assert not again.snapshot()["alerts"]
    again.close()
