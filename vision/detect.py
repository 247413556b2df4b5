"""Piece detector at run time: an ONNX centre-point net on the rectified map view, run with onnxruntime.

Owns: loading a committed model (``models/weights/<name>.onnx`` + its ``.json`` card: classes, colours, sides,
input scale), resizing a rectified view to the model's px/mm, running it with 2 threads, and decoding the heads
into pieces in board millimetres (``decode``: class-agnostic peak picking + distance NMS), and the two names every
later stage uses for what it found: ``Piece`` (one detected piece) and ``Detections`` (the pieces of one read of one
board). Also ``tablewatch bench detector``. numpy + OpenCV + onnxruntime only: never torch (training lives in ``models/detector``).

Net outputs (stride ``stride`` input pixels per cell): ``heat`` (1, C, h, w) centre probabilities per class,
``reg`` (1, 4, h, w) sub-cell offset x, y in [0, 1) and log box width, height in mm, ``colour`` (1, K+1, h, w)
and ``side`` (1, S+1, h, w) logits, the last channel of each meaning "none".

A table profile's adaptation (``tablewatch adapt``, docs/adapt.md) may add a ``TableHead``: a 1×1 map per cell on
those outputs (class heat logits, colour and side logits), fitted in numpy on the owner's harvested looks and
applied before decoding (``Detector.adapted``). Without one the outputs are decoded as the net gives them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assistant.errors import UserError
from assistant.jsonfile import read_json

WEIGHTS_DIR = Path(__file__).resolve().parent.parent / "models" / "weights"
DEFAULT_MODEL = "detector"


@dataclass
class Piece:
    """One detected piece: class, attributes, base centre in board mm, box size in mm, score."""

    cls: str
    colour: str
    side: str | None
    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float
    score: float
    class_scores: tuple[float, ...] | None = None  # every class's heatmap value at the peak (card order)

    def as_dict(self) -> dict:
        """The piece as JSON (rounded; without ``class_scores``): one item of ``Detections.to_json``."""
        return {"class": self.cls, "colour": self.colour, "side": self.side, "xy_mm": [round(self.x_mm, 2), round(self.y_mm, 2)],
                "size_mm": [round(self.w_mm, 1), round(self.h_mm, 1)], "score": round(self.score, 4)}


class Detections:
    """The pieces of one read of one board, positions in board mm: what the detector gives (``Detector.detect``,
    ``decode``) and what every later stage takes and gives (token re-read, ``vision.assign.fit_classes``,
    ``vision.observe.merge_tall_duplicates`` and ``colour_grey_pieces``, region readings and decisions), and what
    the board image keeps of a board's last read (``vision.observe.BoardView``). Modelled on the ``supervision``
    library's ``Detections``, with a ``Piece`` per item instead of parallel arrays.

    Contract: immutable and ordered (the order its maker gave: the detector's is strongest first); iterating
    gives ``Piece``s; ``len``; ``d[i]`` is a Piece, ``d[a:b]`` a Detections; ``filter`` / ``above`` return a new
    Detections and never change this one. Stages that change a piece replace it (``dataclasses.replace``) in the
    Detections they return. Equal when the pieces are equal, in order. Built from any iterable of ``Piece``."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: Iterable[Piece] = ()):
        self.pieces: tuple[Piece, ...] = tuple(pieces)

    def __iter__(self) -> Iterator[Piece]:
        return iter(self.pieces)

    def __len__(self) -> int:
        return len(self.pieces)

    def __getitem__(self, i):
        return Detections(self.pieces[i]) if isinstance(i, slice) else self.pieces[i]

    def __eq__(self, other) -> bool:
        return isinstance(other, Detections) and self.pieces == other.pieces

    __hash__ = None  # Pieces are mutable dataclasses, so neither is hashable

    def __repr__(self) -> str:
        return f"Detections({list(self.pieces)!r})"

    def filter(self, keep: Callable[[Piece], bool]) -> Detections:
        """The pieces for which ``keep(piece)`` is true, in order."""
        return Detections(p for p in self.pieces if keep(p))

    def above(self, threshold: float) -> Detections:
        """The pieces scoring ``threshold`` or more, in order (at the card's threshold: the counted pieces; the
        others are near misses)."""
        return self.filter(lambda p: p.score >= threshold)

    def to_json(self) -> list[dict]:
        """The pieces as JSON, in order (``Piece.as_dict``: rounded, without ``class_scores``). Nothing reads it
        back, so there is no ``from_json``."""
        return [p.as_dict() for p in self.pieces]


def model_path(name_or_path: str | Path = DEFAULT_MODEL) -> Path:
    """``detector`` / ``detector-int8`` (in models/weights) or a path to an .onnx file."""
    p = Path(name_or_path)
    if p.suffix != ".onnx":
        p = WEIGHTS_DIR / f"{name_or_path}.onnx"
    return p


def load_card(onnx_path: Path) -> dict:
    card_path = onnx_path.with_suffix(".json")
    if not card_path.exists():  # the int8 file shares the fp32 card
        card_path = onnx_path.with_name(onnx_path.stem.replace("-int8", "") + ".json")
    card = read_json(card_path, missing=f"no model card {card_path} next to {onnx_path}; it holds the class list. "
                                        "Re-export with `tablewatch train`.", fix="Re-export it with `tablewatch train`.")
    for key in ("classes", "colours", "sides", "px_per_mm", "stride"):
        if key not in card:
            raise UserError(f"model card {card_path} lacks {key!r}; re-export it with `tablewatch train`.")
    return card


def peaks(score: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Local maxima (3×3) of a 2-D score map above ``threshold``: (rows, cols), strongest first."""
    import cv2

    s = np.ascontiguousarray(score, np.float32)
    dil = cv2.dilate(s, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((s >= dil) & (s > threshold))
    order = np.argsort(-s[ys, xs], kind="stable")
    return ys[order], xs[order]


def nms_points(xy: np.ndarray, scores: np.ndarray, radius: float) -> np.ndarray:
    """Greedy non-maximum suppression of points: indices kept (strongest first), none closer than ``radius``."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    keep: list[int] = []
    for i in order:
        if all((xy[i, 0] - xy[j, 0]) ** 2 + (xy[i, 1] - xy[j, 1]) ** 2 >= radius * radius for j in keep):
            keep.append(int(i))
    return np.array(keep, dtype=np.int64)


def input_scale(card: dict, w_mm: float, h_mm: float) -> float:
    """The px/mm at which the net reads a board of ``w_mm`` × ``h_mm``: the card's ``small_boards`` scale for boards
    up to its ``max_area_mm2`` (village boards, score tracks, mask board: their resources, tokens and stacked disks
    are small and packed, and the boards are small enough to read finer), else the card's ``px_per_mm`` (the map).
    A card without ``small_boards`` reads every board at ``px_per_mm``."""
    small = card.get("small_boards")
    if small and w_mm * h_mm <= float(small["max_area_mm2"]):
        return float(small["px_per_mm"])
    return float(card["px_per_mm"])


def decode(heat: np.ndarray, reg: np.ndarray, colour: np.ndarray, side: np.ndarray, card: dict,
           threshold: float = 0.3, nms_mm: float = 7.0, px_per_mm: float | None = None) -> Detections:
    """Turn the heads of one image (no batch axis) into pieces in board mm, strongest first.

    Peaks are taken on the class-wise maximum (one piece per place), refined by the offset head, then points
    closer than ``nms_mm`` are suppressed. The input pixel u of cell column c is (c + offset) · stride, and
    board mm = (u + 0.5) / px_per_mm (pixel centres, as in the rectified view); ``px_per_mm`` is the input's
    scale (``input_scale``), by default the card's."""
    heat = np.asarray(heat, np.float32)
    if heat.ndim != 3:
        raise ValueError(f"heat must be (C, h, w), got shape {heat.shape}")
    stride, r = float(card["stride"]), float(card["px_per_mm"] if px_per_mm is None else px_per_mm)
    best = heat.max(axis=0)
    cls = heat.argmax(axis=0)
    ys, xs = peaks(best, threshold)
    if len(ys) == 0:
        return Detections()
    u = (xs + reg[0, ys, xs]) * stride
    v = (ys + reg[1, ys, xs]) * stride
    xy = np.stack([(u + 0.5) / r, (v + 0.5) / r], axis=1)
    sc = best[ys, xs]
    keep = nms_points(xy, sc, nms_mm)
    colours = list(card["colours"]) + ["none"]
    sides = list(card["sides"]) + [None]
    out = []
    for k in keep:
        y, x = ys[k], xs[k]
        out.append(Piece(card["classes"][int(cls[y, x])], colours[int(np.argmax(colour[:, y, x]))], sides[int(np.argmax(side[:, y, x]))],
                         float(xy[k, 0]), float(xy[k, 1]), float(np.exp(reg[2, y, x])), float(np.exp(reg[3, y, x])), float(sc[k]),
                         tuple(float(v) for v in heat[:, y, x])))
    return Detections(out)


def logit(p: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)), with p kept inside (1e-6, 1 - 1e-6)."""
    p = np.clip(np.asarray(p, np.float32), 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


HEAD_FORMAT = "tablewatch.table-head/1"


def load_adapted_arrays(path, fmt: str, keys, what: str) -> list:
    """The arrays ``keys`` of an adaptation's ``.npz`` file of format ``fmt`` (``tablewatch adapt``); a one-line
    UserError naming ``what`` when the file cannot be read or is not that format."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["format"]) != fmt:
                raise ValueError(f"format {z['format']}")
            return [z[k] for k in keys]
    except (OSError, KeyError, ValueError) as exc:
        raise UserError(f"{what} {path} cannot be read ({exc}): run `tablewatch adapt` again, "
                        "or `tablewatch adapt --rollback`.") from None


class TableHead:
    """A table's 1×1 map on the detector's outputs, per cell: heat logits ``l`` (C) -> sigmoid(``heat_w`` l +
    ``heat_b``), colour logits ``c`` (K+1) -> ``colour_w`` c + ``colour_b``, side logits likewise. The identity
    map (``identity``) leaves the outputs as they are. Fitted by ``models.adapt.detector_head``."""

    KEYS = ("heat_w", "heat_b", "colour_w", "colour_b", "side_w", "side_b")

    def __init__(self, heat_w, heat_b, colour_w, colour_b, side_w, side_b):
        self.heat_w, self.heat_b = np.asarray(heat_w, np.float32), np.asarray(heat_b, np.float32)
        self.colour_w, self.colour_b = np.asarray(colour_w, np.float32), np.asarray(colour_b, np.float32)
        self.side_w, self.side_b = np.asarray(side_w, np.float32), np.asarray(side_b, np.float32)

    @classmethod
    def identity(cls, card: dict) -> "TableHead":
        c, k, s = len(card["classes"]), len(card["colours"]) + 1, len(card["sides"]) + 1
        return cls(np.eye(c), np.zeros(c), np.eye(k), np.zeros(k), np.eye(s), np.zeros(s))

    def fits(self, card: dict) -> bool:
        """Whether the head's shapes fit a detector with this card."""
        c, k, s = len(card["classes"]), len(card["colours"]) + 1, len(card["sides"]) + 1
        return self.heat_w.shape == (c, c) and self.colour_w.shape == (k, k) and self.side_w.shape == (s, s)

    def save(self, path) -> None:
        np.savez(path, format=np.array(HEAD_FORMAT), **{k: getattr(self, k) for k in self.KEYS})

    @classmethod
    def load(cls, path) -> "TableHead":
        return cls(*load_adapted_arrays(path, HEAD_FORMAT, cls.KEYS, "the table head"))

    @staticmethod
    def _map(w: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
        """w (o, i) and b (o) applied to every cell of x (1, i, h, w)."""
        n, i, h, wd = x.shape
        y = w @ np.asarray(x, np.float32).reshape(i, -1) if n == 1 else np.einsum("oi,nihw->nohw", w, x)
        return (y.reshape(n, -1, h, wd) + b[None, :, None, None]).astype(np.float32, copy=False)

    def apply(self, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The net's outputs (``heat`` probabilities, ``colour`` / ``side`` logits) with the map applied."""
        res = dict(out)
        z = self._map(self.heat_w, self.heat_b, logit(out["heat"]))
        res["heat"] = 1.0 / (1.0 + np.exp(-z, out=z))
        res["colour"] = self._map(self.colour_w, self.colour_b, np.asarray(out["colour"], np.float32))
        res["side"] = self._map(self.side_w, self.side_b, np.asarray(out["side"], np.float32))
        return res


def cpu_session(path, threads: int, what: str):
    """An onnxruntime session on the CPU with ``threads`` intra-op threads, one inter-op thread, sequential; a file
    onnxruntime cannot load is a UserError that begins with ``what``."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    try:
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types for unreadable models
        raise UserError(f"{what}: {exc}") from None


class Detector:
    """An onnxruntime session on a committed detector; ``detect(view, view_px_per_mm)`` → Detections."""

    def __init__(self, model: str | Path = DEFAULT_MODEL, threads: int = 2):
        self.path = model_path(model)
        if not self.path.exists():
            raise UserError(f"detector model {self.path} not found. Train one with `tablewatch train` or use the committed models/weights/detector.onnx.")
        self.card = load_card(self.path)
        self.session = cpu_session(self.path, threads, f"cannot load the detector model {self.path}")
        self.input_name = self.session.get_inputs()[0].name
        self.output_names = [o.name for o in self.session.get_outputs()]
        self.px_per_mm = float(self.card["px_per_mm"])
        self.head: TableHead | None = None  # a table profile's adaptation (``adapted``)
        self.multiple = int(self.card.get("multiple", 8))
        cal = self.card.get("score_calibration") or {}
        # (bin centre, share of real pieces) of the card's calibration, read once: ``real_share`` is asked per near miss
        self._calibration = [((a + b) / 2, r) for a, b, r in zip(cal.get("bins", []), cal.get("bins", [])[1:], cal.get("real", []))
                             if r is not None]

    def adapted(self, head: TableHead | None) -> "Detector":
        """This detector with a table's ``TableHead`` applied to its outputs (the same onnxruntime session)."""
        if head is not None and not head.fits(self.card):
            raise UserError(f"the table head does not fit the detector {self.path.name} (another class list): run `tablewatch adapt` again.")
        other = copy.copy(self)
        other.head = head
        return other

    def real_share(self, score: float) -> float | None:
        """The share of detections with this score that are real pieces, from the card's ``score_calibration``
        (measured by ``tablewatch eval scores``; linear between bin centres), or None when the card has none."""
        if not self._calibration:
            return None
        xs, ys = zip(*self._calibration)
        return float(np.interp(score, xs, ys))

    def scale_for(self, w_mm: float, h_mm: float) -> float:
        """The px/mm the net reads a board of this size at (``input_scale``)."""
        return input_scale(self.card, w_mm, h_mm)

    def view_scale(self, view: np.ndarray, view_px_per_mm: float) -> float:
        """The px/mm the net reads this whole-board rectified view at."""
        return self.scale_for(view.shape[1] / view_px_per_mm, view.shape[0] / view_px_per_mm)

    def prepare(self, view: np.ndarray, view_px_per_mm: float) -> np.ndarray:
        """BGR uint8 view → (1, 3, H, W) float32 at the scale the net reads it at (``view_scale``), padded to a
        multiple of the net's stride."""
        import cv2

        if view is None or view.ndim != 3 or view.shape[2] != 3:
            raise UserError("the rectified view must be a colour (BGR) image.")
        r_in = self.view_scale(view, view_px_per_mm)
        if abs(view_px_per_mm - r_in) > 1e-6:
            f = r_in / view_px_per_mm
            h, w = view.shape[:2]
            view = cv2.resize(view, (max(1, round(w * f)), max(1, round(h * f))),
                              interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
        h, w = view.shape[:2]
        m = self.multiple
        H, W = -(-h // m) * m, -(-w // m) * m
        if (H, W) != (h, w):
            view = cv2.copyMakeBorder(view, 0, H - h, 0, W - w, cv2.BORDER_CONSTANT, value=(0, 0, 0))
        return np.ascontiguousarray(view.transpose(2, 0, 1)[None], dtype=np.float32)

    def run(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        return dict(zip(self.output_names, self.session.run(self.output_names, {self.input_name: tensor})))

    def outputs(self, view: np.ndarray, view_px_per_mm: float) -> tuple[dict[str, np.ndarray], float]:
        """The heads for one whole-board rectified view (the table head applied, if any) and the scale read at."""
        tensor = self.prepare(view, view_px_per_mm)  # checks the view
        out = self.run(tensor)
        if self.head is not None:
            out = self.head.apply(out)
        return out, self.view_scale(view, view_px_per_mm)

    def detect(self, view: np.ndarray, view_px_per_mm: float, threshold: float | None = None) -> Detections:
        """Pieces on one whole-board rectified view (read at ``view_scale``), positions in board mm."""
        out, r_in = self.outputs(view, view_px_per_mm)
        thr = float(self.card.get("threshold", 0.3)) if threshold is None else threshold
        return decode(out["heat"][0], out["reg"][0], out["colour"][0], out["side"][0], self.card, thr,
                      float(self.card.get("nms_mm", 7.0)), r_in)
