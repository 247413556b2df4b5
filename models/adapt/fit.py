"""Fitting small linear maps in numpy: ``fit_linear`` (logistic or softmax regression from input logits to output
logits, started at and held near the identity map), used by the table head and the counter recalibration.

The maps start at the identity (the base net's own answer) and an L2 pull towards it keeps them there where the
owner's looks say little: the pull is a fixed ``prior`` against the *summed* loss of the samples (a Gaussian prior
on the map, as in a MAP fit), so a few dozen labels barely move it and a game's thousands can. (A pull against
the mean loss would let a single look move the map as far as a whole game: with fewer than 4 looks nothing can be
held out to catch that.)
"""

from __future__ import annotations

import numpy as np

STEPS = 300
LEARNING_RATE = 0.05


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def fit_linear(
    x: np.ndarray,
    y: np.ndarray,
    loss: str,
    prior: float = 10.0,
    weights: np.ndarray | None = None,
    steps: int = STEPS,
    lr: float = LEARNING_RATE,
) -> tuple[np.ndarray, np.ndarray]:
    """(W, b) of z = x Wᵀ + b, W (d, d) started at I and b at 0, minimising the summed loss plus ``prior`` ·
    (|W - I|² + |b|²) (scaled by the number of samples: the mean loss plus ``prior`` / n times the pull).

    ``loss``: "sigmoid" (``y`` (n, d) in {0, 1}: independent binary targets per output) or "softmax" (``y`` (n,)
    class indices). ``weights`` (n,) weigh the samples. Full-batch Adam, ``steps`` steps: deterministic."""
    x = np.asarray(x, np.float64)
    n, d = x.shape
    W, b = np.eye(d), np.zeros(d)
    w = np.ones(n) if weights is None else np.asarray(weights, np.float64)
    w = w / w.sum()
    pull = prior / n
    if loss == "softmax":
        target = np.zeros((n, d))
        target[np.arange(n), np.asarray(y, int)] = 1.0
    else:
        target = np.asarray(y, np.float64)
    m = [np.zeros_like(W), np.zeros_like(b)]
    v = [np.zeros_like(W), np.zeros_like(b)]
    b1, b2 = 0.9, 0.999
    for t in range(1, steps + 1):
        z = x @ W.T + b
        p = _softmax(z) if loss == "softmax" else 1.0 / (1.0 + np.exp(-z))
        g = (p - target) * w[:, None]  # d loss / d z, weighted mean
        gW = g.T @ x + 2 * pull * (W - np.eye(d))
        gb = g.sum(0) + 2 * pull * b
        for i, (param, grad) in enumerate(((W, gW), (b, gb))):
            m[i] = b1 * m[i] + (1 - b1) * grad
            v[i] = b2 * v[i] + (1 - b2) * grad * grad
            param -= lr * (m[i] / (1 - b1**t)) / (np.sqrt(v[i] / (1 - b2**t)) + 1e-8)
    return W.astype(np.float32), b.astype(np.float32)
