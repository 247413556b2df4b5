"""Seeded games and what a perfect camera reads of them, as recordings the e2e scoring replays (tracker only):
shared by the replay, play-area and conformance tests."""

from __future__ import annotations

import json
import random

from assistant.apps.replay import LOOKS_FILE
from assistant.table.observation import Observation, Reading

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]
LAYOUTS = {
    "iwari": ["iwari-display", "iwari-standard"],
    "wendake": [
        "wendake-map-2p",
        "wendake-scores-a",
        "wendake-scores-b",
        "wendake-mask",
        "wendake-village-1",
        "wendake-village-2",
    ],
}


def playout(game, players: int, seed: int, limit: int):
    """(states, moves) of a seeded random game, at most ``limit`` moves: ``states[k]`` is the state before ``moves[k]``."""
    rng = random.Random(seed)
    state = game.new_state(NAMES[:players], seed=seed)
    states, moves = [state], []
    while not game.is_over(state) and len(moves) < limit:
        move = game.random_move(state, rng)
        state = game.apply(game.copy(state), move)
        states.append(state)
        moves.append(move)
    return states, moves


def as_json(game, moves) -> list[dict]:
    return [game.move_to_json(m) for m in moves]


def perfect_recording(folder, game, players: int, seed: int, limit: int, reads=None) -> list[dict]:
    """A recording folder as ``models.synth.recording`` writes one, with the looks a perfect camera reads (one per
    table change, ``LOOKS_FILE``) instead of frames: what ``evaluate(..., tracker_only=True)`` replays.
    ``reads(readings, rng)``: what the camera reports of a state's expected readings (default: them); returns the
    expected readings of each look."""
    states, moves = playout(game, players, seed, limit)
    rng = random.Random(seed)
    reads = reads or (lambda readings, rng: readings)
    folder.mkdir()
    looks, steps, pending = [], [{"frame": 0, "moves": [], "injected": None}], []
    seen = game.expected_readings(states[0])
    shown = [seen]
    looks.append(Observation(0, 0.0, {k: Reading(v, 1.0) for k, v in reads(seen, rng).items()}).to_json())
    for k, state in enumerate(states[1:], 1):
        pending.append(k - 1)
        readings = game.expected_readings(state)
        if readings == seen:
            continue
        seen = readings
        shown.append(readings)
        looks.append(Observation(k, float(k), {key: Reading(v, 1.0) for key, v in reads(readings, rng).items()}).to_json())
        steps.append({"frame": k, "moves": pending, "injected": None})
        pending = []
    last = steps[-1]["moves"][-1]
    session = {
        "game": game.name,
        "players": NAMES[:players],
        "seed": seed,
        "initial": game.state_to_json(states[0]),
        "layouts": LAYOUTS[game.name],
    }
    (folder / "session.json").write_text(json.dumps(session))
    (folder / "truth.json").write_text(json.dumps({"moves": as_json(game, moves[: last + 1]), "steps": steps}))
    (folder / LOOKS_FILE).write_text("".join(json.dumps(o) + "\n" for o in looks))
    return shown
