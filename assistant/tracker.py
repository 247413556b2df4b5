"""The move tracker: explains each settled Observation of the table as legal Wendake moves, or raises an alert.

Owns the search (which legal move sequence explains what the camera read), the alert life cycle, and the typed
events it emits. It holds the engine :class:`State`; the state only ever changes through ``rules.apply`` with
validation on, so an illegal move is never accepted.

How an observation is explained (see docs/tracker.md):

1. The readings present are compared with ``view.expected_readings`` of a candidate state. An absent key is
   unknown, never empty. A disagreeing reading costs its confidence. Score-track readings are ambiguous (only the
   top disk of a stack shows): they agree when the colour seen is among the disks there
   (``view.score_reading_agrees``) and are kept in a separate cost, used to choose between candidates and to
   raise ``ScoreMismatch``, never to reject a move.
2. A beam search over move sequences from the current state: at each node the legal moves
   (``generate.legal_moves`` with no samples) filtered to those that could explain a difference still open,
   plus Move candidates built from the map difference (a small step search), Trade candidates built from the
   resource difference and Restore candidates taking the tile order read off the grid. Hidden outcomes (a drawn
   mask card, a turtle tile) are left to the engine (``None`` parameters), as the engine does.
3. The best node (lowest cost, then score cost, then fewest moves) is accepted when its cost is below
   ``accept_cost`` and no disagreeing reading is confident (``alert_confidence``): one low-confidence wrong
   reading does not raise an alert. A mid-turn observation is accepted as partial progress. When the best
   candidates differ in what the table would show and some boards were not read, the tracker waits for a later
   observation; when all were read, it accepts the best and emits ``NeedsConfirmation``.
4. Nothing explains it: the difference is turned into the move it looks like (a new action marker ->
   ``Activate``, pieces that left one territory and appeared in another -> ``Move``) and ``rules.check`` names the
   rule broken (``IllegalMove``), else ``TableOutOfSync`` lists what differs. The alert stays until the table
   matches a reachable state again (``AlertCleared``) or a correction is made.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from dataclasses import asdict, dataclass, field

from assistant.observation import Observation, split_key, split_reading_key
from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.describe import describe
from assistant.wendake.edition import load_edition
from assistant.wendake.generate import legal_moves, unaccounted_cards
from assistant.wendake.state import RESOURCES, TRACKS, VEGETABLES, State, slot_of
from assistant.wendake.view import (
    SCORE_BOARDS, expected_readings, is_score_key, map_board, map_readings, score_colours, score_reading_agrees,
    village_board,
)

SCORE_RULE = "W-SCR-6"  # where points come from: a score disk must show what the engine computed


# ---- events ---------------------------------------------------------------------------------------------------
@dataclass
class Event:
    """Base of the tracker's events; ``kind`` is the class name, ``to_json`` the payload stored in the log."""

    @property
    def kind(self) -> str:
        return type(self).__name__

    def to_json(self) -> dict:
        return {"kind": self.kind, **asdict(self)}


@dataclass
class MoveRecognized(Event):
    player: int | None
    name: str | None
    moves: list[dict]  # move JSON, in order
    texts: list[str]  # plain-language lines
    score_change: dict[str, int]  # track -> points gained by that player (non-zero only)
    year: int
    cost: float = 0.0  # confidence mass of the readings that disagreed (noise tolerated)
    ignored: list[str] = field(default_factory=list)  # reading keys that disagreed but were tolerated


@dataclass
class IllegalMove(Event):
    alert_id: int
    rule: str
    message: str
    fix: str | None
    player: int | None
    looks_like: dict | None  # the move the difference looks like (move JSON)
    put_back: list[dict]  # {"key", "board", "region", "expected", "seen", "text"}


@dataclass
class NeedsConfirmation(Event):
    alert_id: int
    candidates: list[dict]  # {"index", "moves": [move JSON], "texts": [...], "cost"} best first; 0 was accepted
    message: str = "The table can be explained in more than one way; please confirm what happened."


@dataclass
class ScoreMismatch(Event):
    alert_id: int
    rule: str
    player: int
    name: str
    track: str
    expected: int
    seen: int | None  # the space where the disk was seen, None when it was not seen anywhere
    message: str
    fix: str


@dataclass
class TableOutOfSync(Event):
    alert_id: int
    message: str
    differences: list[dict]  # as IllegalMove.put_back


@dataclass
class AlertCleared(Event):
    alert_id: int
    alert_kind: str
    reason: str


@dataclass
class Correction(Event):
    action: str  # "undo" | "correct" | "confirm"
    removed: list[dict]  # move JSON taken back
    added: list[dict]  # move JSON played
    message: str


EVENT_TYPES = {cls.__name__: cls for cls in (MoveRecognized, IllegalMove, NeedsConfirmation, ScoreMismatch,
                                             TableOutOfSync, AlertCleared, Correction)}


def event_from_json(d: dict) -> Event:
    cls = EVENT_TYPES[d["kind"]]
    return cls(**{k: v for k, v in d.items() if k != "kind"})


# ---- search nodes ---------------------------------------------------------------------------------------------
@dataclass
class _Node:
    state: State
    moves: tuple
    exp: dict
    cost: float  # disagreement of the non-score readings
    score_cost: float  # disagreement of the score readings
    worst: float  # the highest confidence among disagreeing non-score readings
    pref: int  # policy rank among moves that look alike (lower is preferred)

    def key(self):
        return (round(self.cost, 6), round(self.score_cost, 6), len(self.moves), self.pref)


class Tracker:
    """Holds the game state and explains observations. Not thread-safe by itself (GameSession locks)."""

    def __init__(self, state: State, edition=None, beam: int = 10, max_depth: int = 14,
                 accept_cost: float = 1.0, alert_confidence: float = 0.6, move_beam: int = 12):
        self.ed = edition or load_edition()
        self.initial = state.copy()
        self.state = state.copy()
        self.moves: list = []
        self.groups: list[int] = []  # sizes of the accepted move groups (undo takes back the last)
        self.beam, self.max_depth = beam, max_depth
        self.accept_cost, self.alert_confidence = accept_cost, alert_confidence
        self.move_beam = move_beam
        self.alerts: dict[int, Event] = {}  # active alerts by id
        self.next_alert = 1
        self.last_candidates: list[_Node] = []  # the ranked alternatives of the last NeedsConfirmation
        self.stats = Counter()

    # ---- public API --------------------------------------------------------------------------------------------
    def observe(self, obs: Observation) -> list[Event]:
        t0 = time.perf_counter()
        items = [(k, r.value, r.confidence) for k, r in obs.readings.items()]
        self._last_items = {k: v for k, v, _ in items}
        root = self._node(self.state, (), items, 0)
        if root.cost == 0:
            nodes = [root]
        else:
            nodes = self._search(root, items)
        best = min(nodes, key=_Node.key)
        events: list[Event] = []
        self.stats["observations"] += 1
        if best.cost < self.accept_cost and best.worst < self.alert_confidence:
            ties = [n for n in nodes if n.moves != best.moves and abs(n.cost - best.cost) < 1e-9
                    and abs(n.score_cost - best.score_cost) < 1e-9]
            distinct = self._visibly_different(best, ties)
            if distinct and best.moves and (obs.boards_unread or self._unread_matters(best, distinct, items)):
                self.stats["deferred"] += 1
                return events  # wait for a fuller look before choosing
            events += self._clear_alerts(("IllegalMove", "TableOutOfSync"), "the table matches a legal position again")
            if best.moves:
                events += self._accept(best)
                if distinct:
                    cands = [best] + distinct[:4]
                    self.last_candidates = cands
                    events.append(self._alert(NeedsConfirmation(0, [self._candidate_json(i, n) for i, n in enumerate(cands)])))
            events += self._check_scores(items)
        else:
            events += self._explain_failure(best, items)
        self.stats["search_s"] += time.perf_counter() - t0
        return events

    def apply_moves(self, moves) -> None:
        """Play moves (checked) and record them as one group, as a correction or a replayed log does."""
        for m in moves:
            rules.apply(self.state, m, self.ed)
            self.moves.append(m)
        if moves:
            self.groups.append(len(moves))

    def undo(self) -> Correction:
        if not self.groups:
            return Correction("undo", [], [], "nothing to undo")
        k = self.groups.pop()
        removed = self.moves[-k:]
        self.moves = self.moves[:-k]
        self._rebuild()
        self.last_candidates = []
        return Correction("undo", [M.move_to_json(m) for m in removed], [], f"took back {k} move(s)")

    def correct(self, moves) -> list[Event]:
        """"This is what happened": play ``moves`` (objects or JSON) from the current state; clears alerts."""
        moves = [m if not isinstance(m, dict) else M.move_from_json(m) for m in moves]
        scratch = self.state.copy()
        for m in moves:
            v = rules.check(scratch, m, self.ed)
            if v:
                raise rules.IllegalMoveError(v)
            rules.apply(scratch, m, self.ed, validate=False)
        self.apply_moves(moves)
        ev: list[Event] = [Correction("correct", [], [M.move_to_json(m) for m in moves], f"{len(moves)} move(s) entered by hand")]
        return ev + self._clear_alerts(None, "corrected by hand")

    def confirm(self, index: int) -> list[Event]:
        """Choose candidate ``index`` of the last NeedsConfirmation (0 = the one accepted)."""
        if not self.last_candidates or not 0 <= index < len(self.last_candidates):
            raise IndexError(f"no candidate {index} to confirm")
        chosen = self.last_candidates[index]
        accepted = self.last_candidates[0]
        k = len(accepted.moves)
        removed, added = [], []
        if index != 0 and self.moves[-k:] == list(accepted.moves):
            self.groups.pop()
            removed = self.moves[-k:]
            self.moves = self.moves[:-k]
            self._rebuild()
            self.apply_moves(list(chosen.moves))
            added = list(chosen.moves)
        self.last_candidates = []
        ev: list[Event] = [Correction("confirm", [M.move_to_json(m) for m in removed], [M.move_to_json(m) for m in added],
                                      f"candidate {index} confirmed")]
        return ev + self._clear_alerts(("NeedsConfirmation",), "confirmed")

    def _rebuild(self) -> None:
        self.state = self.initial.copy()
        for m in self.moves:
            rules.apply(self.state, m, self.ed, validate=False)

    # ---- alerts --------------------------------------------------------------------------------------------------
    def _alert(self, ev):
        ev.alert_id = self.next_alert
        self.next_alert += 1
        self.alerts[ev.alert_id] = ev
        self.stats["alerts"] += 1
        return ev

    def _clear_alerts(self, kinds, reason: str, keep=()) -> list[Event]:
        out = []
        for aid, ev in list(self.alerts.items()):
            if (kinds is None or ev.kind in kinds) and aid not in keep:
                del self.alerts[aid]
                out.append(AlertCleared(aid, ev.kind, reason))
        return out

    # ---- scoring a candidate -----------------------------------------------------------------------------------
    def _node(self, state: State, moves: tuple, items, pref: int, exp=None) -> _Node:
        exp = expected_readings(state) if exp is None else exp
        cost = score_cost = worst = 0.0
        colours = None
        for key, value, conf in items:
            if key not in exp:
                continue
            if is_score_key(key):
                if colours is None:
                    colours = score_colours(state)
                if not score_reading_agrees(value, colours[key]):
                    score_cost += conf
            elif exp[key] != value:
                cost += conf
                worst = max(worst, conf)
        return _Node(state, moves, exp, cost, score_cost, worst, pref)

    def _differing(self, node: _Node, items, min_conf: float = 0.0) -> list[tuple[str, object, float]]:
        return [(k, v, c) for k, v, c in items if k in node.exp and not is_score_key(k) and node.exp[k] != v and c >= min_conf]

    # ---- the search ----------------------------------------------------------------------------------------------
    def _search(self, root: _Node, items) -> list[_Node]:
        frontier = [root]
        seen = {self._sig(root)}
        every = [root]
        found_perfect = False
        for depth in range(self.max_depth):
            children = []
            for node in frontier:
                for move, pref in self._candidates(node, items):
                    st = node.state.copy()
                    try:
                        rules.apply(st, move, self.ed)
                    except rules.IllegalMoveError:
                        continue
                    child = self._node(st, node.moves + (move,), items, node.pref + pref)
                    sig = self._sig(child)
                    if sig in seen:
                        continue
                    seen.add(sig)
                    children.append(child)
            if not children:
                break
            children.sort(key=_Node.key)
            every += children
            if found_perfect:
                break
            if any(c.cost == 0 and c.score_cost == 0 for c in children):
                found_perfect = True  # finish nothing deeper: a longer sequence cannot be better
                break
            # keep the best of each phase: the end of a year explains a lot at once and must not crowd out
            # the deeper sequences that finish the turn first
            frontier = []
            for phase in ("actions", "restore", "over"):
                frontier += [c for c in children if c.state.phase == phase][: self.beam]
        self.stats["nodes"] += len(every)
        return every

    @staticmethod
    def _sig(node: _Node):
        s = node.state
        t = s.turn
        turn = None if t is None else (t.player, t.placed, t.slot, t.cursor, tuple((a.kind, a.n) for a in t.pending))
        return (hash(tuple(node.exp.items())), s.phase, s.current, turn, tuple(tuple(p.tracks.values()) for p in s.players),
                tuple(len(p.turtles) for p in s.players), tuple(len(p.hand) for p in s.players))

    def _candidates(self, node: _Node, items):
        """(move, preference) pairs worth trying from ``node``: legal moves that could explain an open
        difference, plus moves built from the difference (Move, Trade, Restore)."""
        st = node.state
        if st.phase == "over":
            return []
        open_keys = {k for k, v, c in items if k in node.exp and node.exp[k] != v}
        present = {k for k, _, _ in items}
        p = st.current
        vb = village_board(p)
        mp = map_board(st.n)
        out = []

        by_key = {k: v for k, v, _ in items}
        colour = st.players[p].colour
        year_may_end = sum(pl.sages for pl in st.players) <= 1  # this placement may be the year's last

        def maybe(key):  # the reading at key differs, or was not read at all
            return key in open_keys or key not in present

        def shows(key, piece):  # the reading at key holds that piece, or was not read at all
            v = by_key.get(key, "absent")
            return v == "absent" or (isinstance(v, tuple) and piece in dict(v))

        if st.phase == "restore":
            return self._restore_candidates(st, items)
        pending_kinds = []
        if st.turn.placed == "tile":
            pending_kinds = [a.kind for a in st.turn.pending[st.turn.cursor:]]
        exp = node.exp
        for m in legal_moves(st, samples=0, edition=self.ed):
            if isinstance(m, M.Activate):
                if year_may_end or shows(f"{vb}/slot.{m.slot[0] * 3 + m.slot[1]}", f"action_marker:{colour}"):
                    out.append((m, 0))
            elif isinstance(m, M.ReserveTurnOrder):
                if year_may_end or shows(f"wendake-mask/turn_order.{len(st.turn_order_track) + 1}", f"tribe_disk:{colour}"):
                    out.append((m, 0))
            elif isinstance(m, M.Swap):
                ka, kb = (f"{vb}/slot.{x[0] * 3 + x[1]}#tile" for x in (m.a, m.b))
                if (ka in present or kb in present) and by_key.get(ka, exp[kb]) == exp[kb] and by_key.get(kb, exp[ka]) == exp[ka]:
                    out.append((m, 0))
            elif isinstance(m, M.Transfer):
                if maybe(f"{mp}/{m.territory}.pa{m.pa}"):
                    out.append((m, 0))
            elif isinstance(m, M.Canoe):
                if maybe(f"{mp}/{m.lake}"):
                    out.append((m, 0))
            elif isinstance(m, M.Military):
                levels = sum(int(t.rsplit("-", 1)[1]) for t in m.turtles)
                out.append((m, 20 - len(m.turtles) * 5 - levels // 3))  # claim what can be claimed (not visible)
            elif isinstance(m, M.MaskCeremony):
                out.append((m, 0 if m.source == "deck" else 1))
            elif isinstance(m, (M.Move, M.Trade)):
                if not getattr(m, "steps", ()) and not getattr(m, "exchanges", ()) and not getattr(m, "points", ()):
                    continue  # an empty Move/Trade changes nothing: skipping the action is the same
            else:
                out.append((m, 0))
        if "move" in pending_kinds:
            out += [(m, 0) for m in self._move_candidates(node, items)]
        if "trade" in pending_kinds:
            out += [(m, 0) for m in self._trade_candidates(node, items, pending_kinds)]
        return out

    # ---- Move candidates from the map difference --------------------------------------------------------------
    def _move_candidates(self, node: _Node, items) -> list:
        st = node.state
        p = st.current
        turn = st.turn
        idx = rules._pending_index(turn, "move")
        if idx is None:
            return []
        budget = turn.pending[idx].n
        mp = map_board(st.n)
        map_items = [(k, v, c) for k, v, c in items if k.startswith(mp + "/")]
        if not any(node.exp.get(k) != v for k, v, _ in map_items if k in node.exp):
            return []
        topo = self.ed.map_for(st.n)

        def map_cost(s):
            exp = map_readings(s)
            return sum(c for k, v, c in map_items if k in exp and exp[k] != v), exp

        def territory_of(key):
            region = split_reading_key(key)[1]
            return region.split(".")[0]

        results = []
        frontier = [((), st, *map_cost(st))]
        seen = set()
        for _ in range(budget):
            nxt = []
            for steps, s, cost, exp in frontier:
                differ = {territory_of(k) for k, v, _ in map_items if k in exp and exp[k] != v}
                for step in self._step_options(s, p, topo, differ):
                    new = steps + (step,)
                    scratch = st.copy()
                    mv = M.Move(new)
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
            frontier = nxt[: self.move_beam]
            if frontier[0][2] == 0:
                break
        results.sort(key=lambda x: (x[2], len(x[0])))
        return [M.Move(r[0]) for r in results[:4]]

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

    # ---- Trade candidates from the resource difference ----------------------------------------------------------
    def _trade_candidates(self, node: _Node, items, pending_kinds) -> list:
        st = node.state
        p = st.current
        player = st.players[p]
        vb = village_board(p)
        seen_res = {}
        by_key = {k: v for k, v, _ in items}
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
        purchases = [None]
        for level, row in st.progress_rows.items():
            price = self.ed.prices[level]
            veg_sets = (itertools.combinations(VEGETABLES, price["vegetables"]) if price["different_vegetables"]
                        else [tuple([v] * price["vegetables"]) for v in VEGETABLES])
            for vegs in veg_sets:
                pay = ("leather",) * price["leather"] + ("fish",) * price["fish"] + tuple(vegs)
                for tile in dict.fromkeys(row):
                    purchases.append((tile, pay))
        point_sets = [tuple(c) for k in range(len(RESOURCES) + 1) for c in itertools.combinations(RESOURCES, k)]
        scored = []
        for purchase in purchases:
            spend = Counter(purchase[1]) if purchase else Counter()
            for pts in point_sets:
                spent = spend + Counter(pts)
                for target in targets:
                    # exchanges make up the rest: gets - gives = target + spent
                    need = {r: target.get(r, 0) + spent[r] if r in target else None for r in RESOURCES}
                    gives, gets, miss = [], [], 0
                    for r, x in need.items():
                        if x is None:
                            continue
                        if x > 0:
                            gets += [r] * x
                        elif x < 0:
                            gives += [r] * (-x)
                    if len(gives) != len(gets):
                        miss = abs(len(gives) - len(gets))
                        k = min(len(gives), len(gets))
                        gives, gets = gives[:k], gets[:k]
                    if len(gives) > canoes:
                        continue
                    scored.append((miss, len(gives) + len(pts), purchase, pts, tuple(zip(gives, gets))))
        scored.sort(key=lambda x: (x[0], x[1]))
        out = []
        seen = set()
        for miss, _, purchase, pts, exchanges in scored:
            if (len(out) >= 8 and miss > 0) or len(out) >= 40 or miss > 2:
                break
            if (purchase, pts, exchanges) in seen:
                continue
            seen.add((purchase, pts, exchanges))
            for trade in self._trade_variants(st, p, purchase, pts, exchanges, items):
                if not rules.check(st, trade, self.ed):
                    out.append(trade)
        return out

    def _trade_variants(self, st: State, p: int, purchase, pts, exchanges, items) -> list:
        buys = [()]
        if purchase:
            tile, pay = purchase
            prog = self.ed.progress[tile]
            options = rules.purchase_track_options(st.players[p].tracks, prog.category, prog.economic, self.ed.cap)
            buys = [(M.Purchase(tile, pay, t if len(options) > 1 else None),) for t in options]
        card = None
        victims = [None]
        if exchanges:
            top = st.mask_deck[-1] if st.mask_deck else None
            if top is None:  # an unknown deck: name a card for each outcome
                pool = unaccounted_cards(st, self.ed)
                infected = [c for c in pool if self.ed.mask_cards[c].infected]
                clean = [c for c in pool if not self.ed.mask_cards[c].infected]
                variants = []
                for buy in buys:
                    if clean:
                        variants.append(M.Trade(exchanges, clean[0], None, buy, pts))
                    if infected:
                        variants += [M.Trade(exchanges, infected[0], v, buy, pts) for v in self._victims(st, p, items)]
                return variants
            if self.ed.mask_cards[top].infected:
                victims = self._victims(st, p, items) or [None]
        return [M.Trade(exchanges, card, v, buy, pts) for buy in buys for v in victims]

    def _victims(self, st: State, p: int, items) -> list:
        """Smallpox victims that agree with the map: p's natives whose region now reads differently."""
        exp = map_readings(st)
        differ = {split_reading_key(k)[1] for k, v, _ in items if k in exp and exp[k] != v}
        out = []
        for tid, t in st.territories.items():
            if st.options.smallpox_from_home_only and t.home_of != p:
                continue
            if t.guards[p] and tid in differ:
                out.append(M.Victim(tid))
            for i, pa in enumerate(t.pas):
                if pa.owner == p and pa.count > 0 and f"{tid}.pa{i}" in differ:
                    out.append(M.Victim(tid, i))
        if not out:  # a Home stack that shrank still shows one piece: any of p's stacks may be the victim
            for tid, t in st.territories.items():
                if t.home_of == p:
                    out += [M.Victim(tid, i) for i, pa in enumerate(t.pas) if pa.owner == p and pa.count > 1]
        return out

    # ---- Restore candidates -------------------------------------------------------------------------------------
    def _restore_candidates(self, st: State, items) -> list:
        p = st.current
        player = st.players[p]
        vb = village_board(p)
        by_key = {k: v for k, v, _ in items}
        seen = [by_key.get(f"{vb}/slot.{k}#tile") for k in range(3)]
        order = tuple(v.split(":")[0] for v in seen) if all(isinstance(v, str) for v in seen) else None
        if all(f"{vb}/slot.{k}#tile" in by_key and seen[k] is None for k in range(3)):
            return []  # row 0 is still empty: this player has not restored yet
        out = []
        options = [(None, None)]
        takes = [t for t in st.display if t is not None] + player.set_aside
        options += [(a, t) for a in player.below for t in dict.fromkeys(takes)]
        for aside, take in options:
            tiles = list(player.below)
            if aside is not None:
                tiles.remove(aside)
                tiles.append(take)
            if order is not None:
                if sorted(order) != sorted(tiles):
                    continue
                out.append((M.Restore(aside, take, order), 0))
            else:
                out.append((M.Restore(aside, take, tuple(tiles)), 0))
        return out

    # ---- acceptance ---------------------------------------------------------------------------------------------
    def _visibly_different(self, best: _Node, ties: list[_Node]) -> list[_Node]:
        """The tied candidates that would show differently on the table (exact score values included)."""
        out, sigs = [], {self._visible(best)}
        for n in sorted(ties, key=_Node.key):
            s = self._visible(n)
            if s not in sigs:
                sigs.add(s)
                out.append(n)
        return out

    @staticmethod
    def _visible(node: _Node):
        return (hash(tuple(node.exp.items())), tuple(tuple(p.tracks.values()) for p in node.state.players))

    @staticmethod
    def _unread_matters(best: _Node, others: list[_Node], items) -> bool:
        present = {k for k, _, _ in items}
        for n in others:
            for k, v in n.exp.items():
                if best.exp.get(k) != v and k not in present:
                    return True
        return False

    def _accept(self, node: _Node) -> list[Event]:
        events = []
        before = self.state
        run: list = []
        prev = before.copy()
        states = [prev]
        for m in node.moves:
            nxt = states[-1].copy()
            rules.apply(nxt, m, self.ed)
            states.append(nxt)
        # one MoveRecognized per run of moves by the same player
        i = 0
        while i < len(node.moves):
            player = states[i].current
            j = i
            while j < len(node.moves) and states[j].current == player:
                j += 1
            run = node.moves[i:j]
            texts = [describe(states[k], node.moves[k], states[k + 1]) for k in range(i, j)]
            change = {} if player is None else {t: states[j].players[player].tracks[t] - states[i].players[player].tracks[t]
                                                for t in TRACKS if states[j].players[player].tracks[t] != states[i].players[player].tracks[t]}
            ignored = sorted(k for k, v in node.exp.items() if k in self._last_items and self._last_items[k] != v
                             and not is_score_key(k))
            events.append(MoveRecognized(player, None if player is None else states[i].players[player].name,
                                         [M.move_to_json(m) for m in run], texts, change, states[i].year,
                                         round(node.cost, 4), ignored))
            i = j
        self.apply_moves(list(node.moves))
        self.stats["moves"] += len(node.moves)
        return events

    def _candidate_json(self, i: int, node: _Node) -> dict:
        return {"index": i, "moves": [M.move_to_json(m) for m in node.moves],
                "texts": [_short(m) for m in node.moves], "cost": round(node.cost + node.score_cost, 4)}

    # ---- score disks ---------------------------------------------------------------------------------------------
    def _check_scores(self, items) -> list[Event]:
        st = self.state
        colours = score_colours(st)
        by_colour = {p.colour: i for i, p in enumerate(st.players)}
        wrong: dict[tuple[int, str], int | None] = {}
        for key, value, conf in items:
            if not is_score_key(key) or conf < self.alert_confidence or key not in colours:
                continue
            if score_reading_agrees(value, colours[key]):
                continue
            board, region, _ = split_reading_key(key)
            row, v = region.split(".")
            track = st.pairs[SCORE_BOARDS.index(board)][0 if row == "upper" else 1]
            if value:
                colour = split_key(value[0][0])[1]
                if colour in by_colour:
                    wrong[(by_colour[colour], track)] = int(v)
            for q in range(st.n):  # a space that should show a disk reads empty or another colour
                if min(25, st.players[q].tracks[track]) == int(v) and st.players[q].colour not in _colours_of(value):
                    wrong.setdefault((q, track), None)
        active = {(ev.player, ev.track): aid for aid, ev in self.alerts.items() if isinstance(ev, ScoreMismatch)}
        events: list[Event] = []
        for (q, track), aid in active.items():
            if (q, track) not in wrong:
                events += self._clear_alerts(("ScoreMismatch",), f"{st.players[q].name}'s {track} disk is right again",
                                             keep=[a for a in self.alerts if a != aid])
        for (q, track), seen in wrong.items():
            if (q, track) in active:
                continue
            pl = st.players[q]
            expected = min(25, pl.tracks[track])
            # a disk not seen on its space may just be under another disk only if someone else is there too
            if seen is None:
                others = [r for r in range(st.n) if r != q and min(25, st.players[r].tracks[track]) == expected]
                if others:
                    continue
            where = f"on {seen}" if seen is not None else "not where it should be"
            events.append(self._alert(ScoreMismatch(
                0, SCORE_RULE, q, pl.name, track, expected, seen,
                f"{pl.name}'s {track} disk is {where}; the engine counts {expected} {track} point(s) for {pl.colour} (W-SCR-6).",
                f"Move the {pl.colour} disk on the {track} track to {expected}.")))
        return events

    # ---- nothing explains it ---------------------------------------------------------------------------------------
    def _explain_failure(self, best: _Node, items) -> list[Event]:
        diffs = self._differing(best, items, 0.0)
        put_back = [_put_back(k, best.exp[k], v) for k, v, c in diffs if c >= self.alert_confidence or len(diffs) <= 3]
        signature = frozenset((k, _freeze(v)) for k, v, c in diffs)
        for ev in self.alerts.values():
            if isinstance(ev, (IllegalMove, TableOutOfSync)) and getattr(ev, "_sig", None) == signature:
                return []  # the same difference as the alert already shown
        events = self._clear_alerts(("IllegalMove", "TableOutOfSync"), "superseded by a new difference")
        guess = self._illegal_guess(best, items)
        if guess is not None:
            move, violation, player = guess
            ev = IllegalMove(0, violation.rule, violation.message, violation.fix, player, M.move_to_json(move), put_back)
            self.stats["illegal"] += 1
        else:
            ev = TableOutOfSync(0, "The table does not match any legal continuation of the game: "
                                + "; ".join(d["text"] for d in put_back[:4]) + ". Put the pieces back, or enter what happened.",
                                put_back)
            self.stats["out_of_sync"] += 1
        ev = self._alert(ev)
        ev._sig = signature
        return events + [ev]

    def _illegal_guess(self, best: _Node, items):
        """(move, violation, player) for the difference read as a move that rules.check refuses, or None."""
        bases = [best]
        st = best.state
        if st.phase == "actions" and st.turn.placed is not None:
            nxt = st.copy()
            rules.apply(nxt, M.EndTurn(), self.ed)
            bases.append(self._node(nxt, best.moves + (M.EndTurn(),), items, 0))
        diffs_by_base = []
        for base in bases:
            s = base.state
            if s.phase != "actions":
                continue
            diffs = {k: v for k, v, c in self._differing(base, items, 0.0)}
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
                    rules._resolve_steps(rules._View(s, scratch=True), p, mv.steps, 99, more, self.ed)
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
        pool = sources or [t for t, terr in s.territories.items() if terr.guards[p] > 0]
        if not pool:
            return None
        topo = self.ed.map_for(s.n)
        for to, place, pa, target in targets:
            frm = next((x for x in pool if to in topo.neighbours[x] or x == to), pool[0])
            if frm in sources:
                sources.remove(frm)
                pool = sources or pool
            steps.append(M.Step(frm, to, place, pa, target))
        return M.Move(tuple(steps))


def _colours_of(value) -> set[str]:
    return {split_key(k)[1] for k, _ in value} if isinstance(value, tuple) else set()


def _freeze(v):
    return v if not isinstance(v, list) else tuple(v)


def _fmt(v) -> str:
    if v is None:
        return "nothing"
    if isinstance(v, str):
        return v
    if not v:
        return "nothing"
    parts = []
    for k, n in v:
        cls, colour, side = split_key(k)
        name = cls.replace("_", " ")
        parts.append(f"{n} {'' if colour == 'none' else colour + ' '}{name}" + (f" ({side} side)" if side else ""))
    return ", ".join(parts)


def _put_back(key: str, expected, seen) -> dict:
    board, region, tile = split_reading_key(key)
    what = "the tile" if tile else "the pieces"
    return {"key": key, "board": board, "region": region + ("#tile" if tile else ""),
            "expected": _json_value(expected), "seen": _json_value(seen),
            "text": f"{board} {region}{' tile' if tile else ''}: should hold {_fmt(expected)}, holds {_fmt(seen)} (put {what} back)"}


def _json_value(v):
    return {k: n for k, n in v} if isinstance(v, tuple) else v


def _short(m) -> str:
    d = M.move_to_json(m)
    return d["type"] + "(" + ", ".join(f"{k}={v}" for k, v in d.items() if k != "type" and v not in (None, [], ())) + ")"
