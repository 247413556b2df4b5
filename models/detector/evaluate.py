"""``tablewatch eval detector``: render a fresh held-out set and score a committed detector on it.

Held-out = new seeds, and harder than training: each rectified view gets a stronger, uneven light (exposure
×1.15–1.6 with a hot spot, so pale colours wash out) and, on half the scenes, extra occluders (finger-like skin
capsules and dark cards) painted over it; pieces whose base centre is under an occluder count as hidden, like
pieces under the generator's hands. The pieces scored are those the live pipeline reads (``read_pieces``: the
detector at each board's input scale plus the corrections of ``vision.observe``); a disk lying under another disk
is neither a target nor a decision (no camera sees it; the tracker knows it from history). Prints per-class
recall / precision (matched within 8 mm), per-region accuracy after assignment to the layout (``vision.assign``;
regions a hand or an occluder covers are left out) and whole-board exact: the share of scenes with no wrong
decision on any board free of hands and occluders.
Every board in view is scored (map, village boards, score tracks, mask board); tile slots are read by
``vision.tiles``, grey-side women and hunters read again by ``vision.tokens``, resource spaces counted by
``vision.counts`` (``--counter none``: by the detector alone). ``--family familiar | foreign`` renders the scenes
with table looks from that pool (``models.synth.families``; the foreign pool is the held-out one, docs/foreign-set.md),
the same seeds and positions as the classic set. Runtime path only (onnxruntime)."""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from assistant.errors import UserError
from calibration.layout import load_builtin
from models.detector.data import view_scale
from models.detector.metrics import Tally, gt_from_rect, preds_from_pieces
from models.synth.writer import make_scene
from vision.assign import RegionIndex, covered, detected_decisions, fit_classes, label_decisions, region_pieces
from vision.counts import Counter, counted_kinds, counted_pieces, read_counts
from vision.detect import Detections, Detector
from vision.locate import view_matrix
from vision.observe import colour_grey_pieces, merge_tall_duplicates
from vision.tiles import read_tiles
from vision.tokens import READ_SIDES, load_default, reread_tokens


def harden(view: np.ndarray, rng: np.random.Generator, px_per_mm: float, occlude: bool):
    """Stronger light and extra occluders on a rectified view; returns (view, occluder mask)."""
    import cv2

    h, w = view.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    sig = rng.uniform(0.3, 0.7) * max(w, h)
    field = rng.uniform(1.15, 1.6) * (0.8 + 0.35 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sig * sig)))
    out = view.astype(np.float32) * field[..., None]
    mask = np.zeros((h, w), np.uint8)
    if occlude:
        for _ in range(int(rng.integers(1, 4))):
            if rng.random() < 0.6:  # a finger / thumb from an edge
                side = int(rng.integers(0, 4))
                t = rng.uniform(0.1, 0.9)
                a = [(t * w, -10), (t * w, h + 10), (-10, t * h), (w + 10, t * h)][side]
                length = rng.uniform(60, 160) * px_per_mm
                ang = [np.pi / 2, -np.pi / 2, 0.0, np.pi][side] + rng.uniform(-0.6, 0.6)
                b = (a[0] + np.cos(ang) * length, a[1] + np.sin(ang) * length)
                cv2.line(mask, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 255, int(rng.uniform(16, 22) * px_per_mm), cv2.LINE_AA)
            else:  # a card lying on the board
                c = (rng.uniform(0, w), rng.uniform(0, h))
                box = cv2.boxPoints((c, (rng.uniform(40, 65) * px_per_mm, rng.uniform(60, 90) * px_per_mm), rng.uniform(0, 180)))
                cv2.fillConvexPoly(mask, np.int32(box), 255, cv2.LINE_AA)
        colour = np.array([rng.uniform(90, 150), rng.uniform(120, 170), rng.uniform(170, 230)], np.float32) if rng.random() < 0.7 \
            else rng.uniform(20, 200, 3).astype(np.float32)
        m = cv2.GaussianBlur(mask, (5, 5), 0).astype(np.float32)[..., None] / 255.0
        out = out * (1 - m) + colour * field[..., None] * m
    return np.clip(out, 0, 255).astype(np.uint8), mask


_LAYOUTS: dict[str, dict] = {}


def _layout(name: str) -> dict:
    if name not in _LAYOUTS:
        _LAYOUTS[name] = load_builtin(name)
    return _LAYOUTS[name]


def _render(args):
    import cv2

    cv2.setNumThreads(1)

    seed, index, players, scales, hard, progress_tiles, family, game = args
    sc = make_scene(seed, index, players, (1280, 960), 4.0, progress_tiles=progress_tiles, family=family, game=game)
    lab = sc["labels"]
    rng = np.random.default_rng([seed, index, 0xE7A1])
    out = []
    for rect in lab["views"]:  # the map first, then every other board in view
        native = cv2.imdecode(np.frombuffer(sc["view_jpegs"][rect["image"]], np.uint8), cv2.IMREAD_COLOR)
        r0 = float(rect["px_per_mm"])
        outside = (native.max(axis=2) == 0).astype(np.uint8)  # beyond the camera's view: black in the rectified image
        mask = np.zeros(native.shape[:2], np.uint8)
        if hard:
            native, mask = harden(native, rng, r0, occlude=bool(rng.random() < 0.5))
        px_per_mm = view_scale(scales, rect)  # the scale the net reads this board at
        f = px_per_mm / r0
        size = (round(native.shape[1] * f), round(native.shape[0] * f))
        view = cv2.resize(native, size, interpolation=cv2.INTER_AREA)
        mask, outside = (cv2.resize(m, size, interpolation=cv2.INTER_NEAREST) for m in (mask, outside))
        board = next(b for b in lab["boards"] if b["board"] == rect["board"])
        tiles = None
        if board.get("tiles") is not None and any(r.get("kind") == "tile_slot" for r in _layout(rect["board"])["regions"]):
            truth = {t["slot"]: f"{t['tile']}:{t['side']}" for t in board["tiles"]}
            tiles = (truth, native, r0)  # tiles are read at the view's own scale, once the pieces on them are known
        # grey tokens are read again from the view's own scale too (a village board's Long House), and resource
        # spaces counted there (``vision.counts``)
        close = (native, r0) if any(r.get("kind") in ("long_house", "resource_space") for r in _layout(rect["board"])["regions"]) else None
        out.append((view, px_per_mm, rect, board.get("hand_regions") or [], mask, outside, tiles, close))
    return out


def region_kind(board: str, rid: str, idx) -> str:
    """A readable decision kind for the per-kind breakdown: map territories, homes, lakes and productive areas;
    on other boards the board family and the layout's region kind (village long_house, scores score_space ...)."""
    family = board.split("-")[1] if board.count("-") else board
    if family == "map":
        if rid in idx.occupied_ids:
            return "map productive-area occupant"
        return {"T": "map territory guards", "H": "map home guards", "L": "map lake canoes"}.get(rid[0], f"map {rid}")
    kind = next((r.get("kind", "?") for r in idx.layout["regions"] if r["id"] == rid), "?")
    return f"{family} {kind}"


def read_pieces(det, view, r: float, index, close=None) -> Detections:
    """The pieces the live pipeline reads on a view (``index``: its board's ``vision.assign.RegionIndex``): the
    detector's, each with a class its region can hold, a standing warrior seen twice merged, grey-side pieces on
    a one-player board given its owner's colour and grey-side women and hunters read again from their printed face
    in ``close`` ((the view at a finer scale, its px/mm), when given) (``vision.observe``'s corrections)."""
    thr = float(det.card.get("threshold", 0.3))
    dets = fit_classes(det.detect(view, r, threshold=thr), index.region_of, index.kind, region_pieces(index.layout.get("game")),
                       det.card["classes"])
    pieces = colour_grey_pieces(merge_tall_duplicates(dets.above(thr)), thr)[0]
    if close is not None:
        fine, s = close
        pieces = reread_tokens(load_default(), fine, view_matrix(s), pieces, READ_SIDES)[0]  # the fine view is the image here
    return pieces


def counted_decisions(got: dict, counter, layout: dict, close) -> None:
    """Resource spaces' decisions as the live pipeline makes them (``vision.counts.counted_reading``): the
    counter's count of the space's piece in place of the detector's, other resources the detector saw there
    dropped, other pieces kept."""
    view, r = close
    kinds = counted_kinds(layout, counter)
    for rid, read in read_counts(view, r, layout, counter).items():
        counts = counted_pieces(dict(got.get(rid) or ()), read, counter.max_count, kinds, (read.piece, "none", ""), lambda k: k[0])
        got[rid] = tuple(sorted(counts.items()))


def evaluate(model: str, n: int, seed: int, workers: int, players: int, hard: bool = True, counter: str | None = "counter",
             progress_tiles: bool = False, family: str | None = None, game: str = "wendake") -> int:
    import multiprocessing as mp

    pool = mp.get_context("spawn").Pool(workers)  # fresh renderers: no onnxruntime or torch state forked into them
    try:
        det = Detector(model, threads=2)
    except UserError:
        pool.terminate()
        raise
    train_seed = det.card.get("train", {}).get("data_seed")
    if train_seed is not None and int(train_seed) == seed:
        pool.terminate()
        raise UserError(f"--seed {seed} is the seed of the training data; choose another seed for a held-out set.")
    scales = {k: det.card[k] for k in ("px_per_mm", "small_boards") if k in det.card}
    if counter is not None:
        try:
            counter = Counter.load(counter, threads=2)
        except UserError as exc:
            print(f"note: resource spaces are scored on the detector's count: {exc}")
            counter = None
    tally = Tally(det.card["classes"], 8.0)
    indexes: dict[str, RegionIndex] = {}
    reg_ok = reg_n = 0
    reg_kind_ok: dict[str, list[int]] = {}
    exact_ok = exact_n = exact_tiles_ok = 0
    piece_ok = piece_n = 0
    net_ms = []
    jobs = [(seed, i, players, scales, hard, progress_tiles, family, game) for i in range(n)]
    t0 = time.perf_counter()

    def score(views, k):
        nonlocal exact_ok, exact_n, exact_tiles_ok
        wrong = wrong_tiles = 0
        clean = False  # the scene counts if some board in view has no hand or occluder on it; only those boards are judged
        for res in views:
            w, wt, c = score_view(*res)
            if c:
                wrong += w
                wrong_tiles += wt
                clean = True
        if clean:
            exact_n += 1
            exact_ok += wrong == 0
            exact_tiles_ok += wrong == 0 and wrong_tiles == 0
        sys.stderr.write(f"\r{k}/{n} scenes  {k / (time.perf_counter() - t0):.1f}/s ")
        sys.stderr.flush()

    def score_view(view, r, rect, hand_regions, mask, outside, tiles, close):
        """(wrong decisions, whether the board was free of hands and occluders) for one board view."""
        nonlocal reg_ok, reg_n, piece_ok, piece_n
        wrong_tiles = 0
        if rect["board"] not in indexes:
            indexes[rect["board"]] = RegionIndex(load_builtin(rect["board"]))
        idx = indexes[rect["board"]]
        t1 = time.perf_counter()
        pieces = read_pieces(det, view, r, idx, close)
        net_ms.append(1000 * (time.perf_counter() - t1))
        gts = gt_from_rect(rect)
        for g in gts:  # hidden by an added occluder
            u, v = int(round(g["x"] * r - 0.5)), int(round(g["y"] * r - 0.5))
            if 0 <= v < mask.shape[0] and 0 <= u < mask.shape[1] and mask[v, u]:
                g["ignore"] = True
        tally.add(preds_from_pieces(pieces), gts)
        hidden = set(hand_regions)
        for rid, (x, y) in idx.centres.items():
            u, v = int(round(x * r - 0.5)), int(round(y * r - 0.5))
            if 0 <= v < mask.shape[0] and 0 <= u < mask.shape[1] and (mask[v, u] or outside[v, u]):
                hidden.add(rid)
            elif not (0 <= v < mask.shape[0] and 0 <= u < mask.shape[1]):
                hidden.add(rid)
        hidden |= {g["region"] for g in gts if g["ignore"] and g.get("region")}
        hidden = covered(idx, hidden)
        truth = label_decisions(idx, rect["pieces"], float(rect["px_per_mm"]))
        got = detected_decisions(idx, pieces)
        if counter is not None and close is not None:
            counted_decisions(got, counter, idx.layout, close)
        wrong = 0
        for rid, val in truth.items():
            if rid in hidden:
                continue
            ok = got.get(rid) == val
            reg_n += 1
            reg_ok += ok
            piece_n += 1
            piece_ok += ok
            wrong += not ok
            kind = region_kind(rect["board"], rid, idx)
            reg_kind_ok.setdefault(kind, [0, 0])
            reg_kind_ok[kind][0] += ok
            reg_kind_ok[kind][1] += 1
        if tiles is not None:  # each tile slot's tile and side is one decision

            truth_tiles, native, r0 = tiles
            read = read_tiles(native, r0, idx.layout, pieces=[(p.x_mm, p.y_mm) for p in pieces])  # as the pipeline
            for rid, (val, _conf, _others) in read.items():
                progress = rid.startswith("progress.")
                if rid in hidden or progress and not progress_tiles:  # bare spaces only: no decision worth counting
                    continue
                want = truth_tiles.get(rid)
                if progress:  # a bought progress tile (or none): its name, or what always shows
                    checks = (("progress tile (identity + side)", val == want),
                              ("progress tile presence + level", (val or "")[:2] == (want or "")[:2]))
                else:
                    checks = (("village tile (identity + side)", val == want),
                              ("village tile side only", (val or "").split(":")[-1] == (want or "").split(":")[-1]))
                for kind, ok in checks:
                    reg_kind_ok.setdefault(kind, [0, 0])
                    reg_kind_ok[kind][0] += ok
                    reg_kind_ok[kind][1] += 1
                ok = val == want
                reg_n += 1
                reg_ok += ok
                wrong_tiles += not ok
        return wrong, wrong_tiles, not hand_regions and not mask.any()

    with pool:
        for k, views in enumerate(pool.imap(_render, jobs, chunksize=2), 1):
            score(views, k)
    sys.stderr.write("\n")
    tot = tally.totals()
    small = scales.get("small_boards")
    print(f"detector {det.path.name} on {n} held-out scenes (seed {seed}, {players} players, {'hard' if hard else 'easy'}, "
          f"{family or 'classic'} tables), "
          f"input {scales['px_per_mm']:g} px/mm" + (f" (boards up to {small['max_area_mm2'] / 1e6:g} m²: {small['px_per_mm']:g} px/mm)" if small else "")
          + ", match radius 8 mm")
    print(f"{'class':18s} {'n':>6s} {'recall':>8s} {'precision':>10s}")
    for c, cnt, rec, prec in tally.per_class():
        print(f"{c:18s} {cnt:6d} {rec:8.4f} {prec:10.4f}")
    print(f"{'all':18s} {tot['tp'] + tot['fn']:6d} {tot['recall']:8.4f} {tot['precision']:10.4f}   colour+side correct on matches: {tot['attr_acc']:.4f}")
    print(f"per-region accuracy: {reg_ok / max(1, reg_n):.4f} ({reg_ok}/{reg_n} decisions incl. tile slots, covered regions left out)")
    print(f"per-region accuracy, pieces only: {piece_ok / max(1, piece_n):.4f} ({piece_ok}/{piece_n})")
    for kind, (ok, cnt) in sorted(reg_kind_ok.items()):
        print(f"  {kind:28s} {ok / cnt:.4f} ({ok}/{cnt})")
    print(f"whole-board exact, pieces: {exact_ok / max(1, exact_n):.4f} ({exact_ok}/{exact_n} scenes; judged on their boards with no hand or occluder)")
    print(f"whole-board exact, pieces and tiles: {exact_tiles_ok / max(1, exact_n):.4f} ({exact_tiles_ok}/{exact_n})")
    print(f"net + decode: {np.median(net_ms):.1f} ms/view median (2 threads, while rendering runs beside it)")
    summary = {"family": family or "classic", "recall": tot["recall"], "precision": tot["precision"], "region_acc": reg_ok / max(1, reg_n), "region_acc_pieces": piece_ok / max(1, piece_n), "exact": exact_ok / max(1, exact_n),
               "exact_with_tiles": exact_tiles_ok / max(1, exact_n)}
    print("summary " + json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in summary.items()}))
    return 0
