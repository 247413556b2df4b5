"""Tile reader: which printed tile lies in each tile slot of a rectified board view, and which side is up.

Owns the tile *gallery* (reference appearances, one or more per label ``"<tile id>:<side>"`` plus ``"empty"`` for
the bare slot) and the nearest-neighbour read of a slot crop against it. A gallery is an ``.npz`` file of
feature vectors: the schematic edition's gallery is rendered from our own print art
(``python -m models.tiles_gallery``, committed as ``calibration/tiles/wendake-schematic.npz``); an owner's retail
tiles need a gallery made from photos of their own box (``build_gallery`` on rectified slot crops with known
labels). Game-neutral: any layout region of kind ``tile_slot`` is read. numpy + OpenCV only.

Features are illumination-normalised: a 40 × 40 grey-level patch (zero mean, unit norm), a 4 × 4 grid of
chroma means and a finer 96 × 24 patch of the name band, so a warmer light or a darker table does not change the
label. The confidence of a read is the cosine margin between the best label and the best different label; a read
also lists its runner-ups with their margins (``TileRead.others``), so that a weak read (two tiles whose numbers
differ by a digit) still says which tiles the slot does not hold.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from assistant.errors import UserError

GALLERY_DIR = Path(__file__).resolve().parent.parent / "calibration" / "tiles"
DEFAULT_GALLERY = "wendake-schematic"
PATCH = 40
CHROMA_GRID = 4
CHROMA_WEIGHT = 0.6
INSET_MM = 4.0
BAND = (0.3, 0.7)  # rows of the slot crop holding the printed name
BAND_SIZE = (96, 24)  # (w, h) of the name-band patch
BAND_WEIGHT = 1.5
FEATURE_DIM = PATCH * PATCH + 2 * CHROMA_GRID * CHROMA_GRID + BAND_SIZE[0] * BAND_SIZE[1]
EMPTY = "empty"
MARGIN_SCALE = 5.0  # a cosine gap of 0.2 between two labels is full certainty (confidence 1)
OTHERS_WITHIN = 0.5  # runner-up labels listed with a read: those whose margin behind the best is under this


class TileRead(NamedTuple):
    """One slot's read: the best value (``"<tile>:<side>"``, None for an empty slot), its margin over the runner-up
    (the confidence, 0..1), and ``others``: ((value, margin behind the best), ...) for the runner-ups within
    ``OTHERS_WITHIN``, best first. A value not listed fits worse than that."""

    value: str | None
    confidence: float
    others: tuple = ()


def slot_crop(view: np.ndarray, px_per_mm: float, polygon, inset_mm: float = INSET_MM) -> np.ndarray:
    """The axis-aligned inside of a slot polygon (board mm), inset so the slot's printed frame is left out."""
    p = np.asarray(polygon, float)
    x0, y0 = p.min(0) + inset_mm
    x1, y1 = p.max(0) - inset_mm
    h, w = view.shape[:2]
    u0, v0 = max(0, int(round(x0 * px_per_mm))), max(0, int(round(y0 * px_per_mm)))
    u1, v1 = min(w, int(round(x1 * px_per_mm))), min(h, int(round(y1 * px_per_mm)))
    return view[v0:v1, u0:u1]


def _unit(a: np.ndarray) -> np.ndarray:
    a = a - a.mean()
    return a / (float(np.linalg.norm(a)) + 1e-6)


def features(crop: np.ndarray) -> np.ndarray:
    """The feature vector of a BGR slot crop (float32, unit norm)."""
    import cv2

    if crop.size == 0 or min(crop.shape[:2]) < 4:
        return np.zeros(FEATURE_DIM, np.float32)
    lab = cv2.cvtColor(cv2.resize(crop, (PATCH, PATCH), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2Lab).astype(np.float32)
    grey = _unit(lab[..., 0])
    chroma = cv2.resize(lab[..., 1:] - 128.0, (CHROMA_GRID, CHROMA_GRID), interpolation=cv2.INTER_AREA).reshape(-1)
    chroma /= 128.0 / CHROMA_WEIGHT * CHROMA_GRID
    # the tile's name band, finer: printed names differ by a few letters
    h = crop.shape[0]
    band = cv2.cvtColor(crop[int(h * BAND[0]):int(h * BAND[1])], cv2.COLOR_BGR2GRAY)
    band = _unit(cv2.resize(band, BAND_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)) * BAND_WEIGHT
    v = np.concatenate([grey.reshape(-1), chroma, band.reshape(-1)]).astype(np.float32)
    return v / (float(np.linalg.norm(v)) + 1e-6)


class TileGallery:
    """Labelled feature vectors; ``classify`` is cosine nearest neighbour with a margin confidence."""

    def __init__(self, labels: list[str], vectors: np.ndarray, name: str = "custom", source: str = ""):
        if len(labels) != len(vectors) or not labels:
            raise UserError("a tile gallery needs one feature vector per label and at least one label.")
        self.labels = list(labels)
        self.vectors = np.asarray(vectors, np.float32)
        self.name = name
        self.source = source
        self._names = sorted(set(self.labels))
        ids = np.array([self._names.index(lab) for lab in self.labels])
        self._order = np.argsort(ids, kind="stable")  # samples grouped by label, for one reduceat per read
        self._starts = np.searchsorted(ids[self._order], np.arange(len(self._names)))

    @classmethod
    def load(cls, name_or_path: str | Path = DEFAULT_GALLERY) -> "TileGallery":
        path = Path(name_or_path)
        if not path.suffix:
            path = GALLERY_DIR / f"{name_or_path}.npz"
        if not path.exists():
            raise UserError(f"tile gallery {path} not found; use a name from {GALLERY_DIR} or the path of an .npz gallery.")
        try:
            with np.load(path, allow_pickle=False) as z:
                gallery = cls([str(x) for x in z["labels"]], z["vectors"], path.stem, str(z["source"]) if "source" in z else "")
        except (OSError, ValueError, KeyError) as exc:
            raise UserError(f"{path} is not a tile gallery ({exc}); rebuild it.") from None
        if gallery.vectors.shape[1] != FEATURE_DIM:
            raise UserError(f"{path} was built with another feature layout ({gallery.vectors.shape[1]} values, this version uses "
                            f"{FEATURE_DIM}); rebuild it from its crops (python -m models.tiles_gallery for the schematic edition).")
        return gallery

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, labels=np.array(self.labels), vectors=self.vectors.astype(np.float16), source=np.array(self.source))

    def classify(self, vec: np.ndarray) -> tuple[str, float]:
        """(label, confidence in 0..1): the best label and its cosine margin over the best other label."""
        label, conf, _ = self.classify_many(vec[None])[0]
        return label, conf

    def classify_many(self, vecs: np.ndarray) -> list[tuple[str, float, tuple]]:
        """For a stack of feature vectors, in one product with the gallery: (best label, its margin over the
        runner-up, ((label, margin behind the best), ...) for the labels within ``OTHERS_WITHIN``)."""
        sims = np.asarray(vecs, np.float32) @ self.vectors.T  # (n, samples)
        best = np.maximum.reduceat(sims[:, self._order], self._starts, axis=1)  # (n, labels): each label's best sample
        out = []
        for row in best:
            order = np.argsort(-row)
            behind = np.clip((row[order[0]] - row[order]) * MARGIN_SCALE, 0.0, 1.0)
            others = tuple((self._names[int(j)], round(float(m), 4)) for j, m in zip(order[1:], behind[1:]) if m < OTHERS_WITHIN)
            out.append((self._names[int(order[0])], float(behind[1]) if len(order) > 1 else 1.0, others))
        return out


def build_gallery(samples: list[tuple[str, np.ndarray]], name: str, source: str) -> TileGallery:
    """A gallery from (label, BGR slot crop) samples — e.g. rectified photos of an owner's own tiles."""
    return TileGallery([lab for lab, _ in samples], np.stack([features(c) for _, c in samples]), name, source)


def read_tiles(view: np.ndarray, px_per_mm: float, layout: dict, gallery: TileGallery | None = None) -> dict[str, TileRead]:
    """{slot region id: ``TileRead``} for every ``tile_slot`` region (an empty slot reads as the value None)."""
    gallery = gallery or _default()
    slots = [r for r in layout["regions"] if r.get("kind") == "tile_slot"]
    if not slots:
        return {}
    reads = gallery.classify_many(np.stack([features(slot_crop(view, px_per_mm, r["polygon"])) for r in slots]))

    def value(label):
        return None if label == EMPTY else label

    return {r["id"]: TileRead(value(label), conf, tuple((value(o), m) for o, m in others))
            for r, (label, conf, others) in zip(slots, reads)}


_DEFAULT: list[TileGallery] = []


def _default() -> TileGallery:
    if not _DEFAULT:
        _DEFAULT.append(TileGallery.load(DEFAULT_GALLERY))
    return _DEFAULT[0]
