"""Wendake's hidden information at a real table: ``conceal`` (what a tracker knows of a state: no hidden card or
turtle value) and ``apply_edit`` (name a hidden thing, an edit stored with the moves it explains). Pure Python."""

from __future__ import annotations

from assistant.wendake.edition import load_edition
from assistant.wendake.progress import ALLIANCE
from assistant.wendake.progress import available as progress_available
from assistant.wendake.state import State


def conceal(state: State) -> State:
    """A copy of ``state`` as a real table's tracker knows it: the mask deck, the discard pile and every hand
    are face-down unknown cards (None) and the turtle tiles' values are secret (W-TUR-6). The tracker names a
    card only when a move needs it (a smallpox check, a play), from the cards whose place is unknown."""
    st = state.copy()
    st.mask_deck = [None] * len(st.mask_deck)
    st.mask_discard = [None] * len(st.mask_discard)
    for pl in st.players:
        pl.hand = [None] * len(pl.hand)
        pl.turtles = [{**t, "hidden": None} for t in pl.turtles]
    st.turtle_stacks = {k: [None] * len(v) for k, v in st.turtle_stacks.items()}
    return st


def apply_edit(state: State, edit: dict, ed=None) -> None:
    """Apply one hidden-information edit in place (ValueError when it does not fit the state). Edits change
    only what the camera cannot see, and are stored with the moves they explain so a game replays exactly:

    * ``{"op": "hands", "hands": [[card or None, ...] per player]}``: every hand relabelled (same sizes): the
      cards a Mask Ceremony plays are named, the rest become unknown again;
    * ``{"op": "swap_progress", "player": p, "give": Y, "take": X, "holder": "row" | q, "flag": f | None}``: p
      owned X, not its twin Y (same level and category: the purchase looked the same), X was in the progress
      row or q's; an Alliance tile comes with its flag ``f`` (q's goes back to the supply);
    * ``{"op": "flag", "player": p, "flag": f}``: p's Alliance flag was ``f``, not the one assumed;
    * ``{"op": "swap_tiles", "player": p, "a": i, "b": j}``: the tiles in p's grid slots i and j (row 0, both
      without this year's marker) are the other way round: a Restore's new row whose faces were not read was
      laid out in a guessed order (W-RES-4), and the actions of a tile activated there name it;
    * ``{"op": "several", "edits": [edit, ...]}``: these edits in turn (a twin's tile named and the hands of its
      Mask Ceremony's play).
    """
    ed = ed or load_edition()
    op = edit.get("op")
    if op == "hands":
        hands = edit["hands"]
        if len(hands) != state.n or any(len(h) != len(pl.hand) for h, pl in zip(hands, state.players)):
            raise ValueError("a hands edit must keep every hand's size")
        for pl, h in zip(state.players, hands):
            pl.hand = list(h)
    elif op == "several":
        for e in edit["edits"]:
            apply_edit(state, e, ed)
    elif op == "swap_progress":
        p = state.players[edit["player"]]
        give, take, holder = edit["give"], edit["take"], edit["holder"]
        if not progress_available(p, give):
            raise ValueError(f"{give} is not an unused tile of that player")
        if holder == "row":
            row = state.progress_rows.get(ed.progress[take].level, [])
            if take not in row:
                raise ValueError(f"{take} is not in its progress row")
            row[row.index(take)] = give
        else:
            q = state.players[int(holder)]
            if not progress_available(q, take):
                raise ValueError(f"{take} is not an unused tile of player {holder}")
            q.progress[q.progress.index(take)] = give
            if q.flag is not None and not any(ed.progress[t].rule in ALLIANCE for t in q.progress):
                state.flag_supply.append(q.flag)  # q's flag came with the Alliance tile q did not own
                q.flag = None
        p.progress[p.progress.index(give)] = take
        if edit.get("flag") is not None:
            _take_flag(state, p, edit["flag"])
    elif op == "flag":  # the Alliance tile's flag (not read by the camera) was the other one
        p = state.players[edit["player"]]
        if p.flag is not None:
            state.flag_supply.append(p.flag)
            p.flag = None
        _take_flag(state, p, edit["flag"])
    elif op == "swap_tiles":
        p = state.players[edit["player"]]
        a, b = int(edit["a"]), int(edit["b"])
        if not (0 <= a < 3 and 0 <= b < 3) or a == b or p.grid[a] is None or p.grid[b] is None \
                or a in p.markers or b in p.markers:
            raise ValueError("a tile swap takes two tiles of row 0 that hold no marker this year")
        p.grid[a], p.grid[b] = p.grid[b], p.grid[a]
    else:
        raise ValueError(f"unknown edit {op!r}")


def _take_flag(state: State, player, flag: str) -> None:
    if flag not in state.flag_supply:
        raise ValueError(f"the {flag} flag is not in the supply")
    state.flag_supply.remove(flag)
    player.flag = flag


# ---- search nodes ---------------------------------------------------------------------------------------------
