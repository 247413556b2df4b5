"""The 11 tribe cards' front sides (W-TRB, W-SET-7 b): dealing them, their starting set-ups, and Ojibwa's check.

Where each ability acts:

* set-up here: Mohawk's black warrior (W-TRB-3), Oneida's free tile (W-TRB-5), Onondaga's 6/6/6 Home (W-TRB-6),
  Seneca's 2 swap tokens (W-TRB-8), Shawnee's 4 warriors (W-TRB-9), and every tribe's starting materials
  (``tribes.json``, W-NIT-7: unknown, marked so);
* in the move families: Cayuga's women and Tuscarora's hunters when attacked, the black Mohawk warrior in
  fights (``board.resolve_steps``), Fox's two purchases (``rules.trade``), Ottawa's Sacred Fire never flipping
  (``turns.start_restore``), Shawnee's lower turtle thresholds (``turtle_threshold``), Ojibwa's double placement
  (``EndTurn(again=True)``, checked here);
* Wendat (W-TRB-11): no ability is known.
"""

from __future__ import annotations

import random

from assistant.errors import UserError
from assistant.wendake.board import Violation

ABILITY_RULES = {"cayuga": "W-TRB-1", "fox": "W-TRB-2", "mohawk": "W-TRB-3", "ojibwa": "W-TRB-4",
                 "oneida": "W-TRB-5", "onondaga": "W-TRB-6", "ottawa": "W-TRB-7", "seneca": "W-TRB-8",
                 "shawnee": "W-TRB-9", "tuscarora": "W-TRB-10", "wendat": "W-TRB-11"}


def deal(ed, rng: random.Random, turn_order: list[int], reveal: int | None = None) -> dict[int, str]:
    """W-SET-7 b: reveal N + 1 cards; players pick one each in reverse turn order (here: at random)."""
    n = len(turn_order)
    cards = sorted(ed.tribes)
    rng.shuffle(cards)
    shown = cards[: (reveal if reveal is not None else n + 1)]
    picks = {}
    for p in reversed(turn_order):
        choice = rng.choice(shown)
        shown.remove(choice)
        picks[p] = choice
    return picks


def set_up(state, p: int, tribe: str, ed, oneida_tile: str | None = None) -> None:
    """Give player p the tribe's starting materials and pieces (called by ``setup.new_game``)."""
    if tribe not in ed.tribes:
        raise UserError(f"unknown tribe {tribe!r}; tribes are {', '.join(sorted(ed.tribes))}.")
    player = state.players[p]
    player.tribe = tribe
    mat = ed.tribes[tribe]["materials"]
    home = state.territories[player.home]
    crop = next(pa.crop for pa in home.pas if pa.kind == "harvest")
    player.resources = {"leather": mat.get("leather", 0), "fish": mat.get("fish", 0), "corn": 0, "beans": 0, "pumpkins": 0}
    for r in ("corn", "beans", "pumpkins"):
        player.resources[r] += mat.get(r, 0)
    player.resources[crop] += mat.get("home_vegetable", 0)
    player.beavers = mat.get("beavers", 0)
    extra_cards = mat.get("mask_cards", 0) - len(player.hand)
    for _ in range(max(0, extra_cards)):
        if state.mask_deck:
            player.hand.append(state.mask_deck.pop())
    if tribe == "mohawk":  # W-TRB-3: the black warrior is an extra guard at Home: 6 there
        home.guards[p] += 1
        player.mohawk = {"at": "guard", "territory": player.home, "pa": None}
    elif tribe == "onondaga":  # W-TRB-6: 6 of each type at Home; the 7th stays in the Long House
        _move_to_home(state, p, {"warrior": 1, "woman": 1, "hunter": 1})
    elif tribe == "shawnee":  # W-TRB-9: 4 warriors at Home; the 5th goes to the Long House (W-NIT-17)
        home.guards[p] -= 1
        player.long_house["warrior"] += 1
    elif tribe == "seneca":  # W-TRB-8
        player.swap_tokens = ed.swap_tokens(tribe)
    elif tribe == "oneida":  # W-TRB-5: one L1 or L2 tile from the box, owned from the start, no points
        pool = [t for level in (1, 2) for t in state.progress_box.get(level, [])]
        if oneida_tile is None:
            oneida_tile = pool[0] if pool else None
        if oneida_tile is not None:
            if oneida_tile not in pool:
                raise UserError(f"Oneida chooses from the L1/L2 progress tiles left in the box: {', '.join(pool)}; not {oneida_tile}.")
            state.progress_box[ed.progress[oneida_tile].level].remove(oneida_tile)
            player.progress.append(oneida_tile)


def _move_to_home(state, p: int, counts: dict) -> None:
    player = state.players[p]
    home = state.territories[player.home]
    for kind, k in counts.items():
        k = min(k, player.long_house[kind])
        player.long_house[kind] -= k
        if kind == "warrior":
            home.guards[p] += k
        else:
            for pa in home.pas:
                if pa.owner == p and pa.native == kind:
                    pa.count += k


def check_ojibwa(state, p: int, v: list) -> None:
    """W-TRB-4: once per year the black Ojibwa marker lets its owner place another marker at once."""
    player = state.players[p]
    if player.tribe != "ojibwa":
        v.append(Violation("W-TRB-4", "only Ojibwa places two markers in a row (its black marker)."))
    elif player.ojibwa_used:
        v.append(Violation("W-TRB-4", "the black Ojibwa marker was already placed this year."))
    elif state.turn.bonus:
        v.append(Violation("W-TRB-4", "this is already the second placement of the black Ojibwa marker."))
    elif player.sages < 1:
        v.append(Violation("W-TRB-4", "you have no marker left to place."))
    elif state.options.ojibwa_actions_only and state.turn.placed != "tile":
        v.append(Violation("W-TRB-4", "this game's option makes both Ojibwa placements activations; this turn reserved turn order."))
    elif state.options.ojibwa_actions_only and len(player.markers) >= 3:
        v.append(Violation("W-TRB-4", "this game's option makes both Ojibwa placements activations, and you have no activation left."))
