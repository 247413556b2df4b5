"""The Trade action (W-ACT-10 a-d): exchanges, the smallpox check, purchases and Economic points; its apply."""

from __future__ import annotations

from collections import Counter

from assistant.wendake import progress
from assistant.wendake.board import (
    MoveScope,
    Violation,
    add_points,
    draw,
    has_native_on_map,
    refill_deck_if_empty,
    remove_native,
)
from assistant.wendake.state import RESOURCES, TRACKS, State


def _row_of(state: State, tile: str) -> int | None:
    for level, row in state.progress_rows.items():
        if tile in row:
            return level
    return None


def purchase_track_options(tracks: dict, category: str, economic_gain: int, cap: int) -> list[str]:
    """W-PRG-2 step 2: which tracks may receive K, after E has gone on Economic."""
    if category in ("military", "ritual", "mask"):
        return [category]
    after = dict(tracks)
    after["economic"] = min(cap, after["economic"] + economic_gain)
    target = min(after.values()) if category == "lowest" else max(after.values())
    return [t for t in TRACKS if after[t] == target]


def score_purchase(tracks: dict, tile, track: str | None, cap: int, options: list[str] | None = None) -> str:
    """W-PRG-2 on a tracks dict: the tile's Economic points, then its points on ``track`` (or the first track its
    category allows); returns the track that got them. ``options``: ``purchase_track_options`` when known."""
    options = options or purchase_track_options(tracks, tile.category, tile.economic, cap)
    tracks["economic"] = min(cap, tracks["economic"] + tile.economic)
    chosen = track or options[0]
    tracks[chosen] = min(cap, tracks[chosen] + tile.points)
    return chosen


def smallpox_draws(state, p, move, ed) -> bool:
    """W-ACT-10b: whether this Trade reveals a smallpox card (any exchange, unless Extra exchange waives it)."""
    if not move.exchanges:
        return False
    if move.use and any(progress.rule_of(ed, t) == "W-PRG-L1-8" for t in move.use):
        return not (state.options.extra_exchange_no_draw or move.skip_smallpox)
    return True


def check_trade(state, p, move, pending, v, ed):
    player = state.players[p]
    uses = progress.check_uses(player, move.use, "trade", ed, v) if move.use else set()
    extra = "W-PRG-L1-8" in uses
    res = dict(player.resources)
    limit = state.canoes_in_play(p) + (2 if extra else 0)
    if len(move.exchanges) > limit:
        v.append(Violation("W-ACT-10a", f"you made {len(move.exchanges)} exchanges but have {limit} allowed ({state.canoes_in_play(p)} canoe(s) in play"
                           + (", +2 Extra exchange" if extra else "") + "); each canoe allows one.",
                           "Place canoes first, or exchange less."))
    if move.skip_smallpox and not extra:
        v.append(Violation("W-PRG-L1-8", "only the Extra-exchange tile (L1 Lowest) waives the smallpox check."))
    for give, get in move.exchanges:
        if give not in RESOURCES or get not in RESOURCES:
            v.append(Violation("W-TERM-5", f"exchange {give}->{get}: only leather, fish, corn, beans and pumpkins are exchanged; beavers never are."))
            return
        if give == get:
            v.append(Violation("W-ACT-10a", f"exchange {give}->{get} swaps a resource for itself."))
            return
        if res[give] < 1:
            v.append(Violation("W-ACT-10a", f"exchange {give}->{get}: you have no {give} left to give."))
            return
        res[give] -= 1
        res[get] += 1
    view = MoveScope(state, scratch=True)
    if smallpox_draws(state, p, move, ed):
        if not state.mask_deck and not state.mask_discard:
            v.append(Violation("W-ACT-10b", "there is no mask card left to reveal for the smallpox check."))
        elif state.mask_deck and state.mask_deck[-1] is not None and move.smallpox_card not in (None, state.mask_deck[-1]):
            v.append(Violation("W-ACT-10b", f"the top card of the deck is {state.mask_deck[-1]}, not {move.smallpox_card}."))
        card = move.smallpox_card if move.smallpox_card is not None else (state.mask_deck[-1] if state.mask_deck else None)
        if card is not None and card not in ed.mask_cards:
            v.append(Violation("W-ACT-10b", f"{card!r} is not a mask card."))
        elif card is None:
            v.append(Violation("W-ACT-10b", "name the mask card revealed for the smallpox check (smallpox_card)."))
        elif ed.mask_cards[card].infected:
            if move.victim is None:
                if has_native_on_map(state, p):
                    v.append(Violation("W-ACT-10b", f"the blanket on {card} is infected: one of your natives on the map must go to your Long House.",
                                       "Name it as victim (territory, and pa for a productive area)."))
            else:
                remove_native(view, state, p, move.victim, v)
        elif move.victim is not None:
            v.append(Violation("W-ACT-10b", f"the blanket on {card} is clean; nobody is removed."))
    elif move.smallpox_card is not None or move.victim is not None:
        v.append(Violation("W-ACT-10b", "no smallpox card is revealed: that happens only after at least one exchange"
                           + (" and not when Extra exchange waives it." if extra else ".")))
    most = 2 if player.tribe == "fox" else 1
    if len(move.purchases) > most:
        v.append(Violation("W-TRB-2" if most == 2 else "W-ACT-10c", f"a Trade buys at most {most} progress tile(s)"
                           + (" (Fox)." if most == 2 else "; only Fox buys 2 (W-TRB-2).")))
    tracks = dict(player.tracks)
    spent_discounts = Counter()
    for buy in move.purchases:
        level = _row_of(state, buy.tile)
        if level is None:
            v.append(Violation("W-ACT-10c", f"{buy.tile} is not face up in a progress row."))
            continue
        if len([b for b in move.purchases if b.tile == buy.tile]) > sum(row.count(buy.tile) for row in state.progress_rows.values()):
            v.append(Violation("W-ACT-10c", f"{buy.tile} can be bought only once."))
            continue
        discount = 0
        for t in buy.discounts:
            rule = progress.rule_of(ed, t)
            spent_discounts[t] += 1
            if rule not in progress.DISCOUNT:
                v.append(Violation("W-PRG-L1-7", f"{t!r} is not a discount tile (L1/L2/L3 Lowest 'costs less')."))
            elif player.progress.count(t) - player.progress_used.count(t) < spent_discounts[t]:
                v.append(Violation("W-PRG-3", f"discount tile {t} is not yours, or is already face down this year."))
            else:
                discount += progress.DISCOUNT[rule]
        if len(buy.discounts) > 1 and not state.options.discounts_combine:
            v.append(Violation("W-PRG-4", "this game's option allows one discount tile per purchase."))
        if not progress.payment_matches(level, buy.pay, ed, discount):
            price = ed.prices[level]
            veg = f"{price['vegetables']} {'different ' if price['different_vegetables'] else ''}vegetable(s)"
            v.append(Violation("W-ACT-10c", f"a level {level} tile costs {price['leather']} leather + {price['fish']} fish + {veg}"
                               + (f", less {discount} resource(s) of your choice" if discount else "") + f"; you offered {', '.join(buy.pay) or 'nothing'}."))
            continue
        need = Counter(buy.pay)
        short = [r for r, k in need.items() if res.get(r, 0) < k]
        if short:
            v.append(Violation("W-ACT-10c", f"you lack {', '.join(short)} to pay for {buy.tile}."))
            continue
        for r, k in need.items():
            res[r] -= k
        tile = ed.progress[buy.tile]
        if buy.flag is not None and (tile.rule not in progress.ALLIANCE or buy.flag not in progress.flag_choices(state, p)):
            v.append(Violation("W-PRG-L1-2", f"no {buy.flag!r} flag can be taken with this purchase; choices: {', '.join(progress.flag_choices(state, p)) if tile.rule in progress.ALLIANCE else 'none (not an Alliance tile)'}."))
        options = purchase_track_options(tracks, tile.category, tile.economic, ed.cap)
        if buy.track is not None and buy.track not in options:
            v.append(Violation("W-PRG-2", f"{tile.name}'s {tile.points} point(s) go on {' or '.join(options)}, not {buy.track}."))
            continue
        if buy.track is None and len(options) > 1:
            v.append(Violation("W-PRG-2", f"your {tile.category} tracks are tied ({', '.join(options)}); choose one with track=."))
        score_purchase(tracks, tile, buy.track, ed.cap, options)
    if move.points:
        if len(set(move.points)) != len(move.points) or any(r not in RESOURCES for r in move.points):
            v.append(Violation("W-ACT-10d", "Economic points are bought with resources all of different types (at most 5); beavers never count."))
        elif any(res[r] < 1 for r in move.points):
            v.append(Violation("W-ACT-10d", "you do not have every resource you offered for Economic points (after the exchange and purchase)."))


def apply_trade(state, p, move, ed):
    player = state.players[p]
    res = player.resources
    progress.flip(player, move.use)
    for give, get in move.exchanges:
        res[give] -= 1
        res[get] += 1
    if smallpox_draws(state, p, move, ed):
        refill_deck_if_empty(state)
        card = draw(state.mask_deck, move.smallpox_card)
        refill_deck_if_empty(state)  # the revealed card then starts the new discard pile
        if card is not None and ed.mask_cards[card].infected and move.victim is not None:
            remove_native(MoveScope(state, scratch=False), state, p, move.victim, [])
        state.mask_discard.append(card)
    for buy in move.purchases:
        level = _row_of(state, buy.tile)
        state.progress_rows[level].remove(buy.tile)
        progress.flip(player, buy.discounts)
        for r in buy.pay:
            res[r] -= 1
        player.progress.append(buy.tile)
        tile = ed.progress[buy.tile]
        options = purchase_track_options(player.tracks, tile.category, tile.economic, ed.cap)
        add_points(state, p, "economic", tile.economic, ed.cap)
        add_points(state, p, buy.track or options[0], tile.points, ed.cap)
        if tile.rule in progress.ALLIANCE:
            progress.gain_flag(state, p, buy.flag)
    for r in move.points:
        res[r] -= 1
    add_points(state, p, "economic", len(move.points), ed.cap)
