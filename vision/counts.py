"""Resource counter: how many pieces lie on each resource space of a village board, read by a small ONNX classifier.

The piece detector finds a lone resource well but misses pieces in a pile (fish, corn, beans, pumpkins recall
0.36-0.63 on the held-out set: small pieces touching each other at 1 px/mm). A resource space holds one kind of
piece (its layout attribute ``name``), so what the tracker needs from it is a count, and a count is what this
classifier reads: a crop of the space from the board rectified at ``COUNT_PX_PER_MM``, padded by ``PAD_MM``,
goes through the net, whose softmax gives P(count = 0 .. MAX_COUNT - 1) and P(count >= MAX_COUNT); a read's
confidence is the margin between the likeliest count and the runner-up (as for the tile reader).

Owns the crop geometry (shared with the training data, ``models.counter``), the ``Counter`` model (weights
``models/weights/counter.onnx`` + its card ``counter.json``) and ``read_counts``. Game-neutral: any region of kind
``resource_space`` is read, and the piece it counts is the region's ``attributes.name`` (a plural name such as
``beavers`` is mapped to its piece class through the card's ``pieces`` table). numpy + OpenCV + onnxruntime.

A table profile's adaptation (``tablewatch adapt``, docs/adapt.md) may add a ``CountHead``: a linear map on the
net's log-probabilities, fitted on the owner's crops whose count the rules know (``Counter.adapted``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import NamedTuple

import numpy as np

from assistant.errors import UserError
from assistant.table.observation import COUNT_BOUND_CONFIDENCE, Reading, pieces
from vision.detect import cpu_session, load_adapted_arrays

WEIGHTS_DIR = Path(__file__).resolve().parent.parent / "models" / "weights"
DEFAULT_MODEL = "counter"
COUNT_PX_PER_MM = 2.0  # the scale crops are read at (the synth writer's village views)
PAD_MM = 3.0  # context around the space's bounding box
COUNT_KIND = "resource_space"


class CountRead(NamedTuple):
    """One space's read: the piece class counted, the count, its confidence (how much likelier the count is than
    the runner-up count, 0..1), and the runner-up counts with their probability gap behind the best (((count,
    gap), ...), nearest first)."""

    piece: str
    count: int
    confidence: float
    others: tuple = ()


def count_regions(layout: dict) -> list[dict]:
    return [r for r in layout.get("regions", []) if r.get("kind") == COUNT_KIND]


def crop_box_mm(polygon) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) in board mm of a space's crop: its bounding box grown by ``PAD_MM``."""
    p = np.asarray(polygon, float)
    return float(p[:, 0].min() - PAD_MM), float(p[:, 1].min() - PAD_MM), float(p[:, 0].max() + PAD_MM), float(p[:, 1].max() + PAD_MM)


def space_crop(view: np.ndarray, px_per_mm: float, polygon, size: int) -> np.ndarray:
    """The crop of one space as a ``size`` x ``size`` BGR image, sampled from a view of the whole board at
    ``px_per_mm`` (pixel centres at (i + 0.5) / px_per_mm mm). Outside the view reads black."""
    import cv2

    x0, y0, x1, y1 = crop_box_mm(polygon)
    sx, sy = (x1 - x0) / size, (y1 - y0) / size  # mm per crop pixel
    # crop pixel (u, v) centre = board mm (x0 + (u + 0.5) sx, ...) = view pixel that * px_per_mm - 0.5
    M = np.array([[sx * px_per_mm, 0.0, (x0 + 0.5 * sx) * px_per_mm - 0.5],
                  [0.0, sy * px_per_mm, (y0 + 0.5 * sy) * px_per_mm - 0.5]])
    return cv2.warpAffine(view, M, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=(0, 0, 0))


COUNT_HEAD_FORMAT = "tablewatch.count-head/1"


class CountHead:
    """A table's recalibration of the counter: log-probabilities ``l`` (max_count + 1) -> logits ``w`` l + ``b``.
    Fitted by ``models.adapt.counter_head``; the identity (``w`` = I, ``b`` = 0) changes nothing."""

    def __init__(self, w, b):
        self.w, self.b = np.asarray(w, np.float32), np.asarray(b, np.float32)

    def save(self, path) -> None:
        np.savez(path, format=np.array(COUNT_HEAD_FORMAT), w=self.w, b=self.b)

    @classmethod
    def load(cls, path) -> "CountHead":
        return cls(*load_adapted_arrays(path, COUNT_HEAD_FORMAT, ("w", "b"), "the counter recalibration"))

    def apply(self, log_probs: np.ndarray) -> np.ndarray:
        """(N, classes) log-probabilities -> (N, classes) logits."""
        return np.asarray(log_probs, np.float32) @ self.w.T + self.b


def softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


class Counter:
    """The resource counter: ``counts(crops)`` -> (N, classes) softmax probabilities."""

    def __init__(self, onnx_path: Path, card: dict, threads: int = 2):
        self.session = cpu_session(onnx_path, threads, f"cannot load the resource counter {onnx_path}")
        self.card = card
        self.size = int(card["input_px"])
        self.max_count = int(card["max_count"])
        self.pieces = dict(card.get("pieces", {}))
        self.trained_max = {k: int(v) for k, v in card.get("trained_max", {}).items()}  # piece class -> most drawn
        self.head: CountHead | None = None  # a table profile's recalibration (``adapted``)

    def adapted(self, head: CountHead | None) -> "Counter":
        """This counter with a table's ``CountHead`` applied to its probabilities (the same onnxruntime session)."""
        if head is not None and head.w.shape != (self.max_count + 1, self.max_count + 1):
            raise UserError("the counter recalibration does not fit the resource counter (another count range): run `tablewatch adapt` again.")
        other = copy.copy(self)
        other.head = head
        return other

    @classmethod
    def load(cls, name: str = DEFAULT_MODEL, threads: int = 2) -> "Counter":
        onnx_path = WEIGHTS_DIR / f"{name}.onnx" if not str(name).endswith(".onnx") else Path(name)
        card_path = onnx_path.with_suffix(".json")
        if not onnx_path.exists() or not card_path.exists():
            raise UserError(f"resource counter {onnx_path.name} (and its card {card_path.name}) not found in {onnx_path.parent}. "
                            "Reinstall Tablewatch, or train one with `tablewatch train-counter`.")
        card = json.loads(card_path.read_text(encoding="utf-8"))
        for key in ("input_px", "max_count", "px_per_mm"):
            if key not in card:
                raise UserError(f"{card_path} lacks {key!r}: it is not a resource-counter card. Re-run `tablewatch train-counter`.")
        return cls(onnx_path, card, threads)

    def counts(self, crops: np.ndarray) -> np.ndarray:
        """crops: (N, size, size, 3) uint8 BGR -> (N, max_count + 1) probabilities."""
        if len(crops) == 0:
            return np.zeros((0, self.max_count + 1), np.float32)
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32)
        probs = softmax(self.session.run(None, {self.session.get_inputs()[0].name: x})[0])
        if self.head is not None:
            probs = softmax(self.head.apply(np.log(np.maximum(probs, 1e-9))))
        return probs

    def piece_of(self, region: dict) -> str:
        name = (region.get("attributes") or {}).get("name", "")
        return self.pieces.get(name, name)


def read_counts(view: np.ndarray, px_per_mm: float, layout: dict, counter: Counter, regions=None) -> dict[str, CountRead]:
    """{region id: CountRead} for the resource spaces of one board view (``regions``: only these ids)."""
    spaces = [r for r in count_regions(layout) if regions is None or r["id"] in regions]
    if not spaces:
        return {}
    crops = np.stack([space_crop(view, px_per_mm, r["polygon"], counter.size) for r in spaces])
    probs = counter.counts(crops)
    out = {}
    for r, p in zip(spaces, probs):
        order = np.argsort(-p)
        k = int(order[0])
        others = tuple((int(j), round(float(p[k] - p[j]), 4)) for j in order[1:3] if p[j] > 0.01)
        # confidence: the margin over the runner-up count, not P(count): on the validation crops a margin of 0.6
        # or more was wrong 3 times in 465, a probability of 0.6 or more 19 times in 574 (a pile of 5 read at 0.62
        # with 6 at 0.21 is not a sure 5)
        out[r["id"]] = CountRead(counter.piece_of(r), k, round(float(p[k] - p[order[1]]), 4), others)
    return out


def merged_count(read: CountRead, detected: int, max_count: int) -> int:
    """The count a space is given: the counter's, or the detector's when the counter says "``max_count`` or more"
    and the detector found more."""
    return read.count if read.count < max_count else max(read.count, detected)


def counted_pieces(counts: dict, read: CountRead, max_count: int, counted: frozenset[str], own, kind_of) -> dict:
    """A resource space's piece counts (``counts``: piece key -> number, ``own`` the key of the space's piece,
    ``kind_of(key)`` a key's piece class) with the counter's count of its own piece (``merged_count``) in place of
    the detector's and the other ``counted`` kinds dropped (see ``counted_reading``). The live reading and the
    held-out evaluation (``models.detector.evaluate``) key pieces differently; the rule is this one."""
    n = merged_count(read, counts.get(own, 0), max_count)
    out = {k: v for k, v in counts.items() if k != own and kind_of(k) not in counted}
    if n:
        out[own] = n
    return out


def counted_kinds(layout: dict, counter: "Counter") -> frozenset[str]:
    """The piece classes the resource spaces of ``layout`` hold (fish, corn, ..., beaver for Wendake)."""
    return frozenset(counter.piece_of(r) for r in count_regions(layout))


def counted_reading(reading, read: CountRead, max_count: int, quality: float = 1.0, counted: frozenset[str] = frozenset(),
                    ceiling: int | None = None):
    """A resource space's ``Reading`` with the detector's count of the space's own piece replaced by the counter's
    (a count of ``max_count`` or more keeps the detector's count when it is higher). Pieces of the other
    ``counted`` kinds (another resource) that the detector saw there are dropped: the counter counts every piece
    on the space, and a space holds its own kind, so a pumpkin in a pile read as corn is a pumpkin the count
    already holds (3p s14: "3 corn, 4 pumpkins" on a space of 4 pumpkins, look after look). A resource put on
    the wrong space still shows, as one too many there and one too few on its own space. Other pieces (a warrior,
    a disk) stay. Confidence: the counter's, capped by the board's image quality, and by the detector's when it
    saw other pieces there; exactly ``COUNT_BOUND_CONFIDENCE`` when the count is the ``ceiling``, the most pieces
    of its kind the counter was trained on: a lower bound, not a count, as it has never seen more (e2e: 104 of 104
    piles of 8 or 10 beavers read 7, at 0.3-0.6; a Hunt taking 7 beavers to 10 was given up, 3p s17)."""
    key = f"{read.piece}:none"
    counts = dict(reading.value) if reading is not None else {}
    conf = min(read.confidence, quality)
    if reading is not None and any(k != key for k in counts):
        conf = min(conf, reading.confidence)
    if ceiling is not None and read.count >= ceiling:
        conf = COUNT_BOUND_CONFIDENCE
    return Reading(pieces(counted_pieces(counts, read, max_count, counted, key, lambda k: k.split(":")[0])), round(float(conf), 4))
