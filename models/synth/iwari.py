"""The Iwari part of the generator: a random Iwari position from the rules engine -> boards, pieces and cards.

``random_position`` plays a seeded random game (``assistant.iwari.generate.random_move``, every move checked by
the rules) on a map drawn at random and stops at a random move; ``table_for`` turns that State into ``BoardSpec``s:
the map board (``iwari-<map>``) with a tent on each occupied tent space and each territory's totem stack on its
totem circle (one label per totem, bottom first, each standing on the one below: the top shows from above, the
stack's height from the side), and the card display (``iwari-display``) with the display's cards face up in their
slots, the turn's played cards face up on the play spaces (``played.1`` ...), one card a space, and the deck and
discard pile face down. Piece colours are
the tribe colours (the edition's ``tribe_colours``); the ones the classic palette lacks are in ``TRIBE_BGR``.
Everything else (drawing, camera, families, labels) is game-neutral, as for Wendake.
"""

from __future__ import annotations

import random

import numpy as np

from assistant.iwari import rules
from assistant.iwari.edition import load_edition
from assistant.iwari.generate import random_move
from assistant.iwari.maps import map_names
from assistant.iwari.setup import new_game
from calibration.layout import load_builtin
from models.synth.pieces import PLAYER_BGR, TOTEM_H_MM, Piece, scatter
from models.synth.scene import BoardSpec

CLASSES = ("tent", "totem")  # the detector's Iwari piece classes (a feat token is not drawn: feats stay off)
TRIBE_BGR = {"purple": (135, 45, 120)}  # tribe colours PLAYER_BGR lacks (the fifth tribe), BGR
DISPLAY = "iwari-display"
OVERFLOW_MM = 12.0  # a card beyond the play spaces lies on the last one, this much further right than the one below
NAMES = ("Aponi", "Bly", "Chayton", "Dyani", "Elu")


def colours() -> tuple[str, ...]:
    """The piece colours of Iwari scenes: the edition's tribe colours, then ``none``."""
    return (*load_edition().colours, "none")


def extra_colours() -> dict[str, tuple]:
    """{colour: BGR} of the tribe colours the classic palette lacks, for ``scene.render(extra_colours=...)``."""
    return {c: TRIBE_BGR[c] for c in load_edition().colours if c not in PLAYER_BGR}


def random_position(players: int, rng: np.random.Generator, map_name: str | None = None):
    """(state, move index, game seed) of a seeded random game on ``map_name`` (drawn from the built-in maps when
    None), stopped before a move drawn uniformly over the game's length (the end included)."""
    seed = int(rng.integers(0, 2**31))
    name = str(rng.choice(map_names())) if map_name is None else map_name
    share = float(rng.uniform(0.0, 1.0))

    def play(stop: int | None):
        state = new_game(list(NAMES[:players]), seed=seed, map=name)
        moves = random.Random(seed)
        n = 0
        while state.phase != "over" and n != stop:
            rules.apply(state, random_move(state, moves))
            n += 1
        return state, n

    _, length = play(None)
    return (*play(int(round(share * length))), seed)


def _layouts(map_name: str) -> dict[str, dict]:
    return {n: load_builtin(n) for n in (f"iwari-{map_name}", DISPLAY)}


_LAYOUT_CACHE: dict[str, dict] = {}


def layouts(map_name: str) -> dict[str, dict]:
    """The map's layout and the display's, loaded once per process."""
    if map_name not in _LAYOUT_CACHE:
        _LAYOUT_CACHE[map_name] = _layouts(map_name)
    return _LAYOUT_CACHE[map_name]


def _centre(poly) -> tuple[float, float]:
    p = np.asarray(poly, float)
    return float(p[:, 0].mean()), float(p[:, 1].mean())


def _rot(rng) -> float:
    return float(rng.uniform(0, 360))


def table_for(state, rng: np.random.Generator, extras: bool = True, played_in_order: bool = False):
    """(main board name, [BoardSpec...]) for an Iwari state: the map (main) and the card display. ``extras``: now
    and then a few pieces from a tribe's supply lie beside the map (``extra``: not on the map, region None).
    ``played_in_order``: the n-th card played lies on the n-th play space, as in a recorded game where a card put
    down stays where it lies; otherwise the played cards lie on play spaces drawn at random (the players may use
    any). A card beyond the play spaces overlaps the last one (``play_spaces_for``)."""
    map_board = f"iwari-{state.map.name}"
    lay = layouts(state.map.name)
    R = {r["id"]: r for r in lay[map_board]["regions"]}
    tribes = state.tribes

    # ---- the map: a tent on each occupied space, each territory's totem stack on its circle
    mp: list[Piece] = []
    for space, tribe in sorted(state.tents.items()):
        x, y = _centre(R[space]["polygon"])
        mp.append(Piece("tent", tribes[tribe], map_board, x + rng.normal(0, 1.0), y + rng.normal(0, 1.0), _rot(rng), space))
    for territory, stack in sorted(state.stacks.items()):
        if not stack:
            continue
        rid = f"totem.{territory}"
        x, y = _centre(R[rid]["polygon"])
        x, y, turn = x + rng.normal(0, 2.0), y + rng.normal(0, 2.0), _rot(rng)
        for k, tribe in enumerate(stack):  # bottom first: each totem stands on the one below, at the same place
            mp.append(Piece("totem", tribes[tribe], map_board, x, y, turn + float(rng.normal(0, 6)), rid, z0=k * TOTEM_H_MM))
    if extras and rng.random() < 0.3:  # pieces from a tribe's supply, beside the map's bottom edge
        w, h = lay[map_board]["size_mm"]
        tribe = int(rng.integers(0, len(tribes)))
        strip = [[20, h + 6], [w - 20, h + 6], [w - 20, h + 24], [20, h + 24]]
        for x, y in scatter(strip, int(rng.integers(1, 4)), 22.0, rng, margin=2.0):
            cls = "tent" if rng.random() < 0.6 else "totem"
            mp.append(Piece(cls, tribes[tribe], map_board, x, y, _rot(rng), None, extra=True))

    # ---- the card display: the display face up, the played cards face up, the deck and the discard face down
    cards = []
    for slot, colour in enumerate(state.display, 1):
        if colour is not None:
            cards.append(_card(f"slot.{slot}", colour, rng))
    spaces = play_spaces_for(len(state.played), lay[DISPLAY], None if played_in_order else rng)
    for colour, (space, at) in zip(state.played, spaces):
        cards.append(_card(space, colour, rng, (at, 0.0)))
    for pile, held in (("deck", state.deck), ("discard", state.discard)):
        if held:
            cards.append(_card(pile, None, rng))
    boards = [BoardSpec(map_board, lay[map_board], mp), BoardSpec(DISPLAY, lay[DISPLAY], [], cards)]
    return map_board, boards


def play_spaces_for(n: int, layout: dict, rng=None) -> list[tuple[str, float]]:
    """(play space id, mm right of its middle) for each of ``n`` played cards, in the order played: the n-th card on
    the n-th play space, or with ``rng`` on spaces drawn at random (one card a space); a card beyond the spaces lies
    on the last one, ``OVERFLOW_MM`` further right than the card below it (the layout prints 3 cards a regular move
    plus one, docs/layouts.md)."""
    spaces = sorted((r for r in layout["regions"] if r["kind"] == "play_space"), key=lambda r: r["attributes"]["index"])
    ids = [r["id"] for r in spaces]
    k = len(ids)
    if rng is not None and n > 0:
        ids = [ids[int(i)] for i in rng.permutation(k)]
    out = [(ids[i], 0.0) for i in range(min(n, k))]
    return out + [(ids[-1], (i - k + 1) * OVERFLOW_MM) for i in range(k, n)]


def _card(slot: str, colour: str | None, rng, at_mm=(0.0, 0.0)) -> dict:
    """A card in a display region, put down a little askew (``scene.draw_card``)."""
    off = (round(at_mm[0] + float(rng.normal(0, 1.5)), 3), round(at_mm[1] + float(rng.normal(0, 1.5)), 3))
    return {"slot": slot, "card": colour, "rotation_deg": round(float(rng.normal(0, 2.0)), 3), "offset_mm": list(off)}


def game_info(state, move_index: int, seed: int) -> dict:
    return {
        "game": "iwari",
        "players": state.n,
        "game_seed": seed,
        "move_index": move_index,
        "map": state.map.name,
        "round": state.year,
        "phase": state.phase,
        "colours": list(state.tribes),
        "display": list(state.display),
        "played": list(state.played),
        "deck": len(state.deck),
    }
