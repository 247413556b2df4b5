"""Wendake's turn, restore and year sequencing (W-RND-2, W-RES-1..8, the solo game's W-SOLO-11).

Contracts: ``next_turn`` hands the turn to the next player in turn order with a marker left, or starts the
restore phase; ``start_restore`` flips and slides the grids and queues the players' tile choices, or ends the
game after the last year; ``restore_step_done`` closes one player's choice and, after the last one, runs the
end of the year and starts the next. Each mutates the state in place and is deterministic. The rules' apply
and the Ghost's moves both call them; this module imports only the state and the edition.
"""

from __future__ import annotations

from assistant.wendake.edition import Edition
from assistant.wendake.state import State, Turn


def next_turn(state: State, ed: Edition) -> None:
    """W-RND-2: the next player in turn order with a marker left; when none has, the restore phase."""
    order = state.turn_order
    i = order.index(state.current)
    for k in range(1, state.n + 1):
        q = order[(i + k) % state.n]
        if state.players[q].sages > 0:
            state.current = q
            state.turn = Turn(q)
            return
    start_restore(state, ed)


def start_restore(state: State, ed: Edition) -> None:
    state.turn = None
    solo = state.solo
    if solo is None:  # W-RES-1 (2.A): the reservations give the new order at once.
        state.turn_order = state.turn_order_track[:]
        state.turn_order_track = []
    # solo 2.A: the order does not change (W-SOLO-11)
    for q in state.humans():
        player = state.players[q]
        # W-RES-2: flip every tile that held an action marker; the Fire-marked tile is not flipped,
        # and Ottawa's Sacred Fire tile never turns to its Ritual side (W-TRB-7).
        for i in player.markers:
            g = player.grid[i]
            if player.tribe == "ottawa" and g.tile == ed.fire_tile:
                continue
            g.side = "ritual" if g.side == "action" else "action"
        player.markers = []
        player.fire = None
        player.sages = 4 if solo is None else 3  # solo: the 4th marker stays on the turn-order track (W-SOLO-6)
        player.reserved = solo is not None
        player.ojibwa_used = False
    if state.year >= ed.years:  # W-RES-8, and the note on year 7: only 2.A can still change the result
        state.phase = "over"
        state.current = None
        return
    for q in state.humans():
        player = state.players[q]
        # W-RES-3: slide down one row; the bottom row leaves the grid, Action side up.
        player.below = [g.tile for g in player.grid[6:9]]
        player.grid[3:9] = player.grid[0:6]
        player.grid[0:3] = [None, None, None]
    state.phase = "restore"
    state.restore_queue = state.turn_order[:]  # solo: the Ghost's turn here is its W-SOLO-11 2.B removal
    state.current = state.restore_queue[0]


def restore_step_done(state: State, ed: Edition) -> None:
    """One player's 2.B is done: the next one's, or steps 2.B part 4 to 2.E and the next year."""
    state.restore_queue.pop(0)
    if state.restore_queue:
        state.current = state.restore_queue[0]
        return
    if state.year == 3:  # W-RES-5: the Level 2 tiles replace the Level 1 display
        state.display = [state.advanced_pile_l2.pop() for _ in range(min(ed.display_size, len(state.advanced_pile_l2)))]
        state.advanced_pile = state.advanced_pile_l2
        state.advanced_pile_l2 = []
        state.advanced_level = 2
    for q in state.humans():
        player = state.players[q]
        player.mask_space = None  # W-RES-6 (2.C)
        player.hand.extend(player.played)
        player.played = []
        player.progress_used = []  # W-RES-7 (2.D)
    if state.solo is not None:
        solo_end_of_year(state, ed)  # W-SOLO-11 2.C (Ghost mask disk) and 2.E
    state.year += 1  # W-RES-8 (2.E)
    state.phase = "actions"
    state.current = state.turn_order[0]
    state.turn = Turn(state.current)


def solo_end_of_year(state: State, ed: Edition) -> None:
    """W-SOLO-11 2.C (the Ghost's mask disk moves on) and 2.E (markers back, the year's mask card turned face
    down, or in years 3 and 6 all of them to the bottom of the discard pile; the turn-order markers swap)."""
    solo = state.solo
    gp = state.players[solo.ghost]
    spaces = list(ed.mask_spaces)
    solo.mask_index += 1
    gp.mask_space = spaces[solo.mask_index] if solo.mask_index < len(spaces) else None
    gp.sages = 3
    if state.year in (3, 6):
        cards = [c for u in solo.under for c in u]
        state.mask_discard[0:0] = cards
        solo.under = [[], [], []]
    solo.year_card = None
    solo.awaiting_card = True
    solo.actions_done = 0
    state.turn_order = state.turn_order[::-1]
    state.turn_order_track = state.turn_order[:]
