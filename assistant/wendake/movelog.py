"""Comparing move logs as a camera sees them: the yardstick of the tracker's figures (tests, ``tablewatch e2e``).

Owns ``observable`` (what a camera can tell of one move), ``move_log_equal`` (one physical turn), ``split_turns``
(a log cut into physical turns), ``noop_moves`` (moves that change nothing in the game: an action done with
nothing to do, a Tan with no beaver, is the same game as that action skipped) and ``turns_equal`` (turn by turn,
no-op moves left out). Pure Python.
"""

from __future__ import annotations

import copy
from collections import Counter

from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.edition import load_edition
from assistant.wendake.edits import apply_edit
from assistant.wendake.state import State


def observable(move, ed=None):
    """What a camera can tell of a move, or None for a move that shows nothing. Hidden parameters are left out:
    the mask cards drawn and played (only the space shows), the draw's source, the smallpox card (only a victim
    shows), the turtle tiles claimed, which of two look-alike progress tiles was bought (its level and category
    show), the exchanges and resources behind a Trade (only their net effect shows), the steps behind a Move
    (only where warriors end up shows), the display refill. ``move_log_equal`` compares logs through this."""
    ed = ed or load_edition()
    if isinstance(move, M.EndTurn):
        return ("again",) if move.again else None
    if isinstance(move, M.Activate):
        return ("activate", tuple(move.slot))
    if isinstance(move, (M.Move,)):
        return ("move",) if _net_steps(move.steps) else None
    if isinstance(move, M.Trade):
        if not (move.exchanges or move.purchases or move.points):
            return None
        buys = tuple(sorted(ed.progress[b.tile].level for b in move.purchases))  # tiles are not read: the price shows
        return ("trade", move.victim is not None, buys)
    if isinstance(move, M.MaskCeremony):
        return ("mask", move.space) if move.space is not None else None  # a draw alone shows nothing
    if isinstance(move, M.Military):
        return ("military",)
    if isinstance(move, M.UseProgress):
        rule = ed.progress[move.tile].rule
        return None if rule == "W-PRG-L1-3" else ("use", rule)  # free order by itself changes nothing seen
    if isinstance(move, M.Restore):
        return ("restore", move.set_aside, move.take, tuple(move.order))
    if isinstance(move, M.Ritual):
        return ("ritual", tuple(sorted(move.natives)))
    if isinstance(move, M.Swap):
        return ("swap",) + tuple(sorted((tuple(move.a), tuple(move.b))))
    d = M.move_to_json(move)
    return tuple([d["type"]] + [str(v) for k, v in sorted(d.items()) if k != "type"])


def move_log_equal(seen, true, ed=None) -> bool:
    """Whether two move lists of one physical turn are the same game as far as a camera can tell: the same
    multiset of ``observable`` moves (hidden parameters and invisible moves left out; the order of moves inside
    one turn does not always show, e.g. a progress tile used before or after the placement)."""
    a = Counter(o for o in (observable(m, ed) for m in seen) if o is not None)
    b = Counter(o for o in (observable(m, ed) for m in true) if o is not None)
    return a == b


def _net_steps(steps) -> bool:
    """Whether a step list changes the map: guard steps that come back where they started show nothing."""
    if any(st.place != "guard" for st in steps):
        return True
    flow = Counter()
    for st in steps:
        flow[st.frm] -= 1
        flow[st.to] += 1
    return any(flow.values())


def split_turns(moves) -> list[list]:
    """A move list cut into physical turns (each ends with an EndTurn or a Restore)."""
    turns, cur = [], []
    for m in moves:
        cur.append(m)
        if isinstance(m, (M.EndTurn, M.Restore)):
            turns.append(cur)
            cur = []
    return turns + ([cur] if cur else [])


def _game_json(state: State) -> dict:
    """The state's JSON, a copy: ``State.to_json`` shares the players' lists and dicts (resources, Long House,
    tracks...) with the state, and a picture taken before a move must not change with it."""
    d = copy.deepcopy(state.to_json())
    d.pop("turn", None)  # which printed actions are done: bookkeeping inside one turn
    return d


def noop_moves(initial: State, moves, edits: dict | None = None, ed=None) -> set[int]:
    """Indices of the moves that change nothing in the game but the turn's bookkeeping (replayed from ``initial``
    with the hidden-information ``edits`` {move index: [edit, ...]}, as ``Tracker.replay`` does)."""
    ed = ed or load_edition()
    state = initial.copy()
    out = set()
    for i, m in enumerate(moves):
        for e in (edits or {}).get(i, ()):
            apply_edit(state, e, ed)
        before = _game_json(state)
        rules.apply(state, m, ed, validate=False)
        if not isinstance(m, (M.EndTurn, M.Restore)) and _game_json(state) == before:
            out.add(i)
    return out


def turns_equal(seen, true, seen_noops=frozenset(), true_noops=frozenset(), ed=None) -> tuple[int, int]:
    """(turns equal, true turns): the two logs cut into physical turns and compared turn by turn with
    ``move_log_equal``, the moves listed in ``*_noops`` (``noop_moves`` indices) left out."""
    def cut(moves, noops):
        turns, k = [], 0
        for turn in split_turns(moves):
            turns.append([m for j, m in enumerate(turn, k) if j not in noops])
            k += len(turn)
        return turns

    a, b = cut(seen, seen_noops), cut(true, true_noops)
    return sum(k < len(a) and move_log_equal(a[k], t, ed) for k, t in enumerate(b)), len(b)
