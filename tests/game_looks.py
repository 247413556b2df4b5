"""The camera's looks of a random game (what a perfect camera would read after each turn), for tests that feed a
``GameSession`` as the pipeline does."""

from __future__ import annotations

from assistant.table.observation import Observation, Reading
from assistant.wendake import moves as M
from assistant.wendake.generate import play_random_game
from assistant.wendake.observer import expected_readings


def seeded_game(seed: int, players=("Ann", "Bob")) -> tuple[list, list]:
    """(states, moves) of a random game seeded ``seed``: ``states[i]`` is the state before ``moves[i]``, and the
    last state is the game's end."""
    states, moves = [], []
    final, _ = play_random_game(list(players), seed=seed,
                                on_move=lambda s, m: (states.append(s.copy()), moves.append(m)))
    return states + [final], moves


def looks(seed: int, players=("Ann", "Bob")):
    """One Observation per turn of a random game seeded ``seed``, in order."""
    states, moves = seeded_game(seed, players)
    for i, m in enumerate(moves):
        if isinstance(m, (M.EndTurn, M.Restore)):
            yield Observation(i, float(i), {k: Reading(v, 1.0) for k, v in expected_readings(states[i + 1]).items()})
