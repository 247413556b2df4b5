"""``tablewatch eval scores``: how often a detection of a given score is a real piece (score calibration).

Renders fresh scenes (``models.detector.evaluate._render``; 2, 3 and 4 players in turn; ``--easy``: the training
distribution, which the end-to-end recordings resemble), runs the detector down to the pipeline's low threshold
(0.15, the near misses ``vision.observe`` weighs) and matches every detection to the ground truth of its class
within 8 mm, strongest first (a weaker second peak on a piece already matched is not real). Prints, per score bin,
the share of detections that are real pieces; ``--write`` stores the table in the detector's card
(``score_calibration``), where ``vision.detect.Detector.real_share`` reads it: the pipeline turns a near miss (a
detection under the threshold, not counted) into the confidence of its region's reading
(``vision.observe.RegionReader.readings``). Runtime path only (onnxruntime)."""

from __future__ import annotations

import json
import sys

import numpy as np

from assistant.errors import UserError
from calibration.layout import load_builtin
from models.detector.evaluate import _render
from models.detector.metrics import gt_from_rect, match_class
from vision.assign import RegionIndex, fit_classes, region_pieces
from vision.detect import Detector

BINS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.7, 1.0)
LOW = BINS[0]


def calibrate(model: str, n: int, seed: int, workers: int, hard: bool = False, write: bool = False) -> int:
    import multiprocessing as mp

    det = Detector(model, threads=2)
    card_path = det.path.with_suffix(".json")
    if write and not card_path.is_file():
        raise UserError(f"{det.path.name} shares its card with another model; --write stores a calibration only in a "
                        "model's own card (models/weights/detector.json for the committed detector).")
    scales = {k: det.card[k] for k in ("px_per_mm", "small_boards") if k in det.card}
    real = np.zeros(len(BINS) - 1)
    total = np.zeros(len(BINS) - 1)
    indexes: dict[str, RegionIndex] = {}
    jobs = [(seed, i, 2 + i % 3, scales, hard, False, None, "wendake") for i in range(n)]  # 2, 3 and 4 players in turn
    with mp.get_context("spawn").Pool(workers) as pool:
        for k, views in enumerate(pool.imap(_render, jobs, chunksize=2), 1):
            for view, r, rect, _hands, _mask, _outside, _tiles, _close in views:
                if rect["board"] not in indexes:
                    indexes[rect["board"]] = RegionIndex(load_builtin(rect["board"]))
                idx = indexes[rect["board"]]
                dets = fit_classes(det.detect(view, r, threshold=LOW), idx.region_of, idx.kind,
                                   region_pieces(idx.layout.get("game")), det.card["classes"])
                gts = gt_from_rect(rect)
                for cls in {d.cls for d in dets}:
                    preds = [d for d in dets if d.cls == cls]
                    truth = [g for g in gts if g["class"] == cls]
                    pairs = match_class(np.array([[d.x_mm, d.y_mm] for d in preds]), np.array([d.score for d in preds]),
                                        np.array([[g["x"], g["y"]] for g in truth]).reshape(-1, 2), 8.0)
                    hit = {i: truth[j]["ignore"] for i, j in pairs}
                    for i, d in enumerate(preds):
                        if hit.get(i):  # on a piece under a hand: neither real nor false here
                            continue
                        b = min(len(total) - 1, int(np.searchsorted(BINS, d.score, side="right")) - 1)
                        total[b] += 1
                        real[b] += i in hit
            sys.stderr.write(f"\r{k}/{n} scenes ")
            sys.stderr.flush()
    sys.stderr.write("\n")
    share = [round(float(real[b] / total[b]), 4) if total[b] else None for b in range(len(total))]
    print(f"detector {det.path.name}: share of detections that are real pieces, by score ({n} scenes, seed {seed}, "
          f"{'hard' if hard else 'easy'}, matched per class within 8 mm)")
    for b in range(len(total)):
        print(f"  {BINS[b]:.2f}-{BINS[b + 1]:.2f}  n {int(total[b]):6d}  real {share[b] if share[b] is not None else '-'}")
    if write:
        card = json.loads(card_path.read_text(encoding="utf-8"))
        card["score_calibration"] = {"bins": list(BINS), "real": share, "n": [int(t) for t in total],
                                     "command": f"tablewatch eval scores --n {n} --seed {seed}" + ("" if hard else " --easy") + " --write"}
        card_path.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
        print(f"wrote score_calibration into {card_path}")
    return 0
