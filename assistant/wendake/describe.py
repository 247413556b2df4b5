"""Plain-language lines for moves, as the demo, the event log and the tablet show them."""

from __future__ import annotations

from assistant.wendake import moves as M
from assistant.wendake.edition import load_edition
from assistant.wendake.state import TRACKS, State, slot_index


def describe(before: State, move, after: State) -> str:
    ed = load_edition()
    p = before.current
    name = before.players[p].name if p is not None else "?"
    text = _what(before, move, ed)
    gained = [f"+{after.players[p].tracks[t] - before.players[p].tracks[t]} {t}" for t in TRACKS
              if p is not None and after.players[p].tracks[t] != before.players[p].tracks[t]]
    return f"{name}: {text}" + (f" ({', '.join(gained)})" if gained else "")


def _what(state: State, move, ed) -> str:
    if isinstance(move, M.Activate):
        g = state.players[state.current].grid[slot_index(move.slot)]
        return f"activates {ed.tiles[g.tile].name} ({g.side} side) at {list(move.slot)}"
    if isinstance(move, M.SacredFire):
        g = state.players[state.current].grid[slot_index(move.slot)]
        return f"Sacred Fire activates {ed.tiles[g.tile].name} at {list(move.slot)}"
    if isinstance(move, M.ReserveTurnOrder):
        return f"reserves turn-order space {len(state.turn_order_track) + 1}"
    if isinstance(move, M.EndTurn):
        return "ends the turn"
    if isinstance(move, M.Move):
        return "moves: " + ", ".join(f"{s.frm}->{s.to} {s.place.replace('_', ' ')}" for s in move.steps) if move.steps else "moves nothing"
    if isinstance(move, M.Canoe):
        return f"puts a canoe on {move.lake}"
    if isinstance(move, M.Military):
        return "Military" + (f", claims turtles {', '.join(move.turtles)}" if move.turtles else "")
    if isinstance(move, M.MaskCeremony):
        return f"Mask Ceremony, draws from the {move.source}" + (f", plays {len(move.cards)} cards on {move.space}" if move.space else "")
    if isinstance(move, M.Trade):
        parts = [f"{len(move.exchanges)} exchange(s)"] if move.exchanges else []
        parts += [f"buys {ed.progress[b.tile].name} (L{ed.progress[b.tile].level})" for b in move.purchases]
        if move.points:
            parts.append(f"buys {len(move.points)} Economic point(s)")
        return "Trade: " + (", ".join(parts) or "nothing")
    if isinstance(move, M.Transfer):
        return f"transfers the outpost in {move.territory} home" + (" and replaces it" if move.replace else "")
    if isinstance(move, M.Swap):
        return f"swaps tiles {list(move.a)} and {list(move.b)}"
    if isinstance(move, M.Restore):
        return (f"sets aside {ed.tiles[move.set_aside].name} and takes {ed.tiles[move.take].name}" if move.set_aside
                else "keeps the tiles") + ", shuffles them into row 0"
    return {"harvest": "harvests", "hunt": "hunts", "tan": "tans pelts", "fish": "fishes",
            "ritual": "performs a Ritual"}.get(move.type, move.type)
