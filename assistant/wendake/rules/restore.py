"""The restore phase's tile choice (W-RES-4): the Restore move's check beside its apply."""

from __future__ import annotations

from assistant.wendake import moves as M
from assistant.wendake.board import Violation, draw
from assistant.wendake.edition import Edition
from assistant.wendake.state import GridTile, State
from assistant.wendake.turns import restore_step_done


def check_restore(state, p, move, v, ed):
    player = state.players[p]
    new = list(player.below)
    if move.set_aside is None:
        if move.take is not None:
            v.append(Violation("W-RES-4", "a new tile is taken only in place of one set aside; name the tile you set aside."))
            return
    else:
        if move.set_aside not in player.below:
            v.append(Violation("W-RES-4", f"{move.set_aside} is not one of the 3 tiles below your grid ({', '.join(player.below)})."))
            return
        if move.take is None:
            v.append(Violation("W-RES-4", "a set-aside tile must be replaced by a display tile or one of your own set-aside tiles."))
            return
        if move.take not in state.display and move.take not in player.set_aside:
            v.append(Violation("W-RES-4", f"{move.take} is neither on the advanced display nor in your set-aside pile.",
                               "Display: " + ", ".join(str(t) for t in state.display) + "."))
            return
        if (move.take not in state.display and state.options.take_back_basic_only
                and ed.tiles[move.take].level != 0):
            v.append(Violation("W-RES-4", f"this game's option (002) takes back only basic tiles; {move.take} is advanced."))
            return
        new.remove(move.set_aside)
        new.append(move.take)
        if move.take in state.display and state.advanced_pile and state.advanced_pile[-1] is not None \
                and move.refill not in (None, state.advanced_pile[-1]):
            v.append(Violation("W-RES-4", f"the display is refilled from the top of the pile, which is {state.advanced_pile[-1]}."))
    if move.order and sorted(move.order) != sorted(new):
        v.append(Violation("W-RES-4", "row 0 must hold exactly the 3 tiles below your grid after the replacement, in shuffled order: " + ", ".join(new) + "."))


def apply_restore(state: State, move: M.Restore, ed: Edition) -> None:
    p = state.current
    player = state.players[p]
    tiles = list(player.below)
    if move.set_aside is not None:
        tiles.remove(move.set_aside)
        tiles.append(move.take)
        if move.take in state.display:
            state.display.remove(move.take)
            if state.advanced_pile:
                state.display.append(draw(state.advanced_pile, move.refill))
        else:
            player.set_aside.remove(move.take)
        player.set_aside.append(move.set_aside)
    order = list(move.order) if move.order else tiles
    player.grid[0:3] = [GridTile(t, "action") for t in order]
    player.below = []
    restore_step_done(state, ed)
