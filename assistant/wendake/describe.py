"""Plain-language lines for moves, as the demo, the event log and the tablet show them.

Contract: a line speaks the players' language, never the engine's: grid slots as "row 2, column 3" (not
``[1, 2]``), territories and lakes by their printed names from the edition's map data (not ``T07`` / ``L1``),
tiles, progress tiles and turtles by name, and no move type (``use_progress``) or other internal form.
"""

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


def _slot(slot) -> str:
    row, col = slot
    return f"row {row + 1}, column {col + 1}"


def _place(state: State, ed, where: str) -> str:
    """A territory's or a lake's printed name (``T07`` -> "Maple Grove"); the id when the map does not know it."""
    m = ed.raw["map"]["maps"].get(str(state.n), {})
    for group in ("territories", "lakes"):
        if where in m.get(group, {}):
            return m[group][where]["name"]
    return str(where)


def _step(state: State, ed, s) -> str:
    frm, to = _place(state, ed, s.frm), _place(state, ed, s.to)
    what = {"guard": "", "outpost": " as an outpost", "attack_guard": ", attacks a guard",
            "attack_pa": ", attacks a productive area"}.get(s.place, f" ({s.place.replace('_', ' ')})")
    return (f"stays in {to}" if s.frm == s.to else f"{frm} to {to}") + what


def _turtle(tid: str) -> str:
    return tid.replace("-", " ").replace("_", " ")


def _what(state: State, move, ed) -> str:
    if isinstance(move, M.Activate):
        g = state.players[state.current].grid[slot_index(move.slot)]
        return f"activates {ed.tiles[g.tile].name} ({g.side} side), {_slot(move.slot)}"
    if isinstance(move, M.SacredFire):
        g = state.players[state.current].grid[slot_index(move.slot)]
        return f"Sacred Fire activates {ed.tiles[g.tile].name}, {_slot(move.slot)}"
    if isinstance(move, M.ReserveTurnOrder):
        return f"reserves turn-order space {len(state.turn_order_track) + 1}"
    if isinstance(move, M.EndTurn):
        return "ends the turn"
    if isinstance(move, M.Move):
        return "moves: " + "; ".join(_step(state, ed, s) for s in move.steps) if move.steps else "moves nothing"
    if isinstance(move, M.Canoe):
        return f"puts a canoe on {_place(state, ed, move.lake)}"
    if isinstance(move, M.Military):
        return "Military" + (f", claims turtles {', '.join(_turtle(t) for t in move.turtles)}" if move.turtles else "")
    if isinstance(move, M.MaskCeremony):
        return f"Mask Ceremony, draws from the {move.source}" + (f", plays {len(move.cards)} cards on {move.space}" if move.space else "")
    if isinstance(move, M.Trade):
        parts = [f"{len(move.exchanges)} exchange(s)"] if move.exchanges else []
        parts += [f"buys {ed.progress[b.tile].name} (level {ed.progress[b.tile].level})" for b in move.purchases]
        if move.points:
            parts.append(f"buys {len(move.points)} Economic point(s)")
        return "Trade: " + (", ".join(parts) or "nothing")
    if isinstance(move, M.Transfer):
        return f"transfers the outpost in {_place(state, ed, move.territory)} home" + (" and replaces it" if move.replace else "")
    if isinstance(move, M.Swap):
        return f"swaps the tiles at {_slot(move.a)} and {_slot(move.b)}"
    if isinstance(move, M.Restore):
        return (f"sets aside {ed.tiles[move.set_aside].name} and takes {ed.tiles[move.take].name}" if move.set_aside
                else "keeps the tiles") + ", shuffles them into the top row of the grid"
    if isinstance(move, M.UseProgress):
        tile = ed.progress.get(move.tile)
        text = f"uses the progress tile {tile.name if tile else move.tile}"
        return text + (": moves " + "; ".join(_step(state, ed, s) for s in move.steps) if move.steps else "")
    if isinstance(move, M.GhostCard):
        return "reveals the Ghost's mask card" + (f" {move.card}" if move.card else "")
    if isinstance(move, M.GhostAction):
        return "the Ghost acts" + (f" (scores on {move.track})" if move.track else "")
    if isinstance(move, M.GhostRestore):
        return "the Ghost's restore: its advanced tile leaves the display"
    return {"harvest": "harvests", "hunt": "hunts", "tan": "tans pelts", "fish": "fishes",
            "ritual": "performs a Ritual"}.get(move.type, move.type.replace("_", " "))
