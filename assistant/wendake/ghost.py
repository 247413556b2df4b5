"""The solo game's Ghost (W-SOLO): set-up, its moves, its instructions to the player, and the final result.

The Ghost is player 1 of a 2-player map; it has pieces on the map but no action tiles. Its decisions are moves
like a player's, so the tracker can check them against what the camera sees:

* ``GhostCard(card)`` at the start of each year: the mask card laid under the leftmost free Ghost card (W-SOLO-8);
* ``GhostAction(track)`` on each of its 3 turns: the action on this year's line of the current card (W-SOLO-9/10);
* ``GhostRestore(refill)`` in the restore: it removes the advanced tile above its disk (W-SOLO-11 2.B).

API for the tracker and tablet: ``forced_move(state)`` is the Ghost move due now (None when the player is to
move); ``instruction(state)`` says in words what to do on the table; ``check_observed(state, observed)`` lists
the differences between an observed state and the one the instruction leads to; ``scoring.solo_score(state)``
scores the end (W-SOLO-12, W-SOLO-14). The Ghost cards are edition data (``data/ghost.json``; W-NIT-10 placeholder).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from assistant.errors import UserError
from assistant.wendake import board
from assistant.wendake import moves as M
from assistant.wendake.edition import Edition, load_edition
from assistant.wendake.setup import PlayerSetup, new_game
from assistant.wendake.state import PA_NATIVE, TRACKS, Options, SoloState, State, Turn
from assistant.wendake.turns import next_turn, restore_step_done

DIFFICULTIES = ("easy", "medium", "hard")
GHOST_NAME = "Ghost"
FLAG_OF_OVAL = {"red": "english", "yellow": "french"}  # W-SOLO-10, W-NIT-26


def new_solo_game(name: str = "You", seed: int | None = None, difficulty: str = "medium", tribe: str | None = None,
                  deal_tribe: bool = False, options: Options | None = None, edition: Edition | None = None) -> State:
    """W-SOLO-1..6: a 2-player set-up with 1 turtle per type, the Ghost's 21 natives in the other Home, 3 Ghost
    card sides, the Ghost's score disks, its progress, mask and advanced-tile disks, and the turn-order track."""
    ed = edition or load_edition()
    if difficulty not in DIFFICULTIES:
        raise UserError(f"difficulty must be one of {', '.join(DIFFICULTIES)}; got {difficulty!r} (W-SOLO-1).")
    rng = random.Random(seed)
    topo = ed.map_for(2)
    ghost_home = topo.solo_ghost_home or topo.homes[-1]
    own_home = next(h for h in topo.homes if h != ghost_home)
    counts = dict(ed.by_count[2])
    counts["turtles_per_stack"] = 1  # W-SOLO-2
    if deal_tribe and tribe is None:  # W-SOLO-6: draw 2, keep 1 (here: the first)
        tribe = rng.sample(sorted(ed.tribes), 2)[0]
    state = new_game([PlayerSetup(name, home=own_home), PlayerSetup(GHOST_NAME, home=ghost_home)], seed=rng.randrange(2**31),
                     turn_order=[0, 1], options=options, edition=ed, tribes=[tribe, None], _counts=counts)
    g = 1
    gp = state.players[g]
    state.mask_deck[0:0] = gp.hand  # the Ghost holds no cards: back under the deck
    gp.hand = []
    gp.grid = [None] * 9
    gp.resources = dict.fromkeys(gp.resources, 0)
    gp.beavers = 0
    gp.swap_tokens = 0
    home = state.territories[ghost_home]
    home.guards[g] = ed.per_player["warriors"]  # W-SOLO-3: all 7 of each type at its Home
    for pa in home.pas:
        pa.count = ed.per_player["women" if pa.kind == "harvest" else "hunters"]
    gp.long_house = dict.fromkeys(gp.long_house, 0)
    sides = sorted(ed.ghost_sides)
    by_card: dict = {}
    for s in sides:
        by_card.setdefault(ed.ghost_sides[s]["card"], []).append(s)
    cards = sorted(by_card)
    rng.shuffle(cards)
    chosen = [rng.choice(by_card[c]) for c in cards[:3]]  # W-SOLO-4: 3 cards, random sides and order
    total = sum(ed.ghost_sides[s]["value"] for s in chosen)
    tracks = rng.sample(list(TRACKS), 2)  # W-SOLO-5: 2 disks on any 2 tracks summing to the total
    gp.tracks = dict.fromkeys(TRACKS, 0)
    gp.tracks[tracks[0]] = min(ed.cap, total // 2)
    gp.tracks[tracks[1]] = min(ed.cap, total - total // 2)
    gp.mask_space = next(iter(ed.mask_spaces))  # W-SOLO-6: disk #4 on the first mask space
    for p in (0, 1):  # W-SOLO-6: the 4th markers sit on the turn-order track; 3 left each
        state.players[p].sages = 3
        state.players[p].reserved = True
    state.turn_order = [0, 1]
    state.turn_order_track = [0, 1]
    state.solo = SoloState(difficulty, g, chosen, [[], [], []], score_tracks=tracks)
    state.current = 0
    state.turn = Turn(0)
    return state


# ---- the rules gate --------------------------------------------------------------------------------------------
def gate(state: State, move, ed: Edition):
    """Solo-specific legality: a list of violations for Ghost moves (empty if legal), or None to let the
    ordinary rules judge a player's move."""
    solo = state.solo
    v: list = []
    if isinstance(move, M.GhostCard):
        if state.phase != "actions" or not solo.awaiting_card:
            return [board.Violation("W-SOLO-8", "the Ghost's mask card is revealed only at the start of a year, once.")]
        if not state.mask_deck and not state.mask_discard:
            return [board.Violation("W-SOLO-8", "no mask card is left to reveal.")]
        top = state.mask_deck[-1] if state.mask_deck else None
        if move.card is not None and move.card not in ed.mask_cards:
            v.append(board.Violation("W-SOLO-8", f"{move.card!r} is not a mask card."))
        elif top is not None and move.card not in (None, top):
            v.append(board.Violation("W-SOLO-8", f"the top card of the deck is {top}, not {move.card}."))
        elif top is None and move.card is None:
            v.append(board.Violation("W-SOLO-8", "name the mask card revealed for the Ghost (card)."))
        return v
    if state.phase == "actions" and solo.awaiting_card:
        return [board.Violation("W-SOLO-8", "a new year starts with the Ghost's mask card: reveal it first (GhostCard).")]
    if isinstance(move, M.GhostAction):
        if state.phase != "actions" or state.current != solo.ghost:
            return [board.Violation("W-SOLO-9", "it is not the Ghost's turn.")]
        if move.track is not None and move.track not in solo.score_tracks:
            v.append(board.Violation("W-SOLO-10", f"the Ghost scores only on its tracks {', '.join(solo.score_tracks)}."))
        return v
    if isinstance(move, M.GhostRestore):
        if state.phase != "restore" or state.current != solo.ghost:
            return [board.Violation("W-SOLO-11", "the Ghost removes its advanced tile only in its place of the restore.")]
        if state.advanced_pile and state.advanced_pile[-1] is not None and move.refill not in (None, state.advanced_pile[-1]):
            v.append(board.Violation("W-RES-4", f"the display is refilled from the top of the pile, which is {state.advanced_pile[-1]}."))
        return v
    if state.current == solo.ghost:
        what = "GhostRestore" if state.phase == "restore" else "GhostAction"
        return [board.Violation("W-SOLO-9", f"it is the Ghost's turn ({what}): {instruction(state, ed)['text']}")]
    return None


def forced_move(state: State, ed: Edition | None = None):
    """The Ghost move due now, or None when the player decides (W-SOLO-8, -9, -11)."""
    solo = state.solo
    if solo is None or state.phase == "over":
        return None
    if state.phase == "actions" and solo.awaiting_card:
        top = state.mask_deck[-1] if state.mask_deck else None
        if top is not None:
            return M.GhostCard()
        pool = board.unaccounted_cards(state, ed or load_edition())
        return M.GhostCard(pool[0] if pool else None)
    if state.current == solo.ghost:
        return M.GhostRestore() if state.phase == "restore" else M.GhostAction()
    return None


# ---- the Ghost's actions ----------------------------------------------------------------------------------------
def current_action(state: State, ed: Edition) -> dict:
    """The line cell the Ghost's next marker goes to: card left to right from this year's card (W-SOLO-8/9)."""
    solo = state.solo
    card = (solo.year_slot + solo.actions_done) % 3
    side = solo.cards[card]
    line = ed.mask_cards[solo.year_card].ghost_line
    return {"card": card, "side": side, "line": line, **ed.ghost_sides[side]["lines"][str(line)]}


def apply(state: State, move, ed: Edition) -> list[str]:
    """Apply a Ghost move; returns the instructions for the table, one line per physical change."""
    solo = state.solo
    if isinstance(move, M.GhostCard):
        board.refill_deck_if_empty(state)
        card = board.draw(state.mask_deck, move.card)
        board.refill_deck_if_empty(state)
        slot = next(i for i, u in enumerate(solo.under) if not u)
        solo.under[slot].append(card)
        solo.year_card, solo.year_slot = card, slot
        solo.awaiting_card = False
        solo.actions_done = 0
        flag = FLAG_OF_OVAL.get(ed.mask_cards[card].oval, "?")
        return [f"Year {state.year}: put mask card {card} under Ghost card {slot + 1} ({solo.cards[slot]}); "
                f"its {ed.mask_cards[card].oval} oval points the Ghost to the {flag} flag, line {ed.mask_cards[card].ghost_line}."]
    if isinstance(move, M.GhostAction):
        act = current_action(state, ed)
        lines = [f"Ghost action {solo.actions_done + 1} (card {act['side']}, line {act['line']}): "
                 f"move the Ghost's action marker down onto that line."]
        lines += _perform(state, act, move.track, ed)
        solo.actions_done += 1
        state.players[solo.ghost].sages -= 1
        next_turn(state, ed)
        return lines
    if isinstance(move, M.GhostRestore):
        out = []
        i = solo.advanced_disk
        if i < len(state.display) and state.display[i] is not None:
            tile = state.display[i]
            solo.removed.append(tile)
            if state.advanced_pile:  # refill the gap as for a normal take (W-NIT-25)
                state.display[i] = board.draw(state.advanced_pile, move.refill)
                out.append(f"Remove advanced tile {tile} (above the Ghost's disk) from the game; put {state.display[i]} from the pile in its place.")
            else:
                state.display.pop(i)
                out.append(f"Remove advanced tile {tile} (above the Ghost's disk) from the game; the pile is empty.")
        else:
            out.append("No advanced tile lies above the Ghost's disk; nothing is removed.")
        solo.advanced_disk += 1
        out.append("Move the Ghost's disk one tile to the right.")
        restore_step_done(state, ed)
        return out
    raise ValueError(f"not a Ghost move: {move!r}")


def _perform(state: State, act: dict, track: str | None, ed: Edition) -> list[str]:
    solo = state.solo
    g = solo.ghost
    kind = act["kind"]
    if kind == "climb":  # W-SOLO-10 (1)
        if solo.progress_level >= 3:
            return ["Progress climb: the Ghost's disk is already at level 3; nothing happens."]
        solo.progress_level += 1
        return [f"Progress climb: move the Ghost's disk beside the price tokens up to level {solo.progress_level}."]
    if kind == "remove":  # W-SOLO-10 (2)
        level = solo.progress_level
        solo.progress_level = 1
        for lvl in range(level, 0, -1):
            row = state.progress_rows.get(lvl) or []
            if row:
                tile = row.pop(0)
                solo.removed.append(tile)
                return [f"Progress removal: remove the leftmost level {lvl} progress tile ({tile}, {ed.progress[tile].name}) "
                        f"from the game; put the Ghost's disk back at level 1."]
        return ["Progress removal: every row at or below the Ghost's level is empty; put the Ghost's disk back at level 1."]
    if kind == "score":  # W-SOLO-10 (3)
        tracks = state.players[g].tracks
        a, b = solo.score_tracks
        pick = track or (a if tracks[a] <= tracks[b] else b)
        if tracks[pick] >= ed.cap:
            pick = b if pick == a else a
        board.add_points(state, g, pick, 1, ed.cap)
        return [f"Score: move the Ghost's {pick} disk forward 1 (to {tracks[pick]})."]
    if kind == "place":
        return _place(state, act["native"], ed)
    raise UserError(f"ghost.json: unknown Ghost action {kind!r}; use climb, remove, score or place.")


def _ghost_count(t, g: int, native: str) -> int:
    if native == "warrior":
        return t.guards[g]
    return sum(1 for pa in t.pas if pa.owner == g and pa.native == native and pa.count)


def _place(state: State, native: str, ed: Edition) -> list[str]:
    """W-SOLO-10 (4): a Ghost native goes near or far in the territories of this year's flag; it may attack."""
    solo = state.solo
    g = solo.ghost
    colour = state.players[g].colour
    flag = FLAG_OF_OVAL[ed.mask_cards[solo.year_card].oval]
    spots = ed.map_for(state.n).flags[flag]
    near, far = spots["near"], spots["far"]
    home = state.territories[state.players[g].home]
    tn, tf = state.territories[near], state.territories[far]
    first = near if _ghost_count(tn, g, native) <= _ghost_count(tf, g, native) else far
    if native == "warrior":
        if home.guards[g] < 1:
            return ["The Ghost has no warrior at its Home; nothing is placed (W-NIT-25)."]
        home.guards[g] -= 1
        state.territories[first].guards[g] += 1
        return [f"Put a Ghost ({colour}) warrior from its Home on {first} as a guard ({flag} flag, {'near' if first == near else 'far'})."]
    stack = next((pa for pa in home.pas if pa.owner == g and PA_NATIVE[pa.kind] == native), None)
    if stack is None or stack.count < 1:
        return [f"The Ghost has no {native} at its Home; nothing is placed (W-NIT-25)."]
    order = [first] + ([far if first == near else near] if state.options.ghost_switch_territory else [])
    kind = "harvest" if native == "woman" else "hunt"
    for tid in order:
        t = state.territories[tid]
        where = f"{tid} ({flag} flag, {'near' if tid == near else 'far'})"
        for i, pa in enumerate(t.pas):
            if pa.kind == kind and pa.empty:
                stack.count -= 1
                pa.owner, pa.native, pa.count = g, native, 1
                return [f"Put a Ghost ({colour}) {native} from its Home on productive area {i} of {where}."]
        for i, pa in enumerate(t.pas):
            if pa.kind == kind and not pa.empty and pa.owner != g:
                return _attack(state, t, i, native, stack, where, colour)
    return [f"Every {kind} productive area of the {flag} territories is held by the Ghost; nothing is placed."]


def _attack(state: State, t, i: int, native: str, stack, where: str, colour: str) -> list[str]:
    """The Ghost attacks the player's native in productive area i (W-SOLO-10). Its placement is not a warrior's
    attack, so Cayuga's, Tuscarora's and Mohawk's attack abilities do not apply (engine reading)."""
    g = state.solo.ghost
    pa = t.pas[i]
    owner = pa.owner
    name = state.players[owner].name
    name = "your" if name == "You" else f"{name}'s"
    view = board.MoveScope(state, scratch=False)
    if t.guards[owner] > 0:
        black = view.black_guard(owner, t.id) and t.guards[owner] == 1
        t.guards[owner] -= 1
        view.injure(owner, "warrior", black=black)
        return [f"The Ghost attacks on {where}: one of {name} guards there is injured; put it in {name} Long House. "
                f"The native in productive area {i} stays."]
    if pa.native == "warrior":
        view.injure(owner, "warrior", black=view.black_outpost(owner, t.id, i))
        pa.owner, pa.native, pa.count = None, None, 0
        return [f"The Ghost attacks on {where}: {name} outpost in productive area {i} is injured; put it in "
                f"{name} Long House. The Ghost places nothing."]
    view.injure(owner, pa.native)
    stack.count -= 1
    pa.owner, pa.native, pa.count = g, native, 1
    return [f"The Ghost attacks on {where}: {name} {native} in productive area {i} is injured; put it grey side up in "
            f"{name} Long House and a Ghost ({colour}) {native} from its Home in its place."]


# ---- the API for the tracker and tablet --------------------------------------------------------------------------
@dataclass(frozen=True)
class Instruction:
    move: object
    text: str
    expected: State  # the state once the instruction is carried out


def instruction(state: State, ed: Edition | None = None) -> dict:
    """What the player must do for the Ghost now: ``{"move", "text", "expected"}``, or a note when it is the
    player's own decision."""
    ed = ed or load_edition()
    move = forced_move(state, ed)
    if move is None:
        return {"move": None, "text": "It is your turn.", "expected": None}
    after = state.copy()
    lines = apply(after, move, ed)
    return {"move": move, "text": " ".join(lines), "expected": after}


def check_observed(state: State, observed: State, ed: Edition | None = None) -> list[str]:
    """Differences between an observed state (after the player carried out the Ghost's instruction) and the
    expected one: guards, productive areas, Long Houses, score disks (every track), mask disks, progress rows,
    the advanced display and, when the observed state carries them, the Ghost's own disks (W-SOLO-10, -11)."""
    ed = ed or load_edition()
    exp = instruction(state, ed)["expected"]
    if exp is None:
        return []
    out = []
    for tid, t in exp.territories.items():
        o = observed.territories.get(tid)
        if o is None:
            out.append(f"{tid}: not observed.")
            continue
        for p, (a, b) in enumerate(zip(t.guards, o.guards)):
            if a != b:
                out.append(f"{tid}: {exp.players[p].name} should have {a} guard(s), {b} seen.")
        for i, (a, b) in enumerate(zip(t.pas, o.pas)):
            if (a.owner, a.native, a.count) != (b.owner, b.native, b.count):
                want = f"{exp.players[a.owner].name}'s {a.native}" if a.count else "empty"
                seen = f"{observed.players[b.owner].name}'s {b.native}" if b.count else "empty"
                out.append(f"{tid} productive area {i}: should be {want}, {seen} seen.")
    for p, pl in enumerate(exp.players):
        if pl.long_house != observed.players[p].long_house:
            out.append(f"{pl.name}'s Long House should hold {pl.long_house}, {observed.players[p].long_house} seen.")
    for p, pl in enumerate(exp.players):
        seen = observed.players[p]
        for track in TRACKS:
            if pl.tracks[track] != seen.tracks[track]:
                out.append(f"{pl.name}'s {track} score disk should be on {pl.tracks[track]}, {seen.tracks[track]} seen.")
        if pl.mask_space != seen.mask_space:
            out.append(f"{pl.name}'s mask disk should be on {pl.mask_space or 'the Restore Area'}, "
                       f"{seen.mask_space or 'the Restore Area'} seen.")
    if observed.solo is not None:
        want, got = exp.solo, observed.solo
        if want.progress_level != got.progress_level:
            out.append(f"the Ghost's disk beside the price tokens should be at level {want.progress_level}, "
                       f"level {got.progress_level} seen.")
        if want.advanced_disk != got.advanced_disk:
            out.append(f"the Ghost's advanced-tile disk should be under display tile {want.advanced_disk + 1}, "
                       f"under tile {got.advanced_disk + 1} seen.")
    if exp.progress_rows != observed.progress_rows:
        out.append(f"progress rows should be {exp.progress_rows}, {observed.progress_rows} seen.")
    if exp.display != observed.display:
        out.append(f"the advanced display should be {exp.display}, {observed.display} seen.")
    return out
