"""The detector's data set, read from a ``tablewatch synth`` folder: the rectified views of every board in view,
resized to the model's px/mm (cached as one raw file next to the scenes), the labels turned into target arrays, random augmented crops, and
the centre-point targets (Gaussian class heatmaps, offsets, sizes, attribute indices)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from assistant.errors import UserError
from assistant.jsonfile import read_json
from vision.assign import covered_labels
from vision.detect import input_scale

STRIDE = 4


def read_manifest(folder: Path) -> dict:
    path = Path(folder) / "manifest.json"
    man = read_json(path, missing=f"{path} not found: --data must be a folder written by `tablewatch synth`.",
                    fix="Re-run `tablewatch synth`.")
    for key in ("classes", "colours", "sides", "scenes"):
        if key not in man:
            raise UserError(f"{path} lacks {key!r}; it is not a `tablewatch synth` manifest.")
    return man


def scene_targets(rect: dict, px_per_mm: float, man: dict) -> dict:
    """Label arrays of one rectified view at ``px_per_mm``: u, v (input pixels), class / colour / side indices,
    size (mm), and ``ignore`` (occluded or out of the camera view: neither positive nor negative). Pieces under a
    stacked piece (``vision.assign.covered_labels``) are no target: the piece on top is."""
    r0 = float(rect["px_per_mm"])
    under = covered_labels(rect["pieces"], r0)
    cls_i = {c: i for i, c in enumerate(man["classes"])}
    col_i = {c: i for i, c in enumerate(man["colours"])}
    side_i = {c: i for i, c in enumerate(man["sides"])}
    rows = []
    for i, p in enumerate(rect["pieces"]):
        if i in under:
            continue
        mm_x, mm_y = (p["xy"][0] + 0.5) / r0, (p["xy"][1] + 0.5) / r0
        bx = p.get("box") or [0, 0, 0, 0]
        rows.append((mm_x * px_per_mm - 0.5, mm_y * px_per_mm - 0.5, cls_i[p["class"]], col_i.get(p["colour"], len(col_i)),
                     side_i.get(p["side"], len(side_i)) if p["side"] else len(side_i), max(1.0, (bx[2] - bx[0]) / r0),
                     max(1.0, (bx[3] - bx[1]) / r0), float(bool(p.get("occluded")) or not p.get("in_camera_view", True))))
    a = np.array(rows, np.float32).reshape(-1, 8)
    return {"uv": a[:, :2], "cls": a[:, 2].astype(np.int64), "colour": a[:, 3].astype(np.int64), "side": a[:, 4].astype(np.int64),
            "size": a[:, 5:7], "ignore": a[:, 7] > 0}


def scene_views(labels: dict) -> list[dict]:
    """The rectified views of one scene's label file: every board in view (``views``), or the main board alone in
    data sets written before boards other than the map had views."""
    return labels.get("views") or [labels["rectified"]]


def view_scale(scales: dict, rect: dict) -> float:
    """The px/mm the net reads this synth view at (``vision.detect.input_scale`` of the board's size in mm)."""
    h, w = rect["size"][1], rect["size"][0]
    r0 = float(rect["px_per_mm"])
    return input_scale(scales, w / r0, h / r0)


def _load_one(args):
    import cv2

    cv2.setNumThreads(1)
    folder, name, scales = args
    lab = json.loads((Path(folder) / f"{name}.json").read_text(encoding="utf-8"))
    out = []
    for rect in scene_views(lab):
        img = cv2.imread(str(Path(folder) / rect["image"]), cv2.IMREAD_COLOR)
        if img is None:
            raise UserError(f"cannot read {Path(folder) / rect['image']}; re-run `tablewatch synth`.")
        f = view_scale(scales, rect) / float(rect["px_per_mm"])
        h, w = img.shape[:2]
        out.append((cv2.resize(img, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA), rect))
    return out


def scales_tag(scales: dict) -> str:
    small = scales.get("small_boards")
    return f"{scales['px_per_mm']:g}" + (f"-{small['px_per_mm']:g}@{small['max_area_mm2']:g}" if small else "")


def load_views(folder: Path, scales: dict, workers: int = 2, limit: int | None = None):
    """([view images uint8 (H, W, 3)], [their rectified label dicts], [their scene index], manifest).

    ``scales``: ``{"px_per_mm": r, "small_boards": {"max_area_mm2": A, "px_per_mm": r2}}`` (as in the model card);
    each view is resized to the scale the net reads its board at (``view_scale``). All views of all scenes,
    resized once and cached next to the scenes as one raw uint8 file plus an index (``views_<scales>_<n>.u8`` /
    ``.json``), memory-mapped on later runs."""
    folder = Path(folder)
    man = read_manifest(folder)
    n = int(man["scenes"]) if limit is None else min(limit, int(man["scenes"]))
    names = [f"scene_{i:06d}" for i in range(n)]
    missing = [nm for nm in names[:1] + names[-1:] if not (folder / f"{nm}.json").exists()]
    if missing:
        raise UserError(f"{folder} lacks {missing[0]}.json; the synth run did not finish. Re-run `tablewatch synth`.")
    tag = scales_tag(scales)
    raw, index_path = folder / f"views_{tag}_{n}.u8", folder / f"views_{tag}_{n}.json"
    if not (raw.exists() and index_path.exists()):
        jobs = [(str(folder), nm, scales) for nm in names]
        entries = []
        offset = 0
        with open(raw, "wb") as fh:
            if workers > 1:
                import multiprocessing as mp

                with mp.get_context("spawn").Pool(workers) as pool:  # not fork: OpenCV threads of this process may hold a lock a forked child waits on
                    results = pool.imap(_load_one, jobs, chunksize=8)
                    offset = _write_views(fh, results, entries, offset)
            else:
                offset = _write_views(fh, map(_load_one, jobs), entries, offset)
        index_path.write_text(json.dumps(entries), encoding="utf-8")
    entries = json.loads(index_path.read_text(encoding="utf-8"))
    data = np.memmap(raw, np.uint8, mode="r")
    views = [data[e["offset"]:e["offset"] + e["h"] * e["w"] * 3].reshape(e["h"], e["w"], 3) for e in entries]
    return views, [e["rect"] for e in entries], [e["scene"] for e in entries], man


def union_manifest(mans: list[dict]) -> dict:
    """One manifest for several synth folders: their classes, colours and sides, each list in the order first
    met (so the first folder's indices stay as they are)."""
    out = dict(mans[0])
    for key in ("classes", "colours", "sides"):
        seen: list = []
        for m in mans:
            seen += [c for c in m[key] if c not in seen]
        out[key] = seen
    out["scenes"] = sum(int(m["scenes"]) for m in mans)
    return out


def load_sets(folders: list[Path], scales: dict, workers: int = 2, limit: int | None = None):
    """``load_views`` of several synth folders (a Wendake set and an Iwari set, say): (views, rects, the folder
    index of each view, the scene index within its folder, the scene count of each folder, ``union_manifest``)."""
    views, rects, folder_of, scene_of, counts, mans = [], [], [], [], [], []
    for i, folder in enumerate(folders):
        v, r, s, man = load_views(folder, scales, workers=workers, limit=limit)
        views += v
        rects += r
        folder_of += [i] * len(v)
        scene_of += s
        counts.append(int(man["scenes"]) if limit is None else min(limit, int(man["scenes"])))
        mans.append(man)
    return views, rects, folder_of, scene_of, counts, union_manifest(mans)


def _write_views(fh, results, entries: list, offset: int) -> int:
    for scene, loaded in enumerate(results):
        for img, rect in loaded:
            img = np.ascontiguousarray(img)
            fh.write(img.tobytes())
            entries.append({"scene": scene, "offset": offset, "h": img.shape[0], "w": img.shape[1], "rect": rect})
            offset += img.nbytes
    return offset


def gaussian_targets(t: dict, shape_hw: tuple[int, int], n_classes: int, sigma: float = 1.0):
    """Targets on the stride-4 grid of an input of ``shape_hw``: heat (C, h, w), weight (h, w) (0 near ignored
    pieces), and index arrays (cell y, cell x, offset x, y, log w, h, class, colour, side) for the positives."""
    H, W = shape_hw
    h, w = H // STRIDE, W // STRIDE
    heat = np.zeros((n_classes, h, w), np.float32)
    weight = np.ones((h, w), np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pos = []
    rad = int(math.ceil(3 * sigma))
    for k in range(len(t["cls"])):
        cx, cy = t["uv"][k] / STRIDE
        ix, iy = int(math.floor(cx)), int(math.floor(cy))
        if not (0 <= ix < w and 0 <= iy < h):
            continue
        y0, y1, x0, x1 = max(0, iy - rad), min(h, iy + rad + 1), max(0, ix - rad), min(w, ix + rad + 1)
        if t["ignore"][k]:
            weight[y0:y1, x0:x1] = 0.0
            continue
        g = np.exp(-((xs[y0:y1, x0:x1] - ix) ** 2 + (ys[y0:y1, x0:x1] - iy) ** 2) / (2 * sigma * sigma))
        c = t["cls"][k]
        np.maximum(heat[c, y0:y1, x0:x1], g, out=heat[c, y0:y1, x0:x1])
        pos.append((iy, ix, cx - ix, cy - iy, math.log(t["size"][k][0]), math.log(t["size"][k][1]), c, t["colour"][k], t["side"][k]))
    weight = np.maximum(weight, heat.max(axis=0))  # a positive cell is never ignored
    return heat, weight, np.array(pos, np.float32).reshape(-1, 9)


def transform(t: dict, M: np.ndarray, keep_hw: tuple[int, int]) -> dict:
    """Labels moved by the 2×3 affine M (input pixel coordinates); pieces outside the crop dropped."""
    uv = t["uv"] @ M[:, :2].T + M[:, 2]
    H, W = keep_hw
    ok = (uv[:, 0] > -0.5) & (uv[:, 1] > -0.5) & (uv[:, 0] < W - 0.5) & (uv[:, 1] < H - 0.5)
    out = {k: v[ok] for k, v in t.items() if k != "uv"}
    out["uv"] = uv[ok]  # sizes stay in mm: the ±8 % scale jitter is treated as noise around the nominal px/mm
    return out


def random_crop(img: np.ndarray, t: dict, crop: int, rng: np.random.Generator, valid_hw: tuple[int, int]):
    """An augmented crop: random place, flips / quarter turns, ±8 % scale, brightness, contrast and noise."""
    import cv2

    Hv, Wv = valid_hw
    s = float(rng.uniform(0.92, 1.08))
    k = int(rng.integers(0, 4))
    flip = bool(rng.random() < 0.5)
    # source centre of the crop
    def centre(extent: float) -> float:  # a board narrower than the crop (a score track) sits anywhere inside it
        lo, hi = crop / 2 / s - 20, extent - crop / 2 / s + 20
        return float(rng.uniform(min(lo, hi), max(lo, hi)))

    cx, cy = centre(Wv), centre(Hv)
    ang = k * 90.0
    M = cv2.getRotationMatrix2D((float(cx), float(cy)), ang, s)
    M[:, 2] += np.array([crop / 2 - cx, crop / 2 - cy])
    if flip:
        M = np.array([[-1, 0, crop - 1], [0, 1, 0]], np.float64) @ np.vstack([M, [0, 0, 1]])
    out = cv2.warpAffine(img, M, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    tt = transform(t, M.astype(np.float32), (crop, crop))
    o = out.astype(np.float32)
    o = (o - 128.0) * rng.uniform(0.75, 1.25) + 128.0 + rng.uniform(-35, 35)
    o *= rng.uniform(0.9, 1.1, 3).astype(np.float32)  # white-balance drift
    if rng.random() < 0.5:
        o += rng.normal(0, rng.uniform(1, 6), o.shape).astype(np.float32)
    return np.clip(o, 0, 255), tt
