"""Detection metrics: greedy matching of detected pieces to ground truth within a radius in board mm, per class,
and the recall / precision / attribute-accuracy tallies printed by training and ``tablewatch eval detector``.
numpy only (no torch), so the evaluation runs without the training extra."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from vision.assign import covered_labels


def match_class(pred_xy: np.ndarray, pred_score: np.ndarray, gt_xy: np.ndarray, radius: float) -> list[tuple[int, int]]:
    """Greedy matches (pred index, gt index), strongest prediction first, each to its nearest free gt within radius."""
    pairs: list[tuple[int, int]] = []
    if len(pred_xy) == 0 or len(gt_xy) == 0:
        return pairs
    used = np.zeros(len(gt_xy), bool)
    d = np.linalg.norm(pred_xy[:, None, :] - gt_xy[None, :, :], axis=2)
    for i in np.argsort(-pred_score, kind="stable"):
        di = np.where(used, np.inf, d[i])
        j = int(np.argmin(di))
        if di[j] <= radius:
            used[j] = True
            pairs.append((int(i), j))
    return pairs


class Tally:
    """Accumulates per-class TP / FP / FN (ignored ground truth neither counts nor punishes a detection on it)
    and colour / side accuracy on the true positives."""

    def __init__(self, classes: list[str], radius_mm: float = 8.0):
        self.classes = list(classes)
        self.radius = radius_mm
        self.tp = defaultdict(int)
        self.fp = defaultdict(int)
        self.fn = defaultdict(int)
        self.attr_ok = 0
        self.attr_n = 0

    def add(self, preds: list[dict], gts: list[dict]) -> None:
        """preds: {class, colour, side, x, y, score}; gts: {class, colour, side, x, y, ignore}."""
        for c in {p["class"] for p in preds} | {g["class"] for g in gts}:
            P = [p for p in preds if p["class"] == c]
            G = [g for g in gts if g["class"] == c]
            pxy = np.array([[p["x"], p["y"]] for p in P], float).reshape(-1, 2)
            gxy = np.array([[g["x"], g["y"]] for g in G], float).reshape(-1, 2)
            pairs = match_class(pxy, np.array([p["score"] for p in P], float), gxy, self.radius)
            mp = {i for i, _ in pairs}
            mg = {j for _, j in pairs}
            for i, j in pairs:
                if G[j].get("ignore"):
                    continue
                self.tp[c] += 1
                self.attr_n += 1
                self.attr_ok += int(P[i]["colour"] == G[j]["colour"] and (P[i]["side"] or None) == (G[j]["side"] or None))
            for i, p in enumerate(P):
                if i in mp:
                    continue
                # an unmatched detection near an ignored (hidden) piece of any class is not a false positive
                near_ign = any(g.get("ignore") and (g["x"] - p["x"]) ** 2 + (g["y"] - p["y"]) ** 2 <= self.radius ** 2 for g in gts)
                if not near_ign:
                    self.fp[c] += 1
            for j, g in enumerate(G):
                if j not in mg and not g.get("ignore"):
                    self.fn[c] += 1

    def per_class(self) -> list[tuple[str, int, float, float]]:
        rows = []
        for c in self.classes:
            n = self.tp[c] + self.fn[c]
            if n == 0 and self.fp[c] == 0:
                continue
            rec = self.tp[c] / n if n else float("nan")
            prec = self.tp[c] / (self.tp[c] + self.fp[c]) if self.tp[c] + self.fp[c] else float("nan")
            rows.append((c, n, rec, prec))
        return rows

    def totals(self) -> dict:
        tp, fp, fn = sum(self.tp.values()), sum(self.fp.values()), sum(self.fn.values())
        rec = tp / (tp + fn) if tp + fn else 0.0
        prec = tp / (tp + fp) if tp + fp else 0.0
        f1 = 2 * rec * prec / (rec + prec) if rec + prec else 0.0
        return {"recall": rec, "precision": prec, "f1": f1, "attr_acc": self.attr_ok / self.attr_n if self.attr_n else 0.0,
                "tp": tp, "fp": fp, "fn": fn}


def gt_from_rect(rect: dict) -> list[dict]:
    """Ground truth in board mm from a synth ``rectified`` block; pieces under a stacked piece (``covered_labels``)
    are not in it."""
    r = float(rect["px_per_mm"])
    under = covered_labels(rect["pieces"], r)
    return [{"class": p["class"], "colour": p["colour"], "side": p["side"], "x": (p["xy"][0] + 0.5) / r, "y": (p["xy"][1] + 0.5) / r,
             "ignore": bool(p.get("occluded")) or not p.get("in_camera_view", True), "region": p.get("region")} for i, p in enumerate(rect["pieces"]) if i not in under]


def preds_from_pieces(pieces) -> list[dict]:
    """Detected pieces (``vision.detect.Detections``) in ``Tally.add``'s shape, the one ground truth has too
    (``gt_from_rect``): a matching record, not a second form of a detection."""
    return [{"class": p.cls, "colour": p.colour, "side": p.side, "x": p.x_mm, "y": p.y_mm, "score": p.score} for p in pieces]
