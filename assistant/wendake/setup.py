"""Setting up a Wendake game (W-SET): the map, the boards, the piles and every player's pieces.

Random setup outcomes (track pairs, turn order, tile and card shuffles, turtle draws) come from a seeded
generator, or are given explicitly, so that a setup can be reproduced exactly. Tribe cards are used back
side up (W-SET-7 a) unless tribes are given or dealt (front side, W-SET-7 b; see ``tribes.py``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from assistant.errors import UserError
from assistant.wendake import tribes as T
from assistant.wendake.edition import Edition, load_edition
from assistant.wendake.state import (
    TRACKS,
    GridTile,
    Options,
    PlayerState,
    ProductiveArea,
    State,
    Territory,
    Turn,
)


@dataclass(frozen=True)
class PlayerSetup:
    name: str
    colour: str | None = None
    home: str | None = None  # a Home territory id of the map; default: chosen in turn order (W-SET-6)
    lake: str | None = None  # where the first canoe goes (W-SET-8); default: a random lake


def new_game(players, seed: int | None = None, *, pairs=None, turn_order=None, options: Options | None = None,
             edition: Edition | None = None, tribes=None, deal_tribes: bool = False, oneida_tile: str | None = None,
             _counts: dict | None = None) -> State:
    """A new game for 2-4 players, given as names or ``PlayerSetup``; ``seed`` fixes every random outcome.

    ``tribes`` lists a tribe id (or None for the back side) per player; ``deal_tribes`` deals the front sides
    instead (W-SET-7 b); ``oneida_tile`` is the progress tile Oneida takes from the box (W-TRB-5)."""
    ed = edition or load_edition()
    rng = random.Random(seed)
    setups = [p if isinstance(p, PlayerSetup) else PlayerSetup(str(p)) for p in players]
    n = len(setups)
    if not ed.min_players <= n <= ed.max_players:
        raise UserError(f"Wendake takes {ed.min_players} to {ed.max_players} players here; got {n}. (The solo game is a separate mode, W-SOLO.)")
    if len({s.name for s in setups}) != n:
        raise UserError("player names must be different.")
    topo = ed.map_for(n)
    counts = _counts or ed.by_count[n]

    if pairs is None:  # W-SET-2: the category markers are dealt at random
        t = list(TRACKS)
        rng.shuffle(t)
        pairs = ((t[0], t[1]), (t[2], t[3]))
    pairs = tuple(tuple(p) for p in pairs)
    if sorted(x for p in pairs for x in p) != sorted(TRACKS) or any(len(p) != 2 for p in pairs):
        raise UserError(f"track pairs must split the 4 tracks {', '.join(TRACKS)} into two pairs; got {pairs}.")

    if turn_order is None:  # W-SET-5
        turn_order = list(range(n))
        rng.shuffle(turn_order)
    if sorted(turn_order) != list(range(n)):
        raise UserError(f"turn order must list each player index 0..{n - 1} once; got {turn_order}.")

    homes = list(topo.homes)
    chosen = {i: s.home for i, s in enumerate(setups) if s.home}
    for i, h in chosen.items():
        if h not in homes:
            raise UserError(f"{setups[i].name}: {h!r} is not a Home on the {n}-player map; Homes are {', '.join(homes)}.")
    if len(set(chosen.values())) != len(chosen):
        raise UserError("two players chose the same Home.")
    free = [h for h in homes if h not in chosen.values()]
    for i in turn_order:  # W-SET-6 / W-NIT-16: Homes are chosen in turn order
        if i not in chosen:
            chosen[i] = free.pop(0)

    colours = list(ed.colours)
    territories = {
        tid: Territory(tid, next((i for i, h in chosen.items() if h == tid), None), [0] * n,
                       [ProductiveArea(pa["kind"], pa.get("crop")) for pa in d["pas"]])
        for tid, d in topo.territories.items()
    }
    lakes = {lid: [0] * n for lid in topo.lakes}
    start = ed.start

    state = State(players=[], pairs=pairs, territories=territories, lakes=lakes, turn_order=list(turn_order),
                  options=options or Options())

    # Shared piles: progress rows (W-SET-3), advanced tiles (W-SET-13), mask deck (W-SET-4), turtles (W-SET-14).
    for level in (1, 2, 3):
        tiles = [t.id for t in ed.progress.values() if t.level == level] * ed.progress_copies
        rng.shuffle(tiles)
        state.progress_rows[level] = tiles[: counts["progress_per_row"]]
        state.progress_box[level] = tiles[counts["progress_per_row"]:]  # W-SET-3: the pool Oneida chooses from
    piles = {}
    for level in (1, 2):
        tiles = list(ed.advanced[level])
        rng.shuffle(tiles)
        piles[level] = tiles[: counts["advanced_kept"]]
    state.display = [piles[1].pop() for _ in range(ed.display_size)]
    state.advanced_pile = piles[1]
    state.advanced_pile_l2 = piles[2]
    deck = list(ed.mask_cards)
    rng.shuffle(deck)
    state.mask_deck = deck
    state.mask_discard = [state.mask_deck.pop()]
    for tid, spec in ed.turtle_types.items():
        state.turtle_stacks[tid] = [dict(x) for x in rng.sample(spec["tiles"], counts["turtles_per_stack"])]

    others = [t for t in ed.basic_tiles if t != ed.fire_tile]
    for i, s in enumerate(setups):
        home = chosen[i]
        t = territories[home]
        t.guards[i] = start["home_guards"]  # W-SET-8
        for pa in t.pas:
            pa.owner = i
            pa.native = "woman" if pa.kind == "harvest" else "hunter"
            pa.count = start["home_women"] if pa.kind == "harvest" else start["home_hunters"]
        lake = s.lake or rng.choice(topo.lakes)
        if lake not in lakes:
            raise UserError(f"{s.name}: {lake!r} is not a lake on the {n}-player map; lakes are {', '.join(topo.lakes)}.")
        lakes[lake][i] += start["canoes_on_lakes"]
        shuffled = others[:]
        rng.shuffle(shuffled)
        shuffled.insert(4, ed.fire_tile)  # W-SET-9: Sacred Fire in the centre
        home_crop = next(pa.crop for pa in t.pas if pa.kind == "harvest")
        back = ed.back_side  # W-SET-7 a
        resources = {"leather": back["leather"], "fish": back["fish"], "corn": 0, "beans": 0, "pumpkins": 0}
        resources[home_crop] += back["home_vegetable"]
        colour = s.colour or colours[i % len(colours)]
        player = PlayerState(
            name=s.name, colour=colour, home=home,
            grid=[GridTile(tile, "action") for tile in shuffled],
            sages=ed.per_player["action_markers"],
            long_house=dict(start["long_house"]),
            canoe_reserve=ed.per_player["canoes"] - start["canoes_on_lakes"],
            resources=resources, beavers=back["beavers"],
            hand=[state.mask_deck.pop() for _ in range(back["mask_cards"])],  # W-NIT-20: from the deck
            swap_tokens=ed.per_player["swap_tokens"],
            tracks=dict.fromkeys(TRACKS, ed.track_start),
        )
        state.players.append(player)
    if len({p.colour for p in state.players}) != n:
        raise UserError("two players have the same colour.")
    if deal_tribes and tribes is None:
        picks = T.deal(ed, rng, state.turn_order)
        tribes = [picks[i] for i in range(n)]
    if tribes is not None:
        if len(tribes) != n:
            raise UserError(f"give one tribe (or null) per player: {n} players, {len(tribes)} tribes.")
        given = [t for t in tribes if t is not None]
        if len(set(given)) != len(given):
            raise UserError("two players have the same tribe; each tribe card is unique (W-SET-7 b).")
        for i, tribe in enumerate(tribes):
            if tribe is not None:
                T.set_up(state, i, tribe, ed, oneida_tile)
    state.current = state.turn_order[0]
    state.turn = Turn(state.current)
    return state
