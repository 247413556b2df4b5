"""Training crops for the resource counter: rendered tables (``models.synth``) cut into resource-space crops.

Each scene is a random game position (``models.synth.wendake.random_position``) whose resource and beaver counts
are redrawn for half of the players, uniformly in 0..``REDRAW_MAX``: a random game seldom holds more than four of
a kind, and the counter has to see piles too. The table is rendered with the generator's full randomisation, the
JPEG decoded, each village board that is in view rectified at ``vision.counts.COUNT_PX_PER_MM`` and each of its
resource spaces cut out (``vision.counts.space_crop``). The label is the number of pieces whose base lies on the
space. A crop is left out when a hand covers any of its pieces or any of it lies outside the camera's view (the
live pipeline reads neither). Scene i uses its own generator seeded from (seed, i).

``families``: the table looks the scenes take in turn (scene i the ``i % len(families)``-th): ``classic`` (no
look: the generator's classic scene) or a mode of ``models.synth.families`` (``familiar``, ``randomised``, or
``foreign`` for measuring only), its look drawn as ``tablewatch synth --family`` draws it.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from models.synth import scene as S
from models.synth import wendake as WK
from models.synth.families import MODES
from models.synth.writer import scene_look
from vision.counts import COUNT_PX_PER_MM, count_regions, crop_box_mm, space_crop

REDRAW_MAX = 14
# the most pieces of a class the crops are drawn with, where that is fewer than REDRAW_MAX (the card's
# ``trained_max``: a count there is a lower bound, ``assistant.table.observation.COUNT_BOUND_CONFIDENCE``)
TRAINED_MAX = {"beaver": REDRAW_MAX // 2}
SIZES = ((1280, 960), (2304, 1296), (1920, 1080))  # camera images: the synth default, the e2e recordings, full HD
CLASSIC = "classic"
FAMILIES = (CLASSIC, *MODES)


def check_families(families) -> tuple[str, ...]:
    """``families`` as a tuple, each one of ``FAMILIES`` (ValueError otherwise)."""
    out = tuple(families)
    bad = [f for f in out if f not in FAMILIES]
    if not out or bad:
        raise ValueError(f"counter families must be among {', '.join(FAMILIES)} (got {', '.join(out) or 'none'})")
    return out


def scene_crops(seed: int, index: int, size_px: int, family: str = CLASSIC) -> list[tuple[np.ndarray, int, str]]:
    """[(crop (size_px, size_px, 3) uint8, count, region id)] of one scene in ``family`` (``FAMILIES``)."""
    import cv2

    look = None if family == CLASSIC else scene_look(seed, index, family)
    rng = np.random.default_rng([int(seed), int(index), 0xC0DE])
    state, _, _ = WK.random_position(int(rng.integers(2, 5)), rng)
    for p in state.players:
        if rng.random() < 0.5:
            for res in p.resources:
                p.resources[res] = int(rng.integers(0, REDRAW_MAX + 1))
            p.beavers = int(rng.integers(0, TRAINED_MAX["beaver"] + 1))
    main, boards = WK.table_for(state, rng)
    size = SIZES[int(rng.integers(0, len(SIZES)))]
    out = S.render(boards, main, rng, size, 1.0, True, look=look)
    jpeg_range = look.camera["jpeg"] if look is not None else (60, 96)
    ok, jpeg = cv2.imencode(".jpg", out["image"], [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*jpeg_range))])
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    hand = out["hand_mask"]
    labels = out["labels"]["pieces"]
    crops = []
    for b in boards:
        spaces = count_regions(b.layout)
        if not spaces:
            continue
        view = S.rectify(decoded, out["camera"], b, COUNT_PX_PER_MM)
        hand_view = S.rectify(np.repeat(hand[..., None], 3, 2), out["camera"], b, COUNT_PX_PER_MM)[..., 0]
        on_board = [lab for lab in labels if lab["board"] == b.name]
        for r in spaces:
            mine = [lab for lab in on_board if lab["region"] == r["id"]]
            if any(lab["occluded"] or not lab["in_view"] for lab in mine):
                continue
            crop = space_crop(view, COUNT_PX_PER_MM, r["polygon"], size_px)
            if (crop.max(axis=2) == 0).mean() > 0.002:  # partly outside the camera's view
                continue
            x0, y0, x1, y1 = (int(round(v * COUNT_PX_PER_MM)) for v in crop_box_mm(r["polygon"]))
            if (hand_view[max(0, y0):y1, max(0, x0):x1] > 0).mean() > 0.02:
                continue
            crops.append((crop, len(mine), r["id"]))
    return crops


def _work(args):
    import cv2

    cv2.setNumThreads(1)
    return scene_crops(*args)


def generate(n: int, seed: int, size_px: int, workers: int = 2, progress: bool = True, families=(CLASSIC,)) -> dict:
    """Crops of n scenes, their looks taking ``families`` in turn: {"x": (N, s, s, 3) uint8, "count": (N,) int16,
    "scene": (N,) int32, "region": [str], "families": tuple}."""
    import multiprocessing as mp
    import os

    families = check_families(families)
    jobs = [(seed, i, size_px, families[i % len(families)]) for i in range(n)]
    xs, counts, scenes, regions = [], [], [], []
    t0 = time.perf_counter()

    def take(i, result):
        for crop, c, rid in result:
            xs.append(crop)
            counts.append(c)
            scenes.append(i)
            regions.append(rid)
        if progress:
            el = time.perf_counter() - t0
            eta = el / (i + 1) * (n - i - 1)
            sys.stderr.write(f"\r[{'#' * int(30 * (i + 1) / n)}{'.' * (30 - int(30 * (i + 1) / n))}] {i + 1}/{n} scenes  "
                             f"{len(xs)} crops  eta {eta / 60:.1f} min ")
            sys.stderr.flush()

    if workers > 1:
        with mp.get_context("fork" if hasattr(os, "fork") else "spawn").Pool(workers) as pool:
            for i, result in enumerate(pool.imap(_work, jobs, chunksize=2)):
                take(i, result)
    else:
        for i, job in enumerate(jobs):
            take(i, _work(job))
    if progress:
        sys.stderr.write("\n")
    return {"x": np.stack(xs) if xs else np.zeros((0, size_px, size_px, 3), np.uint8), "count": np.array(counts, np.int16),
            "scene": np.array(scenes, np.int32), "region": regions, "families": families, "seconds": time.perf_counter() - t0}
