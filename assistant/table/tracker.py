"""The move tracker's policy: each settled observation of the table is explained as legal moves of the game, or
raises an alert.

``Tracker(state, game=...)`` holds the accepted line (``assistant.table.line``) from ``state`` and, for each
``observe``, searches the game's moves that explain the look (``assistant.table.search``, weighed by
``assistant.table.evidence``, proposed by the game's explainer, ``Game.explainer``) and decides:

1. Accept: the best line (``Node.key``) whose cost is below ``accept_cost`` with no disagreeing reading as sure as
   ``alert_confidence``. Mid-turn, without its tail of moves that show nothing yet
   (``Explainer.shows_nothing``). A few sure disagreements where the moves change nothing, or one place read one
   piece off for ``MISCOUNT_LOOKS`` looks, do not hold the moves back (``_stubborn``): they stay an alert.
2. Wait: when the best lines differ in what the table would show and a board was not read (at most
   ``MAX_DEFERRED_LOOKS`` looks; once for a place never read), the next look searches on from them. Otherwise
   the best is accepted and a ``NeedsConfirmation`` lists the others (one open at a time).
3. Alert: nothing explains the look. The kept alternatives and re-reads of earlier looks are tried first
   (``assistant.table.alternatives``); then the game names the illegal move the difference looks like
   (``IllegalMove``), else ``TableOutOfSync`` lists what differs. An alert stays until the table matches a
   reachable position again (``AlertCleared``) or a correction is made (``undo``, ``correct``, ``confirm``).

The state only ever changes through the game's ``apply`` with validation on: an illegal move is never accepted.
Not thread-safe by itself (``GameSession`` locks). docs/tracker.md explains the search and the constants.
"""

from __future__ import annotations

import time
from collections import Counter

from assistant.table import game as games
from assistant.table.alternatives import BACKTRACK_LOOKS, BACKTRACK_TRIES, SPECULATIVE_NODES, Alternative, Alternatives
from assistant.table.events import (
    AlertCleared,
    Correction,
    Event,
    IllegalMove,
    MoveRecognized,
    NeedsConfirmation,
    TableOutOfSync,
)
from assistant.table.evidence import ABSENT, Evidence, Look, Misreading, Node, one_piece_off, reading_error
from assistant.table.game import Game
from assistant.table.line import Line
from assistant.table.observation import Observation
from assistant.table.search import SEARCH_PATIENCE, Search
from assistant.table.stacks import StackChanges

MAX_DEFERRED_LOOKS = 4  # looks in a row a choice waits for a board under a hand (``_observe``)
STUBBORN_MAX = 2  # sure disagreements in places the moves do not touch that still let the moves in (``_stubborn``)
MISCOUNT_LOOKS = 3  # looks in a row a place the moves touch must show the same one-piece miscount (``_stubborn``)


class Tracker(Line, Evidence, Search, Alternatives):
    """Holds the game's state and explains observations (module docstring)."""

    def __init__(
        self,
        state,
        game: Game | None = None,
        edition=None,
        beam: int = 10,
        max_depth: int = 14,
        accept_cost: float = 1.0,
        alert_confidence: float = 0.6,
        move_beam: int = 12,
        max_alts: int = 3,
        alt_horizon: int = 24,
        patience: int = SEARCH_PATIENCE,
    ):
        """Track a game from ``state`` (the game's own state, hidden things concealed). ``game``: the registered
        game (``assistant.table.game``; Wendake when None); ``edition``: the game's edition data, passed to its
        explainer (the game's default when None). The rest tune the search and the alerts (docs/tracker.md)."""
        self.game = game if game is not None else games.get("wendake")
        self.initial = state.copy()
        self.state = state.copy()
        self.x = self.game.explainer(self, edition)  # the game's inverse model and evidence hooks
        self.ed = self.x.ed  # the game's edition data
        self.moves: list = []
        self.edits: dict[int, list[dict]] = {}  # move index -> hidden-information edits made before that move
        self.groups: list[int] = []  # sizes of the accepted move groups (undo takes back the last)
        self.beam, self.max_depth, self.patience = beam, max_depth, patience
        self.accept_cost, self.alert_confidence = accept_cost, alert_confidence
        self.move_beam = move_beam
        self.alerts: dict[int, Event] = {}  # active alerts by id
        self.next_alert = 1
        # the last look fitted lines that would show differently on the table equally well: a choice, asked about
        # or not (``_observe``); such a look shows no region kind read well (``GameSession``'s doubted kinds)
        self.had_choice = False
        self.stats = Counter()
        self.timings: list[float] = []  # milliseconds spent on each observation
        # hypotheses across observations: alternative lines that looked the same as the committed one when they
        # split; the observations since the oldest split are kept to replay an alternative when it is needed
        self.alts: list[Alternative] = []
        # the observations since the oldest alternative's split: (reading items, the moves the committed line took
        # there, or None where it made hidden-information edits with them)
        self._history: list[tuple] = []
        self.max_alts, self.alt_horizon = max_alts, alt_horizon
        self._deferred: list[Node] = []  # the tied candidates of an observation left unexplained (a board unread)
        self._deferred_looks = 0  # looks in a row left unexplained that way
        self.stacks = StackChanges()  # the camera's stack changes, relative to the accepted position
        # known misreadings: reading key -> how the camera's reading differed from the accepted state there when an
        # unsure disagreement was tolerated, and since when; the same error again is old news
        self.misreadings: dict[str, Misreading] = {}
        # misreadings forgotten when their place read right again, by key and by how they differed: the same one
        # back as unsurely is known again (``Evidence._known``)
        self.phantoms: dict[str, dict] = {}
        self._score_seen = None  # the score readings that disagreed at the last look explained (``_score_sig``)
        self.looks: list[tuple[int, list]] = []  # (moves before, reading items) of the last looks that added moves
        self._unexplained = 0  # looks in a row nothing explained (``_try_backtrack`` tries the first few)
        self._reread_at: list[int] = []  # the looks (``stats["observations"]``) that re-read earlier ones, lately
        self._miscount: tuple = (None, 0)  # (the sure one-piece miscount that held the last look back, looks in a row)
        # tile faces read with runner-ups: (reading key, value, confidence) -> {runner-up value: margin behind}
        self._weighed: dict[tuple, dict] = {}
        # resource spaces at the last look that added moves that read as its position had them: key -> (value,
        # confidence). Not a look that added none: a pile changed by an action the search has not yet taken (a
        # Harvest under way) reads as the position before
        self.steady: dict[str, tuple] = {}
        self._last_items: dict = {}  # this look's readings {key: value}
        self._prev_items: dict = {}  # the look's before (``_stubborn``)

    def observe(self, obs: Observation) -> list[Event]:
        t0 = time.perf_counter()
        try:
            events = self._observe(obs)
            self.stacks.explained(lambda: self.game.expected_readings(self.state))
            return events
        finally:
            dt = time.perf_counter() - t0
            self.stats["search_s"] += dt
            self.timings.append(dt * 1000.0)

    def _items(self, obs: Observation) -> Look:
        """The look's readings as the game weighs them (Wendake: a village's progress spaces as one set of tiles)."""
        readings = self.stacks.readings(obs.readings, lambda: self.game.expected_readings(self.state))
        return Look((k, r.value, r.confidence) for k, r in self.x.readings(readings).items())

    def misread_at_setup(self, obs: Observation) -> int:
        """Take every reading of ``obs``, a look of the start position (no move accepted yet), that disagrees with
        that position as a known misreading from the start (``since`` 0): the set-up is known exactly, so the same
        reading there again is no evidence, neither for a move nor for an alert, until the place reads right (a tile
        face read as another, a sure 1.0, once let a line put a marker on it to explain it). Score readings are
        weighed apart and left out, and so is a reading that the best line of moves from the start explains: the
        look may have come after play began (foreign table 103: a marker already on its slot), and a move is not a
        misread. Returns how many were taken; ValueError once a move was accepted."""
        if self.moves:
            raise ValueError("the set-up look's misreadings are taken before the first move only")
        items = self._items(obs)
        nodes = self._explain(self.state, items)
        start, moved = nodes[0], min(nodes, key=Node.key).exp  # the start position (no moves), the best line
        taken = 0
        for key, value, w in self.differing(start, items):
            if moved.get(key, ABSENT) == value:
                continue
            self.misreadings[key] = Misreading(reading_error(value, start.exp[key]), 0, value, w)
            taken += 1
        return taken

    def _observe(self, obs: Observation) -> list[Event]:
        items = self._items(obs)
        self.had_choice = False
        self._weighed.update({(k, r.value, r.confidence): dict(r.others) for k, r in obs.readings.items() if r.others})
        self._prev_items = self._last_items
        self._last_items = {k: v for k, v, _ in items}
        # after BACKTRACK_TRIES unexplained looks in a row (a table the camera cannot read, or a change left on it)
        # the search is a speculative one: it still finds the table put right, or the next move, in a bounded time
        lost = self._unexplained >= BACKTRACK_TRIES
        nodes = self._explain(self.state, items, self._deferred, max_nodes=SPECULATIVE_NODES if lost else None)
        # a line the table's pieces accept goes before one that fits the score disks better but leaves a sure
        # reading unexplained: a disk put on the wrong space is a ScoreMismatch, not a reason to doubt the pieces
        acceptable = [n for n in nodes if self._acceptable(n)]
        best = min(acceptable or nodes, key=Node.key)
        if best.worst >= self.x.score_alert_confidence:
            # a reading as sure as a score disk that raises a ScoreMismatch is as sure a piece: a line that leaves
            # none unexplained, and fits the pieces no worse, goes first (the game's ``score_alert_confidence``)
            firm = [n for n in acceptable if n.worst < self.x.score_alert_confidence and n.cost <= best.cost]
            best = min(firm, key=Node.key) if firm else best
        best = self._without_unshown_tail(best, nodes)
        events: list[Event] = []
        self.stats["observations"] += 1
        ok = self._acceptable(best)
        if not ok:
            best, ok = self._with_missed_marker(best, nodes, items)
        sig = self.x.score_sig(best, items) if ok else None
        if self.alts and (not ok or best.score_cost > 0):
            # the committed line cannot explain the table (or its score disks): a line kept alive since an
            # earlier observation may (a score value hidden under another disk then, visible now); not again
            # while the score disks disagree as they did at the last look
            if sig is None or sig != self._score_seen:
                switched = self._try_alternatives(items, best if ok else None)
                if switched is not None:
                    return switched
        self._score_seen = sig
        # moves that leave the table as it was (a warrior out of its Home and back) are no reason to let a look in
        stubborn = [] if ok or not best.moves or best.exp == best.base else self._stubborn(best, items)
        if ok:
            self._miscount = (None, 0)
        if ok or stubborn:
            self._unexplained = 0
            ties = [
                n
                for n in nodes
                if n.moves != best.moves and abs(n.cost - best.cost) < 1e-9 and abs(n.score_cost - best.score_cost) < 1e-9
            ]
            distinct = self._visibly_different(best, ties)
            waited = len(self._deferred) and self._deferred_looks >= (MAX_DEFERRED_LOOKS if obs.boards_unread else 1)
            if distinct and best.moves and not waited and (obs.boards_unread or self._unread_matters(best, distinct, items)):
                # wait for a fuller look before choosing: a board under a hand, or a place not read at all (a
                # tile the reader cannot name) where the candidates differ; the latter once only, the place may
                # never be read
                self.stats["deferred"] += 1
                self._deferred = [best] + distinct[:3]  # the next look goes on from these too
                self._deferred_looks += 1
                return events
            self._deferred, self._deferred_looks = [], 0
            if not stubborn:
                events += self.clear_alerts(("IllegalMove", "TableOutOfSync"), "the table matches a legal position again")
            at = len(self.moves)
            if best.moves:
                # a choice is open until the next moves come in: ``confirm`` replaces the moves at the log's end
                events += self.clear_alerts(
                    ("NeedsConfirmation",), 'the game went on past that choice; Undo or "this is what happened" still change it'
                )
                # a candidate that only goes on from the accepted line (a canoe a lake's pile may hide, not put
                # down yet) is not asked about: the next look adds those moves if they were made, and asks once
                # the turn went on without them showing (docs/tracker.md, "Which ties are asked")
                asked = [n for n in distinct if n.moves[: len(best.moves)] != best.moves]
                self.had_choice = bool(distinct)
                cands = [self._candidate_json(i, n) for i, n in enumerate([best] + asked[:4])] if asked else []
                events += self._accept(best)
                if cands:
                    events.append(self.alert(NeedsConfirmation(0, cands)))
            if self._keep_look(items, at, best, nodes):
                self.steady = {k: (v, c) for k, v, c in items if self.x.counted(k) and best.exp.get(k, ABSENT) == v}
            if stubborn:  # the moves are in; the places they did not touch that still disagree stay an alert
                events += self._explain_failure(self.node(self.state, (), items, 0, base=best.base), items)
            if not obs.boards_unread:  # with a board unread the turn may be only half seen: its points too
                events += self.x.check_scores(items)
        else:
            self._forget()  # every alternative was tried above and none explains the table
            self._unexplained += 1
            # re-reading earlier looks is the costliest search: only the first few unexplained looks in a row
            # try it (a wrong turn shows at once; later looks add turns the re-read cannot reach)
            switched = self._try_backtrack(items) if self._unexplained <= BACKTRACK_TRIES else None
            if switched is not None:
                self._unexplained = 0
                return switched
            now = nodes[0]  # the accepted position itself, no moves (``_explain`` lists it first)
            if self.x.turn_in_progress(self.differing(now, items), now.exp):
                # all that differs from the accepted position is a turn under way that no move shows yet (Iwari:
                # cards laid ahead of their piece): no alert, however many looks it takes
                self.stats["held"] += 1
                return events
            failure = self._as_read(best, nodes, items)
            if (
                self._unexplained == 1
                and failure.worst < self.alert_confidence
                and not failure.score_cost
                and all("#tile" in k for k, _, _ in self.differing(failure, items))
            ):
                # only tile faces read weakly disagree, none surely: a poor look is looked at once more before the
                # table is called out of sync; a piece or a disk out of place is called out at once
                self.stats["held"] += 1
                return events
            doubted = self._doubted(best, nodes)
            if doubted:
                # every reading no legal line explains is one the tracker doubts: no alert. The first such look
                # is looked at once more (a passing misread, a change put right at once); then the best legal
                # line is accepted and the players are asked (docs/tracker.md, Doubt)
                self.stats["doubted"] += 1
                if self._unexplained == 1:
                    self.stats["held"] += 1
                    return events
                self._unexplained = 0
                return events + self._accept_doubted(doubted, nodes, items, obs)
            events += self._explain_failure(failure, items)
        return events

    @property
    def sure_confidence(self) -> float:
        """The confidence from which a disagreement is sure: ``alert_confidence``, or as sure as a score disk that
        raises a ScoreMismatch (the game's ``score_alert_confidence``) where that is lower: a board whose image
        quality caps its readings just under ``alert_confidence`` reads an illegal change no surer (docs/tracker.md,
        Doubt)."""
        return min(self.alert_confidence, self.x.score_alert_confidence)

    def _doubted(self, best: Node, nodes: list[Node]) -> list[Node]:
        """The legal lines that leave no sure reading (``sure_confidence``) unexplained, best first, one per move
        sequence; [] when some sure reading disagrees with each."""
        sure = self.sure_confidence
        out: list[Node] = []
        for n in sorted(nodes, key=Node.key):
            if n.worst < sure and all(n.moves != o.moves for o in out):
                out.append(n)
        if out and out[0].moves:
            out[0] = self._without_unshown_tail(out[0], nodes)
        return out

    def _accept_doubted(self, lines: list[Node], nodes: list[Node], items, obs: Observation) -> list[Event]:
        """Accept the best of ``lines`` (``_doubted``) and ask which line it was: a ``NeedsConfirmation`` whose
        candidates (best first, 0 accepted) each name the boards whose readings it doubts (``boards``). The doubted
        readings become known misreadings, as for any look accepted with unsure disagreements."""
        best = lines[0]
        events = self.clear_alerts(("IllegalMove", "TableOutOfSync"), "the table matches a legal position, some readings doubted")
        events += self.clear_alerts(("NeedsConfirmation",), "a newer look asks again")
        cands = []
        for i, n in enumerate(lines[:5]):
            c = self._candidate_json(i, n)
            c["boards"] = sorted({k.partition("/")[0] for k, _, _ in self.differing(n, items)})
            if not n.moves:  # what the tablet shows for the line that changes nothing
                c["texts"] = ["Nothing moved: the camera misread " + (", ".join(c["boards"]) or "the table")]
            cands.append(c)
        boards = cands[0]["boards"]
        at = len(self.moves)
        self._deferred, self._deferred_looks = [], 0
        events += self._accept(best)
        events.append(
            self.alert(
                NeedsConfirmation(
                    0,
                    cands,
                    "The camera is not sure of "
                    + (", ".join(boards) or "the table")
                    + ": the table fits a legal position only if those readings are "
                    "wrong. Please check the board and confirm what happened.",
                )
            )
        )
        self._keep_look(items, at, best, nodes)
        if not obs.boards_unread:
            events += self.x.check_scores(items)
        return events

    def _keep_look(self, items, at: int, best: Node, nodes: list[Node]) -> bool:
        """After ``best`` was accepted from a look (the log had ``at`` moves): keep the alternatives and the
        misreadings it leaves, and the look itself for a re-read when it added moves. Returns whether it did."""
        self._remember(items, at, best, nodes)
        self._learn_misreadings(best, items, at)
        if len(self.moves) == at:
            return False
        self.looks = (self.looks + [(at, items)])[-BACKTRACK_LOOKS:]
        return True

    def _as_read(self, best: Node, nodes: list[Node], items) -> Node:
        """The line that best explains the look with every reading weighed as read (no place discounted,
        ``Explainer.weight``): what the alert names. A piece gone from a stack and seen where a rule forbids it is
        the illegal move, not some other line that leaves the stack as it was."""
        if not self.x.discounted(items):
            return best
        again = [self.node(n.state, n.moves, items, n.pref, n.exp, n.edits, as_read=True, base=n.base) for n in nodes]
        top = min(again, key=Node.key)
        return best if top.moves == best.moves else top

    def _without_unshown_tail(self, best: Node, nodes: list[Node]) -> Node:
        """``best`` without the moves at its end that show nothing on the table (a Mask Ceremony's draw with no
        card played, a Tan with no beaver) while the turn goes on: the look has not seen them done, and the next
        look may show them done another way (the card played on a space). The rank prefers a line that does every
        printed action, which at a look in the middle of a turn would commit such a move too early. The shorter
        line must be one the search reached, explaining the look exactly as well."""
        k = len(best.moves)
        while k and self.x.shows_nothing(best.moves[k - 1]):
            k -= 1
        if k in (0, len(best.moves)):
            return best
        for n in nodes:
            if (
                n.moves == best.moves[:k]
                and n.edits == tuple(e for e in best.edits if e[0] < k)
                and abs(n.cost - best.cost) < 1e-9
                and abs(n.score_cost - best.score_cost) < 1e-9
            ):
                return n
        return best

    def _stubborn(self, best: Node, items) -> list[tuple]:
        """The sure readings that keep ``best`` from being accepted, when they are few (at most ``STUBBORN_MAX``) and
        either lie where ``best``'s moves change nothing (their expected value is the same before and after: a
        piece put back wrong, or one the camera keeps misreading, earlier in the game), or are one place that the
        moves touch, read one piece off in the same way for ``MISCOUNT_LOOKS`` looks in a row (four fish lying
        close, read as three, look after look). Then the moves are accepted and those places stay an alert,
        instead of every later move waiting behind them. A one-look illegal change, or one put right, never gets
        in this way. Empty when that does not apply (the moves themselves disagree with the table in other ways,
        or the unsure rest is too much). Where the game's ``Explainer.stubborn_steady_only`` is set, places the moves
        do not touch let them in only when the look before read them the same: a change new in this look is an
        illegal move seen, not a stale misplacement (Iwari: a tent put on an occupied space, I-TURN-4)."""
        diffs = self.differing(best, items)
        sure = [d for d in diffs if d[2] >= self.alert_confidence]
        if not sure or len(sure) > STUBBORN_MAX or sum(c for _, _, c in diffs if c < self.alert_confidence) >= self.accept_cost:
            self._miscount = (None, 0)
            return []
        before = best.base  # the committed position's readings (this look's search started there)
        touched = [(k, reading_error(v, best.exp.get(k))) for k, v, _ in sure if before.get(k) != best.exp.get(k)]
        if not touched:
            steady = not self.x.stubborn_steady_only or all(self._prev_items.get(k) == v for k, v, _ in sure)
            return sure if steady else []
        one_off = len(touched) == 1 and one_piece_off(touched[0][1])
        seen, looks = self._miscount
        self._miscount = (touched[0], looks + 1 if seen == touched[0] else 1) if one_off else (None, 0)
        return sure if one_off and self._miscount[1] >= MISCOUNT_LOOKS else []

    def _with_missed_marker(self, best: Node, nodes: list[Node], items, base=None) -> tuple[Node, bool]:
        """(node, acceptable): the best line held back only by one sure reading of a tile slot where it puts a
        player's action marker that the camera does not see, while that player's Sages area surely shows the marker
        gone and no slot shows it (``_marker_unseen``, from the state before the look), or where a marker has lain
        since an earlier look while the player's other markers read where they are (``_marker_kept``). That slot becomes a known
        misreading (``misreadings``): the marker is taken as placed, and the slot costs nothing and raises no
        alert until it reads right again (the year's end takes the marker back). An illegal placement shows its
        marker on a slot, so it never gets in this way. ``(best, False)`` when there is no such line. ``base``: the
        position the lines start from (the committed one, or an earlier one when re-reading)."""
        base = self.state if base is None else base
        for node in sorted(nodes, key=Node.key):
            key = self.x.missed_marker(node, items, node.base, base)  # node.base: the readings of ``base``
            if key is None:
                continue
            self.misreadings[key] = Misreading(reading_error(self._last_items[key], node.exp[key]), None)
            again = self.node(node.state, node.moves, items, node.pref, node.exp, node.edits, base=node.base)
            if self._acceptable(again):
                return again, True
            del self.misreadings[key]
        return best, False

    def undo(self) -> Correction:
        if not self.groups:
            return Correction("undo", [], [], "nothing to undo")
        k = self.groups.pop()
        removed = self.truncate(k)
        self._rebuild()
        self._forget()
        return self._correction("undo", removed, [], f"took back {k} move(s)")

    def correct(self, moves) -> list[Event]:
        """ "This is what happened": play ``moves`` (objects or JSON) from the current state; clears alerts.
        Hidden things the moves name or leave out are fitted to what the tracker knows (``_fill_hidden``)."""
        moves = [m if not isinstance(m, dict) else self.game.move_from_json(m) for m in moves]
        scratch = self.state.copy()
        played, edits = [], []
        for m in moves:
            m, edit = self.x.fill_hidden(scratch, m)
            if edit is not None:
                self.x.apply_edit(scratch, edit)
                edits.append({"at": len(played), "edit": edit})
            self.x.play_checked(scratch, m)
            played.append(m)
        self.apply_moves(played, edits)
        self._forget()
        self.looks = []  # moves entered by hand are never re-read
        ev: list[Event] = [self._correction("correct", [], played, f"{len(played)} move(s) entered by hand", edits)]
        return ev + self.clear_alerts(None, "corrected by hand")

    def confirm(self, index: int) -> list[Event]:
        """Choose candidate ``index`` of the open NeedsConfirmation (0 = the one accepted): its moves replace the
        accepted ones at the end of the log. Works from the alert itself, so a resumed game can still answer it.
        Confirmed moves are never re-read (``_try_backtrack``), as moves entered by hand. IndexError when there is no
        such choice open."""
        asks = [ev for ev in self.alerts.values() if isinstance(ev, NeedsConfirmation)]
        if not asks:
            raise IndexError(
                "no move is waiting for confirmation (a choice is open only until the next moves come in; "
                'use Undo or "this is what happened" to change an earlier one)'
            )
        cands = asks[-1].candidates
        if not 0 <= index < len(cands):
            raise IndexError(f"no candidate {index} to confirm: choose 0 to {len(cands) - 1}")
        accepted = [self.game.move_from_json(m) for m in cands[0]["moves"]]
        chosen = [self.game.move_from_json(m) for m in cands[index]["moves"]]
        edits = list(cands[index].get("edits", []))
        tail = self.moves[len(self.moves) - len(accepted) :]
        if index and tail != accepted:
            raise IndexError(
                'the moves of that choice are no longer the last in the log; use Undo or "this is what happened" instead'
            )
        removed, added = (tail, chosen) if index else ([], [])
        if index:
            self._relog(len(accepted), chosen, edits)
            self._rebuild()
        self._forget()
        self.looks = []  # moves the players confirmed are never re-read, as moves entered by hand
        ev: list[Event] = [self._correction("confirm", removed, added, f"candidate {index} confirmed", edits if added else [])]
        return ev + self.clear_alerts(("NeedsConfirmation",), "confirmed")

    def alert(self, ev):
        ev.alert_id = self.next_alert
        self.next_alert += 1
        self.alerts[ev.alert_id] = ev
        self.stats["alerts"] += 1
        return ev

    def clear_alerts(self, kinds, reason: str, keep=()) -> list[Event]:
        out = []
        for aid, ev in list(self.alerts.items()):
            if (kinds is None or ev.kind in kinds) and aid not in keep:
                del self.alerts[aid]
                out.append(AlertCleared(aid, ev.kind, reason))
        return out

    def _accept(self, node: Node) -> list[Event]:
        events = []
        states, by_at = self._line_states(self.state, node)
        ignored = sorted(
            k for k, v in node.exp.items() if k in self._last_items and self._last_items[k] != v and not self.x.is_score(k)
        )
        # one MoveRecognized per run of moves by the same player
        for player, i, j, change in self.x.player_runs(states, node.moves):
            run = node.moves[i:j]
            texts = [self.game.describe(states[k], node.moves[k], states[k + 1]) for k in range(i, j)]
            edits = [{"at": k - i, "edit": e} for k in range(i, j) for e in by_at.get(k, ())]
            events.append(
                MoveRecognized(
                    player,
                    None if player is None else self.game.player_name(states[i], player),
                    [self.game.move_to_json(m) for m in run],
                    texts,
                    change,
                    self.game.year(states[i]),
                    round(node.cost, 4),
                    ignored,
                    edits,
                )
            )
            # one move group per MoveRecognized, as a resumed game rebuilds them (undo takes back the last)
            self.apply_moves(list(run), edits)
        self.stats["moves"] += len(node.moves)
        return events

    def _candidate_json(self, i: int, node: Node) -> dict:
        """One candidate of a NeedsConfirmation, from the committed position: its moves with their hidden-information
        edits (what ``confirm`` plays), and each move in words (what the tablet shows)."""
        states, _ = self._line_states(self.state, node, validate=False)
        return {
            "index": i,
            "moves": [self.game.move_to_json(m) for m in node.moves],
            "edits": [{"at": at, "edit": e} for at, e in node.edits],
            "texts": [self.game.describe(states[k], m, states[k + 1]) for k, m in enumerate(node.moves)],
            "cost": round(node.cost + node.score_cost, 4),
        }

    def _explain_failure(self, best: Node, items) -> list[Event]:
        diffs = self.differing(best, items, 0.0)
        put_back = [self.x.put_back(k, best.exp[k], v) for k, v, c in diffs if c >= self.alert_confidence or len(diffs) <= 3]
        if not put_back:  # many differences, none of them sure: name the likeliest rather than none
            put_back = [self.x.put_back(k, best.exp[k], v) for k, v, c in sorted(diffs, key=lambda d: -d[2])[:4]]
        signature = frozenset((k, _freeze(v)) for k, v, c in diffs)
        standing = [ev for ev in self.alerts.values() if isinstance(ev, (IllegalMove, TableOutOfSync))]
        if any(getattr(ev, "_sig", None) == signature for ev in standing):
            return []  # the same difference as the alert already shown
        sure_keys = {k for k, v, c in diffs if c >= self.sure_confidence}
        spell = set().union(*(getattr(ev, "_keys", set()) for ev in standing))
        if standing and self._unexplained > BACKTRACK_TRIES and sure_keys <= spell:
            # lost, and every place it is sure of was called out already since the table last matched the game: the
            # alert shown stands (the game going on around it, unfollowed, is no new alert; docs/tracker.md)
            return []
        events = self.clear_alerts(("IllegalMove", "TableOutOfSync"), "superseded by a new difference")
        guess = self.x.illegal_guess(best, items)
        if guess is not None:
            move, violation, player = guess
            ev = IllegalMove(0, violation.rule, violation.message, violation.fix, player, self.game.move_to_json(move), put_back)
            self.stats["illegal"] += 1
        else:
            ev = TableOutOfSync(
                0,
                "The table does not match any legal continuation of the game: "
                + "; ".join(d["text"] for d in put_back[:4])
                + ". Put the pieces back, or enter what happened.",
                put_back,
            )
            self.stats["out_of_sync"] += 1
        ev = self.alert(ev)
        ev._sig = signature
        ev._keys = sure_keys | spell
        return events + [ev]


def _freeze(v):
    return v if not isinstance(v, list) else tuple(v)
