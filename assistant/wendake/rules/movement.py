"""Canoe and Move actions (W-ACT-2, W-ACT-3, W-MOV, W-FIGHT): each check beside its apply."""

from __future__ import annotations

from assistant.wendake.board import MoveScope, Violation, resolve_steps


def check_canoe(state, p, move, pending, v, ed):
    if state.players[p].canoe_reserve < 1:
        v.append(Violation("W-ACT-2", "all 5 of your canoes are already on lakes."))
    if move.lake not in state.lakes:
        v.append(Violation("W-ACT-2", f"{move.lake!r} is not a lake on this map.", "Lakes: " + ", ".join(sorted(state.lakes)) + "."))


def check_move(state, p, move, pending, v, ed):
    if not move.steps:
        return
    resolve_steps(MoveScope(state, scratch=True), p, move.steps, pending.n, v, ed)


def apply_canoe(state, p, move, ed):
    state.players[p].canoe_reserve -= 1
    state.lakes[move.lake][p] += 1


def apply_move(state, p, move, ed):
    resolve_steps(MoveScope(state, scratch=False), p, move.steps, len(move.steps) * 2, [], ed)
