"""The beam search: which sequences of the game's moves, from a position, explain a look.

Each depth expands the frontier's nodes by the candidate moves the game's explainer proposes
(``Explainer.candidates``: the moves that may explain the look's open differences, each with a preference rank
and a hidden-information edit made first), plays them (``Explainer.child``; an illegal one is dropped) and scores
them (``Evidence.node``). A position reached again is kept only with a better rank. The search stops when a depth
finds nothing new, after ``patience`` depths without a better line, or once a speculative search (``max_nodes``)
reached its budget. It returns every node it scored; the policy (``Tracker``) chooses among them.
"""

from __future__ import annotations

from collections import Counter

from assistant.table.evidence import Node
from assistant.table.observation import camera_reads

# depths in a row the search goes on without finding a better line than a shorter one (``Search._search``): moves
# that show nothing yet would otherwise be tried to the full depth, all alike
SEARCH_PATIENCE = 3


class Search:
    """The tracker's search (a part of ``Tracker``)."""

    def _explain(self, state, items, starts: list[Node] = (), max_nodes: int | None = None) -> list[Node]:
        """Candidate explanations of ``items`` from ``state``, the line with no moves first; ``starts``: candidates
        of an earlier look that was left unexplained (a board under a hand), searched on from where they stopped as
        well, so that two turns seen at once need not be found from scratch. ``max_nodes``: the nodes a speculative search may visit
        (``SPECULATIVE_NODES``)."""
        base = self.game.expected_readings(state)
        root = self.node(state, (), items, 0, base)
        if root.exact:
            return [root]
        roots = [root] + [self.node(d.state, d.moves, items, d.pref, edits=d.edits, base=base) for d in starts]
        return self._search(roots, items, max_nodes)

    def _search(self, roots: list[Node], items, max_nodes: int | None = None) -> list[Node]:
        x = self.x
        frontier = list(roots)
        seen = {x.signature(r): r.pref for r in roots}  # signature -> the best preference rank that reached it
        every = list(roots)
        found_perfect = False
        rank = 0
        best = min(self._fit(r) for r in roots)
        # depths in a row that found no better line: none explaining the look better than ``best``, or, once a
        # line explains it all, none that also does more of the turn's actions (a lower ``rank``)
        stale = 0
        for _depth in range(self.max_depth):
            children = []
            for node in frontier:
                for move, pref, edit in x.candidates(node, items):
                    pref += x.skip_cost(node.state, move)
                    st = x.child(node.state, move, edit)
                    if st is None:
                        continue  # the move (or its edit) is illegal there
                    edits = node.edits if edit is None else node.edits + ((len(node.moves), edit),)
                    child = self.node(st, node.moves + (move,), items, node.pref + pref, edits=edits, base=node.base)
                    sig = x.signature(child)
                    if sig in seen and seen[sig] <= child.pref:
                        continue  # reached already, as well or better (a longer path may skip fewer actions)
                    seen[sig] = child.pref
                    children.append(child)
                if max_nodes is not None and len(every) + len(children) >= max_nodes:
                    break  # the frontier is best first: the nodes left unexpanded are the least likely
            if not children:
                break
            children.sort(key=Node.key)
            every += children
            if max_nodes is not None and len(every) >= max_nodes:
                self.stats["cut"] += 1
                break
            perfect = [c for c in children if c.exact]
            if perfect or found_perfect:
                # a longer sequence cannot explain more; go deeper only to do the actions still open, and to
                # finish the sequences that rank better than every perfect one so far (an action that changes
                # nothing, a Tan with no beaver, done before the one that explains the table)
                ranks = [c.pref + x.open_actions(c.state) for c in perfect]
                stale = 0 if ranks and (not found_perfect or min(ranks) < rank) else stale + 1
                if stale >= self.patience:
                    break
                if ranks:
                    rank = min([rank, *ranks]) if found_perfect else min(ranks)
                found_perfect = True
                frontier = [c for c in perfect if x.turn_open(c.state)][: self.beam]
                frontier += [c for c in children if not c.exact and c.pref < rank and x.may_go_on(c.state)][: self.beam]
                if not frontier:
                    break
                continue
            fit = self._fit(children[0])
            # a move owed though the camera may not see it explains nothing yet: a depth of them is not stale
            stale = 0 if fit < best else stale if x.owed_unseen(children[0].moves[-1]) else stale + 1
            best = min(best, fit)
            if stale >= self.patience:
                break
            # keep the best of each phase: the end of a year explains a lot at once and must not crowd out
            # the deeper sequences that finish the turn first
            frontier = []
            for phase in x.phases:
                frontier += [c for c in children if x.phase(c.state) == phase][: self.beam]
            # and the best few of each point of the turn (who, what placed, which action is next): a move that
            # explains little now (a Tan before a Trade) must not be crowded out by many that skip it
            kept = {id(c) for c in frontier}
            groups = Counter()
            best_scores: dict = {}
            for c in children:
                g = x.point_of_turn(c.state)
                groups[g] += 1
                if groups[g] <= 2 and id(c) not in kept:
                    frontier.append(c)
                    kept.add(id(c))
                best_scores.setdefault(g, []).append(c)
            # and, of each point of the turn, the lines that best explain the score disks: an action that only
            # scores (a Military) is one move behind the lines that skip it and would be crowded out
            for group in best_scores.values():
                lines = {}
                for c in sorted(group, key=lambda c: (c.score_cost, c.cost)):
                    lines.setdefault((c.score_cost, c.cost, tuple(type(m) for m in c.moves)), c)  # one per kind of line
                for c in list(lines.values())[:2]:
                    if id(c) in kept:
                        continue
                    frontier.append(c)
                    kept.add(id(c))
        self.stats["nodes"] += len(every)
        return every

    @staticmethod
    def _fit(node: Node) -> tuple:
        """How well ``node`` explains the look, the first terms of ``Node.key``: what ``SEARCH_PATIENCE`` waits on."""
        return round(node.cost + node.score_cost, 6), round(node.cost, 6)

    def _visibly_different(self, best: Node, ties: list[Node]) -> list[Node]:
        """The tied candidates that would show differently on the table (exact score values included)."""
        out, sigs = [], {self.x.visible(best)}
        for n in sorted(ties, key=Node.key):
            s = self.x.visible(n)
            if s not in sigs:
                sigs.add(s)
                out.append(n)
        return out

    @staticmethod
    def _unread_matters(best: Node, others: list[Node], items) -> bool:
        present = {k for k, _, _ in items}
        for n in others:
            for k, v in n.exp.items():
                if best.exp.get(k) != v and k not in present and camera_reads(k):
                    return True
        return False
