"""Wendake's explainer: the game's side of the table core's search (``assistant.table.game.Explainer``).

The inverse model: from a position and a look, the candidate moves that may explain the look's differences
(``candidates``): the legal moves that could explain a difference still open, plus moves built from the
difference itself: Moves from the map (a small step search), Trades from the resources
(``assistant.wendake.explain_trade``), Restores from the tile order read off the grid, Mask Ceremonies and
progress-tile uses with the hidden-information edits they need (``assistant.wendake.explain_masks``). Hidden
things stay unknown (``conceal``) until a move needs them. Also what a camera can tell of a move
(``shows_nothing``, from ``assistant.wendake.movelog.observable``), the evidence hooks
(``assistant.wendake.evidence``), the Wendake shape of the search (turns, phases, printed actions still open)
and the move a difference looks like when nothing legal explains it (``illegal_guess``).

One explainer serves one tracker (``t``); it keeps what it learns of the game (``lookalikes``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

from assistant.table.evidence import Node
from assistant.table.observation import split_reading_key
from assistant.wendake import board, rules
from assistant.wendake import moves as M
from assistant.wendake.board import unaccounted_cards
from assistant.wendake.edition import load_edition
from assistant.wendake.edits import apply_edit
from assistant.wendake.evidence import HIDING_LAKE_MARGIN, SKIP_WEIGHT, TILE_NAMED, WendakeEvidence, _row0_tiles
from assistant.wendake.explain_masks import ProgressProposals
from assistant.wendake.explain_trade import TradeProposals
from assistant.wendake.generate import legal_moves
from assistant.wendake.movelog import observable
from assistant.wendake.observer import (
    PROGRESS_REGION,
    map_board,
    map_readings,
    progress_readings,
    village_board,
)
from assistant.wendake.progress import TRIGGERED
from assistant.wendake.state import TRACKS, State, slot_of
from assistant.wendake.words import piece_words


class WendakeExplainer(WendakeEvidence, TradeProposals, ProgressProposals):
    """Wendake's explainer for one tracker (module docstring)."""

    phases = ("actions", "restore", "over")  # the search keeps the best of each (``phase``)

    def __init__(self, tracker, edition=None):
        self.t = tracker
        self.ed = edition or load_edition()
        # (player, tile bought) -> the tiles the purchase looked like (``note_purchases``)
        self.lookalikes: dict[tuple[int, str], frozenset[str]] = {}
        st = tracker.initial
        self._homes = {f"{map_board(st.n)}/{tid}" for tid, t in st.territories.items() if t.home_of is not None}

    # ---- the game's moves, as the core plays them ------------------------------------------------------------
    def readings(self, readings: dict) -> dict:
        """An observation's readings as weighed: a village's progress spaces together, as the set of tiles seen."""
        return {**readings, **progress_readings(readings)}

    def apply(self, state: State, move, validate: bool = True) -> None:
        """Play ``move`` on ``state`` in place (``rules.apply``)."""
        rules.apply(state, move, self.ed, validate=validate)

    def apply_edit(self, state: State, edit: dict) -> None:
        """Make a hidden-information edit on ``state`` in place."""
        apply_edit(state, edit, self.ed)

    def play_checked(self, state: State, move) -> None:
        """Play a move entered by hand on ``state``; ``IllegalMoveError`` naming the rules it breaks."""
        v = rules.check(state, move, self.ed)
        if v:
            raise rules.IllegalMoveError(v)
        rules.apply(state, move, self.ed, validate=False)

    def child(self, state: State, move, edit) -> State | None:
        """A copy of ``state`` with ``edit`` (or None) made and ``move`` played; None when either is illegal."""
        st = state.copy()
        try:
            if edit is not None:
                apply_edit(st, edit, self.ed)
            rules.apply(st, move, self.ed)
        except (rules.IllegalMoveError, ValueError):
            return None
        return st

    def follow(self, state: State, moves) -> State | None:
        """A copy of ``state`` with ``moves`` played; None when one is illegal there."""
        s = state.copy()
        try:
            for m in moves:
                rules.apply(s, m, self.ed)
        except (rules.IllegalMoveError, ValueError, KeyError, IndexError):
            return None
        return s

    def shows_nothing(self, move) -> bool:
        """Whether ``move`` shows nothing on the table yet (``observable``): a line's tail of such moves waits."""
        return not isinstance(move, (M.EndTurn, M.Restore)) and observable(move, self.ed) is None

    def player_runs(self, states: list, moves: list):
        """``player_runs``: one ``MoveRecognized`` per run of moves by one player."""
        return player_runs(states, moves)

    def put_back(self, key: str, expected, seen) -> dict:
        """What an alert shows of one difference: where, what should be there, what is, how to fix it."""
        return _put_back(key, expected, seen)

    # ---- the shape of the search ---------------------------------------------------------------------------
    def open_actions(self, state: State) -> int:
        """The printed actions still open at ``state``: a line's rank counts them as given up (``Node.key``)."""
        return _open_actions(state)

    def skip_cost(self, state: State, move) -> int:
        """The preference steps ``move`` costs by giving up printed actions (``SKIP_WEIGHT`` each)."""
        return SKIP_WEIGHT * self.skipped(state, move)

    def turn_open(self, state: State) -> bool:
        """Whether the tile placed this turn still has actions open: a line that explains the look goes on."""
        t = state.turn
        return t is not None and t.placed == "tile" and t.cursor < len(t.pending)

    def may_go_on(self, state: State) -> bool:
        """Whether a line that does not yet explain the look may still do actions (the actions phase)."""
        return state.phase == "actions"

    def owed_unseen(self, move) -> bool:
        """Whether ``move`` is owed though the camera may not see it (a Restore): a depth of them is not stale."""
        return isinstance(move, M.Restore)

    def phase(self, state: State) -> str:
        return state.phase

    def point_of_turn(self, state: State) -> tuple:
        """Who plays, what was placed, which action is next: the search keeps the best few of each."""
        t = state.turn
        return (state.phase, state.current, None if t is None else (t.placed, t.cursor, len(t.pending)))

    @staticmethod
    def hidden(node: Node):
        """What differs between two states that look the same on the table: score values under other disks,
        turtle tiles, hand sizes, progress tiles, and how far the turn has gone."""
        s = node.state
        t = s.turn
        return (tuple(tuple(p.tracks.values()) for p in s.players), tuple(len(p.turtles) for p in s.players),
                tuple(len(p.hand) for p in s.players), tuple((tuple(p.progress), tuple(p.progress_used), p.flag) for p in s.players),
                None if t is None else (t.cursor, t.placed))

    @staticmethod
    def signature(node: Node):
        s = node.state
        t = s.turn
        turn = None if t is None else (t.player, t.placed, t.slot, t.cursor, tuple((a.kind, a.n) for a in t.pending),
                                       t.free_order)
        return (hash(tuple(node.exp.items())), s.phase, s.current, turn, tuple(tuple(p.tracks.values()) for p in s.players),
                tuple(len(p.turtles) for p in s.players), tuple(len(p.hand) for p in s.players),
                tuple((tuple(p.progress), tuple(p.progress_used), p.flag) for p in s.players))

    @staticmethod
    def skipped(st: State, move) -> int:
        """How many printed actions of the tile ``move`` gives up: players nearly always do every action, so
        a sequence that skips one is preferred only when it explains the table better."""
        t = st.turn
        if t is None or t.placed != "tile":
            return 0
        if isinstance(move, M.EndTurn):
            return len(t.pending) - t.cursor
        if t.free_order:  # W-PRG-L1-3: any open action next, none given up
            return 0
        kind = M.KIND_OF_MOVE.get(type(move))
        if kind is None:
            return 0
        idx = board.pending_index(t, kind)
        return 0 if idx is None else idx - t.cursor

    @staticmethod
    def visible(node: Node):
        return (hash(tuple(node.exp.items())), tuple(tuple(p.tracks.values()) for p in node.state.players))

    def missed_marker(self, node: Node, items, before: dict, base: State) -> str | None:
        """The slot key when the one sure reading that keeps ``node`` out is a marker it places there unseen (see
        ``_with_missed_marker``), else None."""
        if node.worst < self.t.alert_confidence:  # no sure disagreement at all (most lines of a look nothing explains)
            return None
        sure = [d for d in self.t.differing(node, items) if d[2] >= self.t.alert_confidence]
        if len(sure) != 1:
            return None
        key, seen, _ = sure[0]
        want = node.exp.get(key)
        for p in range(base.n):
            marker = f"action_marker:{base.players[p].colour}"
            if key.startswith(f"{village_board(p)}/slot.") and "#" not in key:
                if isinstance(want, tuple) and marker in dict(want) and isinstance(seen, tuple) and marker not in dict(seen):
                    if before.get(key) != want:  # placed by the line's moves
                        if node.moves and self._marker_unseen(base, p, items, before):
                            return key
                    elif self._marker_kept(node, p, items):  # there since an earlier look
                        return key
        return None

    def _marker_kept(self, node: Node, p: int, items) -> bool:
        """Whether player ``p``'s action markers are all where ``node`` has them but one the camera misses on its
        tile: every Sages space of ``p`` is read surely as ``node`` has it, and no tile slot shows ``p``'s marker
        where ``node`` has none. The four markers are then counted (W-COMP-3): the one not seen has not left its
        tile. A marker moved to another tile or back to the Sages shows there."""
        vb = village_board(p)
        marker = f"action_marker:{node.state.players[p].colour}"
        read = self._by_key(items)
        for s in range(1, 5):
            got = read.get(f"{vb}/sage.{s}")
            if got is None or got[1] < self.t.alert_confidence or got[0] != node.exp.get(f"{vb}/sage.{s}"):
                return False
        for k in range(9):
            v = read.get(f"{vb}/slot.{k}", (None,))[0]
            if isinstance(v, tuple) and marker in dict(v) and marker not in dict(node.exp.get(f"{vb}/slot.{k}") or ()):
                return False
        return True

    def _marker_unseen(self, st: State, p: int, items, exp: dict) -> bool:
        """Whether player ``p``'s next action marker surely left the Sages area and no tile slot shows it where it
        was not before: a marker the camera misses on its tile (a red marker on a dark tile). Its
        Activate is then tried on every slot, one rank worse; a marker seen on a slot (legal or not) is never
        explained this way."""
        pl = st.players[p]
        if pl.sages < 1:
            return False
        vb = village_board(p)
        marker = f"action_marker:{pl.colour}"
        read = self._by_key(items)
        sage = read.get(f"{vb}/sage.{pl.sages}")
        if sage is None or sage[1] < self.t.alert_confidence or not isinstance(sage[0], tuple) or marker in dict(sage[0]):
            return False
        for k in range(9):
            v = read.get(f"{vb}/slot.{k}", (None,))[0]
            if isinstance(v, tuple) and marker in dict(v) and v != exp.get(f"{vb}/slot.{k}"):
                return False
        return True

    def _hiding_lake(self, st: State, mp: str, items) -> str:
        """The key of the lake whose reading lost the most confidence since the last look that added moves, when
        it lost at least ``HIDING_LAKE_MARGIN``; else "". A canoe put down partly hidden by others lowers the
        reading's confidence; a lake read unsurely all along hides nothing new."""
        if not self.t.looks:
            return ""
        now, _, _ = self._look_maps(items)
        before, _, _ = self._look_maps(self.t.looks[-1][1])
        drops = sorted((now[k][1] - before[k][1], k) for k in (f"{mp}/{lid}" for lid in st.lakes)
                       if k in now and k in before)
        return drops[0][1] if drops and drops[0][0] <= -HIDING_LAKE_MARGIN else ""

    def note_purchases(self, st: State, move) -> None:
        """Remember which face-up tiles each purchase of ``move`` looked like on the table (W-PRG-2): the camera
        sees a tile of that level leave its row and the points land on a track, not which tile it was. A tile of
        the same level, economic and points whose category allows the track that got the points (Military, or
        Lowest while Military was the lowest) looked the same; a later use of it names it (``tiles_for``)."""
        if not isinstance(move, M.Trade) or not move.purchases or st.current is None or st.phase != "actions":
            return
        p = st.current
        tracks = dict(st.players[p].tracks)
        rows = {lv: list(row) for lv, row in st.progress_rows.items()}
        for buy in move.purchases:
            tile = self.ed.progress.get(buy.tile)
            if tile is None:
                return
            before = dict(tracks)
            chosen = rules.score_purchase(tracks, tile, buy.track, self.ed.cap)
            alike = set()
            for z in rows.get(tile.level, ()):
                other = self.ed.progress[z]
                if z != buy.tile and (other.economic, other.points) == (tile.economic, tile.points) \
                        and chosen in rules.purchase_track_options(before, other.category, other.economic, self.ed.cap):
                    alike.add(z)
            self.lookalikes[(p, buy.tile)] = frozenset(alike)

    def fill_hidden(self, st: State, move):
        """(move, edit or None): a move entered by hand, fitted to unknown piles and hands. A smallpox check
        left unnamed on an unknown deck names a clean card (infected when a victim is given); a mask play whose
        cards the hidden hand does not name relabels the hands (and names an unknown drawn card)."""
        if st.phase != "actions" or st.current is None:
            return move, None
        p = st.current
        if isinstance(move, M.Trade) and move.smallpox_card is None and move.exchanges \
                and rules.smallpox_draws(st, p, move, self.ed) and st.mask_deck and st.mask_deck[-1] is None:
            pool = [c for c in unaccounted_cards(st, self.ed) if self.ed.mask_cards[c].infected == (move.victim is not None)]
            if pool:
                return M.Trade(move.exchanges, pool[0], move.victim, move.purchases, move.points, move.use,
                               move.skip_smallpox), None
        if isinstance(move, M.MaskCeremony) and move.cards and not move.use:
            pl = st.players[p]
            pile = st.mask_deck if move.source == "deck" else st.mask_discard
            top = pile[-1] if pile else None
            card = move.card
            drawn = top if top is not None else card
            have = Counter(c for c in pl.hand if c is not None)
            if drawn is not None:
                have[drawn] += 1
            missing = list((Counter(move.cards) - have).elements())
            if not missing:
                return move, None
            if drawn is None and len(missing) > pl.hand.count(None):
                card = missing.pop(0)  # the unknown card drawn is one of those played
            if len(missing) > pl.hand.count(None):
                return move, None
            hands = [list(q.hand) for q in st.players]
            for c in missing:  # name unknown cards of p's hand; known cards stay as they are
                hands[p][hands[p].index(None)] = c
            return M.MaskCeremony(move.source, card, move.space, move.cards, move.flip), {"op": "hands", "hands": hands}
        return move, None

    def candidates(self, node: Node, items):
        """(move, preference, edit) triples worth trying from ``node``: legal moves that could explain an open
        difference, plus moves built from the difference (Move, Trade, Restore, mask plays, progress-tile uses).
        ``edit`` is None or a hidden-information edit made first (``apply_edit``)."""
        st = node.state
        if st.phase == "over":
            return []
        if st.phase == "restore":
            return [(m, pref, None) for m, pref in self._restore_candidates(st, items)]
        open_keys = {k for k, v, c in items if self.t.is_open(k, v, node.exp)}
        _, by_key, unsure = self._look_maps(items)
        present = by_key
        p = st.current
        vb = village_board(p)
        mp = map_board(st.n)
        out = []

        colour = st.players[p].colour
        year_may_end = sum(pl.sages for pl in st.players) <= 1  # this placement may be the year's last

        def maybe(key):  # the reading at key differs, or was not read at all
            return key in open_keys or key not in present

        def shows(key, piece):  # the reading at key holds that piece, or was not read at all (or not surely)
            v = by_key.get(key, "absent")
            return v == "absent" or key in unsure or (isinstance(v, tuple) and piece in dict(v))

        pending_kinds = []
        if st.turn.placed == "tile":
            pending_kinds = [a.kind for a in st.turn.pending] if st.turn.free_order else \
                [a.kind for a in st.turn.pending[st.turn.cursor:]]
        exp = node.exp
        military = []
        unseen = None  # ``_marker_unseen``, asked once, at the first Activate whose slot does not show the marker
        hiding = None  # ``_hiding_lake``, asked once, at the first Canoe
        for m in legal_moves(st, samples=0, edition=self.ed):
            if isinstance(m, M.Activate):
                if year_may_end or shows(f"{vb}/slot.{m.slot[0] * 3 + m.slot[1]}", f"action_marker:{colour}"):
                    out.append((m, 0, None))
                    out += [(m, 1, e) for e in self._tile_swaps(st, p, m.slot[0] * 3 + m.slot[1], items)]
                else:  # the marker left the Sages and shows nowhere: any tile it may lie on, unseen
                    if unseen is None:
                        unseen = self._marker_unseen(st, p, items, exp)
                    if unseen:
                        out.append((m, 1, None))
            elif isinstance(m, M.ReserveTurnOrder):
                if year_may_end or shows(f"wendake-mask/turn_order.{len(st.turn_order_track) + 1}", f"tribe_disk:{colour}"):
                    out.append((m, 0, None))
            elif isinstance(m, M.Swap):
                ka, kb = (f"{vb}/slot.{x[0] * 3 + x[1]}#tile" for x in (m.a, m.b))
                if (ka in present or kb in present) and by_key.get(ka, exp[kb]) == exp[kb] and by_key.get(kb, exp[ka]) == exp[ka]:
                    out.append((m, 0, None))
            elif isinstance(m, M.Transfer):
                if maybe(f"{mp}/{m.territory}.pa{m.pa}"):
                    out.append((m, 0, None))
                    if not m.as_guard:  # the legal moves list no triggered abilities (samples=0)
                        out += [(replace(m, as_guard=True), int(e is not None), e) for e in self._as_guard_edits(st, p)]
            elif isinstance(m, M.Canoe):
                # a lake is a pile (``view.PILE_KEYS``): a new canoe may not show at all; ranked as giving the
                # action up, such a Canoe wins only where the table shows its effect (a Fish catching one fish more),
                # or on a lake newly read less surely (``_hiding_lake``), one step behind a canoe seen
                if hiding is None:
                    hiding = self._hiding_lake(st, mp, items)
                key = f"{mp}/{m.lake}"
                out.append((m, 0 if maybe(key) else 1 if key == hiding else SKIP_WEIGHT, None))
            elif isinstance(m, M.Military):
                military.append(m)
            elif isinstance(m, (M.MaskCeremony, M.Move, M.Trade, M.UseProgress)):
                continue  # built below from what the camera sees (hidden cards, the difference)
            elif isinstance(m, M.Ritual):
                out.append((m, 0, None))
                out += self._ritual_uses(st, p, m, open_keys)
            else:
                out.append((m, 0, None))
        if military:
            # turtle claims do not show on the table (W-TUR-6): one claim per category, as many and as high as
            # can be, stands for them all
            best = max(military, key=lambda m: (len(m.turtles), sum(int(t.rsplit("-", 1)[1]) for t in m.turtles)))
            out.append((best, 0, None))
            for tiles, edit in self._use_sets(st, p, TRIGGERED["military"]):
                out.append((M.Military(best.turtles, tiles), 1, edit))
        turned = f"{vb}/{PROGRESS_REGION}" in open_keys  # the tiles read differ: one may have been turned face down
        if "mask" in pending_kinds:
            out += self._mask_candidates(st, p, by_key)
            if turned:
                out += self._hidden_mask_uses(st, p, by_key)
        if "move" in pending_kinds:
            out += [(m, 0, None) for m in self._move_candidates(node, items)]
        if "trade" in pending_kinds:
            out += self._trade_candidates(node, items, pending_kinds)
            if turned:  # Extra exchange (W-PRG-L1-8) used with no exchange made: only its tile shows, turned face
                # down
                out += [(M.Trade(use=use), 1, e) for use, e in self._use_sets(st, p, {"W-PRG-L1-8"})]
        if st.players[p].progress:
            out += self._use_progress_candidates(node, items, by_key, open_keys)
        return out

    def _move_candidates(self, node: Node, items) -> list:
        st = node.state
        idx = board.pending_index(st.turn, "move")
        if idx is None:
            return []
        return [M.Move(steps) for steps in self._step_search(st, st.turn.pending[idx].n, items, M.Move)]

    def _step_search(self, st: State, budget: int, items, wrap) -> list[tuple]:
        """Step sequences (at most ``budget`` steps) for the current player that bring the map closest to the
        readings: a small beam search over single steps touching territories whose readings differ, each
        sequence checked as ``wrap(steps)`` (a Move, or a progress tile's steps)."""
        p = st.current
        mp = map_board(st.n)
        map_items = [(k, v, c) for k, v, c in items if k.startswith(mp + "/")]
        exp0 = map_readings(st)
        if not any(self.t.is_open(k, v, exp0) for k, v, _ in map_items):
            return []
        topo = self.ed.map_for(st.n)

        def map_cost(s):
            exp = map_readings(s)
            return sum(c for k, v, c in map_items if self.t.is_open(k, v, exp)), exp

        def territory_of(key):
            region = split_reading_key(key)[1]
            return region.split(".")[0]

        results = []
        frontier = [((), st, *map_cost(st))]
        seen = set()
        for _ in range(budget):
            nxt = []
            for steps, s, _cost, exp in frontier:
                differ = {territory_of(k) for k, v, _ in map_items if self.t.is_open(k, v, exp)}
                for step in self._step_options(s, p, topo, differ):
                    new = steps + (step,)
                    scratch = st.copy()
                    mv = wrap(new)
                    if rules.check(scratch, mv, self.ed):
                        continue
                    rules.apply(scratch, mv, self.ed, validate=False)
                    c, e = map_cost(scratch)
                    sig = hash(tuple(e.items()))
                    if sig in seen:
                        continue
                    seen.add(sig)
                    nxt.append((new, scratch, c, e))
            if not nxt:
                break
            nxt.sort(key=lambda x: (x[2], len(x[0])))
            results += nxt
            frontier = nxt[: self.t.move_beam]
            if frontier[0][2] == 0:
                break
        results.sort(key=lambda x: (x[2], len(x[0])))
        return [r[0] for r in results[:4]]

    def _step_options(self, s: State, p: int, topo, differ: set[str]) -> list:
        out = []
        for frm, t in s.territories.items():
            if t.guards[p] < 1:
                continue
            for to in (frm, *topo.neighbours[frm]):
                if frm not in differ and to not in differ:
                    continue
                d = s.territories[to]
                if d.home_of is not None and d.home_of != p:
                    continue
                if to != frm:
                    out.append(M.Step(frm, to, "guard"))
                if d.home_of is None:
                    for i, pa in enumerate(d.pas):
                        if pa.empty:
                            out.append(M.Step(frm, to, "outpost", pa=i))
                        elif pa.owner != p:
                            out.append(M.Step(frm, to, "attack_pa", pa=i))
                for q in range(s.n):
                    if q != p and d.guards[q] > 0:
                        out.append(M.Step(frm, to, "attack_guard", target=q))
        return out

    def _restore_candidates(self, st: State, items) -> list:
        p = st.current
        player = st.players[p]
        row0 = _row0_tiles(p, items)
        named = {k: v for k, (v, c) in row0.items() if c >= TILE_NAMED}
        if len(named) == 3 and all(v is None for v in named.values()):
            return []  # row 0 is still empty: this player has not restored yet
        # faces named surely fix the order; a weak read only ranks the choices (``TILE_EVIDENCE_CAP``)
        read = {k: v.split(":")[0] for k, v in named.items() if isinstance(v, str)}
        weak = any(c < TILE_NAMED for _, c in row0.values())
        out = []
        options = [(None, None)]
        takes = [t for t in st.display if t is not None] + player.set_aside
        # faces that differ by their id's level alone (A1-11 / A2-11) are told apart by one glyph: a face named
        # that no choice lays out, whose one twin a choice can, names the twin
        pool = set(player.below) | set(takes)
        for k, v in list(read.items()):
            twins = [] if v in pool else [t for t in pool if _level_twins(t, v)]
            if len(twins) == 1:
                read[k] = twins[0]
        options += [(a, t) for a in player.below for t in dict.fromkeys(takes)]
        for aside, take in options:
            tiles = list(player.below)
            if aside is not None:
                tiles.remove(aside)
                tiles.append(take)
            if Counter(read.values()) - Counter(tiles):
                continue  # a tile read in row 0 that this choice does not lay out
            # the new row in every order that agrees with the faces named (every order when faces were read only
            # weakly: their runner-ups rank them); none read at all: one order, named later by the tiles activated
            # there (``_tile_swaps``)
            orders = [o for o in dict.fromkeys(itertools.permutations(tiles)) if all(o[k] == t for k, t in read.items())] \
                if read or weak else [tuple(tiles)]
            out += [(M.Restore(aside, take, o), 0) for o in orders]
        return out

    def illegal_guess(self, best: Node, items):
        """(move, violation, player) for the difference read as a move that rules.check refuses, or None."""
        bases = [best]
        st = best.state
        if st.phase == "actions" and st.turn.placed is not None:
            nxt = st.copy()
            rules.apply(nxt, M.EndTurn(), self.ed)
            bases.append(self.t.node(nxt, best.moves + (M.EndTurn(),), items, 0, base=best.base))
        diffs_by_base = []
        for base in bases:
            s = base.state
            if s.phase != "actions":
                continue
            diffs = {k: v for k, v, c in self.t.differing(base, items, 0.0)}
            p = s.current
            vb = village_board(p)
            colour = s.players[p].colour
            # a new action marker
            for k in range(9):
                v = diffs.get(f"{vb}/slot.{k}")
                if v is not None and f"action_marker:{colour}" in dict(v) and k not in s.players[p].markers:
                    mv = M.Activate(slot_of(k))
                    viol = rules.check(s, mv, self.ed)
                    if viol:
                        return mv, viol[0], p
            # pieces that moved on the map
            mv = self._move_from_diff(s, p, diffs)
            if mv is not None:
                viol = rules.check(s, mv, self.ed)
                if viol and viol[0].rule == "W-TURN-1":
                    more: list = []
                    board.resolve_steps(board.MoveScope(s, scratch=True), p, mv.steps, 99, more, self.ed)
                    viol = more + viol
                if viol:
                    return mv, viol[0], p
            diffs_by_base.append(diffs)
        return None

    def _move_from_diff(self, s: State, p: int, diffs: dict) -> M.Move | None:
        """The Move the map difference looks like, adjacency ignored: guards that left a territory go to where
        p's pieces appeared or to the opponents they attacked."""
        mp = map_board(s.n)
        colours = [pl.colour for pl in s.players]
        exp = map_readings(s)
        sources, targets = [], []
        for key, seen in diffs.items():
            board, region, tile = split_reading_key(key)
            if board != mp or tile or not isinstance(seen, tuple):
                continue
            before = dict(exp.get(key, ()))
            after = dict(seen)
            if ".pa" in region:
                tid, pa = region.split(".pa")
                mine = f"warrior_lying:{colours[p]}"
                if after.get(mine) and not before.get(mine):
                    place = "outpost" if not before else "attack_pa"
                    targets.append((tid, place, int(pa), None))
                continue
            if region not in s.territories:
                continue
            g = f"warrior_standing:{colours[p]}"
            change = after.get(g, 0) - before.get(g, 0)
            sources += [region] * max(0, -change)
            targets += [(region, "guard", None, None)] * max(0, change)
            for q in range(s.n):
                if q != p:
                    k = f"warrior_standing:{colours[q]}"
                    lost = before.get(k, 0) - after.get(k, 0)
                    targets += [(region, "attack_guard", None, q)] * max(0, lost)
        if not targets:
            return None
        steps = []
        fallback = [t for t, terr in s.territories.items() if terr.guards[p] > 0]
        topo = self.ed.map_for(s.n)
        for to, place, pa, target in targets:
            pool = list(sources) or fallback
            if place == "guard":  # a guard that appeared in a territory came from another one
                pool = [x for x in pool if x != to]
            if not pool:
                continue
            frm = next((x for x in pool if to in topo.neighbours[x] or x == to), pool[0])
            if frm in sources:
                sources.remove(frm)
            steps.append(M.Step(frm, to, place, pa, target))
        if not steps:
            return None
        return M.Move(tuple(steps))


def _open_actions(state: State) -> int:
    """The printed actions of the tile placed this turn still open (in any order too, once Free order is used:
    W-PRG-L1-3 takes each action done out of ``pending``)."""
    t = state.turn
    return len(t.pending) - t.cursor if t is not None and t.placed == "tile" else 0


def player_runs(states: list, moves: list):
    """(player, start, end, track change) for each run of consecutive moves by the same player, where
    ``states[k]`` is the state before ``moves[k]`` (and ``states[-1]`` the state after the last move)."""
    i = 0
    while i < len(moves):
        p = states[i].current
        j = i
        while j < len(moves) and states[j].current == p:
            j += 1
        change = {} if p is None else {t: states[j].players[p].tracks[t] - states[i].players[p].tracks[t]
                                       for t in TRACKS if states[j].players[p].tracks[t] != states[i].players[p].tracks[t]}
        yield p, i, j, change
        i = j


def _level_twins(a: str, b: str) -> bool:
    """Whether two village tiles' ids differ by their level alone (``A1-11`` / ``A2-11``)."""
    pa, pb = a.split("-", 1), b.split("-", 1)
    return (a != b and len(pa) == len(pb) == 2 and pa[1] == pb[1] and pa[0][:1] == pb[0][:1] == "A")


def _fmt(v) -> str:
    if v is None:
        return "nothing"
    if isinstance(v, str):
        return v
    if not v:
        return "nothing"
    return ", ".join(piece_words(k, n) for k, n in v)


def _put_back(key: str, expected, seen) -> dict:
    board, region, tile = split_reading_key(key)
    fix = "put the tile back" if tile else "turn or put the tiles back on its progress spaces" \
        if region == PROGRESS_REGION else "put the pieces back"
    return {"key": key, "board": board, "region": region + ("#tile" if tile else ""),
            "expected": _json_value(expected), "seen": _json_value(seen),
            "text": f"{board} {region}{' tile' if tile else ''}: should hold {_fmt(expected)}, holds {_fmt(seen)} ({fix})"}


def _json_value(v):
    return {k: n for k, n in v} if isinstance(v, tuple) else v
