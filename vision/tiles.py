"""Tile reader: which printed tile lies in each tile slot of a rectified board view, and which side is up.

Owns the tile *gallery* (reference appearances, one or more per label ``"<tile id>:<side>"`` plus ``"empty"`` for
the bare slot) and the nearest-neighbour read of a slot crop against it. A gallery is an ``.npz`` file of
feature vectors: the schematic edition's gallery is rendered from our own print art
(``python -m models.tiles_gallery``, committed as ``calibration/tiles/wendake-schematic.npz``); an owner's retail
tiles need a gallery made from photos of their own box (``build_gallery`` on rectified slot crops with known
labels), or a table profile's adaptation adds the owner's own slot crops, labelled by the rules
(``TileGallery.extended``, ``tablewatch adapt``). Game-neutral: any layout region of a ``TILE_KINDS`` kind is read, each kind against a gallery of its own
(the village grid's tile slots; the progress spaces, whose gallery ``wendake-schematic-progress.npz`` holds every
progress tile face up, each level's back, and the bare space; a card display's slots, whose gallery
``iwari-cards.npz`` holds each card colour's face and the bare slot). numpy + OpenCV only.

Features are illumination-normalised: a 40 × 40 grey-level patch (zero mean, unit norm), a 4 × 4 grid of
chroma means and a finer 96 × 24 patch of the name band, so a warmer light or a darker table does not change the
label. The confidence of a read is the cosine margin between the best label and the best different label; a read
also lists its runner-ups with their margins (``TileRead.others``), so that a weak read (two tiles whose numbers
differ by a digit) still says which tiles the slot does not hold.

Those features tell the schematic edition's ``A1-11`` from ``A2-11`` barely (44 % right on advanced tiles in the
whole-game recordings): the names differ by one blurred glyph. So the labels the features leave close are then
told apart by a *glyph check*: the slot's name band, at full resolution, is matched (normalised cross-correlation,
a few pixels of shift allowed) against each close label's reference crops, printed at several sharpnesses and
blurred to several degrees, and the best fit of each label ranks them (``GLYPH_SCALE`` turns the gap into a
confidence). Where a piece lies on the slot (an action marker over the name), the check compares only the
pixels outside a disk around the piece (``PIECE_MASK_MM``): a marker hiding the one glyph two names differ by
leaves them tied, which is what the read then says.

On a table the gallery has not seen (other light, another camera, another board print) the features mistake
one basic tile for another, surely (foreign table 101: 59 of 1,332 slots read wrong at 0.6 or more), while the
names still read. So a slot of a kind told by printed names (``NAMED_KINDS``) with no piece on it, that the
features read as a face, is read by its name among every face (``_name_read``): a quick pass over all names
(``TileGallery.name_shortlist``), then the glyph check on the closest few. No name fitting at all is a bare slot,
read unsurely (``BARE_FIT``, ``BARE_CONFIDENCE``). docs/benchmarks.md, "Tile faces read by their names".
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from assistant.errors import UserError

GALLERY_DIR = Path(__file__).resolve().parent.parent / "calibration" / "tiles"
DEFAULT_GALLERY = "wendake-schematic"
PROGRESS_GALLERY = "wendake-schematic-progress"
IWARI_CARDS_GALLERY = "iwari-cards"
# the region kinds read as tiles, each against a gallery of its own: the village grid's tile slots, the progress
# spaces where a player's bought progress tiles lie (W-PRG-4; face down once used this year, W-PRG-3), and the
# card display's slots and play spaces, each showing a printed card face read as its colour name (docs/layouts.md)
TILE_KINDS = {
    "tile_slot": DEFAULT_GALLERY,
    "progress_space": PROGRESS_GALLERY,
    "display_slot": IWARI_CARDS_GALLERY,
    "play_space": IWARI_CARDS_GALLERY,
}
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
GLYPH_SIZE = 100  # slot crops are matched glyph by glyph at this size (px, square): 2 px/mm for the schematic slot
GLYPH_ROWS = (26, 74)  # rows of that crop holding the printed name (the name band, with room for a tilt)
GLYPH_COLS = (8, 92)
GLYPH_SHIFT = 4  # px of misregistration the check allows either way
GLYPH_BLURS = (0.0, 1.0, 1.8, 2.6)  # Gaussian sigmas (px) each reference is also compared at: camera defocus
GLYPH_SCALE = 20.0  # a correlation gap of 0.05 between two labels' best fits is full certainty
GLYPH_CANDIDATES = 8  # labels the check compares at most: the best and its runner-ups by the features
GLYPH_WITHIN = 0.25  # ... those within this margin of the best (a wrong features' read had the right label within
# 0.052 on 1,755 slots of the whole-game recordings; a read leading by 0.25 or more was always right)
GLYPH_VARIANTS = 3  # each runner-up is matched at the best label's few best-fitting sharpness/blur variants
PIECE_MASK_MM = 11.0  # around a piece's base on a slot, the pixels the check leaves out: the 12 mm marker, its lean
# towards a tilted camera and its shadow
GLYPH_MIN_VISIBLE = 0.3  # the share of the name band that must stay visible for the check to say anything
NAMED_KINDS = ("tile_slot",)  # kinds whose faces are told by their printed names: every face's name is compared
NAME_BANK_SCALE = 2  # the quick pass over every face's name compares bands shrunk by this: (w, h) below
NAME_BAND_SIZE = ((GLYPH_COLS[1] - GLYPH_COLS[0]) // NAME_BANK_SCALE, (GLYPH_ROWS[1] - GLYPH_ROWS[0]) // NAME_BANK_SCALE)
NAME_CANDIDATES = 4  # ... of which the best this many are fitted as the glyph check does
BARE_FIT = 0.52  # a slot with no piece whose best name fit is below this shows no name: it is bare ...
BARE_CONFIDENCE = 0.5  # ... read at most this surely: a piece the detector missed on the name hides it as well
NAME_SURE_FIT = 0.9  # a name read surely fits this well: a face fitting less is read as surely as its fit allows


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


def glyph_grey(crop: np.ndarray) -> np.ndarray:
    """A slot crop as the glyph check compares it: grey, ``GLYPH_SIZE`` square, uint8."""
    import cv2

    if crop.size == 0 or min(crop.shape[:2]) < 4:
        return np.zeros((GLYPH_SIZE, GLYPH_SIZE), np.uint8)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    return cv2.resize(grey, (GLYPH_SIZE, GLYPH_SIZE), interpolation=cv2.INTER_AREA)


class TileGallery:
    """Labelled feature vectors; ``classify`` is cosine nearest neighbour with a margin confidence. Optional
    glyph references (``glyph_labels``, ``glyphs``: grey ``GLYPH_SIZE`` crops) let ``glyph_check`` re-rank the
    labels the features leave close."""

    def __init__(self, labels: list[str], vectors: np.ndarray, name: str = "custom", source: str = "",
                 glyph_labels: list[str] | None = None, glyphs: np.ndarray | None = None):
        if len(labels) != len(vectors) or not labels:
            raise UserError("a tile gallery needs one feature vector per label and at least one label.")
        self.labels = list(labels)
        self.vectors = np.asarray(vectors, np.float32)
        self.name = name
        self.source = source
        self.glyph_labels = list(glyph_labels or [])
        self.glyphs = np.zeros((0, GLYPH_SIZE, GLYPH_SIZE), np.uint8) if glyphs is None else np.asarray(glyphs, np.uint8)
        self._glyph_refs: dict[str, list[np.ndarray]] = {}  # label -> its references, each at every blur (made lazily)
        self._names: tuple | None = None  # ``_name_bank``: (faces, their shrunk name bands), made lazily
        self.label_names = sorted(set(self.labels))  # every label, once
        ids = np.array([self.label_names.index(lab) for lab in self.labels])
        self._order = np.argsort(ids, kind="stable")  # samples grouped by label, for one reduceat per read
        self._starts = np.searchsorted(ids[self._order], np.arange(len(self.label_names)))

    @classmethod
    def load(cls, name_or_path: str | Path = DEFAULT_GALLERY) -> "TileGallery":
        path = Path(name_or_path)
        if not path.suffix:
            path = GALLERY_DIR / f"{name_or_path}.npz"
        if not path.exists():
            raise UserError(f"tile gallery {path} not found; use a name from {GALLERY_DIR} or the path of an .npz gallery.")
        try:
            with np.load(path, allow_pickle=False) as z:
                glyphs = ([str(x) for x in z["glyph_labels"]], z["glyphs"]) if "glyphs" in z else (None, None)
                gallery = cls([str(x) for x in z["labels"]], z["vectors"], path.stem, str(z["source"]) if "source" in z else "", *glyphs)
        except (OSError, ValueError, KeyError) as exc:
            raise UserError(f"{path} is not a tile gallery ({exc}); rebuild it.") from None
        if gallery.vectors.shape[1] != FEATURE_DIM:
            raise UserError(f"{path} was built with another feature layout ({gallery.vectors.shape[1]} values, this version uses "
                            f"{FEATURE_DIM}); rebuild it from its crops (python -m models.tiles_gallery for the schematic edition).")
        return gallery

    def extended(self, labels: list[str], vectors: np.ndarray, source: str = "") -> "TileGallery":
        """A new gallery: this one's samples and glyph references plus ``vectors`` labelled ``labels`` (a table
        profile's own slot crops, ``features`` of each: ``tablewatch adapt``)."""
        if not len(labels):
            return self
        return TileGallery(self.labels + list(labels), np.concatenate([self.vectors, np.asarray(vectors, np.float32)]),
                           self.name, source or self.source, self.glyph_labels, self.glyphs)

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, labels=np.array(self.labels), vectors=self.vectors.astype(np.float16), source=np.array(self.source),
                            glyph_labels=np.array(self.glyph_labels, dtype=str), glyphs=self.glyphs)

    def _refs(self, label: str) -> list[np.ndarray]:
        """The name-band references of a label (padded by ``GLYPH_SHIFT``), each at every ``GLYPH_BLURS`` sigma."""
        import cv2

        refs = self._glyph_refs.get(label)
        if refs is None:
            (r0, r1), (c0, c1), d = GLYPH_ROWS, GLYPH_COLS, GLYPH_SHIFT
            refs = []
            for g in (self.glyphs[i] for i, lab in enumerate(self.glyph_labels) if lab == label):
                g = g.astype(np.float32)
                for sigma in GLYPH_BLURS:
                    b = cv2.GaussianBlur(g, (0, 0), sigma) if sigma else g
                    refs.append(b[r0 - d:r1 + d, c0 - d:c1 + d])
            self._glyph_refs[label] = refs
        return refs

    def glyph_check(self, grey: np.ndarray, candidates: list[str], visible: np.ndarray | None = None,
                    variants: list[int] | None = None) -> list[tuple[str, float]] | None:
        """The candidates ranked by how well their printed name fits the slot's (``glyph_grey``): [(label, best
        correlation)], best first; only the pixels ``visible`` (uint8 mask of the crop, nonzero = compared) count.
        Each label is fitted at the reference ``variants`` given (``name_shortlist``), else at those that fit the
        first candidate best. None when the gallery has no glyph references for two of them, or too little of the
        name shows."""
        import cv2

        (r0, r1), (c0, c1) = GLYPH_ROWS, GLYPH_COLS
        patch = grey[r0:r1, c0:c1].astype(np.float32)
        mask = None if visible is None else np.ascontiguousarray(visible[r0:r1, c0:c1], np.uint8)
        if mask is not None and float((mask > 0).mean()) < GLYPH_MIN_VISIBLE:
            return None
        if float(patch.std() if mask is None else patch[mask > 0].std()) < 1e-3:
            return None
        labelled = [c for c in candidates if self._refs(c)]
        if len(labelled) < 2 or labelled[0] != candidates[0]:
            return None

        def fit(ref):
            r = cv2.matchTemplate(ref, patch, cv2.TM_CCOEFF_NORMED, mask=mask)
            r[~(np.abs(r) <= 1.0001)] = -1.0  # a flat reference (a bare slot) under a mask divides by zero
            return float(r.max())

        scores = {}
        if variants is None:
            first = [fit(ref) for ref in self._refs(labelled[0])]  # the features' best at every variant: which
            variants = sorted(range(len(first)), key=lambda i: -first[i])[:GLYPH_VARIANTS]  # sharpness fits here
            if len(labelled) > GLYPH_CANDIDATES:  # many labels (a piece on the slot): a quick pass picks the closest
                labelled = labelled[:1] + self._shortlist(labelled[1:], variants, patch, mask)
            scores[labelled[0]] = first[variants[0]]
        for lab in labelled[len(scores):]:
            refs = self._refs(lab)
            scores[lab] = max((fit(refs[i]) for i in variants if i < len(refs)), default=-1.0)
        return sorted(scores.items(), key=lambda kv: -kv[1])

    def _shortlist(self, labels: list[str], variants: list[int], patch: np.ndarray, mask: np.ndarray | None) -> list[str]:
        """The ``GLYPH_CANDIDATES - 1`` of ``labels`` whose reference correlates best with ``patch`` over the
        ``mask``'s pixels, each at its best of nine shifts (0 and ``GLYPH_SHIFT`` either way) and of ``variants``:
        one matrix product per shift and variant for them all. (One shift and one variant for all, those of the
        features' best label, lost the true label when that label was wrong: B-FISH under a marker, shortlisted
        at A1-14's fit, was left out and the slot read B-TAN at 0.84 in 4p s3.)"""
        h, w = patch.shape
        v = np.ones(patch.shape, bool) if mask is None else mask > 0
        x = patch[v] - patch[v].mean()
        best = np.full(len(labels), -2.0)
        for variant in variants:
            refs = np.stack([refs[min(variant, len(refs) - 1)] for refs in map(self._refs, labels)])
            for dy in range(0, 2 * GLYPH_SHIFT + 1, GLYPH_SHIFT):
                for dx in range(0, 2 * GLYPH_SHIFT + 1, GLYPH_SHIFT):
                    r = refs[:, dy:dy + h, dx:dx + w][:, v]
                    r = r - r.mean(1, keepdims=True)
                    best = np.maximum(best, r @ x / (np.linalg.norm(r, axis=1) * float(np.linalg.norm(x)) + 1e-6))
        return [labels[i] for i in np.argsort(-best)[:GLYPH_CANDIDATES - 1]]

    def _name_bank(self) -> tuple[list[str], np.ndarray]:
        """(the faces with glyph references, their name bands: (reference variant, face, pixel) float32), each band
        the centre of a reference at ``_refs``'s variant, shrunk by ``NAME_BANK_SCALE``, zero-mean and unit-norm;
        a face with fewer variants repeats its last."""
        if self._names is None:
            faces = [lab for lab in self.label_names if lab != EMPTY and self._refs(lab)]
            variants = max((len(self._refs(lab)) for lab in faces), default=0)
            bank = np.zeros((variants, len(faces), NAME_BAND_SIZE[0] * NAME_BAND_SIZE[1]), np.float32)
            (r0, r1), (c0, c1), d = GLYPH_ROWS, GLYPH_COLS, GLYPH_SHIFT
            for i, lab in enumerate(faces):
                refs = self._refs(lab)
                for j in range(variants):
                    bank[j, i] = _band_vector(refs[min(j, len(refs) - 1)][d:d + r1 - r0, d:d + c1 - c0])
            self._names = (faces, bank)
        return self._names

    def name_shortlist(self, grey: np.ndarray, first: str) -> tuple[list[str], list[int]]:
        """(``first`` and the ``NAME_CANDIDATES - 1`` other faces whose names fit a bare slot's crop best, the
        ``GLYPH_VARIANTS`` reference variants that fit ``first`` best): a quick pass over every face with glyph
        references (``_name_bank``), at nine shifts of ``GLYPH_SHIFT`` (the crop's band moved, not the
        reference). Where ``first`` has no references the variants are those of the best-fitting face; ``([first],
        [])`` when no face has references (nothing to compare, so ``glyph_check`` says nothing)."""
        faces, bank = self._name_bank()
        if not faces:
            return [first], []
        (r0, r1), (c0, c1), d = GLYPH_ROWS, GLYPH_COLS, GLYPH_SHIFT
        g = grey.astype(np.float32)
        shifted = np.stack([_band_vector(g[r0 + dy:r1 + dy, c0 + dx:c1 + dx]) for dy in (-d, 0, d) for dx in (-d, 0, d)], 1)
        fits = (bank.reshape(-1, bank.shape[2]) @ shifted).max(1).reshape(bank.shape[:2])  # (variant, face): best shift
        best = fits.max(0)
        lead = faces.index(first) if first in faces else int(np.argmax(best))
        variants = [int(v) for v in np.argsort(-fits[:, lead])[:GLYPH_VARIANTS]]
        others = [faces[i] for i in np.argsort(-best) if faces[i] != first][: NAME_CANDIDATES - 1]
        return [first] + others, variants

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
            others = tuple((self.label_names[int(j)], round(float(m), 4)) for j, m in zip(order[1:], behind[1:]) if m < OTHERS_WITHIN)
            out.append((self.label_names[int(order[0])], float(behind[1]) if len(order) > 1 else 1.0, others))
        return out


def build_gallery(samples: list[tuple[str, np.ndarray]], name: str, source: str,
                  glyph_samples: list[tuple[str, np.ndarray]] | None = None) -> TileGallery:
    """A gallery from (label, BGR slot crop) samples — e.g. rectified photos of an owner's own tiles. The glyph
    references are ``glyph_samples`` when given (crops of every label at a few print sharpnesses), else the
    samples themselves."""
    glyph_samples = samples if glyph_samples is None else glyph_samples
    return TileGallery([lab for lab, _ in samples], np.stack([features(c) for _, c in samples]), name, source,
                       [lab for lab, _ in glyph_samples], np.stack([glyph_grey(c) for _, c in glyph_samples]))


def _band_vector(band: np.ndarray) -> np.ndarray:
    """A name band (``GLYPH_ROWS`` × ``GLYPH_COLS`` pixels) shrunk to ``NAME_BAND_SIZE``, zero-mean, unit-norm."""
    import cv2

    return _unit(cv2.resize(np.asarray(band, np.float32), NAME_BAND_SIZE, interpolation=cv2.INTER_AREA).reshape(-1))


def _name_read(gallery: TileGallery, crop: np.ndarray, label: str, others: tuple) -> tuple[str, float, tuple] | None:
    """The read of a slot with no piece on it, of a kind told by printed names (``NAMED_KINDS``), that the
    features read as a face: every face's name compared (``name_shortlist``, then ``glyph_check``), the
    features' ``label`` among them. Bare when no name fits ``BARE_FIT``: the bare slot of an art the gallery does
    not hold reads as any face to the features; at most ``BARE_CONFIDENCE`` (a marker the detector missed, lying
    on the name, leaves no name to fit either). A face's confidence is its fit's lead over the next face, and at
    most how far its fit lies from ``BARE_FIT`` towards ``NAME_SURE_FIT`` (a name partly hidden by a missed marker
    fits less), or the features' bare-slot margin where smaller. None when the check says nothing."""
    grey = glyph_grey(crop)
    labels, variants = gallery.name_shortlist(grey, label)
    ranked = gallery.glyph_check(grey, labels, None, variants)
    if ranked is None:
        return None
    best, top = ranked[0]
    if top < BARE_FIT:
        margin = round(min(BARE_CONFIDENCE, (BARE_FIT - top) * GLYPH_SCALE), 4)
        return EMPTY, margin, ((best, margin),)
    bare = min([m for o, m in others if o == EMPTY] + [(top - BARE_FIT) / (NAME_SURE_FIT - BARE_FIT)])
    return _ranked_read(ranked, [(EMPTY, min(1.0, bare))])


def _glyph_read(gallery: TileGallery, crop: np.ndarray, label: str, conf: float, others: tuple,
                visible: np.ndarray | None = None, named: bool = False) -> tuple[str, float, tuple]:
    """A features' read re-ranked by the glyph check among its close labels (itself when there are none). With a
    piece on the slot (``visible`` given) the features are spoiled too, and the name the piece hides may be any
    of the side's: every label of that side is compared (a marker over the "1" of A1-12 leaves A2-12 as likely,
    however far the spoiled features put it). With no piece on the slot, bare or not is the features' call: the
    bare slot's name-band references are the schematic print's, so on a board printed in other art any face name
    fitted better than its bare band, at full confidence (issue 34: a painted card display read 4 cards where 2
    lay; the features hold the bare spaces of other art, ``models.tiles_gallery``). A slot they read bare stays
    bare; a face they read with the bare slot close is ranked against the other faces only, and keeps the bare
    slot's margin as its confidence where that is smaller."""
    if label == EMPTY and visible is None:
        return label, conf, others
    if named and visible is None:
        read = _name_read(gallery, crop, label, others)
        if read is not None:
            return read
    if visible is None:
        close = [o for o, m in others if m < GLYPH_WITHIN and o != EMPTY][:GLYPH_CANDIDATES - 1]
    else:
        side = label.rsplit(":", 1)[-1]
        close = [o for o in gallery.label_names if o != label and (o == EMPTY or o.endswith(":" + side))]
    if not close:
        return label, conf, others
    ranked = gallery.glyph_check(glyph_grey(crop), [label] + close, visible)
    if ranked is None:
        return label, conf, others
    # the bare slot, left to the features when no piece lies on it, stays as close as they put it
    return _ranked_read(ranked, [(o, m) for o, m in others if o == EMPTY] if visible is None else [])


def _ranked_read(ranked: list[tuple[str, float]], extra: list[tuple[str, float]]) -> tuple[str, float, tuple]:
    """(label, confidence, runner-ups) from a glyph check's ranking: the best label, its lead over the closest of
    the rest (each fit's gap to the best, scaled by ``GLYPH_SCALE``, at most 1) and of ``extra`` ((label,
    margin) beside the ranked ones), and those within ``OTHERS_WITHIN``, closest first."""
    best, top = ranked[0]
    behind = sorted([(lab, min(1.0, (top - fit) * GLYPH_SCALE)) for lab, fit in ranked[1:]] + extra, key=lambda lm: lm[1])
    return best, round(behind[0][1], 4), tuple((lab, round(m, 4)) for lab, m in behind if m < OTHERS_WITHIN)


def piece_mask(polygon, pieces, inset_mm: float = INSET_MM) -> np.ndarray | None:
    """The visible-pixel mask (``GLYPH_SIZE`` square, 255 = visible) of a slot's crop with the pieces at ``pieces``
    ((x, y) board mm) left out, each a ``PIECE_MASK_MM`` disk; None when no piece comes that close."""
    import cv2

    p = np.asarray(polygon, float)
    (x0, y0), (x1, y1) = p.min(0) + inset_mm, p.max(0) - inset_mm
    near = [(x, y) for x, y in pieces if x0 - PIECE_MASK_MM < x < x1 + PIECE_MASK_MM and y0 - PIECE_MASK_MM < y < y1 + PIECE_MASK_MM]
    if not near or x1 <= x0 or y1 <= y0:
        return None
    sx, sy = GLYPH_SIZE / (x1 - x0), GLYPH_SIZE / (y1 - y0)
    mask = np.full((GLYPH_SIZE, GLYPH_SIZE), 255, np.uint8)
    for x, y in near:
        cv2.ellipse(mask, (int(round((x - x0) * sx)), int(round((y - y0) * sy))),
                    (int(round(PIECE_MASK_MM * sx)), int(round(PIECE_MASK_MM * sy))), 0, 0, 360, 0, -1)
    return mask


def unpainted(crop: np.ndarray, visible: np.ndarray) -> np.ndarray:
    """The crop with the pixels not ``visible`` (``piece_mask``) filled in from around them: the features of a
    slot a marker lies on, without the marker's colour."""
    import cv2

    hidden = cv2.resize(255 - visible, (crop.shape[1], crop.shape[0]), interpolation=cv2.INTER_NEAREST)
    return cv2.inpaint(np.ascontiguousarray(crop), hidden, 3, cv2.INPAINT_TELEA)


def read_tiles(view: np.ndarray, px_per_mm: float, layout: dict, gallery: TileGallery | None = None,
               pieces=()) -> dict[str, TileRead]:
    """{region id: ``TileRead``} for every region of a ``TILE_KINDS`` kind (an empty one reads as the value None),
    each kind against its own gallery; ``gallery`` replaces the one of the tile slots. ``pieces``: (x, y) board mm
    of the pieces seen lying on the board; the glyph check looks around them."""
    out: dict[str, TileRead] = {}
    for kind, name in TILE_KINDS.items():
        slots = [r for r in layout["regions"] if r.get("kind") == kind]
        if slots:
            out.update(_read_slots(view, px_per_mm, slots, gallery if gallery is not None and kind == "tile_slot" else _default(name), pieces,
                                   kind in NAMED_KINDS))
    return out


def _read_slots(view: np.ndarray, px_per_mm: float, slots: list[dict], gallery: TileGallery, pieces,
                named: bool = False) -> dict[str, TileRead]:
    crops = [slot_crop(view, px_per_mm, r["polygon"]) for r in slots]
    masks = [piece_mask(r["polygon"], pieces) if len(gallery.glyphs) else None for r in slots]
    reads = gallery.classify_many(np.stack([features(c if m is None else unpainted(c, m)) for c, m in zip(crops, masks)]))
    if len(gallery.glyphs):
        reads = [_glyph_read(gallery, c, *read, m, named) for c, read, m in zip(crops, reads, masks)]

    def value(label):
        return None if label == EMPTY else label

    return {r["id"]: TileRead(value(label), conf, tuple((value(o), m) for o, m in others))
            for r, (label, conf, others) in zip(slots, reads)}


_DEFAULT: dict[str, TileGallery] = {}


def _default(name: str = DEFAULT_GALLERY) -> TileGallery:
    if name not in _DEFAULT:
        _DEFAULT[name] = TileGallery.load(name)
    return _DEFAULT[name]
