"""The 30 progress-tile abilities (W-PRG-L1..L3): when each may be used, and what the free-standing ones do.

A tile's ability is found through its rule ID (``edition.progress[tile].rule``), so an edition may rename or
renumber tiles. Abilities come in three timings (W-PRG-3):

* **any time on your turn** (``ANYTIME``): the ``UseProgress`` move, checked and applied here;
* **triggered inside an action** (``TRIGGERED``): named in the action move's ``use`` field (Military, Mask
  Ceremony, Ritual, Trade), or on a ``Purchase`` (discounts) or a ``Transfer`` (``as_guard``); the move
  families in ``rules`` apply their effect where the action is resolved and calls ``check_uses`` here for the common conditions;
* **on purchase**: the Alliance tiles' flag (``gain_flag``).

Every use turns the tile face down (``progress_used``) until restore step 2.D (W-RES-7): once per year.
"""

from __future__ import annotations

from collections import Counter

from assistant.wendake import board
from assistant.wendake.state import ANIMALS, NATIVES, RESOURCES, TRACKS, VEGETABLES, slot_index

# The "any time on your turn" abilities.
ANYTIME = {"W-PRG-L1-1", "W-PRG-L1-3", "W-PRG-L1-9", "W-PRG-L1-10", "W-PRG-L2-1", "W-PRG-L2-4", "W-PRG-L2-7",
           "W-PRG-L2-9", "W-PRG-L2-10", "W-PRG-L3-1", "W-PRG-L3-4", "W-PRG-L3-7", "W-PRG-L3-9", "W-PRG-L3-10"}
# Triggered abilities, by the action (or step) they are used in.
TRIGGERED = {
    "military": {"W-PRG-L1-2", "W-PRG-L3-2"},
    "ritual": {"W-PRG-L1-4", "W-PRG-L2-3", "W-PRG-L3-3"},
    "mask": {"W-PRG-L1-5", "W-PRG-L1-6", "W-PRG-L2-5", "W-PRG-L2-6", "W-PRG-L3-5", "W-PRG-L3-6"},
    "trade": {"W-PRG-L1-8"},
}
DISCOUNT = {"W-PRG-L1-7": 1, "W-PRG-L2-8": 2, "W-PRG-L3-8": 3}
ALLIANCE = {"W-PRG-L1-2", "W-PRG-L3-2"}
TRANSFER_AS_GUARD = "W-PRG-L2-2"
MOVE_STEPS = {"W-PRG-L1-1": 1, "W-PRG-L2-1": 2, "W-PRG-L3-1": 3}
FLAGS = ("english", "french")


def rule_of(ed, tile: str) -> str | None:
    t = ed.progress.get(tile)
    return t.rule if t else None


def available(player, tile: str) -> bool:
    """W-PRG-3: owned and still face up this year (copies counted separately)."""
    return player.progress.count(tile) > player.progress_used.count(tile)


def owned_rules(player, ed) -> set[str]:
    """Rule IDs of the player's face-up tiles: what they could use now."""
    return {ed.progress[t].rule for t in player.progress if available(player, t)}


def check_uses(player, tiles, action: str, ed, v: list) -> set[str]:
    """The common conditions for tiles flipped during ``action``; returns the rule IDs in use."""
    rules_used = set()
    for tile, k in Counter(tiles).items():
        rule = rule_of(ed, tile)
        if rule is None:
            v.append(board.Violation("W-PRG-3", f"{tile!r} is not a progress tile."))
            continue
        if rule not in TRIGGERED.get(action, ()):
            v.append(board.Violation(rule, f"{ed.progress[tile].name} ({tile}) is not used during {action}."))
            continue
        if player.progress.count(tile) - player.progress_used.count(tile) < k:
            v.append(board.Violation("W-PRG-3", f"{ed.progress[tile].name} ({tile}) is not yours, or is already face down this year; each tile is used once per year."))
            continue
        rules_used.add(rule)
    return rules_used


def flip(player, tiles) -> None:
    player.progress_used.extend(tiles)


# ---- alliances: flags and majorities -------------------------------------------------------------------------
def flag_choices(state, p: int) -> list[str]:
    """W-PRG-L1-2: the flags player p could take on buying an Alliance tile (none if p already holds one)."""
    if state.players[p].flag is not None:
        return []
    return [f for f in FLAGS if f in state.flag_supply]


def gain_flag(state, p: int, chosen: str | None) -> None:
    player = state.players[p]
    if player.flag is not None:
        other = [f for f in FLAGS if f != player.flag]
        if not state.options.alliance_flags_001:  # 000/002/003: the other flag goes back to the box
            state.flag_supply = [f for f in state.flag_supply if f not in other]
        return
    choices = flag_choices(state, p)
    if not choices:
        return
    flag = chosen if chosen in choices else choices[0]
    player.flag = flag
    state.flag_supply.remove(flag)


def ally_territories(state, ed, flag: str | None) -> set[str]:
    if flag is None:
        return set()
    terr = ed.map_for(state.n).territories
    return {tid for tid, d in terr.items() if d.get("flag") == flag}


def majorities(state, p: int, ed=None, uses: set[str] = frozenset()) -> int:
    """W-ACT-8 b with the alliances: +1 virtual guard per Alliance tile used in each ally territory
    (W-PRG-L1-2, L3-2), and L3-2 wins ties everywhere. A count of 0 never wins (W-ACT-8 engine note)."""
    virtual = sum(1 for r in uses if r in ALLIANCE)
    ties = "W-PRG-L3-2" in uses
    allies = ally_territories(state, ed, state.players[p].flag) if virtual else set()
    won = 0
    for tid, t in state.territories.items():
        mine = t.guards[p] + (virtual if tid in allies else 0)
        others = max((g for q, g in enumerate(t.guards) if q != p), default=0)
        if mine == 0 and not (ties and state.options.ties_win_empty and others == 0):
            continue
        if mine > others or (ties and mine == others):
            won += 1
    return won


# ---- UseProgress -----------------------------------------------------------------------------------------------
def check_use_progress(state, p: int, move, v: list, ed) -> None:
    player = state.players[p]
    rule = rule_of(ed, move.tile)
    if rule is None:
        v.append(board.Violation("W-PRG-3", f"{move.tile!r} is not a progress tile."))
        return
    name = f"{ed.progress[move.tile].name} ({move.tile})"
    if rule not in ANYTIME:
        v.append(board.Violation(rule, f"{name} is not an 'any time on your turn' ability; it is used inside its action."))
        return
    if not available(player, move.tile):
        v.append(board.Violation("W-PRG-3", f"{name} is not yours, or is already face down this year; each tile is used once per year."))
        return
    if rule in MOVE_STEPS:
        n = MOVE_STEPS[rule]
        if not move.steps:
            v.append(board.Violation(rule, f"{name} moves {'1 warrior 1 step' if n == 1 else f'up to {n} steps'}; give the steps."))
        elif rule == "W-PRG-L1-1" and len(move.steps) > 1:
            v.append(board.Violation(rule, f"{name} moves 1 warrior 1 step."))
        else:
            board.resolve_steps(board.MoveScope(state, scratch=True), p, move.steps, n, v, ed)
    elif rule == "W-PRG-L1-3":
        if state.turn.free_order:
            v.append(board.Violation(rule, "the actions of this turn's tile may already be done in any order."))
    elif rule == "W-PRG-L1-9":
        if len(move.resources) != 1 or move.resources[0] not in ANIMALS:
            v.append(board.Violation(rule, f"{name} gives 1 animal resource: leather or fish."))
    elif rule == "W-PRG-L2-9":
        kinds = sorted("animal" if r in ANIMALS else "vegetable" if r in VEGETABLES else "?" for r in move.resources)
        if kinds != ["animal", "vegetable"]:
            v.append(board.Violation(rule, f"{name} gives 1 animal resource (leather or fish) and 1 vegetable."))
    elif rule == "W-PRG-L3-9":
        if len(move.resources) != 2 or any(r not in RESOURCES for r in move.resources):
            v.append(board.Violation(rule, f"{name} gives 2 resources of your choice (and 1 beaver); beavers are not resources (W-TERM-5)."))
    elif rule in ("W-PRG-L1-10", "W-PRG-L2-10", "W-PRG-L3-10"):
        allowed, most = {"W-PRG-L1-10": (ANIMALS, 2), "W-PRG-L2-10": (VEGETABLES, 3), "W-PRG-L3-10": (RESOURCES, 5)}[rule]
        what = {"W-PRG-L1-10": "1 or 2 different animal resources", "W-PRG-L2-10": "up to 3 different vegetables",
                "W-PRG-L3-10": "up to 5 different resources"}[rule]
        res = move.resources
        if not res or len(res) > most or len(set(res)) != len(res) or any(r not in allowed for r in res):
            v.append(board.Violation(rule, f"{name} spends {what}."))
        elif any(player.resources[r] < 1 for r in res):
            v.append(board.Violation(rule, f"you do not have every resource you offered ({', '.join(res)})."))
        if move.track not in TRACKS:
            v.append(board.Violation(rule, f"name the one track for the points: {', '.join(TRACKS)}."))
    elif rule == "W-PRG-L2-4":
        if move.from_track not in TRACKS or move.track not in TRACKS or move.from_track == move.track:
            v.append(board.Violation(rule, f"{name} moves 1 point from one track (from_track) to another (track)."))
        elif player.tracks[move.from_track] < 1:
            v.append(board.Violation(rule, f"your {move.from_track} track has no point to give."))
    elif rule == "W-PRG-L2-7":
        res = dict(player.resources)
        if not move.exchanges or len(move.exchanges) > 3:
            v.append(board.Violation(rule, f"{name} exchanges up to 3 resources one for one."))
        for give, get in move.exchanges:
            if give not in RESOURCES or get not in RESOURCES or give == get:
                v.append(board.Violation(rule, f"exchange {give}->{get}: only different resources are exchanged; beavers never are (W-TERM-5)."))
                return
            if res[give] < 1:
                v.append(board.Violation(rule, f"exchange {give}->{get}: you have no {give} left to give."))
                return
            res[give] -= 1
            res[get] += 1
    elif rule == "W-PRG-L3-4":
        if len(move.natives) != 1 or move.natives[0] not in NATIVES:
            v.append(board.Violation(rule, f"{name} brings 1 native (warrior, woman or hunter) from your Long House to your Home."))
        elif player.long_house[move.natives[0]] < 1:
            v.append(board.Violation(rule, f"your Long House has no {move.natives[0]}."))
    elif rule == "W-PRG-L3-7":
        if not board.valid_slot(move.slot):
            v.append(board.Violation(rule, f"{name} turns over one tile of your grid; give its slot [row, col]."))
        elif player.grid[slot_index(move.slot)] is None:
            v.append(board.Violation(rule, "that grid slot is empty."))
        elif player.tribe == "ottawa" and player.grid[slot_index(move.slot)].tile == ed.fire_tile:
            v.append(board.Violation("W-TRB-7", "Ottawa's Sacred Fire tile never turns to its Ritual side (engine reading of W-PRG-L3-7)."))


def apply_use_progress(state, p: int, move, ed) -> None:
    player = state.players[p]
    rule = rule_of(ed, move.tile)
    player.progress_used.append(move.tile)
    res = player.resources
    if rule in MOVE_STEPS:
        board.resolve_steps(board.MoveScope(state, scratch=False), p, move.steps, MOVE_STEPS[rule], [], ed)
    elif rule == "W-PRG-L1-3":
        state.turn.free_order = True
    elif rule in ("W-PRG-L1-9", "W-PRG-L2-9"):
        for r in move.resources:
            res[r] += 1
    elif rule == "W-PRG-L3-9":
        for r in move.resources:
            res[r] += 1
        player.beavers += 1
    elif rule in ("W-PRG-L1-10", "W-PRG-L2-10", "W-PRG-L3-10"):
        for r in move.resources:
            res[r] -= 1
        board.add_points(state, p, move.track, len(move.resources), ed.cap)
    elif rule == "W-PRG-L2-4":
        player.tracks[move.from_track] -= 1
        board.add_points(state, p, move.track, 1, ed.cap)
    elif rule == "W-PRG-L2-7":
        for give, get in move.exchanges:
            res[give] -= 1
            res[get] += 1
    elif rule == "W-PRG-L3-4":
        board.return_home(state, p, move.natives[0])
    elif rule == "W-PRG-L3-7":
        g = player.grid[slot_index(move.slot)]
        g.side = "ritual" if g.side == "action" else "action"


# ---- purchases with discounts ---------------------------------------------------------------------------------
def payment_matches(level: int, pay, ed, discount: int = 0) -> bool:
    """W-ACT-10c with W-PRG-L1-7/L2-8/L3-8: ``pay`` is the tile's price less ``discount`` resources of the
    buyer's choice, i.e. a part of one valid full payment with exactly ``discount`` resources left out."""
    price = ed.prices[level]
    full = price["leather"] + price["fish"] + price["vegetables"]
    if len(pay) != max(0, full - discount):
        return False
    count = Counter(pay)
    if count["leather"] > price["leather"] or count["fish"] > price["fish"]:
        return False
    veg = [r for r in pay if r in VEGETABLES]
    if len(veg) > price["vegetables"] or count["leather"] + count["fish"] + len(veg) != len(pay):
        return False
    return not price["different_vegetables"] or len(set(veg)) == len(veg)


def discount_of(tiles, ed) -> int:
    return sum(DISCOUNT.get(rule_of(ed, t), 0) for t in tiles)
