"""Assignment of detected pieces to layout regions, and the per-region decisions read off them.

Owns: point → region lookup on a layout (a piece near the centre of a ``productive_area`` occupies it — occupants
stand in the middle of their area; anything else belongs to the smallest other region holding it: a territory,
lake, tile slot, Long House, score space, ...), ``fit_classes`` (a detection's class chosen among the classes
its region's kind can hold: ``calibration/pieces/<game>.json``), and ``decisions``: one value per region, from
``vision.detect.Detections`` and the region of each piece — a productive area's occupant (class, colour, side) or
None, any other region's sorted counts of (class, colour, side) among the pieces in it. Game-neutral: it reads
region kinds and parents from the layout JSON, not Wendake names. numpy + OpenCV only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.detect import Detections, Piece

OCCUPIED_KINDS = ("productive_area",)


class RegionIndex:
    """Point-in-polygon lookup over a layout's regions (board mm)."""

    def __init__(self, layout: dict, occupant_mm: float = 8.0):
        self.layout = layout
        self.occupant_mm = occupant_mm
        self.occupied = [(r["id"], np.asarray(r["polygon"], np.float32)) for r in layout["regions"] if r.get("kind") in OCCUPIED_KINDS]
        others = [r for r in layout["regions"] if r.get("kind") not in OCCUPIED_KINDS]
        others.sort(key=lambda r: abs(_area(r["polygon"])))  # the smallest region holding a point wins
        self.counted = [(r["id"], np.asarray(r["polygon"], np.float32)) for r in others]
        self.occupied_ids = {rid for rid, _ in self.occupied}
        self.parent = {r["id"]: r.get("parent") for r in layout["regions"]}
        self.kind = {r["id"]: r.get("kind") for r in layout["regions"]}
        self.centres = {r["id"]: tuple(np.asarray(r["polygon"], float).mean(axis=0)) for r in layout["regions"]}

    @staticmethod
    def _dist(poly: np.ndarray, x: float, y: float) -> float:
        import cv2

        return float(cv2.pointPolygonTest(poly.reshape(-1, 1, 2), (float(x), float(y)), True))  # > 0 inside

    def region_of(self, x: float, y: float) -> str | None:
        """The productive area whose centre is within ``occupant_mm`` of (x, y), else the territory / lake holding
        the point, else None. (Guards standing at the edge of an area are not its occupant.)"""
        best, best_d = None, self.occupant_mm
        for rid, _ in self.occupied:
            cx, cy = self.centres[rid]
            d = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
            if d <= best_d:
                best, best_d = rid, d
        if best is not None:
            return best
        for rid, poly in self.counted:
            if self._dist(poly, x, y) >= 0:
                return rid
        return None


def _area(poly) -> float:
    p = np.asarray(poly, float)
    x, y = p[:, 0], p[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def _key(cls: str, colour: str, side) -> tuple:
    return (cls, colour, side or "")


def decisions(index: RegionIndex, detections: Detections, regions: Sequence[str | None]) -> dict[str, object]:
    """Decisions from ``detections`` standing in ``regions`` (the region id of each piece, in the detections'
    order; None: in no region).

    Productive area → the highest-scoring occupant's (class, colour, side), or None. Territory / lake → the sorted
    tuple of ((class, colour, side), count) of the pieces assigned to it directly."""
    out: dict[str, object] = {rid: None for rid, _ in index.occupied}
    out.update({rid: () for rid, _ in index.counted})
    best: dict[str, float] = {}
    counts: dict[str, Counter] = {}
    for p, rid in zip(detections, regions, strict=True):
        if rid is None or rid not in out:
            continue
        if rid in index.occupied_ids:
            if p.score > best.get(rid, -1.0):
                best[rid] = p.score
                out[rid] = _key(p.cls, p.colour, p.side)
        else:
            counts.setdefault(rid, Counter())[_key(p.cls, p.colour, p.side)] += 1
    for rid, c in counts.items():
        out[rid] = tuple(sorted(c.items()))
    return out


def detected_decisions(index: RegionIndex, detections) -> dict[str, object]:
    """Decisions from detected pieces (``Detections`` or any iterable of ``Piece``, positions in board mm), each in
    the region ``index.region_of`` puts it."""
    dets = Detections(detections)
    return decisions(index, dets, [index.region_of(p.x_mm, p.y_mm) for p in dets])


STACKED_MM = 2.0  # a labelled piece with a later piece of its class this close lies under it (stacked disks)


def covered_labels(labels: list[dict], px_per_mm: float) -> set[int]:
    """Indices of ground-truth labels (synth ``pieces``, ``xy`` in view pixels at ``px_per_mm``) that lie under a
    piece of the same class stacked on them — tribe disks sharing a score space. No camera sees them: their place
    comes from history, so they are neither detector targets nor region decisions."""
    out = set()
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if b["class"] == a["class"] and ((a["xy"][0] - b["xy"][0]) ** 2 + (a["xy"][1] - b["xy"][1]) ** 2) ** 0.5 <= STACKED_MM * px_per_mm:
                out.add(i)
                break
    return out


def label_decisions(index: RegionIndex, labels: list[dict], px_per_mm: float) -> dict[str, object]:
    """Decisions from ground-truth labels (synth ``rectified.pieces``: their ``region`` field) as a camera can see
    them: pieces under a stacked piece (``covered_labels``) left out."""
    under = covered_labels(labels, px_per_mm)
    seen = [lab for i, lab in enumerate(labels) if i not in under]
    return decisions(index, label_detections(seen, px_per_mm), [lab.get("region") for lab in seen])


def label_detections(labels: list[dict], px_per_mm: float) -> Detections:
    """Ground-truth labels (synth ``pieces``: ``xy`` in view pixels at ``px_per_mm``) as ``Detections``: centres in
    board mm, no box (0 × 0 mm), score 1, in the labels' order."""
    return Detections(Piece(lab["class"], lab["colour"], lab.get("side"), (lab["xy"][0] + 0.5) / px_per_mm,
                            (lab["xy"][1] + 0.5) / px_per_mm, 0.0, 0.0, 1.0) for lab in labels)


PIECES_DIR = Path(__file__).resolve().parent.parent / "calibration" / "pieces"


@lru_cache(maxsize=None)
def region_pieces(game: str | None) -> dict[str, frozenset[str]]:
    """{region kind: the piece classes a region of that kind can hold} for a game (``calibration/pieces/<game>.json``,
    data with its provenance, read once); {} for a game without such a file. Callers must not change it."""
    import json

    path = PIECES_DIR / f"{game}.json"
    if not game or not path.is_file():
        return {}
    return {k: frozenset(v) for k, v in json.loads(path.read_text(encoding="utf-8"))["kinds"].items()}


def fit_classes(detections, region_of, kind_of: dict, allowed: dict, classes: list[str]) -> Detections:
    """Detections whose class cannot lie in the region they stand in (a "standing warrior" on a tile slot, a
    "canoe" among a Home's guards) take the likeliest class that can, from their ``class_scores``; their score
    becomes that class's, so an unlikely fit ends as a near miss. Detections in a region whose kind holds no piece
    at all (listed with no class: a progress space, where a tile's print is all there is) are dropped. Detections
    elsewhere are unchanged. Takes ``Detections`` (or any iterable of ``Piece``); returns a new Detections, in order."""
    if not allowed:
        return Detections(detections)
    out = []
    for p in detections:
        ok = allowed.get(kind_of.get(region_of(p.x_mm, p.y_mm)))
        if ok is not None and not ok:
            continue
        if ok and p.cls not in ok and p.class_scores:
            k = max((i for i, c in enumerate(classes) if c in ok), key=lambda i: p.class_scores[i], default=None)
            if k is not None:
                p = replace(p, cls=classes[k], score=float(p.class_scores[k]))
        out.append(p)
    return Detections(out)


def covered(index: RegionIndex, region_ids) -> set[str]:
    """Regions hidden by a hand: the ids given plus their productive areas / parents."""
    ids = set(region_ids or ())
    extra = {rid for rid, par in index.parent.items() if par in ids}
    extra |= {index.parent[rid] for rid in ids if index.parent.get(rid)}
    return ids | extra
