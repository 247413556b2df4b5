"""Harvested looks made from a rendered game and its truth (``truth.json``: the true moves per table change), in
the harvest format (docs/adapt.md): for tests and measurements of ``tablewatch adapt`` where no live game
harvested any. The game's frames go through the ``Observer`` as in a replay; at the end of each table change the
boards read then give one look: their views as the observer read them, its readings, and the game's
``expected_readings`` of the true state for the keys it read.

Owns ``record_looks`` and ``write_look`` (the writer of one look folder).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from assistant.table import game as registry
from assistant.table.observation import Reading
from calibration import camera as cam
from calibration import layout as lay
from models.adapt.looks import FORMAT
from vision.observe import Observer
from vision.sources import FolderSource

JPEG_QUALITY = 95


def value_json(v):
    """A reading value as the harvest stores it: a Pieces count as [[key, n], ...], a tile face or None as is."""
    return [[k, n] for k, n in v] if isinstance(v, tuple) else v


def write_look(folder: Path, game_id: str, number: int, views: dict, readings: dict[str, Reading], expected: dict,
               kinds: dict[str, str], source: str = "explained") -> Path:
    """Write one look (``<folder>/<game>-<number:04d>/``): ``views`` {board: (BGR image, px/mm)}, the readings
    taken, the rules' values (only the keys read are kept) and their region kinds. Returns its folder."""
    import cv2

    out = Path(folder) / f"{game_id}-{number:04d}"
    out.mkdir(parents=True, exist_ok=True)
    boards = {}
    for board, (image, r) in sorted(views.items()):
        cv2.imwrite(str(out / f"{board}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        boards[board] = {"file": f"{board}.jpg", "px_per_mm": float(r)}
    keys = sorted(k for k in expected if k in readings)
    meta = {"format": FORMAT, "source": source, "game": game_id, "look": number,
            "made": datetime.now(timezone.utc).isoformat(timespec="seconds"), "boards": boards,
            "expected": {k: value_json(expected[k]) for k in keys},
            "read": {k: [value_json(readings[k].value), round(float(readings[k].confidence), 4)] for k in keys},
            "kinds": {k: kinds[k] for k in keys}}
    (out / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return out


def record_looks(game_folder, looks_dir, game_id: str | None = None, every: int = 1, limit: int | None = None,
                 transform: Callable[[np.ndarray], np.ndarray] | None = None, progress=None) -> int:
    """Write the looks of a rendered game (a frame folder with ``session.json`` and ``truth.json``) under
    ``looks_dir``: one per ``every``-th legal table change (the set-up first), at most ``limit``; ``transform``
    changes each stored view (a colour cast). Returns how many were written."""
    folder = Path(game_folder)
    meta = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    game = registry.get(meta.get("game", "wendake"))
    ob = Observer([lay.resolve(n) for n in meta["layouts"]], camera=cam.load(folder / meta["camera"]) if meta.get("camera") else None)
    state = game.state_from_json(meta["initial"])
    moves = [game.move_from_json(m) for m in truth["moves"]]
    steps = truth["steps"]
    ends = [steps[i + 1]["frame"] - 1 for i in range(len(steps) - 1)] + [10**9]
    gid = game_id or folder.name.replace("_", "-")
    source = FolderSource(folder)
    frames = iter(source)
    pending, states, written = None, {}, 0
    for i, st in enumerate(steps):
        for m in st["moves"]:
            game.apply(state, moves[m])
        while True:
            f = pending or next(frames, None)
            pending = None
            if f is None or f.index > ends[i]:
                pending = f
                break
            if f.image is not None:
                states = ob.process(f.index, f.t, f.image).boards
        if progress is not None:
            progress(i + 1, len(steps))
        if st.get("injected") or i % every or (limit is not None and written >= limit):
            continue
        boards = [b for b, s in states.items() if s in ("read", "cached") and b in ob.views]
        if not boards:
            continue
        readings = {k: r for b in boards for k, r in ob.cache[b].items()}
        expected = game.expected_readings(state)
        views = {b: ((transform or (lambda im: im))(ob.views[b].image), ob.views[b].px_per_mm) for b in boards}
        write_look(Path(looks_dir), gid, i, views, readings, expected, {k: game.region_kind(k) for k in expected},
                   "setup" if i == 0 else "explained")
        written += 1
    source.close()
    return written
