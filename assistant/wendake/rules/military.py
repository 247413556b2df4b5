"""The Military action (W-ACT-8, W-TUR): turtle claims checked beside their apply."""

from __future__ import annotations

from assistant.wendake import progress
from assistant.wendake.board import (
    Violation,
    add_points,
    turtle_count,
    turtle_threshold,
)


def check_military(state, p, move, pending, v, ed):
    player = state.players[p]
    progress.check_uses(player, move.use, "military", ed, v)
    owned = {t["type"] for t in player.turtles}
    seen = set()
    for tid in move.turtles:
        spec = ed.turtle_types.get(tid)
        if spec is None:
            v.append(Violation("W-TUR-3", f"{tid!r} is not a turtle type; types are like 'women-3' or 'canoes-5'."))
            continue
        cat = spec["category"]
        if cat in seen:
            v.append(Violation("W-TUR-3", f"one Military action gives at most 1 turtle tile per category; you claimed two {cat} tiles."))
        seen.add(cat)
        if tid in owned:
            v.append(Violation("W-TUR-4", f"you already own a {tid} turtle; nobody owns two of the same type."))
        have = turtle_count(state, p, cat)
        need = turtle_threshold(player, spec)
        if have < need:
            v.append(Violation("W-TUR-2", f"{tid} needs {need} {cat}" + (" (Shawnee: 1 less, W-TRB-9)" if need != spec["threshold"] else "")
                               + f" but you have {have}" + (" in productive areas (outposts do not count)" if cat != "canoes" else " in play") + "."))
        if not state.turtle_stacks.get(tid):
            v.append(Violation("W-TUR-5", f"the {tid} stack is empty."))


def apply_military(state, p, move, ed):
    player = state.players[p]
    uses = {progress.rule_of(ed, t) for t in move.use}
    progress.flip(player, move.use)
    immediate = state.solo is not None and state.options.solo_turtles_immediate
    for tid in move.turtles:
        hidden = state.turtle_stacks[tid].pop()
        tile = {"type": tid, "hidden": hidden}
        if immediate and hidden is not None and "track" in hidden:  # W-SOLO-13: L3/L4 count at once
            add_points(state, p, hidden["track"], ed.turtle_types[tid]["points"], ed.cap)
            tile["scored"] = True
        player.turtles.append(tile)
    add_points(state, p, "military", progress.majorities(state, p, ed, uses), ed.cap)
