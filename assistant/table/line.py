"""The accepted line: the moves the tracker accepted, the hidden-information edits made before them, and the groups
undo takes back, with the positions they pass through.

``moves`` is the log of accepted moves; ``edits`` maps a move index to the edits made before that move;
``groups`` the sizes of the move groups (one per ``MoveRecognized``, a correction or a confirmed choice), last
last. ``state`` is always ``initial`` with the log played (``replay``); every change of the log goes through
``apply_moves`` (play and record), ``truncate`` (drop) or ``_relog`` (drop whole groups and add one), then
``_rebuild``.
"""

from __future__ import annotations

from assistant.table.events import Correction
from assistant.table.evidence import Node


class Line:
    """The tracker's accepted line (a part of ``Tracker``)."""

    def _relog(self, k: int, moves: list, edits=()) -> None:
        """The move log only (no state): take back the last ``k`` moves (whole groups) and add ``moves`` as one
        group with their edits ({"at": index into moves, "edit"}). A correction, live or replayed from the log."""
        self.truncate(k)
        left = k
        while left > 0 and self.groups:
            left -= self.groups.pop()
        if left < 0:
            self.groups.append(-left)
        base = len(self.moves)
        for e in edits:
            self.edits.setdefault(base + int(e["at"]), []).append(e["edit"])
        self.moves += list(moves)
        if moves:
            self.groups.append(len(moves))

    def _correction(self, action: str, removed: list, added: list, message: str, edits=()) -> Correction:
        """The ``Correction`` event of a log rewrite (``action``: undo, correct, confirm, switch), its moves as JSON."""
        to_json = self.game.move_to_json
        return Correction(action, [to_json(m) for m in removed], [to_json(m) for m in added], message, list(edits))

    def apply_moves(self, moves, edits=()) -> None:
        """Play moves (checked) and record them as one group, as a correction or a replayed log does.
        ``edits``: {"at": index into moves, "edit": {...}} hidden-information edits made before those moves."""
        by_at: dict[int, list[dict]] = {}
        for e in edits:
            by_at.setdefault(int(e["at"]), []).append(e["edit"])
        for i, m in enumerate(moves):
            for e in by_at.get(i, ()):
                self.x.apply_edit(self.state, e)
                self.edits.setdefault(len(self.moves), []).append(e)
            self.x.note_purchases(self.state, m)
            self.x.apply(self.state, m)
            self.moves.append(m)
        if moves:
            self.groups.append(len(moves))

    def replay(self, upto: int | None = None, note: bool = False):
        """The state after the first ``upto`` accepted moves (all by default), edits included; ``note``: rebuild
        ``lookalikes`` on the way."""
        state = self.initial.copy()
        for i, m in enumerate(self.moves[:upto]):
            for e in self.edits.get(i, ()):
                self.x.apply_edit(state, e)
            if note:
                self.x.note_purchases(state, m)
            self.x.apply(state, m, validate=False)
        return state

    def truncate(self, k: int) -> list:
        """Drop the last ``k`` moves (and their edits); returns them. The caller rebuilds."""
        if k <= 0:
            return []
        removed = self.moves[-k:]
        self.moves = self.moves[:-k]
        self.edits = {i: e for i, e in self.edits.items() if i < len(self.moves)}
        return removed

    def _rebuild(self) -> None:
        """The state again from the move log, after the log changed (undo, confirm, switch); looks explained
        on the old log are no longer re-read (``_try_backtrack``; ``_switch`` keeps those before the switch)."""
        self.x.lookalikes = {}
        self.looks = []
        self.state = self.replay(note=True)

    def _line_states(self, base, node: Node, validate: bool = True) -> tuple[list, dict[int, list[dict]]]:
        """(the positions ``node``'s moves pass through from ``base``, base first; its edits by move index)."""
        by_at: dict[int, list[dict]] = {}
        for at, e in node.edits:
            by_at.setdefault(at, []).append(e)
        states = [base.copy()]
        for k, m in enumerate(node.moves):
            nxt = states[-1].copy()
            for e in by_at.get(k, ()):
                self.x.apply_edit(nxt, e)
            self.x.apply(nxt, m, validate=validate)
            states.append(nxt)
        return states, by_at
