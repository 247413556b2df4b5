"""The data-set writer: N seeded scenes of a game (Wendake or Iwari) -> JPEG images, rectified main-board views, one
JSON label file each, and ``manifest.json``. Scene i uses its own generator seeded from (seed, i), so output does not depend on the number
of worker processes. ``family`` ("familiar" | "foreign", ``models.synth.families``) draws each scene's table look
from that pool (from its own generator, seeded from (seed, i) too); None renders the classic scene, draw for draw
as before families existed."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from models.synth import CLASSES, COLOURS, FORMAT
from models.synth import iwari as IW
from models.synth import scene as S
from models.synth import wendake as WK
from models.synth.families import draw_look

DEFAULT_RECT_PX_PER_MM = 4.0
SIDE_RECT_PX_PER_MM = 2.0  # village, score and mask boards: smaller pieces need no more for a 1 px/mm detector


def scene_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), int(index), 0x5EED])


def scene_look(seed: int, index: int, family: str | None):
    """The table look of scene ``index`` in ``family`` mode (None: no look, the classic scene)."""
    return None if family is None else draw_look(np.random.default_rng([int(seed), int(index), 0xFA4]), family)


GAMES = ("wendake", "iwari")


def make_scene(seed: int, index: int, players: int, size: tuple[int, int], rect_px_per_mm: float = DEFAULT_RECT_PX_PER_MM,
               effects_on: bool = True, progress_tiles: bool = False, family: str | None = None, game: str = "wendake") -> dict:
    """Render scene ``index`` of ``game`` (``GAMES``: its position and boards from ``models.synth.wendake`` or
    ``models.synth.iwari``): {"jpeg": bytes, "rect_jpeg": bytes, "labels": dict, plus the arrays for tests}."""
    import cv2

    rng = scene_rng(seed, index)
    look = scene_look(seed, index, family)
    style = look.pieces if look is not None else None
    if game == "iwari":
        state, move_index, game_seed = IW.random_position(players, rng)
        main, boards = IW.table_for(state, rng)
        out = S.render(boards, main, rng, size, rect_px_per_mm, effects_on, look=look, extra_colours=IW.extra_colours())
        info = IW.game_info(state, move_index, game_seed)
    else:
        state, move_index, game_seed = WK.random_position(players, rng)
        main, boards = WK.table_for(state, rng, progress_tiles=progress_tiles)
        out = S.render(boards, main, rng, size, rect_px_per_mm, effects_on, look=look)
        info = WK.game_info(state, move_index, game_seed)
    jpeg_range = look.camera["jpeg"] if look is not None else (60, 96)
    quality = int(rng.integers(*jpeg_range)) if effects_on else 95
    ok, jpeg = cv2.imencode(".jpg", out["image"], [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    mainb = next(b for b in boards if b.name == main)
    rect = S.rectify(decoded, out["camera"], mainb, rect_px_per_mm)
    ok2, rect_jpeg = cv2.imencode(".jpg", rect, [cv2.IMWRITE_JPEG_QUALITY, 92])
    name = f"scene_{index:06d}"
    labels = out["labels"]
    labels["effects"]["jpeg_quality"] = quality
    labels = {"format": FORMAT, "scene": name, "seed": seed, "index": index, "image": f"{name}.jpg", **{k: v for k, v in labels.items() if k != "format"}}
    labels["game"] = info
    labels["family"] = family
    rh, rw = rect.shape[:2]
    labels["rectified"] = {"board": main, "image": f"{name}_{main}.jpg", "px_per_mm": rect_px_per_mm, "size": [rw, rh],
                           "pieces": S.rectified_labels(labels["pieces"], out["camera"], mainb, rect_px_per_mm, (rw, rh), style)}
    # every other board that is mostly in view gets its own rectified view (village, score tracks, mask board)
    views, view_jpegs = [labels["rectified"]], {labels["rectified"]["image"]: rect_jpeg.tobytes()}
    side_r = min(rect_px_per_mm, SIDE_RECT_PX_PER_MM)
    for b in boards:
        if b.name == main or not b.pieces or not _mostly_in_view(labels["pieces"], b.name):
            continue
        img = S.rectify(decoded, out["camera"], b, side_r)
        h, w = img.shape[:2]
        entry = {"board": b.name, "image": f"{name}_{b.name}.jpg", "px_per_mm": side_r, "size": [w, h],
                 "pieces": S.rectified_labels(labels["pieces"], out["camera"], b, side_r, (w, h), style)}
        views.append(entry)
        view_jpegs[entry["image"]] = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
    labels["views"] = views
    return {"name": name, "jpeg": jpeg.tobytes(), "rect_jpeg": rect_jpeg.tobytes(), "view_jpegs": view_jpegs, "labels": labels,
            "image": out["image"], "rectified": rect, "hand_mask": out["hand_mask"], "boards": boards, "state": state}


def _mostly_in_view(piece_labels: list[dict], board: str, share: float = 0.6) -> bool:
    on = [p for p in piece_labels if p["board"] == board]
    return bool(on) and sum(bool(p["in_view"]) for p in on) >= share * len(on)


def _work(args):
    seed, index, players, size, rect, progress_tiles, family, game = args
    sc = make_scene(seed, index, players, size, rect, progress_tiles=progress_tiles, family=family, game=game)
    return sc["name"], sc["jpeg"], sc["view_jpegs"], sc["labels"]


def _one_thread() -> None:
    """Worker processes already fill the cores: OpenCV's own threads would only fight over them."""
    import cv2

    cv2.setNumThreads(1)


def manifest(n: int, seed: int, players: int, size, rect_px_per_mm: float, progress_tiles: bool = False, family: str | None = None,
             game: str = "wendake") -> dict:
    """The data set's manifest; an Iwari set names its game and lists its own classes and colours, and no sides."""
    if game == "iwari":
        return {"format": FORMAT, "game": game, "classes": list(IW.CLASSES), "colours": list(IW.colours()), "sides": [],
                "scenes": n, "seed": seed, "players": players, "size": list(size), "rectified_px_per_mm": rect_px_per_mm,
                "family": family, "docs": "docs/synth.md"}
    return {"format": FORMAT, "classes": list(CLASSES), "colours": list(COLOURS), "sides": ["colour", "grey"],
            "scenes": n, "seed": seed, "players": players, "size": list(size), "rectified_px_per_mm": rect_px_per_mm,
            "progress_tiles": progress_tiles, "family": family, "docs": "docs/synth.md"}


def generate(n: int, seed: int, out: Path, players: int = 4, size=(1280, 960), rect_px_per_mm: float = DEFAULT_RECT_PX_PER_MM,
             workers: int = 1, progress: bool = True, progress_tiles: bool = False, family: str | None = None,
             game: str = "wendake") -> dict:
    """Write n scenes and the manifest into ``out`` (``progress_tiles``: ``models.synth.wendake.table_for``;
    ``family``, ``game``: ``make_scene``). Returns timing figures."""
    out = Path(out)
    jobs = [(seed, i, players, tuple(size), rect_px_per_mm, progress_tiles, family, game) for i in range(n)]
    t0 = time.perf_counter()

    def save(result, done):
        name, jpeg, view_jpegs, labels = result
        (out / f"{name}.jpg").write_bytes(jpeg)
        for image_name, data in view_jpegs.items():
            (out / image_name).write_bytes(data)
        (out / f"{name}.json").write_text(json.dumps(labels, separators=(",", ":"), default=_json_default), encoding="utf-8")
        if progress:
            _bar(done, n, time.perf_counter() - t0)

    if workers > 1:
        import multiprocessing as mp

        with mp.get_context("fork" if hasattr(os, "fork") else "spawn").Pool(workers, initializer=_one_thread) as pool:
            for k, result in enumerate(pool.imap(_work, jobs, chunksize=2), 1):
                save(result, k)
    else:
        for k, job in enumerate(jobs, 1):
            save(_work(job), k)
    (out / "manifest.json").write_text(json.dumps(manifest(n, seed, players, size, rect_px_per_mm, progress_tiles, family, game), indent=1), encoding="utf-8")
    dt = time.perf_counter() - t0
    if progress:
        print(file=sys.stderr)
    return {"scenes": n, "seconds": dt, "scenes_per_s": n / dt if dt > 0 else float("inf")}


def _bar(done: int, total: int, elapsed: float) -> None:
    width = 30
    fill = int(width * done / total)
    rate = done / elapsed if elapsed > 0 else 0.0
    eta = (total - done) / rate if rate > 0 else 0.0
    sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} scenes  {rate:.1f}/s  eta {eta:.0f}s ")
    sys.stderr.flush()


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"cannot write {type(o).__name__} to JSON")
