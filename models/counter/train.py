"""``tablewatch train-counter``: render resource-space crops (``models.counter.data``, cached as one ``.npz``),
train the count classifier on them, and export it to ONNX (opset 17) with its JSON card into the weights folder.

The net: five 3x3 conv-BN-ReLU stages down to 7 x 7, global average pooling (a count is a sum over the crop) and
one linear layer to ``MAX_COUNT + 1`` classes (0 .. MAX_COUNT - 1 pieces, and "MAX_COUNT or more"). Loss: cross
entropy. Augmentation: quarter turns and flips, a shift of up to 3 px, brightness / contrast / white balance,
an uneven exposure (the held-out set's ``harden`` light), blur and noise. The scenes of the last ``VAL_SHARE``
validate. Seeded: crops from numpy ``default_rng(seed)``, ``torch.manual_seed(seed)``, 2 threads.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from assistant.errors import UserError
from models.counter.data import CLASSIC, TRAINED_MAX, check_families, generate
from models.detector.evaluate import harden
from models.detector.train import _bar
from vision.counts import COUNT_PX_PER_MM, PAD_MM

MAX_COUNT = 12
CROP_PX = 104  # 52 mm at 2 px/mm: a 46 mm space and 3 mm around it
VAL_SHARE = 0.05
PIECES = {"beavers": "beaver"}  # layout space names that are not piece class names


def build_net(n_out: int, width: int = 16):
    import torch
    from torch import nn

    def cbr(cin, cout, stride=1):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    w = width

    class CountNet(nn.Module):
        """Input (N, 3, 104, 104) float BGR 0..255 -> count logits."""

        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(*cbr(3, w, 2), *cbr(w, 2 * w, 2), *cbr(2 * w, 2 * w), *cbr(2 * w, 4 * w, 2),
                                      *cbr(4 * w, 4 * w), *cbr(4 * w, 6 * w, 2), *cbr(6 * w, 6 * w))
            self.head = nn.Linear(6 * w, n_out)

        def forward(self, x):
            f = self.body(x * (1.0 / 255.0) - 0.5)
            return self.head(torch.flatten(f.mean((2, 3)), 1))

    return CountNet()


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One augmented copy of a (s, s, 3) uint8 crop, as float32."""
    import cv2

    img = np.rot90(x, int(rng.integers(0, 4)))
    if rng.random() < 0.5:
        img = img[:, ::-1]
    dx, dy = rng.integers(-3, 4, 2)
    img = np.roll(img, (int(dy), int(dx)), (0, 1))
    img = np.ascontiguousarray(img)
    if rng.random() < 0.3:
        img, _ = harden(img, rng, 2.0, occlude=False)
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.4, 1.2)))
    f = img.astype(np.float32)
    f = f * rng.uniform(0.7, 1.25) * rng.uniform(0.9, 1.1, 3) + rng.uniform(-20, 20)
    if rng.random() < 0.5:
        f += rng.normal(0, rng.uniform(1, 6), f.shape)
    return np.clip(f, 0, 255).astype(np.float32)


def load_crops(path: Path, scenes: int, seed: int, workers: int, families=(CLASSIC,)) -> dict:
    """The cached crops at ``path``, rendered first (``families`` in turn) when the file is missing."""
    path = Path(path)
    families = check_families(families)
    if not path.exists():
        d = generate(scenes, seed, CROP_PX, workers=workers, families=families)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, x=d["x"], count=d["count"], scene=d["scene"], region=np.array(d["region"]), families=np.array(families))
    try:
        z = np.load(path)
        d = {k: z[k] for k in ("x", "count", "scene", "region")}
        stored = tuple(z["families"].tolist()) if "families" in z.files else (CLASSIC,)
    except (OSError, KeyError, ValueError) as exc:
        raise UserError(f"{path} is not a crop file written by `tablewatch train-counter` ({exc}). Delete it and run again.") from None
    if d["x"].shape[1:] != (CROP_PX, CROP_PX, 3):
        raise UserError(f"{path} holds {d['x'].shape[1]}-px crops, not {CROP_PX}: delete it and run again.")
    if stored != families:
        raise UserError(f"{path} holds crops of the families {' '.join(stored)}, not {' '.join(families)}: pass --family "
                        f"{' '.join(stored)}, another --data, or delete it.")
    d["families"] = stored
    return d


def evaluate_counts(logits_fn, x: np.ndarray, y: np.ndarray, regions: np.ndarray, batch: int = 256) -> dict:
    """Accuracy of a count model on crops: overall, per true count, per space name, and the mean confidence."""
    probs = np.concatenate([logits_fn(x[i:i + batch]) for i in range(0, len(x), batch)]) if len(x) else np.zeros((0, MAX_COUNT + 1))
    return count_figures(probs, y, regions)


def count_figures(probs: np.ndarray, y: np.ndarray, regions: np.ndarray) -> dict:
    """``evaluate_counts``'s figures from a count model's probabilities (N, classes) on crops of true counts ``y``."""
    pred = probs.argmax(1)
    ok = pred == y
    out = {"n": int(len(y)), "accuracy": round(float(ok.mean()), 4) if len(y) else None,
           "within_one": round(float((np.abs(pred - y) <= 1).mean()), 4) if len(y) else None,
           "by_count": {}, "by_space": {}}
    for c in range(MAX_COUNT + 1):
        m = y == c
        if m.any():
            out["by_count"][str(c)] = [int(m.sum()), round(float(ok[m].mean()), 4)]
    for name in sorted(set(regions.tolist())):
        m = regions == name
        out["by_space"][name.split(".")[-1]] = [int(m.sum()), round(float(ok[m].mean()), 4)]
    conf = probs.max(1) if len(y) else np.zeros(0)
    for lo, hi in ((0.0, 0.6), (0.6, 0.9), (0.9, 0.99), (0.99, 1.01)):
        m = (conf >= lo) & (conf < hi)
        out.setdefault("by_confidence", {})[f"{lo:.2f}-{min(hi, 1):.2f}"] = [int(m.sum()), round(float(ok[m].mean()), 4) if m.any() else None]
    return out


def train(data: Path, out: Path, scenes: int = 3000, seed: int = 1, steps: int = 6000, batch: int = 64, workers: int = 2,
          lr: float = 3e-3, families=(CLASSIC,), width: int = 16) -> dict:
    """Train and export; returns the card written beside the weights."""
    import torch

    d = load_crops(data, scenes, seed, workers, families)
    x, y = d["x"], np.minimum(d["count"].astype(np.int64), MAX_COUNT)
    if len(x) < 100:
        raise UserError(f"{data} holds only {len(x)} crops: too few to train on. Delete it and render more scenes (--scenes).")
    n_scenes = int(d["scene"].max()) + 1
    val = d["scene"] >= int(n_scenes * (1 - VAL_SHARE))
    tr_idx = np.flatnonzero(~val)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(2)
    model = build_net(MAX_COUNT + 1, width)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    # counts are skewed toward 0: weigh each class by 1/sqrt(frequency) so that piles are not ignored
    freq = np.bincount(y[tr_idx], minlength=MAX_COUNT + 1).astype(np.float64) + 1.0
    weight = torch.tensor((freq.sum() / freq) ** 0.5 / ((freq.sum() / freq) ** 0.5).mean(), dtype=torch.float32)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight)

    def logits_fn(xb):
        model.eval()
        with torch.no_grad():
            lo = model(torch.from_numpy(np.ascontiguousarray(xb.transpose(0, 3, 1, 2), dtype=np.float32)))
        return torch.softmax(lo, 1).numpy()

    t0 = time.perf_counter()
    history = []
    loss_avg = None
    for step in range(1, steps + 1):
        model.train()
        idx = rng.choice(tr_idx, batch)
        xb = np.stack([augment(x[i], rng) for i in idx]).transpose(0, 3, 1, 2).astype(np.float32)
        logits = model(torch.from_numpy(np.ascontiguousarray(xb)))
        loss = loss_fn(logits, torch.from_numpy(y[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        lv = float(loss.detach())
        loss_avg = lv if loss_avg is None else 0.98 * loss_avg + 0.02 * lv
        if step % 500 == 0 or step == steps:
            v = evaluate_counts(logits_fn, x[val], y[val], d["region"][val])
            history.append({"step": step, "loss": round(loss_avg, 4), "val_accuracy": v["accuracy"], "val_within_one": v["within_one"]})
            _bar(step, steps, t0, loss_avg, f"val acc {v['accuracy']:.3f}")
        elif step % 20 == 0:
            _bar(step, steps, t0, loss_avg)
    sys.stderr.write("\n")
    minutes = (time.perf_counter() - t0) / 60
    v = evaluate_counts(logits_fn, x[val], y[val], d["region"][val])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.eval()
    torch.onnx.export(model, (torch.zeros(1, 3, CROP_PX, CROP_PX),), str(out / "counter.onnx"), input_names=["crops"],
                      output_names=["logits"], dynamic_axes={"crops": {0: "N"}, "logits": {0: "N"}}, opset_version=17, dynamo=False)

    card = {"format": "tablewatch-counter/1", "input_px": CROP_PX, "px_per_mm": COUNT_PX_PER_MM, "pad_mm": PAD_MM,
            "max_count": MAX_COUNT, "classes": [str(c) for c in range(MAX_COUNT)] + [f"{MAX_COUNT}+"], "pieces": PIECES,
            "trained_max": TRAINED_MAX,
            "training": {"data": str(data), "families": list(d["families"]), "scenes": n_scenes, "crops": int(len(x)), "train_crops": int(len(tr_idx)),
                         "val_crops": int(val.sum()), "seed": seed, "steps": steps, "batch": batch, "lr": lr, "width": width,
                         "minutes": round(minutes, 1), "torch": torch.__version__},
            "validation": v, "history": history}
    (out / "counter.json").write_text(json.dumps(card, indent=1), encoding="utf-8")
    return card
