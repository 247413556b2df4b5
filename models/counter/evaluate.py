"""``tablewatch eval counter``: the resource counter's accuracy on the resource spaces of freshly rendered scenes of
one family (``models.counter.data``), printed as the figures of the model card (models/README.md).

A reading is *sure* when its margin over the runner-up is ``SURE_MARGIN`` or more: that margin is the reading's
confidence in the pipeline (``vision.counts``), and a sure misread is what could make an alert.
"""

from __future__ import annotations

import json

import numpy as np

from models.counter.data import generate
from models.counter.train import count_figures
from vision.counts import Counter

SURE_MARGIN = 0.6


def scores(counter: Counter, x: np.ndarray, y: np.ndarray, regions: np.ndarray) -> dict:
    """``count_figures`` of ``counter`` on crops, plus the spaces of at most 4 pieces and the sure misreads."""
    probs = counter.counts(x)
    out = count_figures(probs, y, regions)
    pred = probs.argmax(1)
    top2 = np.sort(probs, 1)[:, -2:] if len(x) else np.zeros((0, 2))
    sure = (top2[:, 1] - top2[:, 0]) >= SURE_MARGIN
    few = y <= 4
    out["few"] = [int(few.sum()), round(float((pred[few] == y[few]).mean()), 4) if few.any() else None]
    out["sure"] = [int(sure.sum()), int((sure & (pred != y)).sum())]
    out["sure_empty_misread"] = int((sure & (pred != y) & (y == 0)).sum())
    return out


def measure(model: str, n: int, seed: int, family: str, workers: int = 2) -> int:
    """Render ``n`` scenes of ``family``, count their resource spaces with ``model`` and print the figures."""
    counter = Counter.load(model)
    d = generate(n, seed, counter.size, workers=workers, families=(family,))
    y = np.minimum(d["count"].astype(np.int64), counter.max_count)
    s = scores(counter, d["x"], y, np.array(d["region"]))
    by = "  ".join(f"{c}: {acc:.2f} ({k})" for c, (k, acc) in s["by_count"].items())
    print(f"resource counter {model} on {s['n']} spaces of {n} {family} scenes (seed {seed}): accuracy {s['accuracy']:.4f}, "
          f"within one piece {s['within_one']:.4f}, spaces of at most 4 pieces {s['few'][1]:.4f} ({s['few'][0]})")
    print(f"sure readings (margin >= {SURE_MARGIN}): {s['sure'][0]}, wrong {s['sure'][1]} (of them on an empty space "
          f"{s['sure_empty_misread']})")
    print(f"by true count: {by}")
    print(json.dumps({k: s[k] for k in ("n", "accuracy", "within_one", "few", "sure", "sure_empty_misread")}))
    return 0
