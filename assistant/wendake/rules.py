"""Wendake's legality and effects: ``check(state, move)`` and ``apply(state, move)``.

``check`` returns every violation it finds; each names its rule ID from the spec (../shared/rules/wendake.md),
says in plain words what is wrong and, where it can, what would have been legal. ``apply`` mutates the state
deterministically (it checks first unless told not to) and then advances the turn, the phase and the year.

Every move is made by ``state.current``: the player whose turn it is, or during the restore phase the
player whose tile choice is due (W-RES-4).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from assistant.wendake import moves as M
from assistant.wendake.edition import Edition, load_edition
from assistant.wendake.state import (
    NATIVES, PA_NATIVE, RESOURCES, TRACKS, GridTile, PendingAction, State, Turn, slot_index,
    slot_of,
)

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINES_THROUGH = {i: tuple(line for line in LINES if i in line) for i in range(9)}
FREE_MOVES = (M.Transfer, M.Swap)
TURN_MOVES = (M.Activate, M.ReserveTurnOrder, M.EndTurn)


@dataclass(frozen=True, slots=True)
class Violation:
    rule: str
    message: str
    fix: str | None = None

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}" + (f" {self.fix}" if self.fix else "")

    def to_json(self) -> dict:
        return {"rule": self.rule, "message": self.message, "fix": self.fix}


class IllegalMoveError(M.MoveError):
    """A well-formed move the rules forbid; ``violations`` says which rules and why."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations
        super().__init__("; ".join(str(v) for v in violations))


def _ed(edition: Edition | None) -> Edition:
    return edition if edition is not None else load_edition()


def _slot_name(i: int) -> str:
    r, c = slot_of(i)
    return f"[{r}, {c}]"


def _add_points(state: State, p: int, track: str, points: int, cap: int) -> int:
    """Add points to a track, capped (W-SCR-5); returns the points actually gained."""
    tracks = state.players[p].tracks
    before = tracks[track]
    tracks[track] = min(cap, before + points)
    return tracks[track] - before


# ---- line rule ---------------------------------------------------------------------------------------------
def line_possible(markers, fire: int | None) -> bool:
    """W-LINE-2 with W-ACT-11: some line holds every marked slot and not the Fire-marked one."""
    if not markers:
        return any(fire not in line for line in LINES)
    return any(all(m in line for m in markers) and fire not in line for line in LINES_THROUGH[markers[0]])


def legal_activation_slots(player) -> list[int]:
    if len(player.markers) >= 3:
        return []
    taken = set(player.markers)
    return [i for i in range(9) if i not in taken and i != player.fire
            and line_possible(player.markers + [i], player.fire)]


# ---- territory view used to resolve moves and smallpox, once for check and once for apply ----------------------
class _View:
    """The territories and Long Houses a move touches. ``scratch=True`` copies each on first touch so that
    ``check`` can simulate without changing the state; otherwise it works on the state itself."""

    __slots__ = ("state", "scratch", "terr", "lh", "mh")

    def __init__(self, state: State, scratch: bool):
        self.state, self.scratch, self.terr, self.lh, self.mh = state, scratch, {}, {}, {}

    def territory(self, tid: str):
        if not self.scratch:
            return self.state.territories[tid]
        t = self.terr.get(tid)
        if t is None:
            t = self.terr[tid] = self.state.territories[tid].copy()
        return t

    def long_house(self, p: int) -> dict:
        if not self.scratch:
            return self.state.players[p].long_house
        lh = self.lh.get(p)
        if lh is None:
            lh = self.lh[p] = dict(self.state.players[p].long_house)
        return lh

    def mohawk(self, p: int) -> dict | None:
        """Where p's black Mohawk warrior is (W-TRB-3), or None when p is not Mohawk."""
        loc = self.state.players[p].mohawk
        if not self.scratch or loc is None:
            return loc
        m = self.mh.get(p)
        if m is None:
            m = self.mh[p] = dict(loc)
        return m

    def set_mohawk(self, p: int, at: str, territory: str | None = None, pa: int | None = None) -> None:
        m = self.mohawk(p)
        m.clear()
        m.update({"at": at, "territory": territory, "pa": pa})

    def black_guard(self, p: int, tid: str) -> bool:
        m = self.mohawk(p)
        return m is not None and m["at"] == "guard" and m["territory"] == tid

    def black_outpost(self, p: int, tid: str, pa: int) -> bool:
        m = self.mohawk(p)
        return m is not None and m["at"] == "outpost" and m["territory"] == tid and m["pa"] == pa

    def injure(self, owner: int, native: str, black: bool = False) -> None:
        """A native goes to its owner's Long House; a solo Ghost's goes back to the Ghost's Home (W-SOLO-7)."""
        if self.state.is_ghost(owner):
            self.send_home(owner, native)
            return
        self.long_house(owner)[native] += 1
        if black:
            self.set_mohawk(owner, "long_house")

    def send_home(self, owner: int, native: str, black: bool = False) -> None:
        """A native goes back to its owner's Home: a warrior as a guard, a woman or hunter onto its stack
        (Cayuga W-TRB-1, Mohawk W-TRB-3, the Ghost W-SOLO-7)."""
        home_id = self.state.players[owner].home
        placed = _add_at_home(self.territory(home_id), owner, native)
        if native == "warrior" and black:
            self.set_mohawk(owner, "guard", home_id)
        if not placed:
            self.long_house(owner)[native] += 1  # no stack of that kind at Home (cannot happen on the bundled maps)


def _resolve_steps(view: _View, p: int, steps, budget: int, v: list, ed: Edition) -> None:
    """Resolve a Move's steps in order (W-MOV, W-FIGHT, with W-TRB-1/3/10 and W-SOLO-7), collecting
    violations in ``v``; stops at the first."""
    state = view.state
    options = state.options
    topo = ed.map_for(state.n)
    spent = 0
    me_mohawk = state.players[p].mohawk is not None
    black_stopped = False  # W-TRB-3: after fighting a warrior the black warrior cannot move again this action
    for k, s in enumerate(steps, 1):
        where = f"step {k} ({s.frm} -> {s.to})"
        if s.frm not in state.territories or s.to not in state.territories:
            bad = s.frm if s.frm not in state.territories else s.to
            v.append(Violation("W-TERM-2", f"{where}: {bad!r} is not a territory of this map."))
            return
        src = view.territory(s.frm)
        if src.guards[p] < 1:
            v.append(Violation(
                "W-MOV-1", f"{where}: you have no guard standing in {s.frm}. Only standing warriors move; outposts never do.",
                "Start each step from a territory where you have a guard."))
            return
        mover_black = False
        if me_mohawk:
            black_here = view.black_guard(p, s.frm)
            if s.mohawk and not black_here:
                v.append(Violation("W-TRB-3", f"{where}: your black Mohawk warrior is not standing guard in {s.frm}."))
                return
            mover_black = black_here and (s.mohawk or src.guards[p] == 1)
            if mover_black and black_stopped:
                v.append(Violation("W-TRB-3", f"{where}: the black Mohawk warrior fought a warrior and went Home; it cannot move again during this action."))
                return
        entering = s.to != s.frm
        if entering and s.to not in topo.neighbours[s.frm]:
            v.append(Violation("W-MOV-2", f"{where}: {s.to} is not next to {s.frm} across land; warriors never cross lakes or rivers (W-TERM-2).",
                               f"From {s.frm} a warrior can reach {', '.join(sorted(topo.neighbours[s.frm])) or 'nothing'}."))
            return
        dst = view.territory(s.to)
        if entering and dst.home_of is not None and dst.home_of != p:
            v.append(Violation("W-TERM-3", f"{where}: {s.to} is {state.players[dst.home_of].name}'s Home; no opponent may ever enter it."))
            return
        cost = 2 if (entering and s.place.startswith("attack") and options.attack_on_entry_extra_step) else 1
        spent += cost
        if spent > budget:
            v.append(Violation("W-ACT-3", f"{where}: this Move has only {budget} step(s); these steps need {spent} or more.",
                                                 "Drop a step or use a tile with a bigger Move."))
            return
        if s.place == "guard":
            if not entering:
                v.append(Violation("W-MOV-2", f"{where}: a guard that stays in its territory can only become an outpost or attack."))
                return
            src.guards[p] -= 1
            dst.guards[p] += 1
            if mover_black:
                view.set_mohawk(p, "guard", s.to)
        elif s.place == "outpost":
            pa = _pa(dst, s, where, v)
            if pa is None:
                return
            if dst.home_of is not None:
                v.append(Violation("W-TERM-4", f"{where}: the productive areas of a Home hold its stacks; an outpost cannot lie there."))
                return
            if not pa.empty:
                v.append(Violation("W-MOV-4", f"{where}: productive area {s.pa} of {s.to} is held by {state.players[pa.owner].name}; only one native fits, so you must attack it (W-FIGHT-3).",
                                                     "Use place='attack_pa' to attack its occupant."))
                return
            src.guards[p] -= 1
            pa.owner, pa.native, pa.count = p, "warrior", 1
            if mover_black:
                view.set_mohawk(p, "outpost", s.to, s.pa)
        elif s.place == "attack_guard":
            t = s.target
            if t is None or not 0 <= t < state.n or t == p or dst.guards[t] < 1:
                name = state.players[t].name if t is not None and 0 <= t < state.n and t != p else "that player"
                v.append(Violation("W-FIGHT-2", f"{where}: {name} has no guard in {s.to} to attack.",
                                                     _guard_hint(state, dst, p)))
                return
            target_black = False
            if state.players[t].mohawk is not None and view.black_guard(t, s.to):
                target_black = s.mohawk or dst.guards[t] == 1
            elif s.mohawk and not me_mohawk:
                v.append(Violation("W-TRB-3", f"{where}: {state.players[t].name}'s black Mohawk warrior is not standing guard in {s.to}."))
                return
            src.guards[p] -= 1
            dst.guards[t] -= 1
            if mover_black:  # W-TRB-3: it fought a warrior: back Home, and done for this action
                view.send_home(p, "warrior", black=True)
                black_stopped = True
            else:
                view.injure(p, "warrior")
            if target_black:  # W-TRB-3: attacked by a warrior, it goes Home instead of the Long House
                view.send_home(t, "warrior", black=True)
            else:
                view.injure(t, "warrior")
        elif s.place == "attack_pa":
            pa = _pa(dst, s, where, v)
            if pa is None:
                return
            owner = pa.owner
            if pa.empty or owner == p:
                v.append(Violation("W-FIGHT-3", f"{where}: productive area {s.pa} of {s.to} holds no opponent native to attack."))
                return
            if dst.home_of is not None:
                v.append(Violation("W-FIGHT-1", f"{where}: natives in a Home can never be attacked."))
                return
            if dst.guards[owner] > 0:
                v.append(Violation(
                    "W-FIGHT-4", f"{where}: {state.players[owner].name} still has {dst.guards[owner]} guard(s) in {s.to}; guards must be removed before their productive areas can be attacked.",
                    f"Attack the guards first with place='attack_guard', target={owner}."))
                return
            src.guards[p] -= 1
            tribe = state.players[owner].tribe
            if pa.native == "warrior":
                if view.black_outpost(owner, s.to, s.pa):
                    view.send_home(owner, "warrior", black=True)  # W-TRB-3
                else:
                    view.injure(owner, "warrior")
                if mover_black:
                    view.send_home(p, "warrior", black=True)
                    black_stopped = True
                else:
                    view.injure(p, "warrior")
                pa.owner, pa.native, pa.count = None, None, 0
            elif pa.native == "hunter" and tribe == "tuscarora" and not state.is_ghost(owner):
                view.injure(p, "warrior", black=mover_black)  # W-TRB-10: the attacking warrior is injured
                if not options.tuscarora_hunter_survives:  # default (001): the hunter is injured as well
                    view.injure(owner, "hunter")
                    pa.owner, pa.native, pa.count = None, None, 0
            else:
                if pa.native == "woman" and tribe == "cayuga" and not state.is_ghost(owner):
                    view.send_home(owner, "woman")  # W-TRB-1: she goes back Home instead
                else:
                    view.injure(owner, pa.native)
                pa.owner, pa.native, pa.count = p, "warrior", 1
                if mover_black:
                    view.set_mohawk(p, "outpost", s.to, s.pa)
        else:
            v.append(Violation("W-MOV-2", f"{where}: unknown place {s.place!r}; use guard, outpost, attack_guard or attack_pa."))
            return


def _pa(territory, s, where: str, v: list):
    if s.pa is None or not 0 <= s.pa < len(territory.pas):
        v.append(Violation("W-TERM-4", f"{where}: {s.to} has productive areas 0..{len(territory.pas) - 1}, not {s.pa}."))
        return None
    return territory.pas[s.pa]


def _guard_hint(state: State, territory, p: int) -> str | None:
    present = [state.players[q].name for q in range(state.n) if q != p and territory.guards[q] > 0]
    return f"Guards there belong to: {', '.join(present)}." if present else "No opponent stands guard there."


def _remove_native(view: _View, state: State, p: int, victim: M.Victim, v: list) -> None:
    """Smallpox (W-ACT-10b): one of p's natives anywhere on the map goes to the Long House."""
    if victim.territory not in state.territories:
        v.append(Violation("W-ACT-10b", f"smallpox victim: {victim.territory!r} is not a territory."))
        return
    t = view.territory(victim.territory)
    if state.options.smallpox_from_home_only and t.home_of != p:
        v.append(Violation("W-ACT-10b", "smallpox victim: this game's option takes it from your Home only (002's reading)."))
        return
    if victim.pa is None:
        if t.guards[p] < 1:
            v.append(Violation("W-ACT-10b", f"smallpox victim: you have no guard in {victim.territory}."))
            return
        black = view.black_guard(p, victim.territory)
        if victim.mohawk and not black:
            v.append(Violation("W-TRB-3", f"smallpox victim: your black Mohawk warrior is not standing guard in {victim.territory}."))
            return
        t.guards[p] -= 1
        view.injure(p, "warrior", black=black and (victim.mohawk or t.guards[p] == 0))  # W-TRB-3: smallpox -> Long House
        return
    if not 0 <= victim.pa < len(t.pas) or t.pas[victim.pa].owner != p or t.pas[victim.pa].empty:
        v.append(Violation("W-ACT-10b", f"smallpox victim: productive area {victim.pa} of {victim.territory} holds none of your natives."))
        return
    pa = t.pas[victim.pa]
    view.injure(p, pa.native, black=view.black_outpost(p, victim.territory, victim.pa))  # W-TRB-1: Cayuga too
    pa.count -= 1
    if pa.count == 0 and t.home_of is None:
        pa.owner = pa.native = None


def _has_native_on_map(state: State, p: int) -> bool:
    return any(v for v in state.natives_on_map(p).values())


# ---- check ---------------------------------------------------------------------------------------------------
def check(state: State, move, edition: Edition | None = None) -> list[Violation]:
    """Every violation of the rules that ``move`` would commit, made by ``state.current``; empty if legal.
    Raises InvalidMoveError for a move that does not fit its schema (moves.validate_move)."""
    M.validate_move(move)
    ed = _ed(edition)
    v: list[Violation] = []
    if state.phase == "over":
        return [Violation("W-RND-1", "the game is over: 7 years have been played.")]
    if state.solo is not None:
        from assistant.wendake import ghost
        problems = ghost.gate(state, move, ed)
        if problems is not None:
            return problems
    elif isinstance(move, M.GHOST_MOVES):
        return [Violation("W-SOLO-0", "Ghost moves exist only in the solo game.")]
    if isinstance(move, M.Restore):
        if state.phase != "restore":
            return [Violation("W-RES-4", "tiles are replaced only in the restore phase, after every player has placed 4 markers.")]
        _check_restore(state, state.current, move, v, ed)
        return v
    if state.phase == "restore":
        return [Violation("W-RES-4", f"the restore phase is waiting for {state.players[state.current].name} to replace a tile (a Restore move).")]
    p = state.current
    turn = state.turn
    player = state.players[p]
    if isinstance(move, M.Activate):
        _check_activate(state, player, turn, move, v)
    elif isinstance(move, M.ReserveTurnOrder):
        if turn.placed is not None:
            v.append(Violation("W-RND-3", "you already placed a marker this turn; each turn places exactly one."))
        elif state.solo is not None:
            v.append(Violation("W-SOLO-7", "in the solo game you cannot reserve turn order; your 4th marker is on the turn-order track from the start."))
        elif turn.bonus and state.options.ojibwa_actions_only:
            v.append(Violation("W-TRB-4", "this game's option makes both Ojibwa placements activations; activate a tile."))
        elif player.reserved:
            v.append(Violation("W-TO-2", "you already reserved a turn-order space this year; it is done exactly once per year.",
                               _activation_hint(player)))
    elif isinstance(move, M.EndTurn):
        if turn.placed is None:
            v.append(Violation("W-RND-3", "a turn must place one marker: activate a tile or reserve turn order before ending it.",
                               _placement_hint(player)))
        elif move.again:
            from assistant.wendake import tribes
            tribes.check_ojibwa(state, p, v)
    elif isinstance(move, M.Transfer):
        _check_transfer(state, p, move, v, ed)
    elif isinstance(move, M.UseProgress):
        from assistant.wendake import progress
        progress.check_use_progress(state, p, move, v, ed)
    elif isinstance(move, M.Swap):
        _check_swap(player, move, v)
    else:
        kind = M.KIND_OF_MOVE.get(type(move))
        if kind is None:
            return [Violation("W-RND-3", f"{type(move).__name__} is not a Wendake move.")]
        index = _pending_index(turn, kind)
        if index is None and kind == "move" and moved_then_transferred(turn):
            return [Violation("W-XFER-4", "your Move action is over: in one action a warrior may not move, be transferred and "
                              "then move again, even with steps left over (W-MOV-7: a Move's steps are one action).",
                              "Move again only with another Move action of this turn or a progress tile's move.")]
        if index is None:
            open_kinds = [a.kind for a in turn.pending[turn.cursor:]] if turn.placed == "tile" else []
            where = "no tile has been activated this turn" if turn.placed != "tile" else (
                f"the activated tile has no open {kind} action" + (f" (open, top to bottom: {', '.join(open_kinds)})" if open_kinds else " (none left)"))
            return [Violation("W-TURN-1", f"{kind} cannot be performed: {where}. Actions come only from the activated tile, top to bottom, each once.")]
        CHECKERS[kind](state, p, move, turn.pending[index], v, ed)
    return v


def moved_then_transferred(turn: Turn | None) -> bool:
    """W-XFER-4: this turn resolved a Move action and then made a transfer."""
    if turn is None or "transfer" not in turn.done or "move" not in turn.done:
        return False
    return turn.done.index("move") < len(turn.done) - 1 - turn.done[::-1].index("transfer")


def _pending_index(turn: Turn | None, kind: str) -> int | None:
    """The open action a move of this kind resolves: the first at or after the cursor (W-TURN-1)."""
    if turn is None or turn.placed != "tile":
        return None
    for i in range(turn.cursor, len(turn.pending)):
        if turn.pending[i].kind == kind:
            return i
    return None


def _activation_hint(player) -> str | None:
    slots = legal_activation_slots(player)
    return ("Legal tiles now: " + ", ".join(_slot_name(i) for i in slots) + ".") if slots else None


def _placement_hint(player) -> str:
    parts = []
    slots = legal_activation_slots(player)
    if slots:
        parts.append("activate one of " + ", ".join(_slot_name(i) for i in slots))
    if not player.reserved:
        parts.append("reserve turn order")
    return "You can " + " or ".join(parts) + "." if parts else "You have no marker left."


def _check_activate(state, player, turn, move, v):
    if turn.placed is not None:
        v.append(Violation("W-RND-3", "you already placed a marker this turn; each turn places exactly one."))
        return
    if not _valid_slot(move.slot):
        v.append(Violation("W-LINE-1", f"slot {move.slot} is not on the 3x3 grid; use [row, col] with 0..2."))
        return
    i = slot_index(move.slot)
    if len(player.markers) >= 3:
        v.append(Violation("W-RND-3", "you have already activated 3 tiles this year; your last marker must reserve turn order."))
        return
    if i in player.markers:
        v.append(Violation("W-TURN-1", f"tile {_slot_name(i)} already holds an action marker this year.", _activation_hint(player)))
        return
    if i == player.fire:
        v.append(Violation("W-ACT-11", f"tile {_slot_name(i)} carries the Sacred Fire marker and cannot be picked again this year.", _activation_hint(player)))
        return
    if not line_possible(player.markers + [i], player.fire):
        marked = ", ".join(_slot_name(m) for m in player.markers)
        v.append(Violation("W-LINE-2", f"tile {_slot_name(i)} is not in a line (row, column or diagonal) with this year's tiles {marked}"
                           + (" that avoids the Sacred Fire tile" if player.fire is not None else "") + ".",
                           _activation_hint(player)))


def _valid_slot(slot) -> bool:
    return (isinstance(slot, tuple) and len(slot) == 2 and all(isinstance(x, int) and 0 <= x <= 2 for x in slot))


def _check_transfer(state, p, move, v, ed):
    turn = state.turn
    if (not state.options.transfer_between_actions and turn is not None and turn.placed == "tile"
            and 0 < turn.cursor < len(turn.pending)):
        v.append(Violation("W-XFER-1", "this game's option allows transfers only before or after the tile's actions, not between two of them."))
        return
    if move.as_guard:
        from assistant.wendake import progress
        tiles = [t for t in state.players[p].progress if progress.rule_of(ed, t) == progress.TRANSFER_AS_GUARD
                 and progress.available(state.players[p], t)]
        if not tiles:
            v.append(Violation("W-PRG-L2-2", "standing an outpost up as a guard in its own territory needs your face-up Transfer-as-guard tile (L2 Military)."))
            return
    t = state.territories.get(move.territory)
    if t is None or not isinstance(move.pa, int) or not 0 <= move.pa < len(t.pas):
        v.append(Violation("W-XFER-2", f"there is no productive area {move.pa} in {move.territory!r}."))
        return
    pa = t.pas[move.pa]
    if pa.owner != p or pa.native != "warrior":
        v.append(Violation("W-XFER-2", f"productive area {move.pa} of {move.territory} holds none of your outposts; only outposts are transferred, and women or hunters never leave voluntarily (W-XFER-3)."))
        return
    if move.replace:
        need = PA_NATIVE[pa.kind]
        if state.home_counts(p)[need] < 1 or state.is_ghost(p):
            v.append(Violation("W-XFER-2", f"your Home has no {need} left to put in the productive area.", "Transfer with replace=false to leave it empty."))


def _check_swap(player, move, v):
    if player.swap_tokens < 1:
        v.append(Violation("W-SWAP-1", "you have no swap token left; each is used once per game."))
        return
    if not (_valid_slot(move.a) and _valid_slot(move.b)) or move.a == move.b:
        v.append(Violation("W-SWAP-1", "a swap exchanges two different grid slots given as [row, col]."))
        return
    a, b = slot_index(move.a), slot_index(move.b)
    if a in player.markers or b in player.markers:
        v.append(Violation("W-SWAP-1", "tiles with an action marker on them cannot be swapped."))
        return
    fire = b if player.fire == a else a if player.fire == b else player.fire
    if not line_possible(player.markers, fire):
        v.append(Violation("W-LINE-4", "this swap would leave no legal line for this year's markers (the Sacred Fire tile would sit in the line you must complete)."))


def _check_canoe(state, p, move, pending, v, ed):
    if state.players[p].canoe_reserve < 1:
        v.append(Violation("W-ACT-2", "all 5 of your canoes are already on lakes."))
    if move.lake not in state.lakes:
        v.append(Violation("W-ACT-2", f"{move.lake!r} is not a lake on this map.", "Lakes: " + ", ".join(sorted(state.lakes)) + "."))


def _check_move(state, p, move, pending, v, ed):
    if not move.steps:
        return
    _resolve_steps(_View(state, scratch=True), p, move.steps, pending.n, v, ed)


def _check_nothing(state, p, move, pending, v, ed):
    return


def _check_military(state, p, move, pending, v, ed):
    from assistant.wendake import progress
    player = state.players[p]
    progress.check_uses(player, move.use, "military", ed, v)
    owned = {t["type"] for t in player.turtles}
    seen = set()
    for tid in move.turtles:
        spec = ed.turtle_types.get(tid)
        if spec is None:
            v.append(Violation("W-TUR-3", f"{tid!r} is not a turtle type; types are like 'women-3' or 'canoes-5'."))
            continue
        cat = spec["category"]
        if cat in seen:
            v.append(Violation("W-TUR-3", f"one Military action gives at most 1 turtle tile per category; you claimed two {cat} tiles."))
        seen.add(cat)
        if tid in owned:
            v.append(Violation("W-TUR-4", f"you already own a {tid} turtle; nobody owns two of the same type."))
        have = _turtle_count(state, p, cat)
        need = turtle_threshold(player, spec)
        if have < need:
            v.append(Violation("W-TUR-2", f"{tid} needs {need} {cat}" + (" (Shawnee: 1 less, W-TRB-9)" if need != spec["threshold"] else "")
                               + f" but you have {have}" + (" in productive areas (outposts do not count)" if cat != "canoes" else " in play") + "."))
        if not state.turtle_stacks.get(tid):
            v.append(Violation("W-TUR-5", f"the {tid} stack is empty."))


def turtle_threshold(player, spec) -> int:
    """W-TUR-2; Shawnee needs 1 less in every case (W-TRB-9)."""
    return spec["threshold"] - (1 if player.tribe == "shawnee" else 0)


def _turtle_count(state: State, p: int, category: str) -> int:
    if category == "canoes":
        return state.canoes_in_play(p)
    return state.occupied_pas(p, "woman" if category == "women" else "hunter")


class _Piles:
    """Scratch copies of the mask deck and discard pile, so that ``check`` can simulate draws."""

    __slots__ = ("mask_deck", "mask_discard")

    def __init__(self, state):
        self.mask_deck, self.mask_discard = state.mask_deck[:], state.mask_discard[:]


def _check_draw(piles, source, card, ed, v, label: str = "") -> bool:
    """W-ACT-9 a: whether a draw from ``source`` naming ``card`` is possible from these piles."""
    if source not in ("deck", "discard"):
        v.append(Violation("W-ACT-9", f"{label}draw from 'deck' or 'discard', not {source!r}."))
        return False
    pile = piles.mask_deck if source == "deck" else piles.mask_discard
    if source == "deck" and not pile and not piles.mask_discard:
        v.append(Violation("W-ACT-9", f"{label}both the deck and the discard pile are empty."))
        return False
    if source == "discard" and not pile:
        v.append(Violation("W-ACT-9", f"{label}the discard pile is empty; draw from the deck."))
        return False
    top = pile[-1] if pile else None
    if card is not None:
        if card not in ed.mask_cards:
            v.append(Violation("W-ACT-9", f"{label}{card!r} is not a mask card."))
            return False
        if top is not None and card != top:
            v.append(Violation("W-ACT-9", f"{label}the top card of the {source} is {top}, not {card}."))
            return False
    return True


def _mask_draw(piles, source: str, card, flip):
    """Draw one mask card (W-ACT-9 a) from a State or a _Piles; returns the card (None if unknown)."""
    if source == "deck":
        _refill_deck_if_empty(piles)
        drawn = _draw(piles.mask_deck, card)
        _refill_deck_if_empty(piles)
        if not piles.mask_discard and piles.mask_deck:
            piles.mask_discard.append(_draw(piles.mask_deck, flip))
    else:
        drawn = _draw(piles.mask_discard, card)
        if not piles.mask_discard:
            _refill_deck_if_empty(piles)
            if piles.mask_deck:
                piles.mask_discard.append(_draw(piles.mask_deck, flip))
    return drawn


def _check_mask(state, p, move, pending, v, ed):
    from assistant.wendake import progress
    player = state.players[p]
    uses = progress.check_uses(player, move.use, "mask", ed, v)
    if v:
        return
    two = "W-PRG-L1-5" in uses
    if not two and (move.source2 is not None or move.card2 is not None or move.discard is not None):
        v.append(Violation("W-PRG-L1-5", "a second draw and a discard need the Draw-two tile (L1 Mask) in use."))
        return
    if two and move.source2 is None:
        v.append(Violation("W-PRG-L1-5", "with Draw two, name the second draw (source2) and the card you discard (discard)."))
        return
    for field, rule in (("wild", "W-PRG-L2-6"), ("phantom", "W-PRG-L3-6"), ("recall", "W-PRG-L2-5")):
        if getattr(move, field) is not None and rule not in uses:
            v.append(Violation(rule, f"'{field}' needs the tile of {rule} in use."))
            return
    hand = list(player.hand)
    if "W-PRG-L2-5" in uses:  # Recall: played cards come back first
        if state.options.recall_one_card:
            if move.recall is not None:
                if move.recall not in player.played:
                    v.append(Violation("W-PRG-L2-5", f"{move.recall} is not among the cards you played this year."))
                    return
                hand.append(move.recall)
        else:
            hand += player.played
    piles = _Piles(state)
    if not _check_draw(piles, move.source, move.card, ed, v):
        return
    hand.append(_mask_draw(piles, move.source, move.card, move.flip))
    if two:
        if not _check_draw(piles, move.source2, move.card2, ed, v, "second draw: "):
            return
        hand.append(_mask_draw(piles, move.source2, move.card2, move.flip2))
        # discard None: a face-down unknown card of the hand (the tracker's hidden hands, ``assistant.table.tracker``)
        if move.discard not in hand:
            what = "you hold no unknown card" if move.discard is None else f"{move.discard} is not"
            v.append(Violation("W-PRG-L1-5", f"you can discard only a card in your hand; {what}.",
                               "Name the card you discarded (discard)."))
            return
        hand.remove(move.discard)
    if move.space is None:
        if move.cards:
            v.append(Violation("W-ACT-9", "cards are played only onto a ceremony space; name the space."))
        return
    space = ed.mask_spaces.get(move.space)
    if space is None:
        v.append(Violation("W-ACT-9", f"{move.space!r} is not a ceremony space.", "Spaces: " + ", ".join(ed.mask_spaces) + "."))
        return
    holder = state.mask_space_holder(move.space)
    if holder is not None and "W-PRG-L1-6" not in uses:
        who = "your own disk" if holder == p else f"{state.players[holder].name}'s disk"
        v.append(Violation("W-ACT-9.2", f"space {move.space} is occupied by {who}; only an empty space can be used.",
                           _free_spaces_hint(state, ed)))
        return
    have = Counter(hand)
    need = Counter(move.cards)
    if any(c is None for c in move.cards) or any(have[c] < k for c, k in need.items()):
        v.append(Violation("W-ACT-9.1", "you can play only cards in your hand (cards played this year cannot be used again).",
                           "Your hand: " + ", ".join(str(c) for c in hand) + "."))
        return
    types = [ed.mask_cards[c].mask for c in move.cards]
    kinds = {c.mask for c in ed.mask_cards.values()}
    if move.wild is not None:
        if move.wild not in move.cards or move.wild_as not in kinds:
            v.append(Violation("W-PRG-L2-6", "Wild: name one of the cards you play (wild) and the mask type it counts as (wild_as)."))
            return
        types.remove(ed.mask_cards[move.wild].mask)
        types.append(move.wild_as)
    if move.phantom is not None:
        if move.phantom not in kinds:
            v.append(Violation("W-PRG-L3-6", f"Phantom card: {move.phantom!r} is not a mask type ({', '.join(sorted(kinds))})."))
            return
        types.append(move.phantom)
    groups = tuple(sorted(Counter(types).values(), reverse=True))
    if groups != space.pattern:
        v.append(Violation("W-ACT-9", f"space {move.space} needs {_pattern_text(space.pattern)}; the cards played show {_pattern_text(groups)}.",
                           "Play exactly the cards the space asks for and keep the rest."))


def _pattern_text(pattern) -> str:
    if not pattern:
        return "no cards"
    if all(g == 1 for g in pattern):
        return f"{len(pattern)} different masks"
    return " + ".join(f"{g} identical" if g > 1 else "1 other" for g in pattern)


def _free_spaces_hint(state, ed) -> str:
    free = [s for s in ed.mask_spaces if state.mask_space_holder(s) is None]
    return "Empty spaces: " + (", ".join(free) if free else "none") + "."


def payment_matches(level: int, pay, ed: Edition, discount: int = 0) -> bool:
    """W-ACT-10c: the payment is exactly the price of a progress tile of that level (less any discount)."""
    from assistant.wendake.progress import payment_matches as pm
    return pm(level, pay, ed, discount)


def _row_of(state: State, tile: str) -> int | None:
    for level, row in state.progress_rows.items():
        if tile in row:
            return level
    return None


def purchase_track_options(tracks: dict, category: str, economic_gain: int, cap: int) -> list[str]:
    """W-PRG-2 step 2: which tracks may receive K, after E has gone on Economic."""
    if category in ("military", "ritual", "mask"):
        return [category]
    after = dict(tracks)
    after["economic"] = min(cap, after["economic"] + economic_gain)
    target = min(after.values()) if category == "lowest" else max(after.values())
    return [t for t in TRACKS if after[t] == target]


def score_purchase(tracks: dict, tile, track: str | None, cap: int, options: list[str] | None = None) -> str:
    """W-PRG-2 on a tracks dict: the tile's Economic points, then its points on ``track`` (or the first track its
    category allows); returns the track that got them. ``options``: ``purchase_track_options`` when known."""
    options = options or purchase_track_options(tracks, tile.category, tile.economic, cap)
    tracks["economic"] = min(cap, tracks["economic"] + tile.economic)
    chosen = track or options[0]
    tracks[chosen] = min(cap, tracks[chosen] + tile.points)
    return chosen


def smallpox_draws(state, p, move, ed) -> bool:
    """W-ACT-10b: whether this Trade reveals a smallpox card (any exchange, unless Extra exchange waives it)."""
    if not move.exchanges:
        return False
    if move.use:
        from assistant.wendake import progress
        if any(progress.rule_of(ed, t) == "W-PRG-L1-8" for t in move.use):
            return not (state.options.extra_exchange_no_draw or move.skip_smallpox)
    return True


def _check_trade(state, p, move, pending, v, ed):
    from assistant.wendake import progress
    player = state.players[p]
    uses = progress.check_uses(player, move.use, "trade", ed, v) if move.use else set()
    extra = "W-PRG-L1-8" in uses
    res = dict(player.resources)
    limit = state.canoes_in_play(p) + (2 if extra else 0)
    if len(move.exchanges) > limit:
        v.append(Violation("W-ACT-10a", f"you made {len(move.exchanges)} exchanges but have {limit} allowed ({state.canoes_in_play(p)} canoe(s) in play"
                           + (", +2 Extra exchange" if extra else "") + "); each canoe allows one.",
                           "Place canoes first, or exchange less."))
    if move.skip_smallpox and not extra:
        v.append(Violation("W-PRG-L1-8", "only the Extra-exchange tile (L1 Lowest) waives the smallpox check."))
    for give, get in move.exchanges:
        if give not in RESOURCES or get not in RESOURCES:
            v.append(Violation("W-TERM-5", f"exchange {give}->{get}: only leather, fish, corn, beans and pumpkins are exchanged; beavers never are."))
            return
        if give == get:
            v.append(Violation("W-ACT-10a", f"exchange {give}->{get} swaps a resource for itself."))
            return
        if res[give] < 1:
            v.append(Violation("W-ACT-10a", f"exchange {give}->{get}: you have no {give} left to give."))
            return
        res[give] -= 1
        res[get] += 1
    view = _View(state, scratch=True)
    if smallpox_draws(state, p, move, ed):
        if not state.mask_deck and not state.mask_discard:
            v.append(Violation("W-ACT-10b", "there is no mask card left to reveal for the smallpox check."))
        elif state.mask_deck and state.mask_deck[-1] is not None and move.smallpox_card not in (None, state.mask_deck[-1]):
            v.append(Violation("W-ACT-10b", f"the top card of the deck is {state.mask_deck[-1]}, not {move.smallpox_card}."))
        card = move.smallpox_card if move.smallpox_card is not None else (state.mask_deck[-1] if state.mask_deck else None)
        if card is not None and card not in ed.mask_cards:
            v.append(Violation("W-ACT-10b", f"{card!r} is not a mask card."))
        elif card is None:
            v.append(Violation("W-ACT-10b", "name the mask card revealed for the smallpox check (smallpox_card)."))
        elif ed.mask_cards[card].infected:
            if move.victim is None:
                if _has_native_on_map(state, p):
                    v.append(Violation("W-ACT-10b", f"the blanket on {card} is infected: one of your natives on the map must go to your Long House.",
                                       "Name it as victim (territory, and pa for a productive area)."))
            else:
                _remove_native(view, state, p, move.victim, v)
        elif move.victim is not None:
            v.append(Violation("W-ACT-10b", f"the blanket on {card} is clean; nobody is removed."))
    elif move.smallpox_card is not None or move.victim is not None:
        v.append(Violation("W-ACT-10b", "no smallpox card is revealed: that happens only after at least one exchange"
                           + (" and not when Extra exchange waives it." if extra else ".")))
    most = 2 if player.tribe == "fox" else 1
    if len(move.purchases) > most:
        v.append(Violation("W-TRB-2" if most == 2 else "W-ACT-10c", f"a Trade buys at most {most} progress tile(s)"
                           + (" (Fox)." if most == 2 else "; only Fox buys 2 (W-TRB-2).")))
    tracks = dict(player.tracks)
    spent_discounts = Counter()
    for buy in move.purchases:
        level = _row_of(state, buy.tile)
        if level is None:
            v.append(Violation("W-ACT-10c", f"{buy.tile} is not face up in a progress row."))
            continue
        if len([b for b in move.purchases if b.tile == buy.tile]) > sum(row.count(buy.tile) for row in state.progress_rows.values()):
            v.append(Violation("W-ACT-10c", f"{buy.tile} can be bought only once."))
            continue
        discount = 0
        for t in buy.discounts:
            rule = progress.rule_of(ed, t)
            spent_discounts[t] += 1
            if rule not in progress.DISCOUNT:
                v.append(Violation("W-PRG-L1-7", f"{t!r} is not a discount tile (L1/L2/L3 Lowest 'costs less')."))
            elif player.progress.count(t) - player.progress_used.count(t) < spent_discounts[t]:
                v.append(Violation("W-PRG-3", f"discount tile {t} is not yours, or is already face down this year."))
            else:
                discount += progress.DISCOUNT[rule]
        if len(buy.discounts) > 1 and not state.options.discounts_combine:
            v.append(Violation("W-PRG-4", "this game's option allows one discount tile per purchase."))
        if not payment_matches(level, buy.pay, ed, discount):
            price = ed.prices[level]
            veg = f"{price['vegetables']} {'different ' if price['different_vegetables'] else ''}vegetable(s)"
            v.append(Violation("W-ACT-10c", f"a level {level} tile costs {price['leather']} leather + {price['fish']} fish + {veg}"
                               + (f", less {discount} resource(s) of your choice" if discount else "") + f"; you offered {', '.join(buy.pay) or 'nothing'}."))
            continue
        need = Counter(buy.pay)
        short = [r for r, k in need.items() if res.get(r, 0) < k]
        if short:
            v.append(Violation("W-ACT-10c", f"you lack {', '.join(short)} to pay for {buy.tile}."))
            continue
        for r, k in need.items():
            res[r] -= k
        tile = ed.progress[buy.tile]
        if buy.flag is not None and (tile.rule not in progress.ALLIANCE or buy.flag not in progress.flag_choices(state, p)):
            v.append(Violation("W-PRG-L1-2", f"no {buy.flag!r} flag can be taken with this purchase; choices: {', '.join(progress.flag_choices(state, p)) if tile.rule in progress.ALLIANCE else 'none (not an Alliance tile)'}."))
        options = purchase_track_options(tracks, tile.category, tile.economic, ed.cap)
        if buy.track is not None and buy.track not in options:
            v.append(Violation("W-PRG-2", f"{tile.name}'s {tile.points} point(s) go on {' or '.join(options)}, not {buy.track}."))
            continue
        if buy.track is None and len(options) > 1:
            v.append(Violation("W-PRG-2", f"your {tile.category} tracks are tied ({', '.join(options)}); choose one with track=."))
        score_purchase(tracks, tile, buy.track, ed.cap, options)
    if move.points:
        if len(set(move.points)) != len(move.points) or any(r not in RESOURCES for r in move.points):
            v.append(Violation("W-ACT-10d", "Economic points are bought with resources all of different types (at most 5); beavers never count."))
        elif any(res[r] < 1 for r in move.points):
            v.append(Violation("W-ACT-10d", "you do not have every resource you offered for Economic points (after the exchange and purchase)."))


def _check_sacred_fire(state, p, move, pending, v, ed):
    player = state.players[p]
    if not _valid_slot(move.slot):
        v.append(Violation("W-ACT-11", f"slot {move.slot} is not on the 3x3 grid."))
        return
    i = slot_index(move.slot)
    if player.fire is not None:
        v.append(Violation("W-ACT-11", "the Sacred Fire marker is already on a tile this year."))
    elif i == state.turn.slot:
        v.append(Violation("W-ACT-11", "the Sacred Fire cannot activate its own tile."))
    elif i in player.markers:
        v.append(Violation("W-ACT-11", f"tile {_slot_name(i)} already has an action marker this year; no tile is activated twice in a year."))
    elif not line_possible(player.markers, i):
        legal = [j for j in range(9) if j not in player.markers and line_possible(player.markers, j)]
        v.append(Violation("W-ACT-11", f"tile {_slot_name(i)} belongs to every line you can still complete this year; the Fire-marked tile can never be one of them (W-LINE-3).",
                           "Legal targets: " + ", ".join(_slot_name(j) for j in legal) + "."))


def _check_ritual(state, p, move, pending, v, ed):
    from assistant.wendake import progress
    player = state.players[p]
    uses = progress.check_uses(player, move.use, "ritual", ed, v) if move.use else set()
    lh = player.long_house
    total = sum(lh.values())
    need = min(2, total)
    allowed = {need, min(3, total)} if "W-PRG-L3-3" in uses else {need}
    if len(move.natives) not in allowed:
        v.append(Violation("W-ACT-12", f"Ritual brings exactly {need} native(s) home from your Long House (2, or all there are if fewer)"
                           + ("; Extra native (W-PRG-L3-3) allows 1 more." if "W-PRG-L3-3" in uses else ".")))
        return
    count = Counter(move.natives)
    for kind, k in count.items():
        if kind not in NATIVES or lh.get(kind, 0) < k:
            v.append(Violation("W-ACT-12", f"your Long House has {lh.get(kind, 0)} {kind}(s); it holds " + ", ".join(f"{n} {kd}" for kd, n in lh.items()) + "."))
            return
    if move.steps:
        if "W-PRG-L1-4" not in uses:
            v.append(Violation("W-PRG-L1-4", "a step after Ritual needs the Ritual-bonus tile (L1 Ritual) in use."))
        elif len(move.steps) > 1:
            v.append(Violation("W-PRG-L1-4", "Ritual bonus moves 1 warrior 1 step."))
        else:
            trial = state.copy()
            for kind in move.natives:
                _return_home(trial, p, kind)
            _resolve_steps(_View(trial, scratch=True), p, move.steps, 1, v, ed)


def _return_home(state: State, p: int, kind: str) -> None:
    """A native comes back from the Long House to Home (W-ACT-12 a, W-PRG-L3-4). Mohawk's black warrior, if it
    is there, comes back first (engine reading: the player would choose it)."""
    player = state.players[p]
    player.long_house[kind] -= 1
    _add_at_home(state.territories[player.home], p, kind)
    if kind == "warrior" and player.mohawk is not None and player.mohawk["at"] == "long_house":
        player.mohawk = {"at": "guard", "territory": player.home, "pa": None}


def _add_at_home(home, owner: int, native: str) -> bool:
    """One native of ``owner`` into its Home territory: a warrior as a guard, a woman or hunter onto the matching
    stack. False when there is no such stack (nothing placed)."""
    if native == "warrior":
        home.guards[owner] += 1
        return True
    for pa in home.pas:
        if pa.owner == owner and PA_NATIVE[pa.kind] == native:
            pa.native = native
            pa.count += 1
            return True
    return False


CHECKERS = {"canoe": _check_canoe, "move": _check_move, "harvest": _check_nothing, "hunt": _check_nothing,
            "tan": _check_nothing, "fish": _check_nothing, "military": _check_military, "mask": _check_mask,
            "trade": _check_trade, "sacred_fire": _check_sacred_fire, "ritual": _check_ritual}


def _check_restore(state, p, move, v, ed):
    player = state.players[p]
    new = list(player.below)
    if move.set_aside is None:
        if move.take is not None:
            v.append(Violation("W-RES-4", "a new tile is taken only in place of one set aside; name the tile you set aside."))
            return
    else:
        if move.set_aside not in player.below:
            v.append(Violation("W-RES-4", f"{move.set_aside} is not one of the 3 tiles below your grid ({', '.join(player.below)})."))
            return
        if move.take is None:
            v.append(Violation("W-RES-4", "a set-aside tile must be replaced by a display tile or one of your own set-aside tiles."))
            return
        if move.take not in state.display and move.take not in player.set_aside:
            v.append(Violation("W-RES-4", f"{move.take} is neither on the advanced display nor in your set-aside pile.",
                               "Display: " + ", ".join(str(t) for t in state.display) + "."))
            return
        if (move.take not in state.display and state.options.take_back_basic_only
                and ed.tiles[move.take].level != 0):
            v.append(Violation("W-RES-4", f"this game's option (002) takes back only basic tiles; {move.take} is advanced."))
            return
        new.remove(move.set_aside)
        new.append(move.take)
        if move.take in state.display and state.advanced_pile and state.advanced_pile[-1] is not None \
                and move.refill not in (None, state.advanced_pile[-1]):
            v.append(Violation("W-RES-4", f"the display is refilled from the top of the pile, which is {state.advanced_pile[-1]}."))
    if move.order and sorted(move.order) != sorted(new):
        v.append(Violation("W-RES-4", "row 0 must hold exactly the 3 tiles below your grid after the replacement, in shuffled order: " + ", ".join(new) + "."))


# ---- apply ---------------------------------------------------------------------------------------------------
def apply(state: State, move, edition: Edition | None = None, validate: bool = True) -> State:
    """Play ``move`` on ``state`` in place (checking it first unless ``validate`` is False) and return it."""
    ed = _ed(edition)
    if validate:
        violations = check(state, move, ed)
        if violations:
            raise IllegalMoveError(violations)
    else:
        M.validate_move(move)
    if isinstance(move, M.GHOST_MOVES):
        from assistant.wendake import ghost
        ghost.apply(state, move, ed)
        return state
    if isinstance(move, M.Restore):
        _apply_restore(state, move, ed)
        return state
    p = state.current
    player = state.players[p]
    turn = state.turn
    if isinstance(move, M.Activate):
        i = slot_index(move.slot)
        player.markers.append(i)
        player.sages -= 1
        turn.placed, turn.slot = "tile", i
        g = player.grid[i]
        turn.pending = [PendingAction(a.kind, a.n, "tile") for a in ed.tiles[g.tile].face(g.side)]
        turn.cursor = 0
    elif isinstance(move, M.ReserveTurnOrder):
        player.reserved = True
        player.sages -= 1
        turn.placed = "reserve"
        state.turn_order_track.append(p)
    elif isinstance(move, M.EndTurn):
        if move.again:  # W-TRB-4: Ojibwa's black marker: the same player places again at once
            player.ojibwa_used = True
            state.turn = Turn(p, bonus=True)
        else:
            _next_turn(state, ed)
    elif isinstance(move, M.UseProgress):
        from assistant.wendake import progress
        progress.apply_use_progress(state, p, move, ed)
    elif isinstance(move, M.Transfer):
        if turn is not None:
            turn.done.append("transfer")  # W-XFER-4
        t = state.territories[move.territory]
        pa = t.pas[move.pa]
        home = state.territories[player.home]
        stand = move.territory if move.as_guard else player.home
        state.territories[stand].guards[p] += 1
        if move.as_guard:  # W-PRG-L2-2: flip the Transfer-as-guard tile
            from assistant.wendake import progress
            player.progress_used.append(next(t for t in player.progress if progress.rule_of(ed, t) == progress.TRANSFER_AS_GUARD
                                             and progress.available(player, t)))
        m = player.mohawk
        if m is not None and m["at"] == "outpost" and m["territory"] == move.territory and m["pa"] == move.pa:
            player.mohawk = {"at": "guard", "territory": stand, "pa": None}
        pa.owner = pa.native = None
        pa.count = 0
        if move.replace:
            native = PA_NATIVE[pa.kind]
            for hpa in home.pas:
                if hpa.owner == p and hpa.native == native and hpa.count > 0:
                    hpa.count -= 1
                    break
            pa.owner, pa.native, pa.count = p, native, 1
    elif isinstance(move, M.Swap):
        a, b = slot_index(move.a), slot_index(move.b)
        player.grid[a], player.grid[b] = player.grid[b], player.grid[a]
        if player.fire == a:
            player.fire = b
        elif player.fire == b:
            player.fire = a
        player.swap_tokens -= 1
    else:
        kind = M.KIND_OF_MOVE[type(move)]
        index = _pending_index(turn, kind)
        if turn.free_order:  # W-PRG-L1-3: any order; only the action done is used up
            turn.pending.pop(index)
        else:
            turn.cursor = index + 1
        turn.done.append(kind)
        APPLIERS[kind](state, p, move, ed)
    return state


def _apply_canoe(state, p, move, ed):
    state.players[p].canoe_reserve -= 1
    state.lakes[move.lake][p] += 1


def _apply_move(state, p, move, ed):
    _resolve_steps(_View(state, scratch=False), p, move.steps, len(move.steps) * 2, [], ed)


def _apply_harvest(state, p, move, ed):
    res = state.players[p].resources
    for t in state.territories.values():
        for pa in t.pas:
            if pa.owner == p and pa.native == "woman" and pa.count > 0:
                res[pa.crop] += 1


def _apply_hunt(state, p, move, ed):
    state.players[p].beavers += state.occupied_pas(p, "hunter")


def _apply_tan(state, p, move, ed):
    player = state.players[p]
    player.resources["leather"] += player.beavers
    player.beavers = 0


def _apply_fish(state, p, move, ed):
    state.players[p].resources["fish"] += state.canoes_in_play(p)


def _apply_military(state, p, move, ed):
    from assistant.wendake import progress
    player = state.players[p]
    uses = {progress.rule_of(ed, t) for t in move.use}
    progress.flip(player, move.use)
    immediate = state.solo is not None and state.options.solo_turtles_immediate
    for tid in move.turtles:
        hidden = state.turtle_stacks[tid].pop()
        tile = {"type": tid, "hidden": hidden}
        if immediate and hidden is not None and "track" in hidden:  # W-SOLO-13: L3/L4 count at once
            _add_points(state, p, hidden["track"], ed.turtle_types[tid]["points"], ed.cap)
            tile["scored"] = True
        player.turtles.append(tile)
    _add_points(state, p, "military", progress.majorities(state, p, ed, uses), ed.cap)


def majorities(state: State, p: int, edition: Edition | None = None, uses=frozenset()) -> int:
    """W-ACT-8 b: territories (Home included) where p has strictly more guards than every other player,
    with the alliances' virtual guards and ties when their tiles are in ``uses`` (see progress.majorities)."""
    from assistant.wendake import progress
    return progress.majorities(state, p, _ed(edition), uses)


def _draw(pile: list, given):
    top = pile.pop()
    return top if top is not None else given


def _refill_deck_if_empty(state: State) -> None:
    """W-ACT-9 a: when the deck runs out, the discard pile is shuffled into a new deck (order unknown).

    Called right after every draw, so the deck is empty only when every card is in a hand or played."""
    if not state.mask_deck and state.mask_discard:
        state.mask_deck = [None] * len(state.mask_discard)
        state.mask_discard = []


def _apply_mask(state, p, move, ed):
    from assistant.wendake import progress
    player = state.players[p]
    uses = {progress.rule_of(ed, t) for t in move.use}
    progress.flip(player, move.use)
    if "W-PRG-L2-5" in uses:  # Recall, before the ceremony
        if state.options.recall_one_card:
            if move.recall is not None:
                player.played.remove(move.recall)
                player.hand.append(move.recall)
        else:
            player.hand.extend(player.played)
            player.played = []
    player.hand.append(_mask_draw(state, move.source, move.card, move.flip))
    if "W-PRG-L1-5" in uses:  # Draw two, then discard any 1 card face up
        player.hand.append(_mask_draw(state, move.source2, move.card2, move.flip2))
        player.hand.remove(move.discard)
        state.mask_discard.append(move.discard)
    if move.space is not None:
        for c in move.cards:
            player.hand.remove(c)
            player.played.append(c)
        player.mask_space = move.space
        _add_points(state, p, "mask", ed.mask_spaces[move.space].points, ed.cap)
    if "W-PRG-L3-5" in uses:
        _add_points(state, p, "mask", 1, ed.cap)


def _apply_trade(state, p, move, ed):
    from assistant.wendake import progress
    player = state.players[p]
    res = player.resources
    progress.flip(player, move.use)
    for give, get in move.exchanges:
        res[give] -= 1
        res[get] += 1
    if smallpox_draws(state, p, move, ed):
        _refill_deck_if_empty(state)
        card = _draw(state.mask_deck, move.smallpox_card)
        _refill_deck_if_empty(state)  # the revealed card then starts the new discard pile
        if card is not None and ed.mask_cards[card].infected and move.victim is not None:
            _remove_native(_View(state, scratch=False), state, p, move.victim, [])
        state.mask_discard.append(card)
    for buy in move.purchases:
        level = _row_of(state, buy.tile)
        state.progress_rows[level].remove(buy.tile)
        progress.flip(player, buy.discounts)
        for r in buy.pay:
            res[r] -= 1
        player.progress.append(buy.tile)
        tile = ed.progress[buy.tile]
        options = purchase_track_options(player.tracks, tile.category, tile.economic, ed.cap)
        _add_points(state, p, "economic", tile.economic, ed.cap)
        _add_points(state, p, buy.track or options[0], tile.points, ed.cap)
        if tile.rule in progress.ALLIANCE:
            progress.gain_flag(state, p, buy.flag)
    for r in move.points:
        res[r] -= 1
    _add_points(state, p, "economic", len(move.points), ed.cap)


def _apply_sacred_fire(state, p, move, ed):
    player = state.players[p]
    i = slot_index(move.slot)
    player.fire = i
    g = player.grid[i]
    turn = state.turn
    turn.pending[turn.cursor:turn.cursor] = [PendingAction(a.kind, a.n, "fire") for a in ed.tiles[g.tile].face(g.side)]


def _apply_ritual(state, p, move, ed):
    from assistant.wendake import progress
    player = state.players[p]
    uses = {progress.rule_of(ed, t) for t in move.use}
    progress.flip(player, move.use)
    for kind in move.natives:
        _return_home(state, p, kind)
    counts = state.home_counts(p).values()
    if "W-PRG-L2-3" in uses:  # Most common: instead of the least (000/001/003) or in addition (002)
        points = max(counts) + (min(counts) if state.options.ritual_most_common_additional else 0)
    else:
        points = min(counts)
    points += ("W-PRG-L1-4" in uses) + ("W-PRG-L3-3" in uses)
    _add_points(state, p, "ritual", points, ed.cap)
    if move.steps:  # Ritual bonus: then 1 warrior 1 step (W-PRG-L1-4)
        _resolve_steps(_View(state, scratch=False), p, move.steps, 1, [], ed)


APPLIERS = {"canoe": _apply_canoe, "move": _apply_move, "harvest": _apply_harvest, "hunt": _apply_hunt,
            "tan": _apply_tan, "fish": _apply_fish, "military": _apply_military, "mask": _apply_mask,
            "trade": _apply_trade, "sacred_fire": _apply_sacred_fire, "ritual": _apply_ritual}


# ---- turn, restore and year sequencing ----------------------------------------------------------------------------
def _next_turn(state: State, ed: Edition) -> None:
    """W-RND-2: the next player in turn order with a marker left; when none has, the restore phase."""
    order = state.turn_order
    i = order.index(state.current)
    for k in range(1, state.n + 1):
        q = order[(i + k) % state.n]
        if state.players[q].sages > 0:
            state.current = q
            state.turn = Turn(q)
            return
    _start_restore(state, ed)


def _start_restore(state: State, ed: Edition) -> None:
    state.turn = None
    solo = state.solo
    if solo is None:  # W-RES-1 (2.A): the reservations give the new order at once.
        state.turn_order = state.turn_order_track[:]
        state.turn_order_track = []
    # solo 2.A: the order does not change (W-SOLO-11)
    for q in state.humans():
        player = state.players[q]
        # W-RES-2: flip every tile that held an action marker; the Fire-marked tile is not flipped,
        # and Ottawa's Sacred Fire tile never turns to its Ritual side (W-TRB-7).
        for i in player.markers:
            g = player.grid[i]
            if player.tribe == "ottawa" and g.tile == ed.fire_tile:
                continue
            g.side = "ritual" if g.side == "action" else "action"
        player.markers = []
        player.fire = None
        player.sages = 4 if solo is None else 3  # solo: the 4th marker stays on the turn-order track (W-SOLO-6)
        player.reserved = solo is not None
        player.ojibwa_used = False
    if state.year >= ed.years:  # W-RES-8, and the note on year 7: only 2.A can still change the result
        state.phase = "over"
        state.current = None
        return
    for q in state.humans():
        player = state.players[q]
        # W-RES-3: slide down one row; the bottom row leaves the grid, Action side up.
        player.below = [g.tile for g in player.grid[6:9]]
        player.grid[3:9] = player.grid[0:6]
        player.grid[0:3] = [None, None, None]
    state.phase = "restore"
    state.restore_queue = state.turn_order[:]  # solo: the Ghost's turn here is its W-SOLO-11 2.B removal
    state.current = state.restore_queue[0]


def _apply_restore(state: State, move: M.Restore, ed: Edition) -> None:
    p = state.current
    player = state.players[p]
    tiles = list(player.below)
    if move.set_aside is not None:
        tiles.remove(move.set_aside)
        tiles.append(move.take)
        if move.take in state.display:
            state.display.remove(move.take)
            if state.advanced_pile:
                state.display.append(_draw(state.advanced_pile, move.refill))
        else:
            player.set_aside.remove(move.take)
        player.set_aside.append(move.set_aside)
    order = list(move.order) if move.order else tiles
    player.grid[0:3] = [GridTile(t, "action") for t in order]
    player.below = []
    restore_step_done(state, ed)


def restore_step_done(state: State, ed: Edition) -> None:
    """One player's 2.B is done: the next one's, or steps 2.B part 4 to 2.E and the next year."""
    state.restore_queue.pop(0)
    if state.restore_queue:
        state.current = state.restore_queue[0]
        return
    if state.year == 3:  # W-RES-5: the Level 2 tiles replace the Level 1 display
        state.display = [state.advanced_pile_l2.pop() for _ in range(min(ed.display_size, len(state.advanced_pile_l2)))]
        state.advanced_pile = state.advanced_pile_l2
        state.advanced_pile_l2 = []
        state.advanced_level = 2
    for q in state.humans():
        player = state.players[q]
        player.mask_space = None  # W-RES-6 (2.C)
        player.hand.extend(player.played)
        player.played = []
        player.progress_used = []  # W-RES-7 (2.D)
    if state.solo is not None:
        from assistant.wendake import ghost
        ghost.end_of_year(state, ed)  # W-SOLO-11 2.C (Ghost mask disk) and 2.E
    state.year += 1  # W-RES-8 (2.E)
    state.phase = "actions"
    state.current = state.turn_order[0]
    state.turn = Turn(state.current)
