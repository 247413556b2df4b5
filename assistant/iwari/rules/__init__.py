"""Iwari's legality and effects: ``check(state, move)`` and ``apply(state, move)``.

``check`` returns every violation it finds; each names its rule ID from the spec (../shared/rules/iwari.md), says
in plain words what is wrong and, where it can, what would have been legal. ``apply`` changes the state in place,
deterministically (it checks first unless told not to): the pieces and cards, then what follows at once (feats
earned, expeditions scored, the deck's exhaustion with the half journey, the end of the journey and its scoring).
Both raise only ``moves.MoveError``: ``InvalidMoveError`` for a move that does not fit its schema,
``IllegalMoveError`` (from ``apply``) for a move the rules forbid.

Every move is made by ``state.current``, the player whose turn it is (the third tribe's pieces too, I-2P-2). This
module is the dispatch; each move family keeps its check beside its apply: ``place`` (Place, PlaceFeat and what a
piece earns) and ``cards`` (Draw, Swap, EndTurn). Their shared questions are in ``assistant.iwari.board``.
"""

from __future__ import annotations

from assistant.iwari import moves as M
from assistant.iwari.board import IllegalMoveError, Violation
from assistant.iwari.rules import cards, place
from assistant.iwari.state import State

__all__ = ["IllegalMoveError", "Violation", "apply", "check"]

CHECKS = {
    M.Place: place.check_place,
    M.PlaceFeat: place.check_feat,
    M.Draw: cards.check_draw,
    M.Swap: cards.check_swap,
    M.EndTurn: cards.check_end_turn,
}
APPLIES = {
    M.Place: place.apply_place,
    M.PlaceFeat: place.apply_feat,
    M.Draw: cards.apply_draw,
    M.Swap: cards.apply_swap,
    M.EndTurn: cards.apply_end_turn,
}


def check(state: State, move) -> list[Violation]:
    """Every rule ``move`` would break, made by ``state.current``; empty when legal. ``InvalidMoveError`` for a
    move that does not fit its schema (``moves.validate_move``)."""
    M.validate_move(move)
    if state.phase == "over":
        return [Violation("I-END-3", "the journey is over: the final scoring is done.", None)]
    if state.pending and not isinstance(move, M.PlaceFeat):
        due = state.pending[0]
        return [
            Violation(
                "I-FEAT-5",
                f"the {due['feat']} feat {state.tribes[due['tribe']]} just earned is placed at once, before anything else.",
                f"Place it at one of {', '.join(due['options'])}.",
            )
        ]
    v: list[Violation] = []
    CHECKS[type(move)](state, move, v)
    return v


def apply(state: State, move, validate: bool = True) -> State:
    """Play ``move`` on ``state`` in place (checking it first unless ``validate`` is False) and return it."""
    if validate:
        violations = check(state, move)
        if violations:
            raise IllegalMoveError(violations)
    else:
        M.validate_move(move)
    APPLIES[type(move)](state, move)
    return state
