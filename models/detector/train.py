"""``tablewatch train``: train the centre-point detector on a synth folder, draw the validation curve (cv2 PNG),
export ONNX (opset 17) and its JSON card into the weights folder. Seeded: same data, seed and steps ⇒ same
weights (torch on CPU, 2 threads). With ``loader_workers`` the crops of step s are drawn by worker processes from
their own generator, seeded (seed, s), so they do not depend on the number of workers; ``device`` "cuda" trains on
a GPU (not bit-identical to the CPU); ``init`` starts from an exported detector instead of random weights (a
fine-tune, ``init_from_onnx``)."""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from assistant.errors import UserError
from models.detector.data import gaussian_targets, load_sets, random_crop, scene_targets, view_scale
from models.detector.metrics import Tally, gt_from_rect, preds_from_pieces
from vision.detect import decode


def _bar(step: int, total: int, t0: float, loss: float, extra: str = "") -> None:
    width = 30
    fill = int(width * step / total)
    el = time.perf_counter() - t0
    eta = el / step * (total - step) if step else 0.0
    sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] step {step}/{total}  loss {loss:.3f}  {el / 60:.1f} min  eta {eta / 60:.1f} min {extra}   ")
    sys.stderr.flush()


PROBE_FROM, PROBE_STEPS = 20, 60  # --minutes: the steps timed to set the run's length
BAR_EVERY = 10


def _budget_steps(minutes: float, t0: float, t_from: float, now: float, cap: int) -> int:
    """The steps that fit ``minutes`` at the pace of steps ``PROBE_FROM``..``PROBE_STEPS`` (timed ``t_from`` to
    ``now``; the first steps pay for the device's warm-up), a tenth of the budget kept for validation and export;
    at most ``cap``, at least ``PROBE_STEPS`` + 1."""
    per = (now - t_from) / (PROBE_STEPS - PROBE_FROM)
    return int(min(cap, max(PROBE_STEPS + 1, PROBE_STEPS + (0.9 * minutes * 60 - (now - t0)) / per)))


def _tensor(a, dtype, device: str):
    """A batch array on the device: numpy from the CPU loaders, or a tensor already there (``GpuCrops``)."""
    import torch

    if isinstance(a, np.ndarray):
        return torch.from_numpy(a if dtype is None else a.astype(dtype)).to(device)
    return a if dtype is None else a.to(torch.int64 if dtype is np.int64 else torch.float32)


def focal_loss(pred, gt, weight):
    import torch

    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = (1 - pos) * weight[:, None]
    pl = torch.log(pred) * (1 - pred) ** 2 * pos
    nl = torch.log(1 - pred) * pred ** 2 * (1 - gt) ** 4 * neg
    n = pos.sum().clamp(min=1.0)
    return -(pl.sum() + nl.sum()) / n


def make_batch(views, targets, idx, crop, rng, n_classes, valid_hw):
    imgs, heats, weights, pos = [], [], [], []
    for b, i in enumerate(idx):
        img, t = random_crop(views[i], targets[i], crop, rng, valid_hw[i])
        heat, w, p = gaussian_targets(t, (crop, crop), n_classes)
        imgs.append(img.transpose(2, 0, 1))
        heats.append(heat)
        weights.append(w)
        pos.append(np.concatenate([np.full((len(p), 1), b, np.float32), p], 1))
    return np.stack(imgs), np.stack(heats), np.stack(weights), np.concatenate(pos, 0)


_LOADER: dict = {}  # what the crop workers read (set before the fork; the views are a shared memory map)


def _step_batch(step: int):
    """The crops of one step, drawn from a generator seeded (seed, step) (``loader_workers`` > 0)."""
    L = _LOADER
    rng = np.random.default_rng([L["seed"], step])
    idx = rng.choice(L["train_idx"], L["batch"], p=L["pick_p"])
    x, heat, w, pos = make_batch(L["views"], L["targets"], idx, L["crop"], rng, L["n_classes"], L["valid_hw"])
    return np.rint(x).astype(np.uint8), heat.astype(np.float16), w.astype(np.float16), pos  # a quarter of the bytes to pass back


def _batches(steps: int, workers: int, draw):
    """Yield the batches of steps 1..steps: ``draw()`` in this process (workers 0, the 60-minute CPU recipe: one
    generator for the whole run), or ``_step_batch`` in ``workers`` forked processes, at most 3 a worker waiting."""
    if workers == 0:
        for _ in range(steps):
            yield draw()
        return
    import collections
    import multiprocessing as mp

    with mp.get_context("fork").Pool(workers) as pool:
        pending: collections.deque = collections.deque()
        nxt = 1
        for _ in range(steps):
            while nxt <= steps and len(pending) < 3 * workers:
                pending.append(pool.apply_async(_step_batch, (nxt,)))
                nxt += 1
            yield pending.popleft().get()


def _shares(folders: list[Path], weights: list[float] | None) -> list[float]:
    """Each folder's share of the training crops: ``weights`` normalised, equal shares when None."""
    if weights is None:
        return [1.0 / len(folders)] * len(folders)
    if len(weights) != len(folders) or any(w <= 0 for w in weights):
        raise UserError(f"--data-weights needs one positive number per --data folder ({len(folders)}), got {weights}.")
    return [w / sum(weights) for w in weights]


def validate(model, views, rects, idx, card, valid_hw, scales_of, device: str = "cpu") -> dict:
    import torch

    tally = Tally(card["classes"], 8.0)
    model.eval()
    with torch.no_grad():
        for i in idx:
            H, W = views[i].shape[:2]
            Hp, Wp = -(-H // 8) * 8, -(-W // 8) * 8
            img = np.zeros((Hp, Wp, 3), np.float32)
            img[:H, :W] = views[i][:H, :W]
            out = model(torch.from_numpy(img.transpose(2, 0, 1)[None].copy()).to(device))
            heat, reg, col, side = (o[0].cpu().numpy() for o in out)
            pieces = decode(heat, reg, col, side, card, card["threshold"], card["nms_mm"],
                            scales_of[i])
            tally.add(preds_from_pieces(pieces), gt_from_rect(rects[i]))
    model.train()
    return tally.totals()


def draw_curve(path: Path, history: list[dict]) -> None:
    """Training loss (grey, own scale) and validation recall / precision / F1 (0..1) against step, drawn with cv2."""
    import cv2

    W, H, m = 900, 520, 60
    img = np.full((H, W, 3), 255, np.uint8)
    x0, y0, x1, y1 = m, 30, W - 30, H - m
    cv2.rectangle(img, (x0, y0), (x1, y1), (0, 0, 0), 1)
    if not history:
        cv2.imwrite(str(path), img)
        return
    smax = max(h["step"] for h in history) or 1
    lmax = max(h["loss"] for h in history) or 1
    X = lambda s: int(x0 + (x1 - x0) * s / smax)  # noqa: E731
    Y = lambda v: int(y1 - (y1 - y0) * v)  # noqa: E731
    for v in (0.0, 0.25, 0.5, 0.75, 1.0):
        cv2.line(img, (x0, Y(v)), (x1, Y(v)), (225, 225, 225), 1)
        cv2.putText(img, f"{v:.2f}", (8, Y(v) + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
    series = [("loss / max", (150, 150, 150), [h["loss"] / lmax for h in history]), ("val recall", (200, 80, 0), [h["recall"] for h in history]),
              ("val precision", (0, 140, 0), [h["precision"] for h in history]), ("val F1", (0, 0, 220), [h["f1"] for h in history]),
              ("val colour+side acc", (160, 0, 160), [h["attr_acc"] for h in history])]
    for k, (name, col, vals) in enumerate(series):
        pts = np.array([[X(h["step"]), Y(v)] for h, v in zip(history, vals)], np.int32)
        cv2.polylines(img, [pts], False, col, 2, cv2.LINE_AA)
        cv2.putText(img, name, (x0 + 10 + 170 * k, H - 18), cv2.FONT_HERSHEY_SIMPLEX, 0.45, col, 1, cv2.LINE_AA)
    cv2.putText(img, f"step (0..{smax})", (x1 - 120, y1 + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(img, "detector validation curve (matched within 8 mm)", (x0, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.imwrite(str(path), img)


def export(model, path: Path, card: dict) -> None:
    import torch

    model = model.cpu().eval()
    dummy = torch.zeros(1, 3, 128, 192)
    torch.onnx.export(model, (dummy,), str(path), input_names=["image"], output_names=["heat", "reg", "colour", "side"],
                      dynamic_axes={"image": {2: "H", 3: "W"}, "heat": {2: "h", 3: "w"}, "reg": {2: "h", 3: "w"},
                                    "colour": {2: "h", 3: "w"}, "side": {2: "h", 3: "w"}},
                      opset_version=17, dynamo=False)
    path.with_suffix(".json").write_text(json.dumps(card, indent=1), encoding="utf-8")


def init_from_onnx(model, path: Path, card: dict) -> dict:
    """Start ``model`` from an exported detector (a fine-tune): the export folds each BatchNorm into its conv, so
    a conv without bias takes the folded weight and its BatchNorm becomes the identity carrying the folded bias
    (mean 0, variance 1 - eps, scale 1); those BatchNorms must then stay in eval mode (``freeze_batchnorm``).
    Returns the provenance for the new card: the file, its hash and its own card's training arguments."""
    import hashlib

    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    side = path.with_suffix(".json")
    old = json.loads(side.read_text(encoding="utf-8")) if side.exists() else None
    for key in ("sides", "width") if old is not None else ():
        if old.get(key) != card.get(key):
            raise UserError(f"--init {path}: its {key} {old.get(key)} differ from this run's {card.get(key)}; "
                            f"fine-tune only from a detector trained on the same sides and width.")
    for key in ("classes", "colours") if old is not None else ():
        lost = [c for c in old.get(key, []) if c not in card[key]]
        if lost:
            raise UserError(f"--init {path}: its {key} {lost} are not in this run's data; fine-tune only on data that "
                            f"keeps every class and colour of the detector it starts from (add a folder of its scenes).")
    raw = path.read_bytes()
    graph = onnx.load_model_from_string(raw).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    nodes = [n for n in graph.node if n.op_type == "Conv"]
    mods = list(model.modules())
    convs = [m for m in mods if isinstance(m, nn.Conv2d)]
    if len(nodes) != len(convs):
        raise UserError(f"--init {path} has {len(nodes)} convolutions; this net has {len(convs)}: not the same architecture.")
    with torch.no_grad():
        for node, conv in zip(nodes, convs):  # both in forward order (the net's modules are defined in that order)
            w = weights[node.input[1]]
            b = weights[node.input[2]] if len(node.input) > 2 else np.zeros(w.shape[0], np.float32)
            if conv is convs[-1] and old is not None and tuple(w.shape) != tuple(conv.weight.shape):
                w, b = _extend_head(w, b, old, card, conv)
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise UserError(f"--init {path}: a convolution of shape {w.shape} where this net has {tuple(conv.weight.shape)}.")
            conv.weight.copy_(torch.from_numpy(w))
            if conv.bias is not None:
                conv.bias.copy_(torch.from_numpy(b))
                continue
            bn = mods[mods.index(conv) + 1]
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
    prov = {"file": path.name, "sha256": hashlib.sha256(raw).hexdigest()[:16], "train": old.get("train") if old else None}
    added = {k: [c for c in card[k] if c not in old.get(k, [])] for k in ("classes", "colours")} if old else {}
    if any(added.values()):
        prov["added"] = added
    return prov


def _extend_head(w: np.ndarray, b: np.ndarray, old: dict, card: dict, conv):
    """The exported head's weights (classes | 4 box | colours + unknown | sides + unknown output channels) laid
    out for this run's classes and colours: each old channel moved to its name's new place, a new class or colour
    keeping the fresh net's channel (a class's prior bias)."""
    oc, ok = len(old["classes"]), len(old["colours"])
    nc, nk = len(card["classes"]), len(card["colours"])
    src = [old["classes"].index(c) if c in old["classes"] else None for c in card["classes"]]
    src += [oc + i for i in range(4)]
    src += [oc + 4 + old["colours"].index(c) if c in old["colours"] else None for c in card["colours"]]
    src += [oc + 4 + ok]  # the unknown colour
    src += [oc + 4 + ok + 1 + i for i in range(len(card["sides"]) + 1)]
    if w.shape[0] != oc + 4 + ok + 1 + len(old["sides"]) + 1 or len(src) != nc + 4 + nk + 1 + len(card["sides"]) + 1:
        raise UserError("--init: the detector's head does not match its card's classes and colours; re-export it.")
    fresh_w = conv.weight.detach().cpu().numpy().copy()
    fresh_b = conv.bias.detach().cpu().numpy().copy()
    for j, i in enumerate(src):
        if i is not None:
            fresh_w[j], fresh_b[j] = w[i], b[i]
    return fresh_w, fresh_b


def freeze_batchnorm(model) -> None:
    """Keep every BatchNorm in eval mode (its running statistics fixed) while the rest trains."""
    from torch import nn

    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


SMALL_BOARD_MAX_AREA_MM2 = 160_000.0  # village boards (0.12 m²), score tracks (0.07 m²), mask board (0.15 m²); not the map


def model_scales(px_per_mm: float, small_px_per_mm: float) -> dict:
    """The card's input scales: the map at ``px_per_mm``, boards up to ``SMALL_BOARD_MAX_AREA_MM2`` at
    ``small_px_per_mm`` (0: every board at ``px_per_mm``)."""
    scales: dict = {"px_per_mm": px_per_mm}
    if small_px_per_mm and small_px_per_mm != px_per_mm:
        scales["small_boards"] = {"max_area_mm2": SMALL_BOARD_MAX_AREA_MM2, "px_per_mm": small_px_per_mm}
    return scales


def train(data: Path, out: Path, steps: int, batch: int, crop: int, px_per_mm: float, seed: int, val_scenes: int,
          val_every: int, width: int, lr: float, limit: int | None = None, small_px_per_mm: float = 0.0, device: str = "cpu",
          loader_workers: int = 0, checkpoint: Path | None = None, init: Path | None = None,
          data_weights: list[float] | None = None, gpu_crops: bool = False, minutes: float | None = None) -> dict:
    """Train on ``data`` (a synth folder, or several: their classes united, ``data_weights`` their shares of the
    crops, equal by default; validation on the last ``val_scenes`` of each) and export into ``out``; returns the
    model card. ``gpu_crops``: crops and their targets made on ``device`` (``gpu_crops.GpuCrops``); ``minutes``: a
    time budget, the run's step count then set from the pace of its steps ``PROBE_FROM``..``PROBE_STEPS`` (at
    most ``steps``) and written in the card, so that ``--steps`` with it repeats the run."""
    import torch

    from models.detector.gpu_crops import GpuCrops  # needs torch: the train extra
    from models.detector.net import MULTIPLE, STRIDE, CentreNet, n_params

    torch.manual_seed(seed)
    if device == "cpu":
        torch.set_num_threads(2)
    elif not torch.cuda.is_available():
        raise UserError(f"--device {device}: PyTorch sees no GPU here; train with --device cpu.")
    rng = np.random.default_rng(seed)
    t_load = time.perf_counter()
    scales = model_scales(px_per_mm, small_px_per_mm)
    folders = [Path(d) for d in (data if isinstance(data, (list, tuple)) else [data])]
    shares = _shares(folders, data_weights)
    view_workers = max(2, loader_workers, min(16, os.cpu_count() or 2) if gpu_crops else 0)
    views, rects, folder_of, scene_of, counts, man = load_sets(folders, scales, workers=view_workers, limit=limit)
    for folder, n_f in zip(folders, counts):
        if n_f < val_scenes + 10:
            raise UserError(f"{folder} holds {n_f} scenes; training needs at least {val_scenes + 10} in each --data folder "
                            f"(val uses the last {val_scenes} of each).")
    n = sum(counts)
    scale_of = [view_scale(scales, r) for r in rects]
    targets = [scene_targets(r, s, man) for r, s in zip(rects, scale_of)]
    valid_hw = [v.shape[:2] for v in views]
    print(f"loaded {len(views)} views of {n} scenes at {sorted(set(scale_of))} px/mm in {time.perf_counter() - t_load:.1f} s", file=sys.stderr)
    folder_of, scene_of = np.asarray(folder_of), np.asarray(scene_of)
    is_val = scene_of >= np.asarray(counts)[folder_of] - val_scenes
    train_idx, val_idx = np.flatnonzero(~is_val), np.flatnonzero(is_val)
    # crops are drawn from views in proportion to their board area (mm²), so every part of every board is equally
    # likely, each folder getting its share of the crops (``data_weights``)
    area = np.array([h * w / s ** 2 for (h, w), s in zip(valid_hw, scale_of)], np.float64)[train_idx]
    of = folder_of[train_idx]
    pick_p = np.zeros_like(area)
    for i, share in enumerate(shares):
        pick_p[of == i] = share * area[of == i] / area[of == i].sum()
    pick_p /= pick_p.sum()
    classes, colours, sides = list(man["classes"]), list(man["colours"]), list(man["sides"])
    model = CentreNet(len(classes), len(colours) + 1, len(sides) + 1, width).to(device)
    card = {"format": "tablewatch-detector/1", "classes": classes, "colours": colours, "sides": sides, **scales,
            "stride": STRIDE, "multiple": MULTIPLE, "threshold": 0.3, "nms_mm": 7.0, "params": n_params(model), "width": width,
            "train": {"data": str(folders[0]) if len(folders) == 1 else [str(f) for f in folders], "scenes": n, "views": len(views), "val_scenes": val_scenes, "data_seed": man.get("seed"), "seed": seed, "steps": steps,
                      "batch": batch, "crop": crop, "lr": lr, "device": device, "loader_workers": loader_workers}}
    if len(folders) > 1:
        card["train"]["data_shares"] = [round(x, 4) for x in shares]
    if init is not None:
        card["train"]["init"] = init_from_onnx(model, init, card)  # copied into the parameters on their device
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    warm = min(50, steps // 10 + 1)
    out.mkdir(parents=True, exist_ok=True)
    history: list[dict] = []
    best = (-1.0, None)
    run_loss = None
    plan = {"steps": steps}
    if gpu_crops:
        gpu = GpuCrops(views, targets, train_idx, pick_p, crop, len(classes), device, seed, batch)
        batches = (gpu.draw(s) for s in itertools.count(1))
        card["train"]["gpu_crops"] = True
        if device.startswith("cuda"):
            torch.backends.cudnn.benchmark = True
    else:
        _LOADER.update(seed=seed, train_idx=train_idx, batch=batch, pick_p=pick_p, views=views, targets=targets, crop=crop,
                       n_classes=len(classes), valid_hw=valid_hw)
        draw = lambda: make_batch(views, targets, rng.choice(train_idx, batch, p=pick_p), crop, rng, len(classes), valid_hw)  # noqa: E731
        batches = _batches(steps, loader_workers, draw)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * min(s, plan["steps"]) / plan["steps"])))
    T = lambda a, dtype=None: _tensor(a, dtype, device)  # noqa: E731
    t0 = time.perf_counter()
    for step, (x, heat, w, pos) in enumerate(batches, 1):
        if step > plan["steps"]:
            break
        if minutes is not None and step == PROBE_FROM + 1:
            t_from = time.perf_counter()
        if minutes is not None and step == PROBE_STEPS + 1:
            plan["steps"] = _budget_steps(minutes, t0, t_from, time.perf_counter(), steps)
        if minutes is not None and time.perf_counter() - t0 > minutes * 60 and step < plan["steps"]:
            plan["steps"] = step  # over budget (slow validations): this step is the last
        card["train"]["steps"] = plan["steps"]
        if init is not None:
            freeze_batchnorm(model)  # validate() puts the model back in train mode
        ph, preg, pcol, pside = model(T(x).float())
        loss = focal_loss(ph, T(heat).float(), T(w).float())
        if len(pos):
            b, cy, cx = (T(pos[:, k], np.int64) for k in range(3))
            reg_t = T(pos[:, 3:7])
            loss = loss + torch.nn.functional.l1_loss(preg[b, :2, cy, cx], reg_t[:, :2]) + 0.1 * torch.nn.functional.l1_loss(preg[b, 2:, cy, cx], reg_t[:, 2:])
            loss = loss + torch.nn.functional.cross_entropy(pcol[b, :, cy, cx], T(pos[:, 8], np.int64))
            loss = loss + 0.5 * torch.nn.functional.cross_entropy(pside[b, :, cy, cx], T(pos[:, 9], np.int64))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        lv = loss.item()
        run_loss = lv if run_loss is None else 0.95 * run_loss + 0.05 * lv
        if step % BAR_EVERY == 0 or step == plan["steps"]:
            _bar(step, plan["steps"], t0, run_loss, f"{step * batch / (time.perf_counter() - t0):.0f} img/s")
        if step % val_every == 0 or step == plan["steps"]:
            m = validate(model, views, rects, val_idx, card, valid_hw, scale_of, device)
            history.append({"step": step, "loss": run_loss, **m, "minutes": (time.perf_counter() - t0) / 60})
            sys.stderr.write(f"\n  val @ {step}: recall {m['recall']:.3f} precision {m['precision']:.3f} F1 {m['f1']:.3f} colour+side {m['attr_acc']:.3f}\n")
            draw_curve(out / "detector_val_curve.png", history)
            if m["f1"] > best[0]:
                best = (m["f1"], {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}, step)
                if checkpoint is not None:  # the best weights so far, for a run that may be cut off
                    torch.save({"card": card, "step": step, "state": best[1]}, checkpoint)
    model.load_state_dict(best[1])
    card["train"]["best_step"] = best[2]
    card["train"]["minutes"] = round((time.perf_counter() - t0) / 60, 2)
    card["val"] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in history[[h["step"] for h in history].index(best[2])].items()}
    card["history"] = [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in h.items()} for h in history]
    export(model, out / "detector.onnx", card)
    print(file=sys.stderr)
    return card
