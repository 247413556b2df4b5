"""Wendake's legality and effects: ``check(state, move)`` and ``apply(state, move)``.

``check`` returns every violation it finds; each names its rule ID from the spec (../shared/rules/wendake.md),
says in plain words what is wrong and, where it can, what would have been legal. ``apply`` mutates the state
deterministically (it checks first unless told not to) and then advances the turn, the phase and the year.
Both raise only ``moves.MoveError``: ``InvalidMoveError`` for a move that does not fit its schema,
``IllegalMoveError`` (from ``apply``) for a move the rules forbid.

Every move is made by ``state.current``: the player whose turn it is, or during the restore phase the
player whose tile choice is due (W-RES-4).

This module is the dispatch. Each move family keeps its check beside its apply: ``actions`` (Activate,
ReserveTurnOrder, EndTurn, Transfer, Swap), ``movement`` (Canoe, Move), ``gather`` (Harvest, Hunt, Tan, Fish),
``military``, ``masks``, ``trade``, ``ritual`` (Sacred Fire, Ritual) and ``restore``; the progress tiles'
own moves are in ``assistant.wendake.progress``, the Ghost's in ``assistant.wendake.ghost``. The helpers they
share are public in ``assistant.wendake.board``, the turn and year sequencing in ``assistant.wendake.turns``.
"""

from __future__ import annotations

from assistant.wendake import ghost, progress
from assistant.wendake import moves as M
from assistant.wendake.board import (
    IllegalMoveError,
    Violation,
    legal_activation_slots,
    line_possible,
    moved_then_transferred,
    pending_index,
    turtle_threshold,
)
from assistant.wendake.edition import Edition, load_edition
from assistant.wendake.rules import actions, gather, masks, military, movement, restore, ritual, trade
from assistant.wendake.rules.trade import purchase_track_options, score_purchase, smallpox_draws
from assistant.wendake.state import State

__all__ = [
    "FREE_MOVES", "TURN_MOVES", "IllegalMoveError", "Violation", "apply", "check", "legal_activation_slots",
    "line_possible", "majorities", "moved_then_transferred", "purchase_track_options", "score_purchase",
    "smallpox_draws", "turtle_threshold",
]

FREE_MOVES = (M.Transfer, M.Swap)
TURN_MOVES = (M.Activate, M.ReserveTurnOrder, M.EndTurn)

CHECKERS = {"canoe": movement.check_canoe, "move": movement.check_move, "harvest": gather.check_nothing,
            "hunt": gather.check_nothing, "tan": gather.check_nothing, "fish": gather.check_nothing,
            "military": military.check_military, "mask": masks.check_mask, "trade": trade.check_trade,
            "sacred_fire": ritual.check_sacred_fire, "ritual": ritual.check_ritual}
APPLIERS = {"canoe": movement.apply_canoe, "move": movement.apply_move, "harvest": gather.apply_harvest,
            "hunt": gather.apply_hunt, "tan": gather.apply_tan, "fish": gather.apply_fish,
            "military": military.apply_military, "mask": masks.apply_mask, "trade": trade.apply_trade,
            "sacred_fire": ritual.apply_sacred_fire, "ritual": ritual.apply_ritual}


def _ed(edition: Edition | None) -> Edition:
    return edition if edition is not None else load_edition()


def check(state: State, move, edition: Edition | None = None) -> list[Violation]:
    """Every violation of the rules that ``move`` would commit, made by ``state.current``; empty if legal.
    Raises InvalidMoveError for a move that does not fit its schema (moves.validate_move)."""
    M.validate_move(move)
    ed = _ed(edition)
    v: list[Violation] = []
    if state.phase == "over":
        return [Violation("W-RND-1", "the game is over: 7 years have been played.")]
    if state.solo is not None:
        problems = ghost.gate(state, move, ed)
        if problems is not None:
            return problems
    elif isinstance(move, M.GHOST_MOVES):
        return [Violation("W-SOLO-0", "Ghost moves exist only in the solo game.")]
    if isinstance(move, M.Restore):
        if state.phase != "restore":
            return [Violation("W-RES-4", "tiles are replaced only in the restore phase, after every player has placed 4 markers.")]
        restore.check_restore(state, state.current, move, v, ed)
        return v
    if state.phase == "restore":
        return [Violation("W-RES-4", f"the restore phase is waiting for {state.players[state.current].name} to replace a tile (a Restore move).")]
    p = state.current
    turn = state.turn
    if isinstance(move, M.Activate):
        actions.check_activate(state, p, move, v, ed)
    elif isinstance(move, M.ReserveTurnOrder):
        actions.check_reserve(state, p, move, v, ed)
    elif isinstance(move, M.EndTurn):
        actions.check_end_turn(state, p, move, v, ed)
    elif isinstance(move, M.Transfer):
        actions.check_transfer(state, p, move, v, ed)
    elif isinstance(move, M.UseProgress):
        progress.check_use_progress(state, p, move, v, ed)
    elif isinstance(move, M.Swap):
        actions.check_swap(state, p, move, v, ed)
    else:
        kind = M.KIND_OF_MOVE.get(type(move))
        if kind is None:
            return [Violation("W-RND-3", f"{type(move).__name__} is not a Wendake move.")]
        index = pending_index(turn, kind)
        if index is None and kind == "move" and moved_then_transferred(turn):
            return [Violation("W-XFER-4", "your Move action is over: in one action a warrior may not move, be transferred and "
                              "then move again, even with steps left over (W-MOV-7: a Move's steps are one action).",
                              "Move again only with another Move action of this turn or a progress tile's move.")]
        if index is None:
            open_kinds = [a.kind for a in turn.pending[turn.cursor:]] if turn.placed == "tile" else []
            where = "no tile has been activated this turn" if turn.placed != "tile" else (
                f"the activated tile has no open {kind} action" + (f" (open, top to bottom: {', '.join(open_kinds)})" if open_kinds else " (none left)"))
            return [Violation("W-TURN-1", f"{kind} cannot be performed: {where}. Actions come only from the activated tile, top to bottom, each once.")]
        CHECKERS[kind](state, p, move, turn.pending[index], v, ed)
    return v


def apply(state: State, move, edition: Edition | None = None, validate: bool = True) -> State:
    """Play ``move`` on ``state`` in place (checking it first unless ``validate`` is False) and return it."""
    ed = _ed(edition)
    if validate:
        violations = check(state, move, ed)
        if violations:
            raise IllegalMoveError(violations)
    else:
        M.validate_move(move)
    if isinstance(move, M.GHOST_MOVES):
        ghost.apply(state, move, ed)
        return state
    if isinstance(move, M.Restore):
        restore.apply_restore(state, move, ed)
        return state
    p = state.current
    if isinstance(move, M.Activate):
        actions.apply_activate(state, p, move, ed)
    elif isinstance(move, M.ReserveTurnOrder):
        actions.apply_reserve(state, p, move, ed)
    elif isinstance(move, M.EndTurn):
        actions.apply_end_turn(state, p, move, ed)
    elif isinstance(move, M.UseProgress):
        progress.apply_use_progress(state, p, move, ed)
    elif isinstance(move, M.Transfer):
        actions.apply_transfer(state, p, move, ed)
    elif isinstance(move, M.Swap):
        actions.apply_swap(state, p, move, ed)
    else:
        turn = state.turn
        kind = M.KIND_OF_MOVE[type(move)]
        index = pending_index(turn, kind)
        if turn.free_order:  # W-PRG-L1-3: any order; only the action done is used up
            turn.pending.pop(index)
        else:
            turn.cursor = index + 1
        turn.done.append(kind)
        APPLIERS[kind](state, p, move, ed)
    return state


def majorities(state: State, p: int, edition: Edition | None = None, uses=frozenset()) -> int:
    """W-ACT-8 b: territories (Home included) where p has strictly more guards than every other player,
    with the alliances' virtual guards and ties when their tiles are in ``uses`` (see progress.majorities)."""
    return progress.majorities(state, p, _ed(edition), uses)
