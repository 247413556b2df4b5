"""The kept alternatives and re-reads: recovering when an earlier look was explained wrongly.

Alternatives: lines that explained a look exactly as well as the accepted one and looked the same on the table,
but differ in hidden things (``Explainer.hidden``), are kept (``Alternative``) with the looks since they split.
When the accepted line no longer explains the table (or its score disks), each is replayed over those looks and
the look now; one that explains them all, and this look better, replaces the accepted moves from its split
(``Correction("switch")``). Re-reads: a look nothing explains searches again from before each of the last looks
that added moves (``Tracker.looks``); a line that explains this look and, through its own positions, every look
since replaces the moves from there. Both searches are speculative: at most ``SPECULATIVE_NODES`` nodes each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.table.events import Event
from assistant.table.evidence import Look, Node, one_piece_off, reading_error
from assistant.table.observation import camera_reads

BACKTRACK_LOOKS = 4  # accepted looks an unexplained look may re-read (``_try_backtrack``)
BACKTRACK_FIRST = 2  # ... of which the first unexplained look re-reads
BACKTRACK_TRIES = 3  # unexplained looks in a row that try it
# re-reads run on at most REREAD_LOOKS of the last REREAD_WINDOW looks (``may_reread``): a table the tracker keeps
# losing (a foreign table read badly) would re-read at nearly every look, seconds each; the e2e games re-read on at
# most 2 of any 20 looks (docs/tracker.md)
REREAD_WINDOW = 20
REREAD_LOOKS = 4
REREAD_BEAM = 4  # lines a look-by-look re-read keeps after each look (``_reread``)
REREAD_NODES = 800  # nodes a look-by-look re-read may visit (``_reread``)
# Nodes a speculative search may visit: a re-read from before an earlier look (``_try_backtrack``) or a kept
# alternative's search (``_try_alternatives``); the search stops once it reaches this many (docs/tracker.md)
SPECULATIVE_NODES = 400
# An alternative whose score values differ from the accepted line's (a disk hidden under another) is kept this
# many looks, apart from the others (``Tracker.max_alts`` within ``alt_horizon``), at most SCORE_ALTS of them: the
# hidden disk shows only once the disk on top of it moves on (docs/tracker.md)
SCORE_ALT_HORIZON = 120
SCORE_ALTS = 2


@dataclass
class Alternative:
    """An alternative line kept across observations: from move ``at`` of the committed log, ``moves`` (with
    ``edits``: (index into moves, edit)) explained the observation where the lines split as well as the committed
    ones did, and the table looked the same, but hidden things differ (a score value under another disk, an
    action whose effect does not show). ``obs`` counts the observations seen since the split."""

    at: int
    moves: tuple
    edits: tuple
    state: object
    born: int  # index into Tracker._history of the first observation after the split
    # the line replayed so far (``Tracker._try_alternatives``): over the first ``done`` observations since the
    # split, to ``now`` with ``line`` moves and ``line_edits``; ``dead`` once one of them was not explained
    done: int = 0
    now: object = None
    line: list = field(default_factory=list)
    line_edits: list = field(default_factory=list)
    dead: bool = False
    score: bool = False  # its score values differ from the committed line's: kept longer (``SCORE_ALT_HORIZON``)


class Alternatives:
    """The tracker's kept alternatives and re-reads (a part of ``Tracker``)."""

    def _remember(self, items, at: int, best: Node, nodes: list[Node]) -> None:
        """Keep alive the candidates that explained this observation exactly as well as the accepted one and
        look the same on the table, but differ in hidden things; drop the alternatives too old to matter."""
        if self.alts:
            edited = any(self.edits.get(i) for i in range(at, len(self.moves)))
            self._history.append((items, None if edited else tuple(self.moves[at:])))
        committed = self.x.hidden(best)
        found, keys = 0, {committed}
        for n in sorted(nodes, key=Node.key):
            if found >= 2:
                break
            if (
                n is best
                or abs(n.cost - best.cost) > 1e-9
                or abs(n.score_cost - best.score_cost) > 1e-9
                or n.worst >= self.alert_confidence
                or not _look_alike(n.exp, best.exp, items.maps(self.alert_confidence)[1])
            ):
                continue
            h = self.x.hidden(n)
            if h in keys:
                continue
            keys.add(h)
            score = h[0] != committed[0]  # ``_hidden``'s first part: the score values
            self.alts.append(Alternative(at, n.moves, n.edits, n.state, len(self._history), score=score))
            found += 1
        now = len(self._history)
        keep = {
            id(a)
            for a in [a for a in self.alts if not a.score and a.born >= now - self.alt_horizon][-self.max_alts :]
            + [a for a in self.alts if a.score and a.born >= now - SCORE_ALT_HORIZON][-SCORE_ALTS:]
        }
        self.alts = [a for a in self.alts if id(a) in keep]
        if not self.alts:
            self._history = []
        else:
            first = min(a.born for a in self.alts)
            if first:
                self._history = self._history[first:]
                for a in self.alts:
                    a.born -= first
        self.stats["alternatives"] += found

    def _forget(self) -> None:
        self.alts, self._history, self._deferred, self._deferred_looks = [], [], [], 0

    def _try_alternatives(self, items, committed: Node | None) -> list[Event] | None:
        """Replay each kept alternative over the observations since its split and this one; when one explains
        them all and this one better than the committed line, switch to it: a ``Correction("switch")`` takes
        back the committed moves since the split and plays the alternative's (the log stays append-only and a
        resumed game replays the switch)."""
        found = []
        for alt in self.alts:
            if alt.now is None:
                alt.now, alt.line, alt.line_edits = alt.state, list(alt.moves), [{"at": i, "edit": e} for i, e in alt.edits]
            # each observation is replayed once per alternative: the line so far is kept between looks
            while not alt.dead and alt.born + alt.done < len(self._history):
                items_then, committed_then = self._history[alt.born + alt.done]
                node = self._followed(alt.now, committed_then, items_then)
                self.stats["replayed" if node is not None else "replay_searches"] += (
                    1  # looks replayed without a search, with one
                )
                if node is None:
                    node = min(self._explain(alt.now, items_then, max_nodes=SPECULATIVE_NODES), key=Node.key)
                if not self._acceptable(node):
                    alt.dead = True
                    break
                alt.line_edits += [{"at": len(alt.line) + i, "edit": e} for i, e in node.edits]
                alt.line += node.moves
                alt.now = node.state
                alt.done += 1
            if alt.dead:
                continue
            node = min(self._explain(alt.now, items, max_nodes=SPECULATIVE_NODES), key=Node.key)
            if self._acceptable(node) and (
                committed is None or (node.cost, node.score_cost) < (committed.cost, committed.score_cost)
            ):
                moves = alt.line + list(node.moves)
                edits = alt.line_edits + [{"at": len(alt.line) + i, "edit": e} for i, e in node.edits]
                found.append(((round(node.cost, 6), round(node.score_cost, 6), len(moves)), alt, moves, edits))
        if not found:
            return None
        _, alt, moves, edits = min(found, key=lambda x: x[0])
        return self._switch(alt.at, moves, edits, items)

    def _followed(self, st, moves: tuple | None, items) -> Node | None:
        """The moves the committed line took at a past look, played from an alternative's position ``st``, when
        they are legal there and explain that look acceptably; else None (the alternative's replay searches).
        An alternative differs in hidden things only, so the moves the table showed are nearly always its moves
        too, and a replay needs no search for them."""
        if moves is None:
            return None
        s = self.x.follow(st, moves)
        if s is None:
            return None
        node = self.node(s, moves, items, 0, base=self.game.expected_readings(st))
        return node if self._acceptable(node) else None

    def _switch(self, at: int, moves: list, edits: list[dict], items) -> list[Event]:
        """Replace the committed moves from ``at`` on by ``moves`` (a ``Correction("switch")``: the log stays
        append-only and a resumed game replays the switch)."""
        removed = self.moves[at:]
        kept = [look for look in self.looks if look[0] < at]  # looks before ``at`` were explained by moves kept
        self._relog(len(removed), moves, edits)
        self._rebuild()
        if moves:
            self.looks = (kept + [(at, items)])[-BACKTRACK_LOOKS:]
        self._forget()
        self.stats["switches"] += 1
        text = f"the table showed that an earlier turn went differently: {len(removed)} move(s) replaced by {len(moves)}"
        events: list[Event] = [self._correction("switch", removed, moves, text, edits)]
        events += self.clear_alerts(
            ("IllegalMove", "TableOutOfSync", "ScoreMismatch", "NeedsConfirmation"), "an earlier turn was re-read"
        )
        return events + self.x.check_scores(items)

    def may_reread(self) -> bool:
        """Whether this look may re-read earlier ones: re-reads ran on fewer than ``REREAD_LOOKS`` of the last
        ``REREAD_WINDOW`` looks (``stats["observations"]`` counts them, this one included)."""
        now = self.stats["observations"]
        self._reread_at = [i for i in self._reread_at if i > now - REREAD_WINDOW]
        return len(self._reread_at) < REREAD_LOOKS

    def _try_backtrack(self, items) -> list[Event] | None:
        """A look nothing explains may show that an earlier look was explained wrongly: a marker the camera
        missed made another move look better (a turn-order reservation instead of an action). Search again from
        before each of the last looks that added moves; a line that explains this look and, through its own
        intermediate positions, every look since replaces the committed moves (``_switch``). The first unexplained
        look re-reads ``BACKTRACK_FIRST`` looks, the next ones ``BACKTRACK_LOOKS``: a look that one hand or glare
        spoils is often explained again by the next, and re-reading far back on it once switched a right Restore
        for a wrong one. Any unexplained look re-reads at least back to the suspect look (``suspect_look``). None,
        with no search, once re-reads ran on ``REREAD_LOOKS`` of the last ``REREAD_WINDOW`` looks."""
        if not self.may_reread():
            self.stats["reread_skipped"] += 1
            return None
        if self.looks:
            self._reread_at.append(self.stats["observations"])
            self.stats["reread_looks"] += 1
        depth = BACKTRACK_FIRST if self._unexplained <= 1 else BACKTRACK_LOOKS
        suspect = self.suspect_look()
        if suspect is not None:
            depth = max(depth, len(self.looks) - suspect)
        for back in range(1, min(depth, len(self.looks)) + 1):
            at = self.looks[-back][0]
            base = self.replay(at)
            nodes = self._explain(base, items, max_nodes=SPECULATIVE_NODES)
            best = min(nodes, key=Node.key)
            known = None
            ok = self._acceptable(best)
            # the marker of a turn re-read may be one the camera missed; it stays a known misreading only if the
            # line is taken
            if not ok:
                known = dict(self.misreadings)
                best, ok = self._with_missed_marker(best, nodes, items, base)
            looks = [it for _, it in self.looks[-back:]]
            if best.moves and ok and list(best.moves) != self.moves[at:] and self._explains_looks(base, best, looks):
                self.stats["backtracks"] += 1
                edits = [{"at": i, "edit": e} for i, e in best.edits]
                return self._switch(at, list(best.moves), edits, items)
            if known is not None:
                self.misreadings = known
        back = min(depth, len(self.looks))
        if back and self._unexplained <= 1:
            # the first unexplained look also re-reads the looks one by one from the deepest of them
            at = self.looks[-back][0]
            line = self._reread(self.replay(at), [it for _, it in self.looks[-back:]], items)
            if line is not None and line[0] != self.moves[at:]:
                self.stats["rereads"] += 1
                return self._switch(at, *line, items)
        return None

    def _reread(self, base, looks: list, items) -> tuple[list, list[dict]] | None:
        """(moves, edits) from ``base`` that explain ``looks`` one by one and then ``items``, each acceptably, with
        the least disagreement over them all; None when no line does, or when the searches would visit more than
        ``REREAD_NODES`` nodes. Each look is explained from the ``REREAD_BEAM`` cheapest lines so far, so a look
        accepted with a move that explained a weak reading (a tent read at 0.35 where none lies, taken for the next
        player's tent) can be read again as that reading wrong, once a later look shows the space surely empty. A
        search straight to ``items`` cannot: moves that showed at those looks (cards paid, then discarded) no
        longer show."""
        beam: list[tuple[float, object, list, list[dict]]] = [(0.0, base, [], [])]
        budget = [REREAD_NODES]
        sure = {k: v for k, v, c in items if c >= self.alert_confidence}
        for it in looks + [items]:
            grown: dict[tuple, tuple] = {}
            for total, state, moves, edits in beam:
                nodes = self._reread_look(state, it, sure, budget)
                if nodes is None:
                    return None
                for n in sorted((n for n in nodes if self._acceptable(n)), key=Node.key)[:REREAD_BEAM]:
                    line = moves + list(n.moves)
                    key = tuple(map(repr, line))
                    cost = total + n.cost + n.score_cost
                    if key not in grown or cost < grown[key][0]:
                        more = [{"at": len(moves) + i, "edit": e} for i, e in n.edits]
                        grown[key] = (cost, n.state, line, edits + more)
            beam = sorted(grown.values(), key=lambda b: (b[0], len(b[2])))[:REREAD_BEAM]
            if not beam:
                return None
        _, _, moves, edits = beam[0]
        return (moves, edits) if moves else None

    def _reread_look(self, state, look, sure: dict, budget: list[int]) -> list[Node] | None:
        """The candidate lines from ``state`` for one look of a re-read: its search, and, when the look holds unsure
        readings that the newest look surely contradicts (``sure``: key -> value), a search without them (what may
        have misled it), those lines weighed against the look as it was read. None once ``budget[0]`` nodes were
        spent."""
        doubtful = {k for k, v, c in look if c < self.alert_confidence and k in sure and sure[k] != v}
        nodes: list[Node] = []
        for variant in (look, Look(d for d in look if d[0] not in doubtful)) if doubtful else (look,):
            if budget[0] <= 0:
                return None
            found = self._explain(state, variant, max_nodes=min(SPECULATIVE_NODES, budget[0]))
            budget[0] -= len(found)
            if variant is not look:
                found = [self.node(n.state, n.moves, look, n.pref, edits=n.edits, base=n.base) for n in found]
            nodes += found
        return nodes

    def suspect_look(self, readings: dict | None = None) -> int | None:
        """The index in ``looks`` of the earliest kept look that tolerated a misreading the table still shows
        exactly so (a turn-order disk read yellow at 0.57 while the line gave the space to nobody): a reading
        that stays the same look after look may have been right, and the line chosen there wrong. None when there
        is none. ``readings`` (``{key: value}``): what the table shows, by default the last look's."""
        exp = self.game.expected_readings(self.state)
        shown = self._last_items if readings is None else readings
        since = [
            m.since
            for k, v in shown.items()
            if (m := self.misreadings.get(k)) is not None and m.since is not None and k in exp and self._known(k, v, exp[k])
        ]
        if not since:
            return None
        first = min(since)
        return next((i for i, (at, _) in enumerate(self.looks) if at >= first), None)

    def _explains_looks(self, base, node: Node, looks: list) -> bool:
        """Whether the positions ``node``'s moves pass through from ``base`` explain each of ``looks`` in order
        (each by a position no earlier than the one before), as they were accepted: within the noise allowed."""
        states, _ = self._line_states(base, node, validate=False)
        i = 0
        for items in looks:
            while i < len(states) and not self._near(self.node(states[i], (), items, 0, base=node.base), items):
                i += 1
            if i == len(states):
                return False
        return True

    def _near(self, node: Node, items) -> bool:
        """Whether ``node`` explains a past look within its noise: acceptable, or off only by one sure reading
        one piece short or over (four fish lying close, read as three), the rest unsure and few, where the game
        takes that for noise (``Explainer.near_miscount``; Iwari: a pile miscount only, a tent read on a space the
        line leaves empty is an illegal tent, I-TURN-4), or off only as a turn under way that no move showed yet
        (``Explainer.turn_in_progress``: Iwari's cards laid ahead of their piece). A look accepted on such a
        miscount may have been explained by a wrong move (a fish read short taken for one paid)."""
        if self._acceptable(node):
            return True
        diffs = self.differing(node, items)
        if self.x.turn_in_progress(diffs, node.exp):  # a turn under way no move showed yet (cards laid ahead)
            return True
        sure = [(k, v) for k, v, c in diffs if c >= self.alert_confidence]
        if len(sure) != 1 or sum(c for _, _, c in diffs if c < self.alert_confidence) >= self.accept_cost:
            return False
        key, value = sure[0]
        error = reading_error(value, node.exp.get(key))
        if not one_piece_off(error):
            return False
        return self.x.near_miscount(key, error, value, node.exp.get(key))


def _look_alike(a: dict, b: dict, read) -> bool:
    """Whether two positions' expected readings agree, but for stacks' ``#stack`` contents the look has no reading
    of (``read``: its keys; no earlier look to compare the stack with): from above, such stacks look the same."""
    if a == b:
        return True
    return all(not camera_reads(k) and k not in read for k in a.keys() | b.keys() if a.get(k) != b.get(k))
