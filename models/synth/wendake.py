"""The Wendake part of the generator: a random game position from the rules engine -> boards and pieces.

``random_position`` plays a seeded random game and stops at a random move; ``table_for`` turns that State into
``BoardSpec``s (layout + pieces + printed tiles) for the map, one village board per player, the mask board and the
two score-track pairs. Everything else (drawing, camera, randomisation, labels) is game-neutral.
"""

from __future__ import annotations

import zlib

import numpy as np

from assistant.wendake.generate import play_random_game
from calibration.layout import load_builtin
from models.synth.pieces import Piece, scatter
from models.synth.scene import BoardSpec

SCORE_DISK_MM = 5.0  # thickness of a tribe disk: disks on the same score space stack


def random_position(players: int, rng: np.random.Generator):
    """(state, move index) of a seeded random game stopped before a random move."""
    seed = int(rng.integers(0, 2**31))
    stop = int(rng.integers(0, 420))
    names = ["Ringo", "Paul", "John", "George"][:players]
    snap = {}

    def on_move(state, move):
        snap.setdefault("n", 0)
        if snap["n"] == stop:
            snap["state"] = state.copy()
        snap["n"] += 1

    final, moves = play_random_game(names, seed=seed, validate=False, on_move=on_move)
    if "state" in snap:
        return snap["state"], stop, seed
    return final, len(moves), seed


def _layouts(players: int) -> dict[str, dict]:
    names = [f"wendake-map-{players}p", "wendake-mask", "wendake-scores-a", "wendake-scores-b"]
    names += [f"wendake-village-{i + 1}" for i in range(players)]
    return {n: load_builtin(n) for n in names}


_LAYOUT_CACHE: dict[int, dict] = {}


def layouts(players: int) -> dict[str, dict]:
    if players not in _LAYOUT_CACHE:
        _LAYOUT_CACHE[players] = _layouts(players)
    return _LAYOUT_CACHE[players]


def _centre(poly) -> tuple[float, float]:
    p = np.asarray(poly, float)
    return float(p[:, 0].mean()), float(p[:, 1].mean())


def _rot(rng) -> float:
    return float(rng.uniform(0, 360))


def bought_tiles(ps, spaces: list[str]) -> list[dict]:
    """The progress tiles a player bought, on the village's progress spaces in the order bought (no text says
    where bought tiles lie, W-PRG-4 only keeps them: this is the generator's convention; tiles past the last space
    lie off the board, not drawn). A tile used this year lies face down (W-PRG-3) and shows only its level
    (tile ``"P1"``, side ``"back"``). Each lies a little askew, by a turn drawn from its id, not from the scene's
    random stream (the rest of a seed's scene stays as it was without them)."""
    out = []
    for space, tid in zip(sorted(spaces, key=lambda r: int(r.split(".")[1])), ps.progress):
        used = tid in ps.progress_used
        out.append({"slot": space, "tile": tid[:2] if used else tid, "side": "back" if used else "front",
                    "rotation_deg": (zlib.crc32(f"{ps.colour}{tid}".encode()) % 41 - 20) / 10.0})
    return out


def table_for(state, rng: np.random.Generator, extras: bool = True, progress_tiles: bool = False):
    """(main board name, [BoardSpec...]) for a Wendake state. Piece colours are the players' colour names.
    ``progress_tiles``: draw the bought progress tiles on the villages' progress spaces (``bought_tiles``). Off by
    default: the committed detector was trained without them and takes some of their print for pieces (on the
    held-out set, per-region 0.962 -> 0.953, whole-board exact 0.328 -> 0.248, models/README.md); turn it on for
    training data, and for the recordings once a detector trained on it is committed."""
    n = state.n
    lay = layouts(n)
    regions = {name: {r["id"]: r for r in L["regions"]} for name, L in lay.items()}
    colours = [p.colour for p in state.players]
    map_name = f"wendake-map-{n}p"

    # ---- the map
    mp: list[Piece] = []
    R = regions[map_name]
    for tid, terr in state.territories.items():
        pa_polys = [R[f"{tid}.pa{i}"]["polygon"] for i in range(len(terr.pas)) if f"{tid}.pa{i}" in R]
        total = sum(terr.guards)
        spots = scatter(R[tid]["polygon"], total, 13.0, rng, avoid=pa_polys, margin=8.0)
        k = 0
        for p, g in enumerate(terr.guards):
            for _ in range(g):
                x, y = spots[k]
                k += 1
                mp.append(Piece("warrior_standing", colours[p], map_name, x, y, _rot(rng), tid))
        for i, pa in enumerate(terr.pas):
            rid = f"{tid}.pa{i}"
            if pa.count == 0 or pa.owner is None or rid not in R:
                continue
            cx, cy = _centre(R[rid]["polygon"])
            cx, cy = cx + rng.normal(0, 1.5), cy + rng.normal(0, 1.5)
            if pa.native == "warrior":
                mp.append(Piece("warrior_lying", colours[pa.owner], map_name, cx, cy, _rot(rng), rid))
            else:
                mp.append(Piece(pa.native, colours[pa.owner], map_name, cx, cy, _rot(rng), rid, side="colour", count=pa.count))
    for lid, canoes in state.lakes.items():
        spots = scatter(R[lid]["polygon"], sum(canoes), 20.0, rng, margin=12.0)
        k = 0
        for p, c in enumerate(canoes):
            for _ in range(c):
                mp.append(Piece("canoe", colours[p], map_name, *spots[k], _rot(rng), lid))
                k += 1
    if extras and rng.random() < 0.15:  # the black Mohawk warrior
        tid = str(rng.choice([t for t in state.territories]))
        x, y = scatter(R[tid]["polygon"], 1, 0, rng, margin=10.0)[0]
        mp.append(Piece("warrior_standing", "black", map_name, x, y, _rot(rng), tid, extra=True))
    boards = [BoardSpec(map_name, lay[map_name], mp)]

    # ---- village boards
    for p, ps in enumerate(state.players):
        name = f"wendake-village-{p + 1}"
        V = regions[name]
        vp: list[Piece] = []
        tiles = []
        for k, g in enumerate(ps.grid):
            if g is not None:
                tiles.append({"slot": f"slot.{k}", "tile": g.tile, "side": g.side, "rotation_deg": float(rng.normal(0, 2))})
        if progress_tiles:
            tiles += bought_tiles(ps, [r for r in V if r.startswith("progress.")])
        for k in ps.markers:
            x, y = _centre(V[f"slot.{k}"]["polygon"])
            vp.append(Piece("action_marker", ps.colour, name, x + rng.normal(0, 6), y + rng.normal(0, 6), _rot(rng), f"slot.{k}"))
        for s in range(ps.sages):
            x, y = _centre(V[f"sage.{s + 1}"]["polygon"])
            vp.append(Piece("action_marker", ps.colour, name, x + rng.normal(0, 2), y + rng.normal(0, 2), _rot(rng), f"sage.{s + 1}"))
        if ps.fire is not None:
            x0, y0 = np.asarray(V[f"slot.{ps.fire}"]["polygon"], float).min(0)
            vp.append(Piece("fire_token", "none", name, x0 + 14 + rng.normal(0, 2), y0 + 14 + rng.normal(0, 2), _rot(rng), f"slot.{ps.fire}"))
        lh = V["long_house"]["polygon"]
        kinds = [("warrior_standing", None)] * ps.long_house["warrior"] + [("woman", "grey")] * ps.long_house["woman"] + [("hunter", "grey")] * ps.long_house["hunter"]
        for (cls, side), (x, y) in zip(kinds, scatter(lh, len(kinds), 20.0, rng, margin=10.0)):
            vp.append(Piece(cls, ps.colour, name, x, y, _rot(rng), "long_house", side=side))
        for res in ("leather", "fish", "corn", "beans", "pumpkins"):
            poly = V[f"resource.{res}"]["polygon"]
            for x, y in scatter(poly, ps.resources[res], 9.0, rng, margin=6.0):
                vp.append(Piece(res, "none", name, x, y, _rot(rng), f"resource.{res}"))
        for x, y in scatter(V["resource.beavers"]["polygon"], ps.beavers, 10.0, rng, margin=8.0):
            vp.append(Piece("beaver", "none", name, x, y, _rot(rng), "resource.beavers"))
        for x, y in scatter([[355, 242], [396, 242], [396, 290], [355, 290]], ps.swap_tokens, 14.0, rng, margin=8.0):
            vp.append(Piece("swap_token", "none", name, x, y, float(rng.normal(0, 10)), None))
        if extras and rng.random() < 0.08:  # the black Ojibwa marker, on a free tile
            free = [k for k in range(9) if k not in ps.markers]
            if free:
                k = int(rng.choice(free))
                x, y = _centre(V[f"slot.{k}"]["polygon"])
                vp.append(Piece("action_marker", "black", name, x + rng.normal(0, 5), y + rng.normal(0, 5), _rot(rng), f"slot.{k}", extra=True))
        if extras and rng.random() < 0.5:  # loose resources next to the board, on the table
            for _ in range(int(rng.integers(1, 4))):
                res = str(rng.choice(["leather", "fish", "corn", "beans", "pumpkins"]))
                vp.append(Piece(res, "none", name, float(rng.uniform(20, 380)), float(rng.uniform(302, 322)), _rot(rng), None, extra=True))
        boards.append(BoardSpec(name, lay[name], vp, tiles))

    # ---- score tracks: pair 0 on board a, pair 1 on board b; disks on one space stack
    for pair, bname in zip(state.pairs, ("wendake-scores-a", "wendake-scores-b")):
        sp: list[Piece] = []
        S = regions[bname]
        for track, row in zip(pair, ("upper", "lower")):
            height: dict[int, int] = {}
            for p in state.turn_order or range(n):
                v = max(0, min(25, state.players[p].tracks[track]))
                x, y = _centre(S[f"{row}.{v}"]["polygon"])
                k = height.get(v, 0)
                height[v] = k + 1
                sp.append(Piece("tribe_disk", colours[p], bname, x, y, _rot(rng), f"{row}.{v}", z0=k * SCORE_DISK_MM))
        boards.append(BoardSpec(bname, lay[bname], sp, [], {"tracks": {"upper": pair[0], "lower": pair[1]}}))

    # ---- mask board: turn-order reservations, ceremony spaces, restore area
    M = regions["wendake-mask"]
    mk: list[Piece] = []
    for i, p in enumerate(state.turn_order_track):
        x, y = _centre(M[f"turn_order.{i + 1}"]["polygon"])
        mk.append(Piece("tribe_disk", colours[p], "wendake-mask", x + rng.normal(0, 1), y + rng.normal(0, 1), _rot(rng), f"turn_order.{i + 1}"))
    resting = []
    for p, ps in enumerate(state.players):
        if ps.mask_space is not None and f"ceremony.{int(ps.mask_space[1:]) - 1}" in M:
            rid = f"ceremony.{int(ps.mask_space[1:]) - 1}"
            x, y = _centre(M[rid]["polygon"])
            mk.append(Piece("tribe_disk", colours[p], "wendake-mask", x + rng.normal(0, 1.5), y + rng.normal(0, 1.5), _rot(rng), rid))
        else:
            resting.append(p)
    for p, (x, y) in zip(resting, scatter(M["restore"]["polygon"], len(resting), 20.0, rng, margin=10.0)):
        mk.append(Piece("tribe_disk", colours[p], "wendake-mask", x, y, _rot(rng), "restore"))
    boards.append(BoardSpec("wendake-mask", lay["wendake-mask"], mk, [], {"year": state.year}))
    return map_name, boards


def game_info(state, move_index: int, seed: int) -> dict:
    return {"game": "wendake", "players": state.n, "game_seed": seed, "move_index": move_index, "year": state.year,
            "phase": state.phase, "colours": [p.colour for p in state.players]}
