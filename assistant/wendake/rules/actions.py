"""The turn's own moves: Activate, ReserveTurnOrder and EndTurn (W-RND, W-LINE, W-TO, W-TRB-4) and the free
moves Transfer and Swap (W-XFER, W-SWAP); each check beside its apply."""

from __future__ import annotations

from assistant.wendake import progress, tribes
from assistant.wendake.board import Violation, legal_activation_slots, line_possible, slot_name, valid_slot
from assistant.wendake.state import PA_NATIVE, PendingAction, Turn, slot_index
from assistant.wendake.turns import next_turn


def _activation_hint(player) -> str | None:
    slots = legal_activation_slots(player)
    return ("Legal tiles now: " + ", ".join(slot_name(i) for i in slots) + ".") if slots else None


def _placement_hint(player) -> str:
    parts = []
    slots = legal_activation_slots(player)
    if slots:
        parts.append("activate one of " + ", ".join(slot_name(i) for i in slots))
    if not player.reserved:
        parts.append("reserve turn order")
    return "You can " + " or ".join(parts) + "." if parts else "You have no marker left."


# ---- Activate ---------------------------------------------------------------------------------------------------
def check_activate(state, p, move, v, ed):
    player, turn = state.players[p], state.turn
    if turn.placed is not None:
        v.append(Violation("W-RND-3", "you already placed a marker this turn; each turn places exactly one."))
        return
    if not valid_slot(move.slot):
        v.append(Violation("W-LINE-1", f"slot {move.slot} is not on the 3x3 grid; use [row, col] with 0..2."))
        return
    i = slot_index(move.slot)
    if len(player.markers) >= 3:
        v.append(Violation("W-RND-3", "you have already activated 3 tiles this year; your last marker must reserve turn order."))
        return
    if i in player.markers:
        v.append(Violation("W-TURN-1", f"tile {slot_name(i)} already holds an action marker this year.", _activation_hint(player)))
        return
    if i == player.fire:
        v.append(Violation("W-ACT-11", f"tile {slot_name(i)} carries the Sacred Fire marker and cannot be picked again this year.", _activation_hint(player)))
        return
    if not line_possible(player.markers + [i], player.fire):
        marked = ", ".join(slot_name(m) for m in player.markers)
        v.append(Violation("W-LINE-2", f"tile {slot_name(i)} is not in a line (row, column or diagonal) with this year's tiles {marked}"
                           + (" that avoids the Sacred Fire tile" if player.fire is not None else "") + ".",
                           _activation_hint(player)))


def apply_activate(state, p, move, ed):
    player, turn = state.players[p], state.turn
    i = slot_index(move.slot)
    player.markers.append(i)
    player.sages -= 1
    turn.placed, turn.slot = "tile", i
    g = player.grid[i]
    turn.pending = [PendingAction(a.kind, a.n, "tile") for a in ed.tiles[g.tile].face(g.side)]
    turn.cursor = 0


# ---- ReserveTurnOrder -------------------------------------------------------------------------------------------
def check_reserve(state, p, move, v, ed):
    player, turn = state.players[p], state.turn
    if turn.placed is not None:
        v.append(Violation("W-RND-3", "you already placed a marker this turn; each turn places exactly one."))
    elif state.solo is not None:
        v.append(Violation("W-SOLO-7", "in the solo game you cannot reserve turn order; your 4th marker is on the turn-order track from the start."))
    elif turn.bonus and state.options.ojibwa_actions_only:
        v.append(Violation("W-TRB-4", "this game's option makes both Ojibwa placements activations; activate a tile."))
    elif player.reserved:
        v.append(Violation("W-TO-2", "you already reserved a turn-order space this year; it is done exactly once per year.",
                           _activation_hint(player)))


def apply_reserve(state, p, move, ed):
    player, turn = state.players[p], state.turn
    player.reserved = True
    player.sages -= 1
    turn.placed = "reserve"
    state.turn_order_track.append(p)


# ---- EndTurn ----------------------------------------------------------------------------------------------------
def check_end_turn(state, p, move, v, ed):
    player, turn = state.players[p], state.turn
    if turn.placed is None:
        v.append(Violation("W-RND-3", "a turn must place one marker: activate a tile or reserve turn order before ending it.",
                           _placement_hint(player)))
    elif move.again:
        tribes.check_ojibwa(state, p, v)


def apply_end_turn(state, p, move, ed):
    player = state.players[p]
    if move.again:  # W-TRB-4: Ojibwa's black marker: the same player places again at once
        player.ojibwa_used = True
        state.turn = Turn(p, bonus=True)
    else:
        next_turn(state, ed)


# ---- Transfer --------------------------------------------------------------------------------------------------
def check_transfer(state, p, move, v, ed):
    turn = state.turn
    if (not state.options.transfer_between_actions and turn is not None and turn.placed == "tile"
            and 0 < turn.cursor < len(turn.pending)):
        v.append(Violation("W-XFER-1", "this game's option allows transfers only before or after the tile's actions, not between two of them."))
        return
    if move.as_guard:
        tiles = [t for t in state.players[p].progress if progress.rule_of(ed, t) == progress.TRANSFER_AS_GUARD
                 and progress.available(state.players[p], t)]
        if not tiles:
            v.append(Violation("W-PRG-L2-2", "standing an outpost up as a guard in its own territory needs your face-up Transfer-as-guard tile (L2 Military)."))
            return
    t = state.territories.get(move.territory)
    if t is None or not isinstance(move.pa, int) or not 0 <= move.pa < len(t.pas):
        v.append(Violation("W-XFER-2", f"there is no productive area {move.pa} in {move.territory!r}."))
        return
    pa = t.pas[move.pa]
    if pa.owner != p or pa.native != "warrior":
        v.append(Violation("W-XFER-2", f"productive area {move.pa} of {move.territory} holds none of your outposts; only outposts are transferred, and women or hunters never leave voluntarily (W-XFER-3)."))
        return
    if move.replace:
        need = PA_NATIVE[pa.kind]
        if state.home_counts(p)[need] < 1 or state.is_ghost(p):
            v.append(Violation("W-XFER-2", f"your Home has no {need} left to put in the productive area.", "Transfer with replace=false to leave it empty."))


def apply_transfer(state, p, move, ed):
    player, turn = state.players[p], state.turn
    if turn is not None:
        turn.done.append("transfer")  # W-XFER-4
    t = state.territories[move.territory]
    pa = t.pas[move.pa]
    home = state.territories[player.home]
    stand = move.territory if move.as_guard else player.home
    state.territories[stand].guards[p] += 1
    if move.as_guard:  # W-PRG-L2-2: flip the Transfer-as-guard tile
        player.progress_used.append(next(t for t in player.progress if progress.rule_of(ed, t) == progress.TRANSFER_AS_GUARD
                                         and progress.available(player, t)))
    m = player.mohawk
    if m is not None and m["at"] == "outpost" and m["territory"] == move.territory and m["pa"] == move.pa:
        player.mohawk = {"at": "guard", "territory": stand, "pa": None}
    pa.owner = pa.native = None
    pa.count = 0
    if move.replace:
        native = PA_NATIVE[pa.kind]
        for hpa in home.pas:
            if hpa.owner == p and hpa.native == native and hpa.count > 0:
                hpa.count -= 1
                break
        pa.owner, pa.native, pa.count = p, native, 1


# ---- Swap -----------------------------------------------------------------------------------------------------
def check_swap(state, p, move, v, ed):
    player = state.players[p]
    if player.swap_tokens < 1:
        v.append(Violation("W-SWAP-1", "you have no swap token left; each is used once per game."))
        return
    if not (valid_slot(move.a) and valid_slot(move.b)) or move.a == move.b:
        v.append(Violation("W-SWAP-1", "a swap exchanges two different grid slots given as [row, col]."))
        return
    a, b = slot_index(move.a), slot_index(move.b)
    if a in player.markers or b in player.markers:
        v.append(Violation("W-SWAP-1", "tiles with an action marker on them cannot be swapped."))
        return
    fire = b if player.fire == a else a if player.fire == b else player.fire
    if not line_possible(player.markers, fire):
        v.append(Violation("W-LINE-4", "this swap would leave no legal line for this year's markers (the Sacred Fire tile would sit in the line you must complete)."))


def apply_swap(state, p, move, ed):
    player = state.players[p]
    a, b = slot_index(move.a), slot_index(move.b)
    player.grid[a], player.grid[b] = player.grid[b], player.grid[a]
    if player.fire == a:
        player.fire = b
    elif player.fire == b:
        player.fire = a
    player.swap_tokens -= 1
