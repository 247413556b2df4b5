"""What stays put between the frames of a recorded game, and what the camera can see change.

``Placer`` keeps pieces, tiles and cards where they lay in the previous table state; ``table_signature`` is what a
camera can see of a table state (a move that leaves it equal shows nothing). Both are game-neutral: they know
``BoardSpec``s, pieces, printed tiles and printed cards, never a rule.
"""

from __future__ import annotations

import math

from models.synth.pieces import scatter


def _pkey(p) -> tuple:
    return (p.region, p.cls, p.colour, p.side)


class Placer:
    """Keeps pieces where they were: a piece of the new position takes the spot of a piece with the same region,
    class, colour and side in the previous one; new pieces take their fresh spot unless it is too close to a kept
    piece, in which case another spot in their region is drawn. A tile still in its slot, the same side up,
    keeps the angle it lay at. A card (a tile entry with a ``"card"`` key) still in its region keeps its angle and
    offset: the n-th card of a colour in a region matches the n-th of that colour in the previous position."""

    def __init__(self, rng, min_mm: float = 12.0):
        self.rng = rng
        self.min_mm = min_mm
        self.prev: dict[str, list] = {}  # board -> pieces
        self.tiles: dict[tuple, float] = {}  # (board, slot, tile, side) -> the angle it lies at
        self.cards: dict[str, dict] = {}  # board -> {(slot, card, n): (angle, offset)} of the previous position

    def place(self, boards) -> None:
        for b in boards:
            cards, seen = {}, {}
            for t in b.tiles:
                if "card" in t:
                    k = (t["slot"], t["card"], seen.setdefault((t["slot"], t["card"]), 0))
                    seen[(t["slot"], t["card"])] += 1
                    if k in self.cards.get(b.name, {}):
                        t["rotation_deg"], t["offset_mm"] = self.cards[b.name][k]
                    cards[k] = (t["rotation_deg"], t["offset_mm"])
                    continue
                t["rotation_deg"] = self.tiles.setdefault((b.name, t["slot"], t["tile"], t["side"]), t["rotation_deg"])
            self.cards[b.name] = cards
            old = {}
            for p in self.prev.get(b.name, []):
                old.setdefault(_pkey(p), []).append(p)
            kept, fresh = [], []
            for p in b.pieces:
                lst = old.get(_pkey(p))
                if lst:
                    q = lst.pop(0)
                    p.x, p.y, p.rotation_deg = q.x, q.y, q.rotation_deg
                    kept.append(p)
                else:
                    fresh.append(p)
            regions = {r["id"]: r for r in b.layout["regions"]}
            for p in fresh:
                if p.region in regions and p.cls not in ("tribe_disk",) and self._crowded(p, kept):
                    poly = regions[p.region]["polygon"]
                    avoid = [r["polygon"] for r in b.layout["regions"] if r.get("parent") == p.region]
                    for _ in range(20):
                        spot = scatter(poly, 1, 0.0, self.rng, avoid=avoid, margin=8.0)
                        if spot:
                            p.x, p.y = spot[0]
                        if not self._crowded(p, kept):
                            break
                kept.append(p)
            self.prev[b.name] = list(b.pieces)

    def _crowded(self, p, others) -> bool:
        return any(math.hypot(p.x - q.x, p.y - q.y) < self.min_mm and abs(p.z0 - q.z0) < 1 for q in others if q is not p)


def table_signature(boards) -> tuple:
    """What the camera can see change: pieces by region (with counts and heights), printed tiles and cards."""
    sig = []
    for b in boards:
        for p in b.pieces:
            sig.append((b.name, p.region or "", p.cls, p.colour, p.side or "", p.count, round(p.z0, 1)))
        for t in b.tiles:
            if "card" in t:
                sig.append((b.name, t["slot"], "card", t["card"] or "", "", 0, 0.0))
            else:
                sig.append((b.name, t["slot"], "tile", t["tile"], t["side"], 0, 0.0))
    return tuple(sorted(sig))
