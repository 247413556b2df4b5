"""Wendake's inverse model, hidden information: progress-tile uses (W-PRG-3) and Mask Ceremonies (W-MSK).

What the camera cannot tell is named only when a move needs it, by a hidden-information edit made first
(``assistant.wendake.edits.apply_edit``): which of two look-alike progress tiles a player bought
(``tiles_for``: a use of the other one swaps it in), which cards a hidden hand plays (``_label_hands``
relabels the hands), a flag taken with an Alliance tile.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

from assistant.table.evidence import Node
from assistant.table.observation import split_reading_key
from assistant.wendake import moves as M
from assistant.wendake.edits import apply_edit
from assistant.wendake.evidence import _row0_tiles
from assistant.wendake.observer import (
    MASK_BOARD,
    PROGRESS_REGION,
    ceremony_region,
    map_board,
    village_board,
)
from assistant.wendake.progress import (
    ALLIANCE,
    ANYTIME,
    MOVE_STEPS,
    TRANSFER_AS_GUARD,
    TRIGGERED,
)
from assistant.wendake.progress import available as progress_available
from assistant.wendake.state import ANIMALS, NATIVES, RESOURCES, TRACKS, VEGETABLES, State, slot_of

SPEND = {"W-PRG-L1-10": (("leather", "fish"), 2), "W-PRG-L2-10": (("corn", "beans", "pumpkins"), 3),
         "W-PRG-L3-10": (RESOURCES, 5)}  # resources for points: which, and how many at most
# Mask tiles whose use changes only hidden things (hands, piles) and shows as the tile turned face down
# (``_hidden_mask_uses``): Draw two, Recall, Wild, Phantom card
HIDDEN_MASK_USES = {"W-PRG-L1-5", "W-PRG-L2-5", "W-PRG-L2-6", "W-PRG-L3-6"}


class ProgressProposals:
    """Progress-tile uses and Mask Ceremonies of Wendake's explainer (a part of ``WendakeExplainer``)."""

    def _looked_alike(self, p: int, y: str, x: str) -> bool:
        """Whether p's purchase of ``y`` looked on the table as buying ``x`` would have: another tile of the same
        level and category, or one of the purchase's ``lookalikes``."""
        a, b = self.ed.progress[y], self.ed.progress[x]
        return y != x and a.level == b.level and (a.category == b.category or x in self.lookalikes.get((p, y), ()))

    def _renamed_through_row(self, st: State, p: int, mine: list[str], q: int, x: str) -> dict | None:
        """The edit that gives p tile ``x``, held unused by player q, when no tile of p's looked like it: q's
        purchase of ``x`` was in truth a twin ``z`` still in the row, so ``x`` was in the row when p bought ``y``,
        where ``z`` looked like it. Two swaps through the row: q gives ``x`` for ``z``, then p gives ``y`` for ``x``. Not for an Alliance
        tile, whose flag would have to move as well."""
        if self.ed.progress[x].rule in ALLIANCE:
            return None
        for y in mine:
            for z in st.progress_rows.get(self.ed.progress[x].level, ()):
                if self._looked_alike(p, y, z) and self._looked_alike(q, x, z):
                    return {"op": "several", "edits": [
                        {"op": "swap_progress", "player": q, "give": x, "take": z, "holder": "row"},
                        {"op": "swap_progress", "player": p, "give": y, "take": x, "holder": "row"}]}
        return None

    def tiles_for(self, st: State, p: int, wanted: set[str]) -> list[tuple[str, dict | None]]:
        """(tile, edit) for each ability in ``wanted`` that p could use now: p's own face-up tiles, and the
        tiles p may own unseen. Which of two tiles of one level and category a player bought does not show
        (same price, same points), nor which of two whose purchase put the points on the same track
        (``lookalikes``); a use of the other one names it: the edit swaps p's unused tile with its
        twin in the progress row or in another player's unused tiles (``apply_edit`` op ``swap_progress``)."""
        player = st.players[p]
        out, have = [], set()
        for t in dict.fromkeys(player.progress):
            rule = self.ed.progress[t].rule
            if rule in wanted and progress_available(player, t) and rule not in have:
                have.add(rule)
                out.append((t, None))
        mine = [t for t in dict.fromkeys(player.progress) if progress_available(player, t)]
        for x, tile in self.ed.progress.items():
            if tile.rule not in wanted or tile.rule in have:
                continue
            holder = None
            if x in st.progress_rows.get(tile.level, ()):
                holder = "row"
            else:
                for q, other in enumerate(st.players):
                    if q != p and x in other.progress and progress_available(other, x) and x not in other.progress_used:
                        holder = q
                        break
            if holder is None:
                continue
            twins = [y for y in mine if self._looked_alike(p, y, x)]
            if twins:
                edit = {"op": "swap_progress", "player": p, "give": twins[0], "take": x, "holder": holder}
            elif holder != "row":
                edit = self._renamed_through_row(st, p, mine, holder, x)
            else:
                edit = None
            if edit is None:
                continue
            have.add(tile.rule)
            if tile.rule in ALLIANCE and player.flag is None:
                flags = list(st.flag_supply)
                if isinstance(holder, int) and st.players[holder].flag is not None:
                    flags.append(st.players[holder].flag)
                out += [(x, {**edit, "flag": f}) for f in dict.fromkeys(flags)]
            else:
                out.append((x, edit))
        if wanted & ALLIANCE and player.flag is not None:  # the flag taken with an Alliance tile does not show
            for t, e in list(out):
                if e is None and self.ed.progress[t].rule in ALLIANCE:
                    out += [(t, {"op": "flag", "player": p, "flag": f}) for f in st.flag_supply]
        return out

    def _use_sets(self, st: State, p: int, wanted: set[str]) -> list[tuple[tuple, dict | None]]:
        """Non-empty sets of triggered tiles p could flip together (at most one of them named by an edit)."""
        tiles = self.tiles_for(st, p, wanted)
        out = [((t,), e) for t, e in tiles]
        own = [t for t, e in tiles if e is None]
        if len(own) > 1:
            out.append((tuple(own), None))
        for t, e in tiles:
            if e is not None and own:
                out.append((tuple(own) + (t,), e))
        return out

    def _tile_swaps(self, st: State, p: int, slot: int, items) -> list[dict]:
        """Swap edits for activating row-0 ``slot`` when its printed tile was not surely read: the tile there may
        be another of the row's (a Restore lays the new row out in an order the camera may not have read)."""
        if slot >= 3:
            return []
        sure = {k for k, (v, c) in _row0_tiles(p, items).items() if v is not None and c >= self.t.alert_confidence}
        pl = st.players[p]
        if slot in sure or pl.grid[slot] is None:
            return []
        return [{"op": "swap_tiles", "player": p, "a": slot, "b": o} for o in range(3)
                if o != slot and o not in pl.markers and pl.grid[o] is not None
                and o not in sure and pl.grid[o].tile != pl.grid[slot].tile]

    def _as_guard_edits(self, st: State, p: int) -> list[dict | None]:
        """How p may stand an outpost up as a guard with the Transfer-as-guard tile (W-PRG-L2-2): None for p's
        own face-up tile, an edit for the tile p may own unseen (p bought its look-alike twin as far as the
        camera could tell, ``tiles_for``). Without it a line explains the guard by another tile's steps."""
        return [e for _, e in self.tiles_for(st, p, {TRANSFER_AS_GUARD})]

    def _ritual_uses(self, st: State, p: int, m: M.Ritual, open_keys) -> list:
        out = []
        lh = Counter(st.players[p].long_house) - Counter(m.natives)
        mp = map_board(st.n)
        differ = {split_reading_key(k)[1].split(".")[0] for k in open_keys if k.startswith(mp + "/")}
        topo = self.ed.map_for(st.n)
        for tiles, edit in self._use_sets(st, p, TRIGGERED["ritual"]):
            rules_used = {self.ed.progress[t].rule for t in tiles}
            natives = [m.natives]
            if "W-PRG-L3-3" in rules_used:
                natives = [m.natives + (k,) for k in NATIVES if lh[k] > 0] or [m.natives]
            steps = [()]
            if "W-PRG-L1-4" in rules_used:  # the step is optional ("you may"): the point alone is a use too
                steps += [(s,) for s in self._step_options(st, p, topo, differ)][:12]
            for nat in natives:
                for stp in steps:
                    out.append((M.Ritual(nat, tiles, stp), 1, edit))
        return out

    def _mask_candidates(self, st: State, p: int, by_key) -> list:
        """Mask Ceremonies. The camera sees the mask disk's space and the points, never the cards: a draw takes
        the unknown top card; a play names cards by relabelling the hidden hands (``_label_hands``)."""
        out = []
        colour = st.players[p].colour
        disk = f"tribe_disk:{colour}"
        spaces, occupied = [], []
        for sid, space in self.ed.mask_spaces.items():
            rid = ceremony_region(sid)
            v = by_key.get(f"{MASK_BOARD}/{rid}", "absent")
            if v == "absent" or (isinstance(v, tuple) and disk in dict(v)):
                (spaces if st.mask_space_holder(sid) is None else occupied).append(space)
        uses = [((), None)] + self._use_sets(st, p, {"W-PRG-L3-5"})
        if occupied:  # Occupied space (W-PRG-L1-6): a space already taken, the player's own included
            for tile, edit in self.tiles_for(st, p, {"W-PRG-L1-6"}):
                if edit is not None:
                    continue  # a play with a renamed tile needs two edits
                for source in ("deck", "discard"):
                    for space in occupied:
                        plan = self._label_hands(st, p, source, space.pattern)
                        if plan is not None:
                            card, cards, hands = plan
                            out.append((M.MaskCeremony(source, card, space.id, cards, use=(tile,)), 2,
                                        {"op": "hands", "hands": hands}))
        for source, pref in (("deck", 0), ("discard", 1)):
            pile = st.mask_deck if source == "deck" else st.mask_discard
            if not pile and not (source == "deck" and st.mask_discard):
                continue
            for use, edit in uses:
                bonus = 1 if use else 0
                out.append((M.MaskCeremony(source, use=use), pref + bonus, edit))
                if edit is not None:
                    continue  # a play with a renamed tile needs two edits; the plain draw is enough to name it
                for space in spaces:
                    plan = self._label_hands(st, p, source, space.pattern)
                    if plan is not None:
                        card, cards, hands = plan
                        out.append((M.MaskCeremony(source, card, space.id, cards, use=use), pref + bonus,
                                    {"op": "hands", "hands": hands}))
        return out

    def _hidden_mask_uses(self, st: State, p: int, by_key) -> list:
        """Mask Ceremonies with the tiles whose use changes only hidden things (hands, piles) and shows as the
        tile turned face down: Draw two (W-PRG-L1-5), Recall (L2-5), Wild (L2-6), Phantom card (L3-6), alone
        or with p's other Mask tiles (L1-6, L3-5), as many of each level as the progress set read shows newly
        face down. One legal ceremony of each kind stands for all: Draw two discards an unknown card; Recall
        takes back the first played card under the one-card option (else all come back) and may play them;
        Wild counts a card as its own type; the Phantom card stands for one card of the space's pattern. One
        tile p owns only as an unseen twin may be among them, named by an edit (``tiles_for``)."""
        player = st.players[p]
        seen = by_key.get(f"{village_board(p)}/{PROGRESS_REGION}")
        if not isinstance(seen, tuple):
            return []
        turned = Counter({k.split(":")[1]: n for k, n in seen if k.endswith(":back")})
        turned.subtract(t[:2] for t in player.progress_used)
        turned = +turned  # levels with more tiles face down than the state has
        if not turned:
            return []
        own, rules_had = [], set()
        for t in dict.fromkeys(player.progress):
            rule = self.ed.progress[t].rule
            if rule in TRIGGERED["mask"] and rule not in rules_had and progress_available(player, t):
                rules_had.add(rule)
                own.append(t)
        combos = [combo for k in range(len(own) + 1) for combo in itertools.combinations(own, k)]
        sets = [(combo, None) for combo in combos if combo]
        sets += [(combo + (t,), e) for t, e in self.tiles_for(st, p, TRIGGERED["mask"]) if e is not None
                 for combo in combos if e["give"] not in combo]
        out = []
        for use, edit in sets:
            rs = {self.ed.progress[t].rule for t in use}
            if not rs & HIDDEN_MASK_USES or Counter(t[:2] for t in use) - turned:
                continue
            out += self._mask_ceremonies_using(st, p, use, rs, edit, by_key)
        return out

    def _mask_ceremonies_using(self, st: State, p: int, use: tuple, rs: set, edit, by_key) -> list:
        """(move, preference, edit) for ``_hidden_mask_uses``: Mask Ceremonies flipping the tiles ``use`` (rules
        ``rs``), a draw alone and a play on each space the mask board may show p's disk on."""
        player = st.players[p]
        disk = f"tribe_disk:{player.colour}"
        spaces = []
        for sid, space in self.ed.mask_spaces.items():
            v = by_key.get(f"{MASK_BOARD}/{ceremony_region(sid)}", "absent")
            free = st.mask_space_holder(sid) is None
            if (free or "W-PRG-L1-6" in rs) and (v == "absent" or (isinstance(v, tuple) and disk in dict(v))):
                spaces.append(space)
        kinds = sorted({c.mask for c in self.ed.mask_cards.values()})
        out = []
        for source, pref in (("deck", 1), ("discard", 2)):
            pile = st.mask_deck if source == "deck" else st.mask_discard
            if not pile and not (source == "deck" and st.mask_discard):
                continue
            base = M.MaskCeremony(source, use=use)
            recalled: list = []
            if "W-PRG-L1-5" in rs:  # the second draw: the deck, refilled from the discard pile if need be
                if len(st.mask_deck) + len(st.mask_discard) < 2:
                    continue
                base = replace(base, source2="deck")
            if "W-PRG-L2-5" in rs:
                played = [c for c in player.played if c is not None]
                recalled = played[:1] if st.options.recall_one_card else played
                if st.options.recall_one_card and played:
                    base = replace(base, recall=played[0])
            if not rs & {"W-PRG-L2-6", "W-PRG-L3-6"}:  # Wild and Phantom are for a play
                out.append((base, pref + 1, edit))
            for space in spaces:
                patterns = [space.pattern]
                if "W-PRG-L3-6" in rs:  # the imagined card takes one place of the pattern
                    patterns = [tuple(sorted((g - (i == j) for i, g in enumerate(space.pattern) if g - (i == j) > 0),
                                             reverse=True)) for j in range(len(space.pattern))]
                for pattern in dict.fromkeys(patterns):
                    plan = self._label_hands(st, p, source, pattern, recalled)
                    if plan is None:
                        continue
                    card, cards, hands = plan
                    move = replace(base, card=card, space=space.id, cards=cards)
                    types = [self.ed.mask_cards[c].mask for c in cards]
                    if "W-PRG-L2-6" in rs:
                        move = replace(move, wild=cards[0], wild_as=types[0])
                    if "W-PRG-L3-6" in rs:
                        move = replace(move, phantom=next((k for k in kinds if tuple(sorted(
                            Counter(types + [k]).values(), reverse=True)) == space.pattern), None))
                        if move.phantom is None:
                            continue
                    hands_edit = {"op": "hands", "hands": hands}
                    out.append((move, pref + 1, hands_edit if edit is None else {"op": "several", "edits": [edit, hands_edit]}))
                    break
        return out

    def _label_hands(self, st: State, p: int, source: str, pattern, recalled=()) -> tuple | None:
        """(card drawn, cards played, every player's relabelled hand) for a play of ``pattern`` by p after a
        draw from ``source``, or None. Hands are hidden: every card in a hand becomes unknown again, and p's
        hand names just the cards played, chosen among the cards whose place is unknown, from the mask types
        with the most such cards. ``recalled``: p's played cards the move takes back first (W-PRG-L2-5), which
        may be played again."""
        pile = st.mask_deck if source == "deck" else st.mask_discard
        if source == "deck" and not pile:
            top = None  # the discard pile becomes an unknown deck first
        else:
            top = pile[-1] if pile else None
        known = Counter(c for c in st.mask_deck + st.mask_discard if c is not None)
        for pl in st.players:
            known.update(c for c in pl.played if c is not None)
        by_type: dict[str, list[str]] = {}
        for c, card in self.ed.mask_cards.items():
            if not known[c]:
                by_type.setdefault(card.mask, []).append(c)
        slots = len(st.players[p].hand) + 1 + len(recalled)
        if sum(pattern) > slots:
            return None
        if top is not None:  # a known card is drawn: it may be played
            by_type.setdefault(self.ed.mask_cards[top].mask, []).insert(0, top)
        for c in recalled:
            by_type.setdefault(self.ed.mask_cards[c].mask, []).insert(0, c)
        free = set(recalled) | ({top} if top is not None else set())
        cards: list[str] = []
        used = set()
        for g in sorted(pattern, reverse=True):
            choices = [t for t in by_type if t not in used and len(by_type[t]) >= g]
            if not choices:
                return None
            # the known cards joining the hand (the top drawn, the recalled) take no hand slot: their types first
            t = max(choices, key=lambda t: (sum(c in free for c in by_type[t][:g]), len(by_type[t]), t))
            used.add(t)
            cards += by_type[t][:g]
        rest = [c for c in cards if c not in recalled]
        card = None
        if top is not None:
            if top in rest:
                rest.remove(top)
        elif rest:
            card = rest.pop(0)
        hand_size = len(st.players[p].hand)
        if len(rest) > hand_size:
            return None
        hands = [[None] * len(pl.hand) for pl in st.players]
        hands[p] = rest + [None] * (hand_size - len(rest))
        return card, tuple(cards), hands

    def _use_progress_candidates(self, node: Node, items, by_key, open_keys) -> list:
        st = node.state
        p = st.current
        player = st.players[p]
        vb = village_board(p)
        seen = {}
        for r in RESOURCES:
            v = by_key.get(f"{vb}/resource.{r}")
            if isinstance(v, tuple):
                seen[r] = dict(v).get(f"{r}:none", 0)
        have = player.resources
        down = [r for r in RESOURCES if seen.get(r, -1) < have[r]]  # spent, or not read
        turned = f"{vb}/{PROGRESS_REGION}" in open_keys  # the tiles read differ: one may have been turned face down
        out = []
        for tile, edit in self.tiles_for(st, p, ANYTIME):
            rule = self.ed.progress[tile].rule
            pref = 2 if edit else 1
            moves = []
            if rule in MOVE_STEPS:
                named = st  # the steps are checked with the tile in p's hands: a twin's use names it first
                if edit is not None:
                    named = st.copy()
                    try:
                        apply_edit(named, edit, self.ed)
                    except ValueError:
                        continue
                moves = [M.UseProgress(tile, steps=steps) for steps in
                         self._step_search(named, MOVE_STEPS[rule], items, lambda steps, t=tile: M.UseProgress(t, steps=steps))]
            elif rule == "W-PRG-L1-3":
                # Free order shows only as the tile turned face down (``view.progress_readings``); unseen, it is
                # tried only where it could change what the turn does, as a last resort. Seen turned, it weighs as
                # any other use
                t = st.turn
                if turned or (t.placed == "tile" and not t.free_order and len(t.pending) - t.cursor > 1):
                    moves = [M.UseProgress(tile)]
                    pref += 0 if turned else 2
            elif rule == "W-PRG-L1-9":
                moves = [M.UseProgress(tile, resources=(r,)) for r in ANIMALS]
            elif rule == "W-PRG-L2-9":
                moves = [M.UseProgress(tile, resources=(a, v)) for a in ANIMALS for v in VEGETABLES]
            elif rule == "W-PRG-L3-9":
                moves = [M.UseProgress(tile, resources=c) for c in itertools.combinations_with_replacement(RESOURCES, 2)]
            elif rule in SPEND:
                allowed, most = SPEND[rule]
                spend = [r for r in allowed if r in down and have[r] > 0]
                for k in range(1, min(most, len(spend)) + 1):
                    for combo in itertools.combinations(spend, k):
                        moves += [M.UseProgress(tile, resources=combo, track=t) for t in TRACKS]
            elif rule == "W-PRG-L2-4":
                moves = [M.UseProgress(tile, from_track=a, track=b) for a in TRACKS for b in TRACKS
                         if a != b and player.tracks[a] > 0]
            elif rule == "W-PRG-L2-7":
                gives = [r for r in RESOURCES for _ in range(max(0, have[r] - seen.get(r, have[r])))]
                gets = [r for r in RESOURCES for _ in range(max(0, seen.get(r, have[r]) - have[r]))]
                k = min(3, len(gives), len(gets))
                if k:
                    moves = [M.UseProgress(tile, exchanges=tuple(zip(gives[:k], gets[:k])))]
                elif turned:  # exchanges that cancel out: only the tile shows
                    r = next((r for r in RESOURCES if have[r] > 0), None)
                    if r is not None:
                        s = next(x for x in RESOURCES if x != r)
                        moves = [M.UseProgress(tile, exchanges=((r, s), (s, r)))]
            elif rule == "W-PRG-L3-4":
                moves = [M.UseProgress(tile, natives=(k,)) for k in NATIVES if player.long_house[k] > 0]
            elif rule == "W-PRG-L3-7":
                # the tile turned over shows as a difference, unless a later move turns it again (the activated
                # tile at the end of the year): open slots first, then every other slot read
                moves = [M.UseProgress(tile, slot=slot_of(k)) for k in range(9) if f"{vb}/slot.{k}#tile" in open_keys]
                out += [(M.UseProgress(tile, slot=slot_of(k)), pref + 1, edit) for k in range(9)
                        if f"{vb}/slot.{k}#tile" in by_key and f"{vb}/slot.{k}#tile" not in open_keys]
            out += [(m, pref, edit) for m in moves]
        return out
