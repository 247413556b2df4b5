"""Helpers that build Wendake positions for tests: named players, fixed grids, pieces placed by hand.

Pieces are always moved between places (never created), so every position keeps 7 of each native per player.
"""

from __future__ import annotations

from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.edition import load_edition
from assistant.wendake.setup import new_game
from assistant.wendake.state import PendingAction, Turn, slot_index

NAMES = ["Ringo", "Paul", "John", "George"]
RINGO, PAUL, JOHN, GEORGE = range(4)
ED = load_edition()


def game(n: int = 4, seed: int = 0, order=None):
    """A fresh game with Ringo, Paul, John, George seated in that order and playing in that order."""
    return new_game(NAMES[:n], seed=seed, turn_order=list(order) if order is not None else list(range(n)))


def set_grid(state, p: int, tiles: dict) -> None:
    """Put the given tiles (id by (row, col)) in p's grid, swapping them with whatever was there."""
    grid = state.players[p].grid
    for slot, tile in tiles.items():
        i = slot_index(slot)
        j = next(k for k, g in enumerate(grid) if g.tile == tile)
        grid[i], grid[j] = grid[j], grid[i]


def slot_of_tile(state, p: int, tile: str):
    i = next(k for k, g in enumerate(state.players[p].grid) if g.tile == tile)
    return divmod(i, 3)


def home(state, p):
    return state.territories[state.players[p].home]


def _take(state, p: int, native: str) -> None:
    """Take one of p's natives from the Home (stack or guard), else from the Long House."""
    h = home(state, p)
    if native == "warrior" and h.guards[p] > 0:
        h.guards[p] -= 1
        return
    for pa in h.pas:
        if pa.owner == p and pa.native == native and pa.count > 0:
            pa.count -= 1
            return
    assert state.players[p].long_house[native] > 0, f"player {p} has no {native} left to place"
    state.players[p].long_house[native] -= 1


def put_guard(state, p: int, tid: str, k: int = 1) -> None:
    for _ in range(k):
        _take(state, p, "warrior")
        state.territories[tid].guards[p] += 1


def put_pa(state, p: int, tid: str, i: int, native: str) -> None:
    pa = state.territories[tid].pas[i]
    assert pa.empty, f"{tid} pa {i} is occupied"
    _take(state, p, native)
    pa.owner, pa.native, pa.count = p, native, 1


def pa_index(state, tid: str, kind: str, crop=None, nth: int = 0) -> int:
    found = [i for i, pa in enumerate(state.territories[tid].pas) if pa.kind == kind and (crop is None or pa.crop == crop)]
    return found[nth]


def find_pas(state, kind: str, crop=None):
    """(territory, index) of every productive area of that kind outside the Homes and the unclaimed Homes."""
    return [(tid, i) for tid, t in state.territories.items() if t.home_of is None and not tid.startswith("H")
            for i, pa in enumerate(t.pas) if pa.kind == kind and (crop is None or pa.crop == crop)]


def add_canoes(state, p: int, k: int, lake: str = None) -> None:
    lake = lake or next(iter(state.lakes))
    for _ in range(k):
        state.players[p].canoe_reserve -= 1
        state.lakes[lake][p] += 1


def give_turn(state, p: int) -> None:
    state.current = p
    state.turn = Turn(p)


def open_action(state, p: int, kind: str, n: int = 0) -> None:
    """Make ``kind`` the open action of p's turn, as if p had just activated a tile carrying it."""
    give_turn(state, p)
    state.turn.placed = "tile"
    state.turn.pending = [PendingAction(kind, n, "tile")]


def rules_of(violations) -> list[str]:
    return [v.rule for v in violations]


def play(state, move):
    return rules.apply(state, move)


def cards_of(mask: str, k: int, exclude=()):
    return [c.id for c in ED.mask_cards.values() if c.mask == mask and c.id not in exclude][:k]


def clean_card(exclude=()):
    return next(c.id for c in ED.mask_cards.values() if not c.infected and c.id not in exclude)


def infected_card(exclude=()):
    return next(c.id for c in ED.mask_cards.values() if c.infected and c.id not in exclude)


def hide(state, cards) -> None:
    """Take these cards out of wherever they are (deck, discard, hands), so a test can place them."""
    cards = set(cards)
    state.mask_deck = [c for c in state.mask_deck if c not in cards]
    state.mask_discard = [c for c in state.mask_discard if c not in cards]
    for pl in state.players:
        pl.hand = [c for c in pl.hand if c not in cards]


def on_deck(state, card: str) -> str:
    """Put ``card`` on top of the mask deck (taking it from wherever it was) and return it."""
    hide(state, [card])
    state.mask_deck.append(card)
    return card


__all__ = [name for name in dir() if not name.startswith("__")] + ["M"]
