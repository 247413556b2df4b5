"""The detector's table head (``vision.detect.TableHead``), fitted on an owner's looks.

Labels come from the rules: each region's expected pieces are known (counts per piece key), their places are
not. So the net's own peaks stand for the places: in a region expecting N pieces, its N strongest peaks at a
low threshold (``CANDIDATE_THRESHOLD``) are those pieces, each given the class, colour and side of the expected
piece it fits best (``assign``); its other peaks are no piece. A region expected empty gives every peak in it
as no piece. A region with fewer peaks than pieces, a pile (it hides pieces) and a tile face give no labels.

Each labelled peak gives the net's heat logits, colour and side logits at its cell; ``fit_head`` fits the
per-class heat map (independent sigmoids: the heat is one probability per class; a class with fewer than
``MIN_POSITIVES`` labelled pieces keeps its own heat, as only "no piece" would be learned of it), and the colour and side maps
(softmax over the colours and sides, the pieces only), each started at and pulled towards the identity.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from assistant.table.observation import split_key
from models.adapt.fit import fit_linear
from models.adapt.looks import PILE_KIND, TILE_KIND
from vision.detect import TableHead, logit, nms_points, peaks

CANDIDATE_THRESHOLD = 0.05  # peaks down to this heat stand for the expected pieces
MIN_POSITIVES = 10  # a class with fewer labelled pieces keeps the net's own heat (its row of the map stays the identity)
# the pull towards the identity (``models.adapt.fit``): for one game's labels (about 15,000 peaks, 5,000 of them
# pieces) as strong as a pull of 0.003 against the mean loss (the first value tried; figures in docs/adapt.md)
HEAT_PRIOR = 45.0
ATTR_PRIOR = 15.0


@dataclass
class HeadSamples:
    """Labelled peaks: their heat logits, colour and side logits, class (-1: no piece), colour and side index."""

    heat: list = field(default_factory=list)
    colour: list = field(default_factory=list)
    side: list = field(default_factory=list)
    cls: list = field(default_factory=list)
    col: list = field(default_factory=list)
    sid: list = field(default_factory=list)
    regions: int = 0  # regions that gave labels
    skipped: int = 0  # regions whose pieces could not be matched

    def __len__(self) -> int:
        return len(self.cls)


def board_peaks(out: dict, card: dict, r_in: float):
    """The candidate peaks of one board's outputs: (cells (n, 2) rows/cols, board mm (n, 2), heat (n,)),
    strongest first, as ``vision.detect.decode`` places them (offset head, distance NMS)."""
    heat, reg = out["heat"][0], out["reg"][0]
    best = heat.max(axis=0)
    ys, xs = peaks(best, CANDIDATE_THRESHOLD)
    if len(ys) == 0:
        return np.zeros((0, 2), int), np.zeros((0, 2)), np.zeros(0)
    stride = float(card["stride"])
    u, v = (xs + reg[0, ys, xs]) * stride, (ys + reg[1, ys, xs]) * stride
    xy = np.stack([(u + 0.5) / r_in, (v + 0.5) / r_in], axis=1)
    keep = nms_points(xy, best[ys, xs], float(card.get("nms_mm", 7.0)))
    return np.stack([ys[keep], xs[keep]], 1), xy[keep], best[ys[keep], xs[keep]]


def _index(name, names: list, default: int) -> int:
    return names.index(name) if name in names else default


def assign(want: list[tuple[int, int, int]], heat: np.ndarray, colour: np.ndarray, side: np.ndarray) -> list[int]:
    """For each expected piece (class, colour, side index) the peak (row of ``heat`` etc.) it fits best, greedily by
    log-likelihood, one peak each."""
    lp_c = np.log(np.clip(heat, 1e-6, 1.0))
    lp_k = colour - np.log(np.exp(colour - colour.max(1, keepdims=True)).sum(1, keepdims=True)) - colour.max(1, keepdims=True)
    lp_s = side - np.log(np.exp(side - side.max(1, keepdims=True)).sum(1, keepdims=True)) - side.max(1, keepdims=True)
    score = np.array([[lp_c[i, c] + lp_k[i, k] + lp_s[i, s] for i in range(len(heat))] for c, k, s in want])
    out = [-1] * len(want)
    used: set[int] = set()
    for flat in np.argsort(-score, axis=None, kind="stable"):
        j, i = divmod(int(flat), len(heat))
        if out[j] < 0 and i not in used:
            out[j] = i
            used.add(i)
    return out


def add_board(samples: HeadSamples, out: dict, r_in: float, card: dict, reader, board: str, expected: dict, kinds: dict) -> None:
    """Add the labelled peaks of one board (``out``: the base net's outputs for its view read at ``r_in``;
    ``reader``: the board's ``vision.observe.RegionReader``; ``expected``, ``kinds``: the look's)."""
    cells, xy, _ = board_peaks(out, card, r_in)
    by_region: dict[str, list[int]] = {}
    for i, (x, y) in enumerate(xy):
        rid = reader.region_of(float(x), float(y))
        if rid is not None:
            by_region.setdefault(f"{board}/{rid}", []).append(i)
    heat, colour, side = out["heat"][0], out["colour"][0], out["side"][0]
    classes, colours, sides = list(card["classes"]), list(card["colours"]), list(card["sides"])
    for key, want in expected.items():
        if (
            not key.startswith(board + "/")
            or "#" in key
            or kinds.get(key) in (PILE_KIND, TILE_KIND)
            or not isinstance(want, tuple)
        ):
            continue
        here = by_region.get(key, [])  # strongest first
        pieces = [
            (_index(c, classes, -1), _index(k, colours, len(colours)), _index(s, sides, len(sides)))
            for pk, n in want
            for c, k, s in [split_key(pk)]
            for _ in range(n)
        ]
        if any(c < 0 for c, _, _ in pieces) or len(here) < len(pieces):
            samples.skipped += 1
            continue
        samples.regions += 1
        top = here[: len(pieces)]
        h = np.stack([heat[:, cells[i, 0], cells[i, 1]] for i in top]) if top else None
        k = np.stack([colour[:, cells[i, 0], cells[i, 1]] for i in top]) if top else None
        s = np.stack([side[:, cells[i, 0], cells[i, 1]] for i in top]) if top else None
        match = assign(pieces, h, k, s) if top else []
        label = {top[m]: pieces[j] for j, m in enumerate(match)}
        for i in here:
            y, x = cells[i]
            samples.heat.append(logit(heat[:, y, x]))
            samples.colour.append(colour[:, y, x].astype(np.float32))
            samples.side.append(side[:, y, x].astype(np.float32))
            c, kk, ss = label.get(i, (-1, -1, -1))
            samples.cls.append(c)
            samples.col.append(kk)
            samples.sid.append(ss)


def fit_head(samples: HeadSamples, card: dict) -> TableHead:
    """The table head fitted on ``samples`` (the identity where they hold nothing)."""
    head = TableHead.identity(card)
    if not len(samples):
        return head
    cls = np.asarray(samples.cls)
    heat = np.stack(samples.heat)
    target = np.zeros_like(heat)
    pos = cls >= 0
    target[np.nonzero(pos)[0], cls[pos]] = 1.0
    head.heat_w, head.heat_b = fit_linear(heat, target, "sigmoid", HEAT_PRIOR)
    for c in np.nonzero(target.sum(0) < MIN_POSITIVES)[0]:  # e.g. canoes, which lie only in lakes (piles: no labels)
        head.heat_w[c], head.heat_b[c] = np.eye(len(head.heat_b), dtype=np.float32)[c], 0.0
    if pos.sum() >= 2:
        head.colour_w, head.colour_b = fit_linear(
            np.stack(samples.colour)[pos], np.asarray(samples.col)[pos], "softmax", ATTR_PRIOR
        )
        head.side_w, head.side_b = fit_linear(np.stack(samples.side)[pos], np.asarray(samples.sid)[pos], "softmax", ATTR_PRIOR)
    return head
