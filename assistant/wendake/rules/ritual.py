"""The Sacred Fire (W-ACT-11) and Ritual (W-ACT-12) actions, each check beside its apply."""

from __future__ import annotations

from collections import Counter

from assistant.wendake import progress
from assistant.wendake.board import (
    MoveScope,
    Violation,
    add_points,
    line_possible,
    resolve_steps,
    return_home,
    slot_name,
    valid_slot,
)
from assistant.wendake.state import NATIVES, PendingAction, slot_index


def check_sacred_fire(state, p, move, pending, v, ed):
    player = state.players[p]
    if not valid_slot(move.slot):
        v.append(Violation("W-ACT-11", f"slot {move.slot} is not on the 3x3 grid."))
        return
    i = slot_index(move.slot)
    if player.fire is not None:
        v.append(Violation("W-ACT-11", "the Sacred Fire marker is already on a tile this year."))
    elif i == state.turn.slot:
        v.append(Violation("W-ACT-11", "the Sacred Fire cannot activate its own tile."))
    elif i in player.markers:
        v.append(Violation("W-ACT-11", f"tile {slot_name(i)} already has an action marker this year; no tile is activated twice in a year."))
    elif not line_possible(player.markers, i):
        legal = [j for j in range(9) if j not in player.markers and line_possible(player.markers, j)]
        v.append(Violation("W-ACT-11", f"tile {slot_name(i)} belongs to every line you can still complete this year; the Fire-marked tile can never be one of them (W-LINE-3).",
                           "Legal targets: " + ", ".join(slot_name(j) for j in legal) + "."))


def apply_sacred_fire(state, p, move, ed):
    player = state.players[p]
    i = slot_index(move.slot)
    player.fire = i
    g = player.grid[i]
    turn = state.turn
    turn.pending[turn.cursor:turn.cursor] = [PendingAction(a.kind, a.n, "fire") for a in ed.tiles[g.tile].face(g.side)]


def check_ritual(state, p, move, pending, v, ed):
    player = state.players[p]
    uses = progress.check_uses(player, move.use, "ritual", ed, v) if move.use else set()
    lh = player.long_house
    total = sum(lh.values())
    need = min(2, total)
    allowed = {need, min(3, total)} if "W-PRG-L3-3" in uses else {need}
    if len(move.natives) not in allowed:
        v.append(Violation("W-ACT-12", f"Ritual brings exactly {need} native(s) home from your Long House (2, or all there are if fewer)"
                           + ("; Extra native (W-PRG-L3-3) allows 1 more." if "W-PRG-L3-3" in uses else ".")))
        return
    count = Counter(move.natives)
    for kind, k in count.items():
        if kind not in NATIVES or lh.get(kind, 0) < k:
            v.append(Violation("W-ACT-12", f"your Long House has {lh.get(kind, 0)} {kind}(s); it holds " + ", ".join(f"{n} {kd}" for kd, n in lh.items()) + "."))
            return
    if move.steps:
        if "W-PRG-L1-4" not in uses:
            v.append(Violation("W-PRG-L1-4", "a step after Ritual needs the Ritual-bonus tile (L1 Ritual) in use."))
        elif len(move.steps) > 1:
            v.append(Violation("W-PRG-L1-4", "Ritual bonus moves 1 warrior 1 step."))
        else:
            trial = state.copy()
            for kind in move.natives:
                return_home(trial, p, kind)
            resolve_steps(MoveScope(trial, scratch=True), p, move.steps, 1, v, ed)


def apply_ritual(state, p, move, ed):
    player = state.players[p]
    uses = {progress.rule_of(ed, t) for t in move.use}
    progress.flip(player, move.use)
    for kind in move.natives:
        return_home(state, p, kind)
    counts = state.home_counts(p).values()
    if "W-PRG-L2-3" in uses:  # Most common: instead of the least (000/001/003) or in addition (002)
        points = max(counts) + (min(counts) if state.options.ritual_most_common_additional else 0)
    else:
        points = min(counts)
    points += ("W-PRG-L1-4" in uses) + ("W-PRG-L3-3" in uses)
    add_points(state, p, "ritual", points, ed.cap)
    if move.steps:  # Ritual bonus: then 1 warrior 1 step (W-PRG-L1-4)
        resolve_steps(MoveScope(state, scratch=False), p, move.steps, 1, [], ed)
