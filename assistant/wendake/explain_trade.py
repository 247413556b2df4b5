"""Wendake's inverse model, Trades (W-ACT-10): the Trades that may explain a look's resource difference.

The camera sees the resource piles and the economic disk, never the exchanges: a Trade is built from the
difference between the piles read and the player's, less what the tile's later actions add, as purchases
(each category of a row once: twins look alike), points and exchanges that turn the one into the other
(``_score_trades``), the ones the economic disk read surely hints at first. Each is checked by the rules.
"""

from __future__ import annotations

import itertools
from collections import Counter

from assistant.table.evidence import Node
from assistant.table.observation import split_reading_key
from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.board import unaccounted_cards
from assistant.wendake.evidence import (
    BLIND_COUNT_CONFIDENCE,
    LOOSE_COUNT_CONFIDENCE,
    _colours_of,
    _score_space,
)
from assistant.wendake.observer import is_score_key, map_board, map_readings, village_board
from assistant.wendake.progress import (
    DISCOUNT,
    discount_of,
)
from assistant.wendake.state import RESOURCES, VEGETABLES, State


class TradeProposals:
    """Trade candidates of Wendake's explainer (a part of ``WendakeExplainer``; ``t`` is the tracker)."""

    def _trade_candidates(self, node: Node, items, pending_kinds) -> list:
        st = node.state
        p = st.current
        player = st.players[p]
        vb = village_board(p)
        seen_res = {}
        by_key = self._values(items)
        for r in RESOURCES:
            key = f"{vb}/resource.{r}"
            if key in by_key and isinstance(by_key[key], tuple):
                seen_res[r] = dict(by_key[key]).get(f"{r}:none", 0)
        have = player.resources
        delta = {r: seen_res[r] - have[r] for r in seen_res}
        # later simple actions of the tile change resources too: try the target without each subset of them
        later = {}
        after = pending_kinds[pending_kinds.index("trade") + 1:] if "trade" in pending_kinds else []
        if "harvest" in after:
            gain = Counter(pa.crop for t in st.territories.values() for pa in t.pas if pa.owner == p and pa.native == "woman" and pa.count > 0)
            later["harvest"] = dict(gain)
        if "fish" in after:
            later["fish"] = {"fish": st.canoes_in_play(p)}
        if "tan" in after:
            later["tan"] = {"leather": player.beavers}
        targets = []
        for k in range(len(later) + 1):
            for combo in itertools.combinations(later, k):
                d = dict(delta)
                for name in combo:
                    for r, g in later[name].items():
                        if r in d:
                            d[r] -= g
                targets.append(d)
        if not targets:
            targets = [{}]
        canoes = st.canoes_in_play(p)
        extras = self._use_sets(st, p, {"W-PRG-L1-8"})  # Extra exchange: 2 more exchanges (W-PRG-L1-8)
        discount_sets = [((), None)] + [(t, e) for t, e in self._use_sets(st, p, set(DISCOUNT))]
        purchases = [None]  # (tile, pay, discount tiles, edit)
        for level, row in st.progress_rows.items():
            price = self.ed.prices[level]
            veg_sets = (itertools.combinations(VEGETABLES, price["vegetables"]) if price["different_vegetables"]
                        else [tuple([v] * price["vegetables"]) for v in VEGETABLES])
            for vegs in veg_sets:
                full = ("leather",) * price["leather"] + ("fish",) * price["fish"] + tuple(vegs)
                for dtiles, dedit in discount_sets:
                    d = discount_of(dtiles, self.ed)
                    pays = {full} if not d else {tuple(x for i, x in enumerate(full) if i not in drop)
                                                 for drop in itertools.combinations(range(len(full)), min(d, len(full)))}
                    looks = {}  # twins (same level and category) look the same when bought: one stands for both
                    for tile in row:
                        looks.setdefault(self.ed.progress[tile].category, tile)
                    for pay in sorted(pays):
                        for tile in looks.values():
                            purchases.append((tile, pay, dtiles, dedit))
        limit = canoes + (2 if extras else 0)
        # each resource spent for a point at most once: the point sets as 0/1 counts in RESOURCES order
        point_sets = [(c, tuple(int(r in c) for r in RESOURCES))
                      for k in range(len(RESOURCES) + 1) for c in itertools.combinations(RESOURCES, k)]
        target_rows = [tuple((i, r, target[r]) for i, r in enumerate(RESOURCES) if r in target) for target in targets]
        scored = _score_trades(purchases, point_sets, target_rows, limit)
        # the Trades at most one piece off the resources read whose economic points put the disk where it is read
        # surely go first: piles the counter reads loosely fit a Trade with fewer points better than the true one.
        # Two pieces off, they let an injected wrong step in
        gained = self._econ_read(st, p, items) if scored else 0
        if gained:
            first = self._hinted(st, p, scored, gained, max_miss=1)
            # a pile counted loosely may be two pieces off: the Trades that fit it exactly at one or two pieces from
            # its count, with those points, come next
            conf = {r: self._by_key(items)[f"{vb}/resource.{r}"][1] for r in seen_res}
            loose = [r for r in seen_res if conf[r] < LOOSE_COUNT_CONFIDENCE]
            if loose:
                rows = [tuple((i, r, x + dict(zip(loose, shift)).get(r, 0)) for i, r, x in row)
                        for row in target_rows for shift in itertools.product((-2, -1, 1, 2), repeat=len(loose))
                        if all(seen_res[r] + d >= 0 for r, d in zip(loose, shift))]
                pts_sets = [ps for ps in point_sets if any(self._econ_gain(b, ps[0]) == gained for b in purchases)]
                first += self._hinted(st, p, _score_trades(purchases, pts_sets, rows, limit), gained, max_miss=0,
                                      exchanged=True)
                # a pile read more loosely still says nothing of its count: the Trades that change the least sure
                # such pile by any amount a Trade can come next (a tile's price of 3, a point, and 2 exchanges spent
                # at most; as many exchanges got), with the points the disk shows. One pile only: the rows multiply with each
                blind = min(loose, key=conf.get)
                if conf[blind] < BLIND_COUNT_CONFIDENCE:
                    rows = [tuple((i, r, d if r == blind else x) for i, r, x in row)
                            for row in target_rows for d in range(-min(have[blind], 6), limit + 1)]
                    first += self._hinted(st, p, _score_trades(purchases, pts_sets, rows, limit), gained, max_miss=0,
                                          exchanged=True)
            scored = first + scored
        out = []
        seen = set()
        looks = Counter()
        tried = 0
        for miss, _, purchase, pts, paid, ones, row in scored:
            if (tried >= 8 and miss > 0) or tried >= 30 or miss > 2:
                break
            exchanges = _exchanges(row, paid, ones)
            if (purchase and purchase[:3], pts, exchanges) in seen:
                continue
            seen.add((purchase and purchase[:3], pts, exchanges))
            if not (purchase or pts or exchanges):
                continue  # a Trade that changes nothing cannot be told from one not made yet
            # what the table shows besides the resources: the points and where they go, a smallpox check
            prog = self.ed.progress[purchase[0]] if purchase else None
            look = (miss, len(pts) + (prog.economic if prog else 0), prog.category if prog else None,
                    prog.points if prog else 0, bool(exchanges))
            looks[look] += 1
            if looks[look] > 2:
                continue
            tried += 1
            uses = [((), None, False)] if len(exchanges) <= canoes else []
            if exchanges:
                uses += [(t, e, skip) for t, e in extras for skip in (False, True)]
            dedit = purchase[3] if purchase else None
            for use, uedit, skip in uses:
                if dedit is not None and uedit is not None:
                    continue  # one hidden-information edit per move
                edit = dedit or uedit
                for trade in self._trade_variants(st, p, purchase, pts, exchanges, items, use, skip):
                    if edit is not None or not rules.check(st, trade, self.ed):
                        out.append((trade, 1 if use else 0, edit))
        return out

    def _hinted(self, st: State, p: int, scored: list, gained: int, max_miss: int, exchanged: bool = False) -> list:
        """Up to 4 of ``scored`` (sorted by how far they miss, ``_score_trades``), at most ``max_miss`` pieces off,
        whose economic points are ``gained`` and that p can pay (``_affordable``)."""
        out = []
        for x in scored:
            if x[0] > max_miss or len(out) == 4:
                break
            if self._econ_gain(x[2], x[3]) == gained and self._affordable(st, p, x, exchanged):
                out.append(x)
        return out

    @staticmethod
    def _affordable(st: State, p: int, entry, exchanged: bool = False) -> bool:
        """Whether a scored Trade (``_trade_candidates``) pays its purchase and points with resources the player
        has before any exchange, or, ``exchanged``, after its exchanges (W-ACT-10: exchanges come first; each gives
        a resource the player has). Only the Trades under a loose pile are allowed exchanges."""
        paid, ones, row = entry[4], entry[5], entry[6]
        have = st.players[p].resources
        after = {r: have[r] for r in RESOURCES}
        for give, get in _exchanges(row, paid, ones) if exchanged else ():  # what the row misses pays nothing
            if after[give] < 1:
                return False
            after[give] -= 1
            after[get] += 1
        return all(paid[i] + ones[i] <= after[r] for i, r in enumerate(RESOURCES))

    def _econ_gain(self, purchase, pts) -> int:
        """Economic points a Trade's purchase and points give (before the track's cap)."""
        return len(pts) + (self.ed.progress[purchase[0]].economic if purchase else 0)

    def _econ_read(self, st: State, p: int, items) -> int:
        """How many spaces past the player's economic value their disk is read, surely and on one space of its
        row only; 0 when not so read."""
        colour = st.players[p].colour
        spaces = []
        for key, value, conf in items:
            if not is_score_key(key) or conf < self.t.alert_confidence or not value:
                continue
            track, space = _score_space(st, key)
            if track == "economic" and colour in _colours_of(value):
                spaces.append(space)
        gain = spaces[0] - st.players[p].tracks["economic"] if len(spaces) == 1 else 0
        return gain if gain > 0 else 0

    def _trade_variants(self, st: State, p: int, purchase, pts, exchanges, items, use=(), skip=False) -> list:
        buys = [()]
        if purchase:
            tile, pay, discounts, _ = purchase
            prog = self.ed.progress[tile]
            options = rules.purchase_track_options(st.players[p].tracks, prog.category, prog.economic, self.ed.cap)
            buys = [(M.Purchase(tile, pay, t if len(options) > 1 else None, tuple(discounts)),) for t in options]
        card = None
        victims = [None]
        if exchanges and not skip:
            top = st.mask_deck[-1] if st.mask_deck else None
            if top is None:  # an unknown deck: name a card for each outcome
                pool = unaccounted_cards(st, self.ed)
                infected = [c for c in pool if self.ed.mask_cards[c].infected]
                clean = [c for c in pool if not self.ed.mask_cards[c].infected]
                variants = []
                for buy in buys:
                    if clean:
                        variants.append(M.Trade(exchanges, clean[0], None, buy, pts, use, skip))
                    if infected:
                        variants += [M.Trade(exchanges, infected[0], v, buy, pts, use, skip) for v in self._victims(st, p, items)]
                return variants
            if self.ed.mask_cards[top].infected:
                victims = self._victims(st, p, items) or [None]
        return [M.Trade(exchanges, card, v, buy, pts, use, skip) for buy in buys for v in victims]

    def _victims(self, st: State, p: int, items) -> list:
        """Smallpox victims that agree with the map: p's natives whose region now reads differently, and p's guards
        where the camera's reading is a known misreading (a Home read one short: one guard less reads the same,
        or right)."""
        exp = map_readings(st)
        differ = {split_reading_key(k)[1] for k, v, _ in items if self.t.is_open(k, v, exp)}
        board = map_board(st.n)
        misread = {split_reading_key(k)[1] for k in self.t.misreadings if k.startswith(board + "/")}
        out = []
        for tid, t in st.territories.items():
            if st.options.smallpox_from_home_only and t.home_of != p:
                continue
            if t.guards[p] and (tid in differ or tid in misread):
                out.append(M.Victim(tid))
            for i, pa in enumerate(t.pas):
                if pa.owner == p and pa.count > 0 and f"{tid}.pa{i}" in differ:
                    out.append(M.Victim(tid, i))
        if not out:  # a Home stack that shrank still shows one piece: any of p's stacks may be the victim
            for tid, t in st.territories.items():
                if t.home_of == p:
                    out += [M.Victim(tid, i) for i, pa in enumerate(t.pas) if pa.owner == p and pa.count > 1]
        return out


def _exchanges(row, paid, ones) -> tuple[tuple[str, str], ...]:
    """The exchanges (give, get) of a scored Trade (``_score_trades``): the resources it needs more of, each got for
    one it needs fewer of, as far as they pair up (the rest is what the Trade misses the row by)."""
    need = [(r, x + paid[i] + ones[i]) for i, r, x in row]
    gives = [r for r, x in need if x < 0 for _ in range(-x)]
    gets = [r for r, x in need if x > 0 for _ in range(x)]
    k = min(len(gives), len(gets))
    return tuple(zip(gives[:k], gets[:k]))


def _score_trades(purchases, point_sets, target_rows, limit: int) -> list[tuple]:
    """Trades that turn the player's resources into a target row, sorted by how many pieces they miss it by, then
    by how much they do: (miss, size, purchase, points, paid, points as 0/1, row) for each purchase, set of points
    and target row whose exchanges (gets - gives = target + spent) stay within ``limit``."""
    scored = []
    for purchase in purchases:
        spend = Counter(purchase[1]) if purchase else Counter()
        paid = [spend[r] for r in RESOURCES]
        for pts, ones in point_sets:
            for row in target_rows:
                n_gets = n_gives = 0
                for i, _r, x in row:
                    x += paid[i] + ones[i]
                    if x > 0:
                        n_gets += x
                    else:
                        n_gives -= x
                k = min(n_gives, n_gets)
                if k <= limit:
                    scored.append((abs(n_gives - n_gets), k + len(pts) + (1 if purchase and purchase[2] else 0),
                                   purchase, pts, paid, ones, row))
    scored.sort(key=lambda x: (x[0], x[1]))
    return scored
