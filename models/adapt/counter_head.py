"""The resource counter's recalibration for one table (``vision.counts.CountHead``), fitted on an owner's looks.

A resource space holds one kind of piece, so where the rules expect only that kind there (or nothing), the
expected number is the count's label. Each such space of a look gives one crop, cut as the observer cuts it
(the board rectified at ``COUNT_PX_PER_MM``), and the counter's log-probabilities for it; ``fit_count_head`` fits
a softmax map on them, started at and pulled towards the identity.
"""

from __future__ import annotations

import numpy as np

from assistant.table.observation import split_key
from models.adapt.fit import fit_linear
from vision.counts import COUNT_PX_PER_MM, Counter, CountHead, count_regions, space_crop
from vision.locate import rectify, view_matrix

PRIOR = 5.0  # the pull towards the identity (``models.adapt.fit``): 0.01 of the mean loss at 500 crops


def count_label(counter: Counter, region: dict, want) -> int | None:
    """The count a space must read when the rules expect ``want`` there (a Pieces tuple), or None when it holds
    another kind of piece too (no label)."""
    if not isinstance(want, tuple):
        return None
    own = counter.piece_of(region)
    n = 0
    for key, k in want:
        if split_key(key)[0] != own:
            return None
        n += k
    return min(n, counter.max_count)


def board_samples(counter: Counter, view, px_per_mm: float, layout: dict, expected: dict) -> tuple[list, list]:
    """(log-probabilities, labels) of the resource spaces of one board view whose count the rules know."""
    board = layout["name"]
    spaces = [
        (r, count_label(counter, r, expected.get(f"{board}/{r['id']}")))
        for r in count_regions(layout)
        if f"{board}/{r['id']}" in expected
    ]
    spaces = [(r, n) for r, n in spaces if n is not None]
    if not spaces:
        return [], []
    big = rectify(view, view_matrix(px_per_mm), layout, COUNT_PX_PER_MM)
    crops = np.stack([space_crop(big, COUNT_PX_PER_MM, r["polygon"], counter.size) for r, _ in spaces])
    base = counter.adapted(None)
    return list(np.log(np.maximum(base.counts(crops), 1e-9))), [n for _, n in spaces]


def fit_count_head(log_probs: list, labels: list, classes: int) -> CountHead | None:
    """The recalibration fitted on the samples, or None when there are none."""
    if not labels:
        return None
    W, b = fit_linear(np.stack(log_probs), np.asarray(labels), "softmax", PRIOR)
    return CountHead(W, b)
