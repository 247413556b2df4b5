"""Legal-move generation and the seeded random player.

``legal_moves(state)`` lists the legal moves at the current decision. It enumerates every move whose choices
are few (placements, simple actions, turtles, Ritual, the mask draw and each space it could fill, Sacred Fire
targets, transfers, swaps, restore choices) and *samples* Move and Trade, whose step and exchange
combinations are too many to list. ``random_move`` plays like a casual human: it usually performs each
printed action, claims the turtles it can, and trades towards a progress tile. ``play_random_game`` plays
whole games from a seed; later stages use these positions to render training scenes.

Every move produced here is legal by construction; the tests check each one with ``rules.check``.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations_with_replacement, permutations

from assistant.wendake import board, ghost, progress, rules
from assistant.wendake import moves as M
from assistant.wendake.board import unaccounted_cards
from assistant.wendake.edition import Edition, load_edition
from assistant.wendake.setup import new_game
from assistant.wendake.state import ANIMALS, NATIVES, PA_NATIVE, RESOURCES, TRACKS, VEGETABLES, State, slot_of


def legal_moves(state: State, rng: random.Random | None = None, samples: int = 6, edition: Edition | None = None,
                triggered: bool | None = None) -> list:
    """The legal moves now. ``triggered`` adds the variants that use progress tiles' triggered abilities
    (alliances, Ritual and Mask tiles, Transfer as guard; W-PRG-3); by default they come with sampling
    (``samples > 0``). The tracker asks with ``samples=0`` and builds those variants from what the camera sees."""
    ed = edition or load_edition()
    rng = rng or random.Random(0)
    if triggered is None:
        triggered = samples > 0
    if state.phase == "over":
        return []
    if state.solo is not None:
        forced = ghost.forced_move(state, ed)
        if forced is not None:
            return [forced]
    if state.phase == "restore":
        return _restore_moves(state)
    p = state.current
    player = state.players[p]
    turn = state.turn
    out = _free_moves(state, p)
    if triggered:
        out += _transfers_as_guard(state, p, ed)
    for _ in range(samples):
        use = random_use_progress(state, p, rng, ed)
        if use is not None and use not in out:
            out.append(use)
    if turn.placed is None:
        out += [M.Activate(slot_of(i)) for i in rules.legal_activation_slots(player)]
        if not player.reserved and state.solo is None and not (turn.bonus and state.options.ojibwa_actions_only):
            out.append(M.ReserveTurnOrder())
        return out
    out.append(M.EndTurn())
    if player.tribe == "ojibwa" and not rules.check(state, M.EndTurn(again=True), ed):
        out.append(M.EndTurn(again=True))
    if turn.placed != "tile":
        return out
    seen = set()
    for a in turn.pending[turn.cursor:]:
        if a.kind in seen:
            continue
        seen.add(a.kind)
        out += _action_moves(state, p, a, rng, samples, ed)
        if triggered:
            out += _triggered_variants(state, p, a, rng, samples, ed)
    return out


def _face_up(state: State, p: int, rule_ids, ed: Edition) -> dict[str, str]:
    """p's face-up tiles (W-PRG-3) whose ability is one of ``rule_ids``: rule ID -> tile (the first copy)."""
    player = state.players[p]
    out = {}
    for t in dict.fromkeys(player.progress):
        rule = progress.rule_of(ed, t)
        if rule in rule_ids and rule not in out and progress.available(player, t):
            out[rule] = t
    return out


def _use_sets(tiles: list[str]) -> list[tuple]:
    """Each tile alone, then all of them together (the subsets worth listing)."""
    sets = [(t,) for t in tiles]
    if len(tiles) > 1:
        sets.append(tuple(tiles))
    return sets


def _transfers_as_guard(state: State, p: int, ed: Edition) -> list:
    """W-PRG-L2-2 / W-XFER-5: each outpost stood up as a guard in its own territory."""
    if progress.TRANSFER_AS_GUARD not in _face_up(state, p, {progress.TRANSFER_AS_GUARD}, ed):
        return []
    return [M.Transfer(tid, i, replace=r, as_guard=True) for tid, t in state.territories.items()
            for i, pa in enumerate(t.pas) if pa.owner == p and pa.native == "warrior"
            for r in ((False, True) if state.home_counts(p)[PA_NATIVE[pa.kind]] > 0 else (False,))]


def _triggered_variants(state: State, p: int, action, rng, samples: int, ed: Edition) -> list:
    """The action's moves that flip the player's triggered-ability tiles (W-PRG-3, spec W-PRG-L1..L3)."""
    kind = action.kind
    if kind == "military":
        tiles = list(_face_up(state, p, progress.TRIGGERED["military"], ed).values())
        if not tiles:
            return []
        options = [[None] + _eligible_turtles(state, p, cat, ed) for cat in ("women", "hunters", "canoes")]
        return [M.Military(tuple(t for t in combo if t), use) for combo in _product(options) for use in _use_sets(tiles)]
    if kind == "ritual":
        have = _face_up(state, p, progress.TRIGGERED["ritual"], ed)
        out = []
        for use in _use_sets(list(have.values())):
            rules_used = {progress.rule_of(ed, t) for t in use}
            lh = state.players[p].long_house
            total = sum(lh.values())
            sizes = {min(2, total), min(3, total)} if "W-PRG-L3-3" in rules_used else {min(2, total)}
            for size in sorted(sizes):
                for c in sorted({tuple(sorted(c)) for c in combinations_with_replacement(NATIVES, size)
                                 if all(Counter(c)[k] <= lh[k] for k in NATIVES)}):
                    out.append(M.Ritual(c, use))
                    if "W-PRG-L1-4" in rules_used:  # Ritual bonus: then 1 warrior 1 step
                        for _ in range(samples):
                            steps = ritual_bonus_steps(state, p, c, rng, ed)
                            if steps:
                                out.append(M.Ritual(c, use, steps))
        return list(dict.fromkeys(out))
    if kind == "mask":
        if not _face_up(state, p, progress.TRIGGERED["mask"], ed):
            return []
        found = []
        for _ in range(samples):
            move = random_mask_ceremony(state, p, rng, ed, use_prob=0.8)
            if move is not None and move.use and move not in found:
                found.append(move)
        return found
    return []


def ritual_bonus_steps(state: State, p: int, natives, rng, ed: Edition) -> tuple:
    """W-PRG-L1-4: one random step of 1 warrior after the Ritual has brought ``natives`` home."""
    trial = state.copy()
    for kind in natives:
        board.return_home(trial, p, kind)
    return random_move_action(trial, p, 1, rng, ed).steps[:1]


def _select_cards(pattern, typed, must=()):
    """Cards (ids from ``typed`` = [(id, mask type)]) that make up a space's pattern and include every id in
    ``must``; None when there are none. Each pattern group takes cards of one type, groups of different types."""
    by_type: dict[str, list[str]] = {}
    for cid, kind in typed:
        by_type.setdefault(kind, []).append(cid)
    kinds = sorted(by_type, key=lambda k: (-len(by_type[k]), k))
    for perm in permutations(kinds, len(pattern)):
        chosen = []
        for need, kind in zip(pattern, perm):
            ids = sorted(by_type[kind], key=lambda c: c not in must)
            if len(ids) < need:
                break
            chosen += ids[:need]
        else:
            if all(m in chosen for m in must):
                return chosen
    return None


def _sim_draw(state: State, piles, source: str, ed: Edition, rng, drawn: list):
    """Draw from ``source`` of the scratch piles: (card, value the move names). A face-down unknown card is one
    of the cards whose place is not known, other than those drawn already in this move."""
    pile = piles.mask_deck if source == "deck" else piles.mask_discard
    top = pile[-1] if pile else None
    if top is not None:
        card, given = top, None
    else:
        pool = [c for c in unaccounted_cards(state, ed) if c not in drawn]
        card = given = rng.choice(pool) if pool else None
    board.draw_mask(piles, source, given, None)
    return card, given


PHANTOM = "<phantom>"  # the imagined card of the Phantom tile (W-PRG-L3-6) while cards are chosen


def random_mask_ceremony(state: State, p: int, rng, ed: Edition, use_prob: float = 0.7):
    """A legal Mask Ceremony (W-ACT-9) that flips each of p's face-up Mask tiles with probability ``use_prob``:
    Recall (L2-5) first, Draw two and discard (L1-5), an occupied space (L1-6), a Wild card (L2-6), a Phantom
    card (L3-6), +1 mask point (L3-5). None when there is nothing to draw."""
    player = state.players[p]
    have = _face_up(state, p, progress.TRIGGERED["mask"], ed)
    uses = {r: t for r, t in have.items() if rng.random() < use_prob}
    hand = [c for c in player.hand if c is not None]
    recall = None
    if "W-PRG-L2-5" in uses:
        played = [c for c in player.played if c is not None]
        if state.options.recall_one_card:
            recall = rng.choice(played) if played else None
            hand += [recall] if recall else []
        else:
            hand += played
    piles = board.MaskPiles(state)
    drawn: list = []
    sources = [src for src, pile in (("deck", piles.mask_deck), ("discard", piles.mask_discard)) if pile]
    if not sources:
        return None
    source = rng.choice(sources)
    card, given = _sim_draw(state, piles, source, ed, rng, drawn)
    drawn.append(card)
    source2 = given2 = discard = None
    if "W-PRG-L1-5" in uses:
        sources2 = [src for src, pile in (("deck", piles.mask_deck), ("discard", piles.mask_discard)) if pile]
        if sources2:
            source2 = rng.choice(sources2)
            card2, given2 = _sim_draw(state, piles, source2, ed, rng, drawn)
            drawn.append(card2)
        else:
            del uses["W-PRG-L1-5"]
    hand += [c for c in drawn if c is not None]
    if "W-PRG-L1-5" in uses:
        known = [c for c in hand]
        if not known:
            del uses["W-PRG-L1-5"]
            source2 = given2 = None
        else:
            discard = rng.choice(known)
            hand.remove(discard)
    occupied = "W-PRG-L1-6" in uses
    spaces = [sp for sp in ed.mask_spaces.values() if occupied or state.mask_space_holder(sp.id) is None]
    rng.shuffle(spaces)
    if occupied:  # try the occupied spaces first: that is what the tile is for
        spaces.sort(key=lambda sp: state.mask_space_holder(sp.id) is None)
    kinds = sorted({c.mask for c in ed.mask_cards.values()})
    space = cards = wild = wild_as = phantom = None
    if rng.random() < 0.85:
        for sp in spaces:
            attempts = []
            if "W-PRG-L2-6" in uses or "W-PRG-L3-6" in uses:
                for _ in range(6):
                    typed = [(c, ed.mask_cards[c].mask) for c in hand]
                    must, w, wa, ph = [], None, None, None
                    if "W-PRG-L2-6" in uses and hand:
                        w, wa = rng.choice(hand), rng.choice(kinds)
                        typed = [(c, wa if c == w else k) for c, k in typed]
                        must.append(w)
                    if "W-PRG-L3-6" in uses:
                        ph = rng.choice(kinds)
                        typed.append((PHANTOM, ph))
                        must.append(PHANTOM)
                    attempts.append((typed, must, w, wa, ph))
            attempts.append(([(c, ed.mask_cards[c].mask) for c in hand], [], None, None, None))
            for typed, must, w, wa, ph in attempts:
                chosen = _select_cards(sp.pattern, typed, must)
                if chosen is not None:
                    space, wild, wild_as, phantom = sp.id, w, wa, ph
                    cards = tuple(c for c in chosen if c != PHANTOM)
                    break
            if space is not None:
                break
    if space is None or wild is None:
        uses.pop("W-PRG-L2-6", None)
    if space is None or phantom is None:
        uses.pop("W-PRG-L3-6", None)
    if space is None or state.mask_space_holder(space) is None:
        uses.pop("W-PRG-L1-6", None)
    return M.MaskCeremony(source, given, space, cards or (), None, tuple(uses.values()), source2, given2, None, discard,
                          recall, wild, wild_as, phantom)


def _free_moves(state: State, p: int) -> list:
    out = []
    home = state.home_counts(p)
    for tid, t in state.territories.items():
        for i, pa in enumerate(t.pas):
            if pa.owner == p and pa.native == "warrior":
                out.append(M.Transfer(tid, i, replace=False))
                if home[PA_NATIVE[pa.kind]] > 0:
                    out.append(M.Transfer(tid, i, replace=True))
    player = state.players[p]
    if player.swap_tokens > 0:
        free = [i for i in range(9) if i not in player.markers]
        for x in range(len(free)):
            for y in range(x + 1, len(free)):
                a, b = free[x], free[y]
                fire = b if player.fire == a else a if player.fire == b else player.fire
                if rules.line_possible(player.markers, fire):
                    out.append(M.Swap(slot_of(a), slot_of(b)))
    return out


def _action_moves(state: State, p: int, action, rng, samples: int, ed: Edition) -> list:
    player = state.players[p]
    kind = action.kind
    if kind == "canoe":
        return [M.Canoe(lake) for lake in state.lakes] if player.canoe_reserve else []
    if kind in ("harvest", "hunt", "tan", "fish"):
        return [M.ACTION_MOVES[kind]()]
    if kind == "military":
        options = [[None] + _eligible_turtles(state, p, cat, ed) for cat in ("women", "hunters", "canoes")]
        return [M.Military(tuple(t for t in combo if t)) for combo in _product(options)]
    if kind == "ritual":
        lh = player.long_house
        need = min(2, sum(lh.values()))
        combos = {tuple(sorted(c)) for c in combinations_with_replacement(NATIVES, need)
                  if all(Counter(c)[k] <= lh[k] for k in NATIVES)}
        return [M.Ritual(c) for c in sorted(combos)]
    if kind == "sacred_fire":
        if player.fire is not None:
            return []
        return [M.SacredFire(slot_of(i)) for i in range(9)
                if i != state.turn.slot and i not in player.markers and rules.line_possible(player.markers, i)]
    if kind == "mask":
        return _mask_moves(state, p, ed)
    if kind == "move":
        found = {M.Move(())}
        for _ in range(samples):
            found.add(random_move_action(state, p, action.n, rng, ed))
        return list(found)
    if kind == "trade":
        found = {M.Trade()}
        for _ in range(samples):
            found.add(random_trade(state, p, rng, ed))
        return list(found)
    return []


def _product(options):
    result = [()]
    for opts in options:
        result = [r + (o,) for r in result for o in opts]
    return result


def _eligible_turtles(state: State, p: int, category: str, ed: Edition) -> list[str]:
    player = state.players[p]
    owned = {t["type"] for t in player.turtles}
    have = board.turtle_count(state, p, category)
    return [tid for tid, spec in ed.turtle_types.items()
            if spec["category"] == category and tid not in owned and have >= rules.turtle_threshold(player, spec)
            and state.turtle_stacks[tid]]


def next_card(state: State, pile: list, ed: Edition, rng: random.Random | None = None):
    """The card a draw from ``pile`` reveals, and the value the move must name for it: None when the engine
    knows the top card, else one of the unaccounted cards (the first, or a random one with ``rng``)."""
    top = pile[-1] if pile else None
    if top is not None:
        return top, None
    pool = unaccounted_cards(state, ed)
    card = (rng.choice(pool) if rng else pool[0]) if pool else None
    return card, card


def _mask_moves(state: State, p: int, ed: Edition) -> list:
    out = []
    # Every draw reshuffles an emptied deck at once (board.refill_deck_if_empty), so an empty pile is unusable.
    for source, pile in (("deck", state.mask_deck), ("discard", state.mask_discard)):
        if not pile:
            continue
        card, given = next_card(state, pile, ed)
        out.append(M.MaskCeremony(source, given))
        hand = [c for c in state.players[p].hand if c is not None] + ([card] if card else [])
        for space in ed.mask_spaces.values():
            if state.mask_space_holder(space.id) is None:
                cards = _cards_for(space.pattern, hand, ed)
                if cards:
                    out.append(M.MaskCeremony(source, given, space.id, cards))
    return out


def _cards_for(pattern, hand, ed: Edition):
    """One set of cards from ``hand`` that matches a space's pattern, or None."""
    by_type: dict[str, list[str]] = {}
    for c in hand:
        by_type.setdefault(ed.mask_cards[c].mask, []).append(c)
    groups = sorted(by_type.values(), key=len, reverse=True)
    chosen, used = [], 0
    for need in pattern:
        while used < len(groups) and len(groups[used]) < need:
            used += 1
        if used >= len(groups):
            return None
        chosen += groups[used][:need]
        used += 1
    return tuple(chosen)


def _restore_moves(state: State) -> list:
    player = state.players[state.current]
    out = [M.Restore(order=tuple(player.below))]
    own = [t for t in player.set_aside if not (state.options.take_back_basic_only and load_edition().tiles[t].level != 0)]
    takes = [t for t in state.display if t is not None] + own
    for aside in player.below:
        for take in takes:
            tiles = [t for t in player.below if t != aside] + [take]
            out.append(M.Restore(aside, take, tuple(tiles)))
    return out


# ---- the random player -------------------------------------------------------------------------------------
def random_move_action(state: State, p: int, n: int, rng: random.Random, ed: Edition) -> M.Move:
    """A random legal Move of up to ``n`` steps, built step by step on a scratch view of the map."""
    view = board.MoveScope(state, scratch=True)
    topo = ed.map_for(state.n)
    steps = []
    extra = state.options.attack_on_entry_extra_step
    budget = n
    for _ in range(rng.randint(1, n) if n else 0):
        sources = [tid for tid in state.territories if view.territory(tid).guards[p] > 0]
        if not sources:
            break
        frm = rng.choice(sources)
        options = []
        for to in (frm, *topo.neighbours[frm]):
            t = view.territory(to)
            if t.home_of is not None and t.home_of != p:
                continue
            entering = to != frm
            attack_cost = 2 if (entering and extra) else 1
            if entering:
                options.append(M.Step(frm, to, "guard"))
            if t.home_of is None:
                for i, pa in enumerate(t.pas):
                    if pa.empty:
                        options.append(M.Step(frm, to, "outpost", pa=i))
                    elif pa.owner != p and t.guards[pa.owner] == 0 and attack_cost <= budget:
                        options.append(M.Step(frm, to, "attack_pa", pa=i))
            if attack_cost <= budget:
                for q in range(state.n):
                    if q != p and t.guards[q] > 0:
                        options.append(M.Step(frm, to, "attack_guard", target=q))
        if not options:
            break
        step = rng.choice(options)
        cost = 2 if (extra and step.place.startswith("attack") and step.to != step.frm) else 1
        if cost > budget:
            break
        board.resolve_steps(view, p, (step,), cost, [], ed)
        steps.append(step)
        budget -= cost
    return M.Move(tuple(steps))


def random_trade(state: State, p: int, rng: random.Random, ed: Edition) -> M.Trade:
    """A Trade that exchanges towards a random progress tile, buys it if it can, then maybe buys points."""
    player = state.players[p]
    res = dict(player.resources)
    canoes = state.canoes_in_play(p)
    use = ()
    extra = [t for t in dict.fromkeys(player.progress) if progress.available(player, t) and progress.rule_of(ed, t) == "W-PRG-L1-8"]
    if extra and rng.random() < 0.7:
        use = (extra[0],)
        canoes += 2
    discounts = tuple(t for t in dict.fromkeys(player.progress)
                      if progress.available(player, t) and progress.rule_of(ed, t) in progress.DISCOUNT)
    if discounts and not state.options.discounts_combine:
        discounts = discounts[:1]
    exchanges = []
    purchase = None
    rows = [(lvl, t) for lvl, row in state.progress_rows.items() for t in row]
    if rows:
        level, tile = rng.choice(rows)
        pay, swaps = _plan_payment(level, res, canoes, ed, progress.discount_of(discounts, ed))
        if pay is not None:
            for give, get in swaps:
                res[give] -= 1
                res[get] += 1
            exchanges = swaps
            for r in pay:
                res[r] -= 1
            prog = ed.progress[tile]
            options = rules.purchase_track_options(player.tracks, prog.category, prog.economic, ed.cap)
            choices = progress.flag_choices(state, p) if prog.rule in progress.ALLIANCE else []
            purchase = M.Purchase(tile, tuple(pay), rng.choice(options) if len(options) > 1 else None,
                                  discounts if discounts else (), rng.choice(choices) if len(choices) > 1 else None)
    if not exchanges and canoes and rng.random() < 0.3:
        spare = [r for r in RESOURCES if res[r] > 0]
        if spare:
            give = rng.choice(spare)
            get = rng.choice([r for r in RESOURCES if r != give])
            res[give] -= 1
            res[get] += 1
            exchanges = [(give, get)]
    card = victim = None
    skip = bool(use) and rng.random() < 0.5
    draws = exchanges and not (use and (skip or state.options.extra_exchange_no_draw))
    if draws:
        reveal, card = next_card(state, state.mask_deck, ed, rng)
        if reveal is not None and ed.mask_cards[reveal].infected:
            victim = _random_victim(state, p, rng)
    points = ()
    have = [r for r in RESOURCES if res[r] > 0]
    if have and rng.random() < 0.85:  # most players turn their spare resources into Economic points
        points = tuple(rng.sample(have, rng.randint(max(1, len(have) - 1), len(have))))
    return M.Trade(tuple(exchanges), card, victim, (purchase,) if purchase else (), points, use, skip)


def _plan_payment(level: int, res: dict, canoes: int, ed: Edition, discount: int = 0):
    """The payment for a tile of ``level`` (less ``discount`` resources, W-PRG-L1-7) and the exchanges (at most
    ``canoes``) needed to afford it."""
    price = ed.prices[level]
    res = dict(res)
    need = Counter({"leather": price["leather"], "fish": price["fish"]})
    veg_n = price["vegetables"]
    if price["different_vegetables"]:
        vegs = sorted(VEGETABLES, key=lambda v: -res[v])[:veg_n]
    else:
        vegs = [max(VEGETABLES, key=lambda v: res[v])] * veg_n
    need.update(vegs)
    for _ in range(discount):  # leave out the resources the buyer is shortest of
        short = [r for r in need if need[r] > 0]
        if not short:
            break
        worst = min(short, key=lambda r: res[r] - need[r])
        need[worst] -= 1
    deficit = [r for r, k in need.items() for _ in range(max(0, k - res[r]))]
    surplus = [r for r in RESOURCES for _ in range(max(0, res[r] - need[r]))]
    if len(deficit) > canoes or len(deficit) > len(surplus):
        return None, []
    swaps = list(zip(surplus, deficit))
    pay = [r for r, k in need.items() for _ in range(k)]
    return pay, swaps


def _random_victim(state: State, p: int, rng: random.Random) -> M.Victim | None:
    options = []
    for tid, t in state.territories.items():
        if state.options.smallpox_from_home_only and t.home_of != p:
            continue
        if t.guards[p]:
            options.append(M.Victim(tid))
        for i, pa in enumerate(t.pas):
            if pa.owner == p and pa.count > 0:
                options.append(M.Victim(tid, i))
    return rng.choice(options) if options else None


def random_move(state: State, rng: random.Random, edition: Edition | None = None):
    """One legal move for the player to decide, chosen the way a casual player might."""
    ed = edition or load_edition()
    if state.solo is not None:
        forced = ghost.forced_move(state, ed)
        if forced is not None:
            return forced
    if state.phase == "restore":
        return _random_restore(state, rng, ed)
    p = state.current
    player = state.players[p]
    turn = state.turn
    if player.progress and rng.random() < 0.25:
        use = random_use_progress(state, p, rng, ed)
        if use is not None:
            return use
    if turn.placed is None:
        if rng.random() < 0.15:
            free = [m for m in _free_moves(state, p) + _transfers_as_guard(state, p, ed)
                    if isinstance(m, M.Transfer) and (m.replace or m.as_guard)]
            if free:
                return rng.choice(free)
        slots = rules.legal_activation_slots(player)
        can_reserve = not player.reserved and state.solo is None and not (turn.bonus and state.options.ojibwa_actions_only)
        if can_reserve and (not slots or rng.random() < 1.0 / player.sages):
            return M.ReserveTurnOrder()
        return M.Activate(slot_of(rng.choice(slots)))
    if turn.placed == "tile":
        for a in turn.pending[turn.cursor:]:
            if rng.random() < 0.1:
                continue  # a skipped action is given up (W-TURN-1)
            move = _random_action(state, p, a, rng, ed)
            if move is not None:
                return move
    if player.tribe == "ojibwa" and rng.random() < 0.5 and not rules.check(state, M.EndTurn(again=True), ed):
        return M.EndTurn(again=True)
    return M.EndTurn()


def _random_action(state: State, p: int, action, rng, ed: Edition):
    kind = action.kind
    if kind == "move":
        move = random_move_action(state, p, action.n, rng, ed)
        return move if move.steps else None
    if kind == "trade":
        return random_trade(state, p, rng, ed)
    if kind == "military":
        claims = []
        for cat in ("women", "hunters", "canoes"):
            eligible = _eligible_turtles(state, p, cat, ed)
            if eligible:
                claims.append(rng.choice(eligible))
        return M.Military(tuple(claims), _triggered(state, p, "military", rng, ed))
    if kind == "mask":
        if _face_up(state, p, progress.TRIGGERED["mask"], ed):
            return random_mask_ceremony(state, p, rng, ed)
        options = _mask_moves(state, p, ed)
        playing = [m for m in options if m.space]
        if playing and rng.random() < 0.8:
            return max(playing, key=lambda m: ed.mask_spaces[m.space].points)
        return rng.choice(options) if options else None
    if kind == "ritual":
        options = _action_moves(state, p, action, rng, 1, ed)
        if not options:
            return None
        move = rng.choice(options)
        use = _triggered(state, p, "ritual", rng, ed)
        natives = move.natives
        if any(progress.rule_of(ed, t) == "W-PRG-L3-3" for t in use):
            left = Counter(state.players[p].long_house) - Counter(natives)
            spare = [k for k in NATIVES if left[k] > 0]
            if spare:
                natives = natives + (rng.choice(spare),)
        steps = ()
        if any(progress.rule_of(ed, t) == "W-PRG-L1-4" for t in use) and rng.random() < 0.7:
            steps = ritual_bonus_steps(state, p, natives, rng, ed)  # W-PRG-L1-4: then 1 warrior 1 step
        return M.Ritual(natives, use, steps)
    options = _action_moves(state, p, action, rng, 1, ed)
    return rng.choice(options) if options else None


def _triggered(state: State, p: int, action: str, rng, ed: Edition, only=None) -> tuple:
    """Some of p's face-up tiles that trigger in ``action`` (each with probability 0.7)."""
    player = state.players[p]
    out = []
    for t in dict.fromkeys(player.progress):
        rule = progress.rule_of(ed, t)
        if rule in progress.TRIGGERED[action] and (only is None or rule in only) and progress.available(player, t) \
                and rng.random() < 0.7:
            out.append(t)
    return tuple(out)


def random_use_progress(state: State, p: int, rng: random.Random, ed: Edition):
    """A legal UseProgress for one of p's face-up "any time" tiles, or None (W-PRG-3)."""
    player = state.players[p]
    tiles = [t for t in dict.fromkeys(player.progress)
             if progress.available(player, t) and progress.rule_of(ed, t) in progress.ANYTIME]
    if not tiles:
        return None
    tile = rng.choice(tiles)
    rule = progress.rule_of(ed, tile)
    res = player.resources
    move = None
    if rule in progress.MOVE_STEPS:
        steps = random_move_action(state, p, progress.MOVE_STEPS[rule], rng, ed).steps
        move = M.UseProgress(tile, steps=steps) if steps else None
    elif rule == "W-PRG-L1-3":
        move = M.UseProgress(tile)
    elif rule == "W-PRG-L1-9":
        move = M.UseProgress(tile, resources=(rng.choice(ANIMALS),))
    elif rule == "W-PRG-L2-9":
        move = M.UseProgress(tile, resources=(rng.choice(ANIMALS), rng.choice(VEGETABLES)))
    elif rule == "W-PRG-L3-9":
        move = M.UseProgress(tile, resources=(rng.choice(RESOURCES), rng.choice(RESOURCES)))
    elif rule in ("W-PRG-L1-10", "W-PRG-L2-10", "W-PRG-L3-10"):
        allowed, most = {"W-PRG-L1-10": (ANIMALS, 2), "W-PRG-L2-10": (VEGETABLES, 3), "W-PRG-L3-10": (RESOURCES, 5)}[rule]
        have = [r for r in allowed if res[r] > 0]
        if have:
            spend = tuple(rng.sample(have, rng.randint(1, min(most, len(have)))))
            move = M.UseProgress(tile, resources=spend, track=rng.choice(TRACKS))
    elif rule == "W-PRG-L2-4":
        sources = [t for t in TRACKS if player.tracks[t] > 0]
        if sources:
            frm = rng.choice(sources)
            move = M.UseProgress(tile, from_track=frm, track=rng.choice([t for t in TRACKS if t != frm]))
    elif rule == "W-PRG-L2-7":
        have = dict(res)
        swaps = []
        for _ in range(rng.randint(1, 3)):
            spare = [r for r in RESOURCES if have[r] > 0]
            if not spare:
                break
            give = rng.choice(spare)
            get = rng.choice([r for r in RESOURCES if r != give])
            have[give] -= 1
            have[get] += 1
            swaps.append((give, get))
        move = M.UseProgress(tile, exchanges=tuple(swaps)) if swaps else None
    elif rule == "W-PRG-L3-4":
        kinds = [k for k in NATIVES if player.long_house[k] > 0]
        move = M.UseProgress(tile, natives=(rng.choice(kinds),)) if kinds else None
    elif rule == "W-PRG-L3-7":
        move = M.UseProgress(tile, slot=slot_of(rng.randrange(9)))
    if move is not None and rules.check(state, move, ed):
        return None
    return move


def _random_restore(state: State, rng: random.Random, ed: Edition | None = None) -> M.Restore:
    player = state.players[state.current]
    tiles = list(player.below)
    aside = take = None
    own = [t for t in player.set_aside if not (state.options.take_back_basic_only and ed and ed.tiles[t].level != 0)]
    takes = [t for t in state.display if t is not None] + own
    if takes and rng.random() < 0.7:
        aside = rng.choice(tiles)
        take = rng.choice(takes)
        tiles.remove(aside)
        tiles.append(take)
    rng.shuffle(tiles)
    return M.Restore(aside, take, tuple(tiles))


def play_random_game(players=("Ringo", "Paul", "John", "George"), seed: int = 0, validate: bool = True,
                     on_move=None, edition: Edition | None = None, deal_tribes: bool = False, options=None):
    """Set up and play a whole game with the random player; returns (final state, moves played).
    ``deal_tribes`` deals the tribe cards' front sides (W-SET-7 b)."""
    ed = edition or load_edition()
    rng = random.Random(seed)
    state = new_game(list(players), seed=seed, edition=ed, deal_tribes=deal_tribes, options=options)
    played = []
    while state.phase != "over":
        move = random_move(state, rng, ed)
        if on_move is not None:
            on_move(state, move)
        rules.apply(state, move, ed, validate=validate)
        played.append(move)
    return state, played
