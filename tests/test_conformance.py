"""Conformance of every registered game (``assistant.table.game.names()``) to the ``Game`` interface.

Each game, at each of its player counts, plays a seeded random game (``random_move``) and must keep:

- its invariants: ``invariant_errors`` is empty at every state of the playout, and the playout ends;
- JSON round trips: states and moves read back from their JSON equal the originals;
- ``check`` agreeing with ``legal_moves`` and ``apply``: every legal move checks clean and applies; a move from
  elsewhere in the game, or one whose JSON was altered, either checks clean and applies, or is reported (or
  refused as ill-typed) and ``apply`` refuses it;
- stable expected readings: the same state (again, copied, or read back from JSON) gives the same readings, and
  every key's ``region_kind`` is one of ``REGION_KINDS``;
- names, years and results: ``player_name`` and ``year`` name a move's player and stage, ``results`` is JSON, final
  once the game is over, with its winners among the players it scores;
- a tracker that reproduces the game seen through a perfect camera: fed the expected readings after every move
  that changes them, from the set-up with every hidden thing unknown (``conceal``), it raises no alert but
  ``NeedsConfirmation`` (two lines a camera cannot tell apart), and at every other look the table its state
  implies is the true one, as far as the tracker weighs a reading (``camera_view``); its accepted line, replayed
  with its edits from the concealed set-up, is legal and gives the same table. A game with a referee (moves
  the game makes itself, told to the players, whose hidden parts they tap in: Wendake's solo Ghost) is followed
  by its session, not the tracker alone, and is tested by the game's own tests.

Only the interface is used: a new game passes this file without touching it.
"""

from __future__ import annotations

import functools
import json
import random

import pytest

from assistant.table import game as games
from assistant.table.game import REGION_KINDS
from assistant.table.observation import Observation, Reading
from assistant.table.tracker import Tracker
from tests.perfect_games import NAMES
from tests.perfect_games import playout as seeded_playout

MAX_MOVES = 3000  # a playout longer than this does not end
SAMPLE = 12  # states sampled along a playout for the costlier checks
CAMERA_MOVES = 120  # moves of a playout seen by the perfect camera (why not more: docs/tracker.md, Known limits)
ALERTS = ("IllegalMove", "TableOutOfSync", "ScoreMismatch")

CASES = [(name, n) for name in games.names() for n in games.get(name).player_counts]
IDS = [f"{name}-{n}p" for name, n in CASES]


@functools.lru_cache(maxsize=None)
def playout(name: str, players: int, seed: int = 1):
    """(states, moves) of a seeded random game (``tests.perfect_games.playout``), made once per test run:
    ``states[k]`` is the state before ``moves[k]``, ``states[-1]`` the last."""
    return seeded_playout(games.get(name), players, seed, MAX_MOVES)


def sampled(states: list) -> list:
    step = max(1, len(states) // SAMPLE)
    return states[::step] + [states[-1]]


def as_json(doc) -> str:
    return json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize("name,players", CASES, ids=IDS)
def test_a_random_playout_keeps_the_invariants(name, players):
    game = games.get(name)
    states, moves = playout(name, players)
    assert game.is_over(states[-1]), f"{len(moves)} random moves and the game is not over"
    for k, state in enumerate(states):
        assert game.invariant_errors(state) == [], f"after move {k}: {moves[k - 1] if k else 'set-up'}"


@pytest.mark.parametrize("name,players", CASES, ids=IDS)
def test_states_and_moves_round_trip_through_json(name, players):
    game = games.get(name)
    states, moves = playout(name, players)
    for state in sampled(states):
        doc = game.state_to_json(state)
        back = game.state_from_json(json.loads(json.dumps(doc)))
        assert as_json(game.state_to_json(back)) == as_json(doc)
        assert back == state and game.copy(state) == state
    for move in moves:
        doc = game.move_to_json(move)
        back = game.move_from_json(json.loads(json.dumps(doc)))
        assert back == move and as_json(game.move_to_json(back)) == as_json(doc)


def altered(doc: dict, rng: random.Random) -> dict:
    """The move JSON with one whole number moved far off or one text changed."""
    doc = json.loads(json.dumps(doc))
    fields = [k for k, v in doc.items() if k != "type" and isinstance(v, (int, str)) and not isinstance(v, bool)]
    if fields:
        k = rng.choice(fields)
        doc[k] = doc[k] + rng.choice((-7, 5, 97)) if isinstance(doc[k], int) else doc[k] + "?"
    return doc


def refused(game, state, move) -> bool:
    """Whether ``apply`` refuses ``move`` with the interface's error (a ``MoveError``, a ``ValueError``)."""
    try:
        game.apply(game.copy(state), move)
    except ValueError as exc:
        assert type(exc).__name__.endswith("MoveError"), repr(exc)
        return True
    return False


@pytest.mark.parametrize("name,players", CASES, ids=IDS)
def test_check_agrees_with_legal_moves_and_apply(name, players):
    game = games.get(name)
    states, moves = playout(name, players)
    rng = random.Random(7)
    flagged = tried = 0
    for state in sampled(states)[:-1]:
        before = as_json(game.state_to_json(state))
        legal = list(game.legal_moves(state))
        assert legal, "a state of a game not over has legal moves"
        for move in legal:
            assert game.check(state, move) == [], move
            assert not refused(game, state, move), move
        others = [m for m in rng.sample(moves, min(8, len(moves))) if m not in legal]
        others += [altered(game.move_to_json(m), rng) for m in rng.sample(legal, min(4, len(legal)))]
        for other in others:
            try:
                move = game.move_from_json(other) if isinstance(other, dict) else other
                violations = game.check(state, move)
            except ValueError as exc:  # ill-typed: the interface's MoveError
                assert type(exc).__name__.endswith("MoveError"), repr(exc)
                flagged += 1
                continue
            tried += 1
            assert refused(game, state, move) == bool(violations), (move, violations)
            flagged += bool(violations)
        assert as_json(game.state_to_json(state)) == before, "check or legal_moves changed the state"
    assert flagged >= tried // 4 > 0, (flagged, tried)


@pytest.mark.parametrize("name,players", CASES, ids=IDS)
def test_expected_readings_are_stable(name, players):
    game = games.get(name)
    states, _ = playout(name, players)
    for state in sampled(states):
        before = as_json(game.state_to_json(state))
        readings = game.expected_readings(state)
        assert readings and all(isinstance(k, str) and "/" in k for k in readings)
        assert game.expected_readings(state) == readings
        assert game.expected_readings(game.copy(state)) == readings
        assert game.expected_readings(game.state_from_json(json.loads(before))) == readings
        assert as_json(game.state_to_json(state)) == before, "expected_readings changed the state"
        assert {game.region_kind(k) for k in readings} <= set(REGION_KINDS)


@pytest.mark.parametrize("name,players", CASES, ids=IDS)
def test_names_years_and_results(name, players):
    """``player_name`` and ``year`` (what the tracker's events say of a move) and ``results`` (the export's, the
    hub's) at every sampled state: JSON, final once over, a winner among the players named."""
    game = games.get(name)
    states, _ = playout(name, players)
    years = []
    for state in sampled(states):
        seats = [game.player_name(state, p) for p in range(players)]
        assert seats == NAMES[:players], seats
        years.append(game.year(state))
        r = json.loads(json.dumps(game.results(state)))
        named = {p["name"] for p in r["players"]}
        assert r["final"] == game.is_over(state) and set(seats) <= named
        assert all(isinstance(p["total"], int) for p in r["players"])
        assert r["tie_break"] is None or isinstance(r["tie_break"], str)
        assert set(r["winners"]) <= named and (r["winners"] or not game.is_over(state))
    assert years == sorted(years) and years[0] == 1, years


def camera_view(game, readings: dict) -> dict:
    """The readings as far as the tracker weighs them: of a top-of-stack region only whether a stack is there (the
    piece on top agrees with any piece of the stack, docs/tracker.md)."""
    return {k: bool(v) if game.region_kind(k) == "top-of-stack" else v for k, v in readings.items()}


@pytest.mark.parametrize("name,players", CASES, ids=IDS)
def test_the_tracker_follows_a_game_seen_through_a_perfect_camera(name, players):
    game = games.get(name)
    states, moves = playout(name, players)
    if game.referee(states[0]) is not None:
        pytest.skip("the game makes some moves itself, through its referee and players' taps (Wendake solo: test_solo_camera)")
    tracker = Tracker(game.conceal(states[0]), game=game)
    seen = game.expected_readings(states[0])
    looks = 0
    for k, state in enumerate(states[1 : CAMERA_MOVES + 1], 1):
        readings = game.expected_readings(state)
        if readings == seen:
            continue  # a move that shows nothing: the camera sees the table only change
        seen = readings
        events = tracker.observe(Observation(k, float(k), {key: Reading(v, 1.0) for key, v in readings.items()}))
        looks += 1
        assert not [e.to_json() for e in events if e.kind in ALERTS], f"after move {k - 1}: {moves[k - 1]}"
        if not any(e.kind == "NeedsConfirmation" for e in events):
            assert camera_view(game, game.expected_readings(tracker.state)) == camera_view(game, readings), (
                f"after move {k - 1}: {moves[k - 1]}"
            )
    assert looks >= min(CAMERA_MOVES, len(moves)) // 4
    # the accepted line is legal from the concealed set-up: its edits name hidden things only, each move checks clean
    state = game.copy(tracker.initial)
    for k, move in enumerate(tracker.moves):
        for edit in tracker.edits.get(k, ()):
            game.apply_edit(state, edit)
        assert game.check(state, move) == [], f"accepted move {k}: {move}"
        state = game.apply(state, move)
    assert game.expected_readings(state) == game.expected_readings(tracker.state)
