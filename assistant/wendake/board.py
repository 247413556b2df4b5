"""Wendake's shared rule helpers: the pieces every move family's ``check`` and ``apply`` build on.

Contracts:

- ``Violation`` names a rule ID of the spec (../shared/rules/wendake.md), says what is wrong and, where it can,
  what would have been legal. ``IllegalMoveError`` carries a list of them.
- ``MoveScope`` is the part of the board a move touches. With ``scratch=True`` it copies each territory, Long
  House and Mohawk location on first touch, so that ``check`` simulates without changing the state; with
  ``scratch=False`` it works on the state itself (``apply``). ``resolve_steps`` and ``remove_native`` work
  through it, so a check and its apply resolve the same steps the same way.
- ``MaskPiles`` is a scratch copy of the mask deck and discard; ``draw_mask`` draws from it or from a State
  alike, and an emptied deck is refilled from the discard at once (order unknown).
- Every helper here is deterministic and imports only the state, the moves and the edition: the move
  families (``assistant.wendake.rules``), the progress tiles, the tribes and the Ghost import it, never the
  other way round.
"""

from __future__ import annotations

from collections import Counter

from assistant.table.moveerrors import IllegalMoveError as IllegalMoveError
from assistant.table.moveerrors import Violation
from assistant.wendake import moves as M
from assistant.wendake.edition import Edition
from assistant.wendake.state import PA_NATIVE, State, Turn, slot_of

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
LINES_THROUGH = {i: tuple(line for line in LINES if i in line) for i in range(9)}


def slot_name(i: int) -> str:
    r, c = slot_of(i)
    return f"[{r}, {c}]"


def add_points(state: State, p: int, track: str, points: int, cap: int) -> int:
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


def valid_slot(slot) -> bool:
    return (isinstance(slot, tuple) and len(slot) == 2 and all(isinstance(x, int) and 0 <= x <= 2 for x in slot))


def moved_then_transferred(turn: Turn | None) -> bool:
    """W-XFER-4: this turn resolved a Move action and then made a transfer."""
    if turn is None or "transfer" not in turn.done or "move" not in turn.done:
        return False
    return turn.done.index("move") < len(turn.done) - 1 - turn.done[::-1].index("transfer")


def pending_index(turn: Turn | None, kind: str) -> int | None:
    """The open action a move of this kind resolves: the first at or after the cursor (W-TURN-1)."""
    if turn is None or turn.placed != "tile":
        return None
    for i in range(turn.cursor, len(turn.pending)):
        if turn.pending[i].kind == kind:
            return i
    return None


# ---- the move scope: what a move touches, resolved once for check and once for apply -------------------------
class MoveScope:
    """The territories and Long Houses a move touches. ``scratch=True`` copies each on first touch so that
    ``check`` can simulate without changing the state; otherwise it works on the state itself."""

    __slots__ = ("lh", "mh", "scratch", "state", "terr")

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
        placed = add_at_home(self.territory(home_id), owner, native)
        if native == "warrior" and black:
            self.set_mohawk(owner, "guard", home_id)
        if not placed:
            self.long_house(owner)[native] += 1  # no stack of that kind at Home (cannot happen on the bundled maps)


def resolve_steps(scope: MoveScope, p: int, steps, budget: int, v: list, ed: Edition) -> None:
    """Resolve a Move's steps in order (W-MOV, W-FIGHT, with W-TRB-1/3/10 and W-SOLO-7), collecting
    violations in ``v``; stops at the first."""
    state = scope.state
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
        src = scope.territory(s.frm)
        if src.guards[p] < 1:
            v.append(Violation(
                "W-MOV-1", f"{where}: you have no guard standing in {s.frm}. Only standing warriors move; outposts never do.",
                "Start each step from a territory where you have a guard."))
            return
        mover_black = False
        if me_mohawk:
            black_here = scope.black_guard(p, s.frm)
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
        dst = scope.territory(s.to)
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
                scope.set_mohawk(p, "guard", s.to)
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
                scope.set_mohawk(p, "outpost", s.to, s.pa)
        elif s.place == "attack_guard":
            t = s.target
            if t is None or not 0 <= t < state.n or t == p or dst.guards[t] < 1:
                name = state.players[t].name if t is not None and 0 <= t < state.n and t != p else "that player"
                v.append(Violation("W-FIGHT-2", f"{where}: {name} has no guard in {s.to} to attack.",
                                                     _guard_hint(state, dst, p)))
                return
            target_black = False
            if state.players[t].mohawk is not None and scope.black_guard(t, s.to):
                target_black = s.mohawk or dst.guards[t] == 1
            elif s.mohawk and not me_mohawk:
                v.append(Violation("W-TRB-3", f"{where}: {state.players[t].name}'s black Mohawk warrior is not standing guard in {s.to}."))
                return
            src.guards[p] -= 1
            dst.guards[t] -= 1
            if mover_black:  # W-TRB-3: it fought a warrior: back Home, and done for this action
                scope.send_home(p, "warrior", black=True)
                black_stopped = True
            else:
                scope.injure(p, "warrior")
            if target_black:  # W-TRB-3: attacked by a warrior, it goes Home instead of the Long House
                scope.send_home(t, "warrior", black=True)
            else:
                scope.injure(t, "warrior")
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
                if scope.black_outpost(owner, s.to, s.pa):
                    scope.send_home(owner, "warrior", black=True)  # W-TRB-3
                else:
                    scope.injure(owner, "warrior")
                if mover_black:
                    scope.send_home(p, "warrior", black=True)
                    black_stopped = True
                else:
                    scope.injure(p, "warrior")
                pa.owner, pa.native, pa.count = None, None, 0
            elif pa.native == "hunter" and tribe == "tuscarora" and not state.is_ghost(owner):
                scope.injure(p, "warrior", black=mover_black)  # W-TRB-10: the attacking warrior is injured
                if not options.tuscarora_hunter_survives:  # default (001): the hunter is injured as well
                    scope.injure(owner, "hunter")
                    pa.owner, pa.native, pa.count = None, None, 0
            else:
                if pa.native == "woman" and tribe == "cayuga" and not state.is_ghost(owner):
                    scope.send_home(owner, "woman")  # W-TRB-1: she goes back Home instead
                else:
                    scope.injure(owner, pa.native)
                pa.owner, pa.native, pa.count = p, "warrior", 1
                if mover_black:
                    scope.set_mohawk(p, "outpost", s.to, s.pa)
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


def remove_native(scope: MoveScope, state: State, p: int, victim: M.Victim, v: list) -> None:
    """Smallpox (W-ACT-10b): one of p's natives anywhere on the map goes to the Long House."""
    if victim.territory not in state.territories:
        v.append(Violation("W-ACT-10b", f"smallpox victim: {victim.territory!r} is not a territory."))
        return
    t = scope.territory(victim.territory)
    if state.options.smallpox_from_home_only and t.home_of != p:
        v.append(Violation("W-ACT-10b", "smallpox victim: this game's option takes it from your Home only (002's reading)."))
        return
    if victim.pa is None:
        if t.guards[p] < 1:
            v.append(Violation("W-ACT-10b", f"smallpox victim: you have no guard in {victim.territory}."))
            return
        black = scope.black_guard(p, victim.territory)
        if victim.mohawk and not black:
            v.append(Violation("W-TRB-3", f"smallpox victim: your black Mohawk warrior is not standing guard in {victim.territory}."))
            return
        t.guards[p] -= 1
        scope.injure(p, "warrior", black=black and (victim.mohawk or t.guards[p] == 0))  # W-TRB-3: smallpox -> Long House
        return
    if not 0 <= victim.pa < len(t.pas) or t.pas[victim.pa].owner != p or t.pas[victim.pa].empty:
        v.append(Violation("W-ACT-10b", f"smallpox victim: productive area {victim.pa} of {victim.territory} holds none of your natives."))
        return
    pa = t.pas[victim.pa]
    scope.injure(p, pa.native, black=scope.black_outpost(p, victim.territory, victim.pa))  # W-TRB-1: Cayuga too
    pa.count -= 1
    if pa.count == 0 and t.home_of is None:
        pa.owner = pa.native = None


def has_native_on_map(state: State, p: int) -> bool:
    return any(v for v in state.natives_on_map(p).values())


def return_home(state: State, p: int, kind: str) -> None:
    """A native comes back from the Long House to Home (W-ACT-12 a, W-PRG-L3-4). Mohawk's black warrior, if it
    is there, comes back first (engine reading: the player would choose it)."""
    player = state.players[p]
    player.long_house[kind] -= 1
    add_at_home(state.territories[player.home], p, kind)
    if kind == "warrior" and player.mohawk is not None and player.mohawk["at"] == "long_house":
        player.mohawk = {"at": "guard", "territory": player.home, "pa": None}


def add_at_home(home, owner: int, native: str) -> bool:
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


# ---- turtles -------------------------------------------------------------------------------------------------
def turtle_threshold(player, spec) -> int:
    """W-TUR-2; Shawnee needs 1 less in every case (W-TRB-9)."""
    return spec["threshold"] - (1 if player.tribe == "shawnee" else 0)


def turtle_count(state: State, p: int, category: str) -> int:
    if category == "canoes":
        return state.canoes_in_play(p)
    return state.occupied_pas(p, "woman" if category == "women" else "hunter")


# ---- mask cards -----------------------------------------------------------------------------------------------
class MaskPiles:
    """Scratch copies of the mask deck and discard pile, so that ``check`` can simulate draws."""

    __slots__ = ("mask_deck", "mask_discard")

    def __init__(self, state):
        self.mask_deck, self.mask_discard = state.mask_deck[:], state.mask_discard[:]


def draw(pile: list, given):
    top = pile.pop()
    return top if top is not None else given


def refill_deck_if_empty(state: State) -> None:
    """W-ACT-9 a: when the deck runs out, the discard pile is shuffled into a new deck (order unknown).

    Called right after every draw, so the deck is empty only when every card is in a hand or played."""
    if not state.mask_deck and state.mask_discard:
        state.mask_deck = [None] * len(state.mask_discard)
        state.mask_discard = []


def draw_mask(piles, source: str, card, flip):
    """Draw one mask card (W-ACT-9 a) from a State or a MaskPiles; returns the card (None if unknown)."""
    if source == "deck":
        refill_deck_if_empty(piles)
        drawn = draw(piles.mask_deck, card)
        refill_deck_if_empty(piles)
        if not piles.mask_discard and piles.mask_deck:
            piles.mask_discard.append(draw(piles.mask_deck, flip))
    else:
        drawn = draw(piles.mask_discard, card)
        if not piles.mask_discard:
            refill_deck_if_empty(piles)
            if piles.mask_deck:
                piles.mask_discard.append(draw(piles.mask_deck, flip))
    return drawn


def unaccounted_cards(state: State, ed: Edition) -> list[str]:
    """Mask cards whose place is not known: they must be among the face-down unknown cards."""
    known = Counter(c for c in state.mask_deck + state.mask_discard if c is not None)
    for pl in state.players:
        known.update(c for c in pl.hand + pl.played if c is not None)
    return [c for c in ed.mask_cards if not known[c]]
