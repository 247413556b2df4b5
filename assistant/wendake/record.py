"""A recorded game: the initial state and the moves played, as JSON; and its replay through the engine.

Format ``tablewatch.wendake.game/1``: ``{"format", "initial": <state JSON>, "moves": [<move JSON>, ...]}``.
Storing the initial state (not only a seed) keeps a record valid when the edition data is corrected.
"""

from __future__ import annotations

from assistant.errors import UserError
from assistant.jsonfile import read_json
from assistant.wendake import rules
from assistant.wendake.moves import move_from_json, move_to_json
from assistant.wendake.schema import validate_state
from assistant.wendake.state import State

FORMAT = "tablewatch.wendake.game/1"


def game_to_json(initial: State, moves) -> dict:
    return {"format": FORMAT, "initial": initial.to_json(), "moves": [move_to_json(m) for m in moves]}


def load_game(path) -> tuple[State, list]:
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise UserError(f"{path}: not a Tablewatch Wendake game record (expected \"format\": \"{FORMAT}\").")
    errors = validate_state(doc.get("initial"))
    if errors:
        raise UserError(f"{path}: initial state is not valid:\n  " + "\n  ".join(errors[:10]))
    moves = []
    for i, m in enumerate(doc.get("moves", [])):
        try:
            moves.append(move_from_json(m))
        except (ValueError, TypeError, KeyError) as exc:
            raise UserError(f"{path}: moves[{i}]: {exc}") from None
    return State.from_json(doc["initial"]), moves


def replay(initial: State, moves, on_move=None) -> State:
    """Play the moves from a copy of ``initial``, checking each; ``on_move(before, move, after)`` sees each."""
    state = initial.copy()
    for i, move in enumerate(moves):
        before = state.copy() if on_move else None
        try:
            rules.apply(state, move)
        except rules.IllegalMoveError as exc:
            raise UserError(f"move {i} ({move.type}) is illegal: {exc}") from None
        if on_move:
            on_move(before, move, state)
    return state
